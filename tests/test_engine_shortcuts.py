"""The engine's quick verdicts for Toonerville Rook against its full turn search.

The mask decides most melds, lay-offs and swaps without looking ahead, by quick tests
(``TurnSearch.swap_then_go_down`` for a swap by a player not yet down, and
``TurnSearch.owed_wilds_placed`` for a meld or lay-off while a swapped Rook is owed). Each
verdict they give must be the exact search's (``TurnSearch.finishable`` on the state after
the move).
Random games biased toward swaps reach these states often; every quick "finishable" met is
checked against the search, and the test insists on enough of each kind to mean something.
"""

from __future__ import annotations

import random

from rummy_env import toonerville_rook_v0
from rummy_env.actions import ActionKind
from rummy_env.state import Phase, TableMeld
from rummy_env.melds import Meld


# Round 11 (no final discard) and the runs-only rounds, where wilds are hardest to place.
START_ROUNDS = (11, 3, 10, 8, 1)


def _policy(env, rng: random.Random) -> int:
    raw = env.unwrapped
    legal = raw.engine.legal_actions(raw.game_state)
    kinds = raw.layout.kinds
    swaps = [a for a in legal if kinds[a] == ActionKind.SWAP]
    if swaps and rng.random() < 0.9:
        return rng.choice(swaps)
    melds = [a for a in legal if kinds[a] in (ActionKind.MELD_SET, ActionKind.MELD_RUN, ActionKind.LAY_OFF)]
    if melds and rng.random() < 0.7:
        return rng.choice(melds)
    if raw.layout.buy in legal:
        return raw.layout.buy if rng.random() < 0.3 else raw.layout.buy + 1
    return rng.choice(legal)


def _small_hand_variant(engine, state, rng: random.Random):
    """The state with the player to act holding only a few of its cards (the owed Rooks
    kept), where the quick tests meet their edges: too few cards left to discard one."""
    small = state.clone()
    p, wild = small.current, engine.ctx.wild_card
    cards = [f for f, k in enumerate(small.hands[p]) for _ in range(k)]
    for _ in range(small.wilds_owed):
        cards.remove(wild)
    keep = rng.sample(cards, min(len(cards), rng.randint(1, 5))) + [wild] * small.wilds_owed
    small.hands[p] = bytearray(len(small.hands[p]))
    small.known[p] = bytearray(len(small.known[p]))
    for f in keep:
        small.hands[p][f] += 1
    small.hand_sizes[p] = len(keep)
    small.taken_face = -1
    small.legal_cache = None
    return small


def _check_moves(engine, state, checked) -> None:
    p = state.current
    owing = state.wilds_owed > 0 and state.must_place < 0
    for action in engine.turn.moves.play_moves(state):
        kind = engine.layout.kinds[action]
        if owing and engine.search.owed_wilds_placed(state, action):
            checked["meld or lay-off while owing a Rook"] += 1
            assert engine.search.finishable(engine.search.after(state, action)), engine.layout.text(action)
        if kind == ActionKind.SWAP and state.down_turn[p] < 0 and state.phase == Phase.PLAY \
                and not state.wilds_owed:
            verdict = engine.search.swap_then_go_down(state, action)
            if verdict is not None:
                checked[f"swap by a player not yet down: {verdict}"] += 1
                assert engine.search.finishable(engine.search.after(state, action)) == verdict, engine.layout.text(action)


def test_quick_verdicts_agree_with_the_turn_search():
    checked = {"swap by a player not yet down: True": 0, "swap by a player not yet down: False": 0,
               "meld or lay-off while owing a Rook": 0}
    rng = random.Random(7)
    for game in range(30):
        env = toonerville_rook_v0.env(num_players=4, max_turns_per_round=40)
        env.reset(seed=game, options={"round": START_ROUNDS[game % len(START_ROUNDS)]})
        raw = env.unwrapped
        engine = raw.engine
        for _ in env.agent_iter():
            _, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            state = raw.game_state  # on the compiled core, a copy read out at each step
            if state.phase in (Phase.PLAY, Phase.GOING_DOWN):
                _check_moves(engine, state, checked)
                if state.wilds_owed:
                    for _ in range(3):
                        _check_moves(engine, _small_hand_variant(engine, state, rng), checked)
            env.step(_policy(env, rng))
    assert checked["meld or lay-off while owing a Rook"] >= 100, checked
    assert checked["swap by a player not yet down: True"] >= 5, checked
    assert checked["swap by a player not yet down: False"] >= 5, checked


def _owing_in_round_11(hand: list[str]):
    """Round 11 (no final discard): the player to act went down this turn, has just
    swapped a Rook out of a run and still owes it; the table holds two runs, 1R-4R and
    1Y-4Y, and no set."""
    env = toonerville_rook_v0.env(num_players=3)
    env.reset(seed=0, options={"round": 11})
    raw = env.unwrapped
    snapshot = raw.get_state()
    engine, state = raw.engine, snapshot.state
    cs, p = engine.card_set, state.current
    state.phase, state.turns = Phase.PLAY, 1
    state.down_turn[p], state.wilds_owed = 1, 1
    state.hands[p] = bytearray(cs.num_faces)
    for text in hand:
        state.hands[p][cs.parse(text)] += 1
    state.hand_sizes[p] = len(hand)
    state.known[p] = bytearray(cs.num_faces)
    state.taken_face = -1
    state.table = [
        TableMeld(p, Meld("run", run, 0, suit=suit, low=0, high=3), run)
        for suit in (0, 1) for run in [tuple(cs.face(suit, r) for r in range(4))]
    ]
    state.table_stamp = -1
    state.legal_cache = None
    raw.set_state(snapshot)
    return env


def test_an_owed_rook_left_with_one_card_that_fits_nowhere_is_a_dead_end_in_round_11():
    """Laying off 5R first would leave the Rook and 9Y: the Rook goes on a run, and 9Y can
    be neither laid off nor discarded (round 11). Laying off the Rook first leaves 5R and
    9Y: one is discarded. With only the Rook and 9Y, laying off the Rook strands 9Y."""
    env = _owing_in_round_11(["ROOK", "5R", "9Y"])
    legal = env.unwrapped.legal_actions_text()
    assert "lay off ROOK on 0" in legal and "lay off ROOK on 1" in legal
    assert "lay off 5R on 0" not in legal
    env = _owing_in_round_11(["ROOK", "9Y"])
    assert not any(text.startswith("lay off ROOK") for text in env.unwrapped.legal_actions_text())
