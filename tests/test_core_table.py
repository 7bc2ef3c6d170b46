"""The compiled core's ``Table`` against the Python engine it is ported from: every registered
game, every player count, random games played side by side, the whole state, every seat's
observation, the legal actions and every round's end equal at every step."""

from __future__ import annotations

import random

import numpy as np
import pytest

import rummy_env
from rummy_env.backend import seed_words
from rummy_env.actions import ActionKind
from rummy_env.table import compiled_table, table_arguments
from rummy_env.state import GameState, Phase

GAMES = list(rummy_env.GAMES)
SWEEP = [2, 4]
"""Games per case; the slow run's 4 compare the whole state and every seat's observation at
each step, beside the batch's million-step sweep (tests/test_vector.py), which compares the seat
to act's view."""
CASES = [pytest.param(game, n, games, id=f"{game}-{n}-{games}", marks=[pytest.mark.slow] if slow else [])
         for game in GAMES for n in rummy_env.GAMES[game].player_counts
         for games, slow in ((SWEEP[0], False), (SWEEP[1], True))
         if slow or n in rummy_env.GAMES[game].player_counts[::len(rummy_env.GAMES[game].player_counts) - 1]]
"""Each game's fewest and most players in the fast suite, every count in the slow one."""
NOT_PLAYS = {ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD, ActionKind.DEEP_DRAW, ActionKind.DISCARD,
             ActionKind.BUY, ActionKind.PASS}


def python_state(state: GameState) -> dict:
    """The Python engine's state in the compiled table's terms."""
    table = [(t.owner, t.meld.kind == "set", list(t.meld.naturals), t.meld.wilds, t.meld.rank, t.meld.suit,
              t.meld.low, t.meld.high, list(t.cards)) for t in state.table]
    return {"round": state.round, "dealer": state.dealer, "current": state.current, "phase": int(state.phase),
            "hands": [list(h) for h in state.hands], "known": [list(k) for k in state.known],
            "hand_sizes": state.hand_sizes, "stock": state.stock, "discard": state.discard,
            "discard_seats": state.discard_seats, "discard_counts": list(state.discard_counts),
            "scores": state.scores, "round_penalties": state.round_penalties, "taken_face": state.taken_face,
            "went_out": state.went_out, "last_turns_left": state.last_turns_left, "turns": state.turns,
            "table": table, "rng": list(state.rng.getstate()[1]), "down_turn": state.down_turn, "buys": state.buys,
            "contract_left": state.contract_left, "must_place": state.must_place, "wilds_owed": state.wilds_owed,
            "wilds_to_meld": state.wilds_to_meld, "asked": state.asked}


@pytest.mark.parametrize("game, n, games", CASES)
def test_a_compiled_table_plays_every_step_as_the_python_engine(game: str, n: int, games: int):
    spec = rummy_env.GAMES[game]
    went_out = reshuffles = 0
    for g in range(games):
        seed = 1000 * n + g
        # short rounds (more of them end at the cap), and rounds long enough to empty the stock
        env = spec.raw_env(num_players=n, max_turns_per_round=40 * n if g % 2 else 1000)
        env.reset(seed=seed)
        engine, state = env.engine, env.game_state
        table = compiled_table(env.rules)
        table.reset(seed_words(seed))
        rng = random.Random(seed)
        while True:
            assert table.state() == python_state(state)
            for seat in range(n):  # bit for bit, as the env's observer encodes it
                observation = table.observe(seat)
                assert observation.dtype == np.float32
                assert observation.tobytes() == env.observer.encode(state, seat).tobytes(), seat
            legal = [] if state.phase == Phase.GAME_OVER else engine.legal_actions(state)
            assert table.legal_actions() == legal
            if not legal:
                break
            # In the short rounds, nearly always a play (go out, meld, lay off, swap) where one is
            # legal: they often end by going out. In the long ones, any legal action at random:
            # they run long enough to empty the stock.
            plays = [a for a in legal if engine.layout.kinds[a] not in NOT_PLAYS]
            action = rng.choice(plays) if g % 2 and plays and rng.random() < 0.9 else rng.choice(legal)
            reshuffles += engine.layout.kinds[action] in (ActionKind.DRAW_STOCK, ActionKind.BUY) and not state.stock
            ended, compiled = engine.apply(state, action), table.apply(action)
            assert (None if ended is None else (ended.penalties, ended.game_over)) == compiled
            went_out += ended is not None and 0 in ended.penalties
    assert went_out and reshuffles  # both ways a round goes on or ends were compared


def test_an_illegal_action_is_refused_and_changes_nothing():
    env = rummy_env.GAMES["three_thirteen"].raw_env(num_players=3)
    table = compiled_table(env.rules)
    for call in (table.legal_actions, lambda: table.observe(0)):
        with pytest.raises(RuntimeError, match="reset the table before playing it"):
            call()
    table.reset(seed_words(4))
    before = table.state()
    for action in (2, 54, -1, table.num_actions, 10**6):  # a discard and a go out before drawing, out of range
        with pytest.raises(ValueError, match=f"illegal action {action}"):
            table.apply(action)
        assert table.state() == before
    assert table.legal_actions() == [0, 1] and table.num_actions == env.layout.size
    assert table.observation_size == env.observer.size
    for seat in (-1, 3):
        with pytest.raises(ValueError, match="seat must be from 0 to 2"):
            table.observe(seat)


def test_a_layout_that_is_not_the_games_is_refused():
    """The core reads the action layout from Python and relies on ActionLayout's arithmetic
    (lay-off and swap ids slot-major, one discard per face): a layout that breaks it is refused."""
    from rummy_env import _core

    arguments = table_arguments(rummy_env.GAMES["contract_rummy"].rules())
    layout = arguments["contract"]["layout"]
    broken = [layout[:-1], layout[:2] + layout[3:], [(99, -1, -1, -1, [])] + layout[1:],
              [(5, 0, 0, -1, [14])] + layout[1:]]  # a set of aces holding the 2 of diamonds
    for bad in broken:
        with pytest.raises(ValueError, match="action layout|meld set|kind"):
            _core.Table(**{**arguments, "contract": {**arguments["contract"], "layout": bad}})
    with pytest.raises(ValueError, match="one entry per round"):
        _core.Table(**{**arguments, "contract": {**arguments["contract"], "sets": [2]}})
    for field, value in (("max_deep_draw", 10**6), ("max_table_melds", 2**30), ("buying", True)):
        with pytest.raises(ValueError, match="action layout"):  # numbers the layout does not hold
            _core.Table(**{**arguments, "contract": {**arguments["contract"], field: value}})
    assert _core.Table(**arguments).num_actions == len(layout)


@pytest.mark.parametrize("game", GAMES)
def test_the_env_on_either_table_refuses_alike_and_continues_alike(game: str):
    """Through the AEC env: the same error text for an illegal action; a snapshot taken on one
    backend continues on the other; a copy of the env (its table copied through
    ``__getstate__``, as the trainer's pickler copies it) continues as the original."""
    import copy

    from rummy_env import IllegalActionError

    spec = rummy_env.GAMES[game]
    envs = {b: spec.raw_env(num_players=3, backend=b) for b in ("native", "python")}
    rng = random.Random(0)
    for env in envs.values():
        env.reset(seed=12)
    other = spec.raw_env(num_players=3, backend="python")
    other.reset(seed=99)
    for step in range(300):
        native, python = envs["native"], envs["python"]
        agent = native.agent_selection
        legal = native.table.legal_actions()
        assert legal == python.table.legal_actions()
        illegal = next(a for a in range(native.layout.size) if a not in legal)
        errors = []
        for env in envs.values():
            with pytest.raises(IllegalActionError) as info:
                env.step(illegal)
            errors.append(str(info.value))
        assert errors[0] == errors[1] and agent in errors[0]
        if step % 50 == 25:  # another game's state carried into the core and out, then the env copied
            other.step(rng.choice(other.table.legal_actions()))
            native.set_state(other.get_state())
            assert native.observe(native.agent_selection)["observation"].tobytes() == other.observe(
                other.agent_selection)["observation"].tobytes()
            native.set_state(python.get_state())
            envs["native"] = copy.deepcopy(native)
            assert envs["native"].table is not native.table
        action = rng.choice(legal)
        for env in envs.values():
            env.step(action)
        assert envs["native"].game_state.scores == envs["python"].game_state.scores
        for a in native.possible_agents:
            got, want = envs["native"].observe(a), envs["python"].observe(a)
            assert np.array_equal(got["observation"], want["observation"])
            assert np.array_equal(got["action_mask"], want["action_mask"])


def test_a_state_that_does_not_fit_is_refused_and_changes_nothing():
    from rummy_env.table import core_state

    env = rummy_env.GAMES["three_thirteen"].raw_env(num_players=2)  # one deck: one copy of each face
    env.reset(seed=5)
    table = compiled_table(env.rules)
    table.reset(seed_words(5))
    good = core_state(env.game_state)
    assert table.state() == good
    faces = env.observer.num_faces
    hand = list(good["hands"][0])
    two_of_a_face = hand[:5] + [2] + hand[6:]
    bad = {"round": 11, "dealer": 2, "phase": 3, "hands": [[0] * faces] * 3, "stock": [faces],
           "known": [two_of_a_face] + good["known"][1:],  # known cards that are not held
           "discard_seats": [5], "discard_counts": [0] * (faces - 1), "scores": [0, 0, 0],
           "table": [(4, True, [], 0, 0, 0, 0, 0, [])], "taken_face": faces, "turns": -1, "rng": [0] * 10,
           "round_penalties": [[1, 2, 3]]}
    for field, value in bad.items():
        with pytest.raises(ValueError):
            table.set_state({**good, field: value})
        assert table.state() == good
    for counts in (two_of_a_face, hand[:5] + [16] + hand[6:]):  # more of a face than the deck holds
        with pytest.raises(ValueError, match="hands"):
            table.set_state({**good, "hands": [counts] + good["hands"][1:]})
        assert table.state() == good
    for broken in ({k: v for k, v in good.items() if k != "hands"}, {**good, "hands": "x"}, {**good, "table": [(1,)]}):
        with pytest.raises((ValueError, TypeError, KeyError, RuntimeError)):
            table.set_state(broken)
        assert table.state() == good


def test_every_env_runs_on_the_core_by_default():
    for game in GAMES:
        assert rummy_env.GAMES[game].raw_env().backend == "native"
    with pytest.raises(ValueError, match="backend"):
        rummy_env.GAMES[GAMES[0]].raw_env(backend="gpu")
