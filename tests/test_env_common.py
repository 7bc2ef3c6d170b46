"""API behaviour that every game shares, run for each game at every player count:
PettingZoo's own ``api_test``, ``seed_test`` and ``render_test``, unmodified, on the env as
users get it from ``env()`` and from ``pettingzoo.make``; reset options; the observation
space's bounds; calls out of order, and stepping after the game ends. Each game's own API
suite holds what differs between games."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from types import ModuleType

import numpy as np
import pettingzoo
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, render_test, seed_test

import rummy_env
from rummy_env import ActionMask, GameSpec, IllegalActionError
from rummy_env.recording import RecordingWrapper, replay_steps
from rummy_env.state import Phase


@dataclass(frozen=True)
class Budget:
    """Test cycles of one game, sized to its steps' cost."""

    short_cap: int = 4
    """A turn cap that ends games inside api_test's cycles, so that it sees termination."""
    api_cycles: int = 500
    default_api_cycles: int = 300
    seed_cycles: int = 200
    short_seed_cycles: int = 100
    """seed_test cycles at the default config, and with a cap one turn below ``short_cap``."""


BUDGETS = {
    "three_thirteen": Budget(6, 2000, 300, 500, 1000),
    # at the default config, random play's deep draws can grow a hand until one mask takes
    # minutes (seen once at 5 players, a deep draw of 11): fewer cycles keep CI's time bounded
    "contract_rummy": Budget(4, 1000, 300, 200, 100),
    "toonerville_rook": Budget(4, 500, 500, 200, 100),
}
"""Games whose steps cost more or less than the default ``Budget``'s; any other registered
game, a new one included, is tested with the default."""


@dataclass(frozen=True)
class Game(Budget):
    module: ModuleType | None = None
    player_counts: tuple[int, ...] = ()
    """The counts tested: every count the game allows, or, past three, the fewest, the default
    and the most (the pinned deals of test_seeding.py cover every count)."""


def _game(spec: GameSpec) -> Game:
    counts = spec.player_counts
    tested = counts if len(counts) <= 3 else tuple(sorted({counts[0], spec.default_players, counts[-1]}))
    return Game(**vars(BUDGETS.get(spec.name, Budget())), module=spec.module, player_counts=tested)


# Every registered game (rummy_env.GAMES), with the player counts and cycles it is tested at.
GAMES = {name: _game(spec) for name, spec in rummy_env.GAMES.items()}
EVERY_COUNT = [(name, n) for name, game in GAMES.items() for n in game.player_counts]


def smallest(game: str):
    """The game's module and its smallest player count."""
    return GAMES[game].module, GAMES[game].player_counts[0]


def registry_env(game: str, **kwargs):
    """The env as ``pettingzoo.make`` builds it from the id ``import rummy_env`` registers."""
    return pettingzoo.make("aec", f"rummy/{game}-v0", **kwargs)


MAKERS = {"env": lambda game, **kwargs: GAMES[game].module.env(**kwargs), "make": registry_env}
MADE = [(game, n, "env") for game, n in EVERY_COUNT] + [
    (game, n, "make") if n == smallest(game)[1] else pytest.param(game, n, "make", marks=pytest.mark.slow)
    for game, n in EVERY_COUNT]
"""Every game and count from ``env()`` and from ``pettingzoo.make`` (the same env class through
the registered id), the latter past each game's smallest count in the slow suite."""


def run_api_test(env, num_cycles: int) -> None:
    """``api_test`` as it is: its first call, ``reset(options={"options": 1})``, must warn."""
    with pytest.warns(UserWarning, match=r"unknown option\(s\) \['options'\]"):
        api_test(env, num_cycles=num_cycles)


@pytest.mark.parametrize("game, n, maker", MADE)
def test_pettingzoo_api_test(game, n, maker):
    g = GAMES[game]
    run_api_test(MAKERS[maker](game, num_players=n, max_turns_per_round=g.short_cap), g.api_cycles // 4)


@pytest.mark.slow
@pytest.mark.parametrize("game, n", EVERY_COUNT)
def test_pettingzoo_api_test_at_volume(game, n):
    g = GAMES[game]
    run_api_test(g.module.env(num_players=n, max_turns_per_round=g.short_cap), g.api_cycles)
    run_api_test(g.module.env(num_players=n), g.default_api_cycles)


@pytest.mark.parametrize("game, n, maker", MADE)
def test_pettingzoo_seed_test(game, n, maker):
    g = GAMES[game]
    seed_test(lambda: MAKERS[maker](game, num_players=n), num_cycles=g.seed_cycles // 4)
    seed_test(lambda: MAKERS[maker](game, num_players=n, max_turns_per_round=g.short_cap - 1),
              num_cycles=g.short_seed_cycles // 4)


@pytest.mark.slow
@pytest.mark.parametrize("game, n", EVERY_COUNT)
def test_pettingzoo_seed_test_at_volume(game, n):
    g = GAMES[game]
    seed_test(lambda: g.module.env(num_players=n), num_cycles=g.seed_cycles)
    seed_test(lambda: g.module.env(num_players=n, max_turns_per_round=g.short_cap - 1), num_cycles=g.short_seed_cycles)


@pytest.mark.parametrize("game, n, maker", MADE)
def test_pettingzoo_render_test(game, n, maker, capsys):
    """Every render mode the metadata lists: ``ansi`` returns the table as text, ``human``
    prints it and returns ``None``."""
    render_test(lambda render_mode=None: MAKERS[maker](game, num_players=n, render_mode=render_mode),
                custom_tests={"ansi": lambda text: "to act: player_" in text and "score" in text})
    assert "to act: player_" in capsys.readouterr().out  # human mode printed


@pytest.mark.parametrize("game", GAMES)
def test_unknown_reset_options_warn_naming_them_and_are_ignored(game):
    module, n = smallest(game)
    env, plain = module.env(num_players=n), module.env(num_players=n)
    with pytest.warns(UserWarning, match=r"\['colour', 7\]; the known options are \['deck', 'dealer', 'round', 'scores'\]"):
        env.reset(seed=3, options={"colour": "red", 7: None, "dealer": 1})
    plain.reset(seed=3, options={"dealer": 1})
    assert env.unwrapped.describe() == plain.unwrapped.describe()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=3, options={"dealer": 1, "round": 2})  # known keys: no warning
        env.reset(seed=3, options=None)


BAD_OPTIONS = [
    ({"dealer": 99}, "option 'dealer' must be a seat"),
    ({"round": 0}, "option 'round' must be an integer from 1"),
    ({"scores": [1]}, "option 'scores' must be"),
    ({"deck": ["AS"]}, "deck"),
    ("dealer", "options must be a dict"),
]


@pytest.mark.parametrize("options, words", BAD_OPTIONS)
@pytest.mark.parametrize("game", GAMES)
def test_a_bad_value_of_a_known_option_raises_and_changes_nothing(game, options, words):
    """Neither the game in progress nor the env's seed stream moves: the next unseeded
    reset deals what it would have dealt without the failed call."""
    module, n = smallest(game)
    env, twin = module.env(num_players=n), module.env(num_players=n)
    for e in (env, twin):
        e.reset(seed=11)
        e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    before = env.unwrapped.describe()
    with pytest.raises(ValueError, match=words):
        env.reset(options=options)
    with pytest.raises(ValueError, match=words):
        env.reset(seed=5, options=options)
    with pytest.raises(ValueError, match="seed must be an integer"):
        env.reset(seed="five")
    assert env.unwrapped.describe() == before
    env.reset()
    twin.reset()
    assert env.unwrapped.describe() == twin.unwrapped.describe()


@pytest.mark.parametrize("game", GAMES)
def test_scores_option_is_bounded_by_what_a_game_can_score(game):
    module, n = smallest(game)
    env = module.env(num_players=n)
    top = env.unwrapped.rules.max_score
    env.reset(seed=0, options={"scores": [top] * n})
    assert env.unwrapped.describe()["scores"] == {a: top for a in env.possible_agents}
    for bad in (-1, top + 1):
        with pytest.raises(ValueError, match=f"integers from 0 to {top}"):
            env.reset(seed=0, options={"scores": [bad] * n})


@pytest.mark.parametrize("game, n", EVERY_COUNT)
def test_observations_lie_inside_the_observation_space(game, n):
    """``low``/``high`` bound every value the env emits: random games, one of them started
    from the highest scores the ``scores`` option allows, so that scores reach their bound."""
    env = GAMES[game].module.env(num_players=n, max_turns_per_round=60)
    space = env.observation_space(env.possible_agents[0])
    box = space["observation"]
    assert np.isfinite(box.high).all() and (box.low == 0).all() and (box.high > 0).all()
    rng = np.random.default_rng(n)
    top = env.unwrapped.rules.max_score
    last_round = env.unwrapped.rules.num_rounds
    for seed, options in ((0, None), (1, {"scores": [top] * n, "round": last_round})):
        env.reset(seed=seed, options=options)
        for agent in env.agent_iter():
            for seat in env.possible_agents:  # every seat's view, not only the one to act
                obs = env.observe(seat)
                assert space.contains(obs), (seat, np.flatnonzero(obs["observation"] > box.high))
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    scores = env.unwrapped.observer.offsets["scores"]
    assert obs["observation"][scores].max() >= 0.5 * box.high[scores].max()


@pytest.mark.parametrize("game", GAMES)
def test_calls_before_reset_raise(game):
    module, n = smallest(game)
    env = module.env(num_players=n)
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    with pytest.raises(AttributeError, match="reset"):
        env.last()
    with pytest.raises(AssertionError, match="reset"):
        env.observe("player_0")
    with pytest.raises(AttributeError):
        _ = env.agent_selection
    with pytest.raises(AssertionError, match="reset"):
        env.render()
    with pytest.raises(AssertionError, match="reset"):
        list(env.agent_iter())


@pytest.mark.parametrize("game", GAMES)
def test_raw_env_calls_before_reset_raise(game):
    module, n = smallest(game)
    raw = module.raw_env(num_players=n)
    with pytest.raises(RuntimeError, match="reset"):
        raw.step(0)
    with pytest.raises(AttributeError):
        raw.last()
    with pytest.raises(RuntimeError, match="reset"):
        raw.observe("player_0")
    for call in (raw.describe, raw.get_state, raw.legal_actions_text):
        with pytest.raises(RuntimeError, match="reset"):
            call()


@pytest.mark.parametrize("game", GAMES)
def test_step_after_termination(game):
    module, n = smallest(game)
    env = module.env(num_players=n, max_turns_per_round=1)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            assert not obs["action_mask"].any()
            with pytest.raises(ValueError):
                env.step(0)  # a dead agent's only valid action is None
            env.step(None)
        else:
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.agents == []
    raw = env.unwrapped
    assert raw.legal_actions_text() == [] and raw.game_state.phase == Phase.GAME_OVER
    with pytest.raises(IllegalActionError, match="game is over"):
        raw.engine.apply(raw.game_state, 0)


@pytest.mark.parametrize("game", GAMES)
def test_action_mask_nonzero_is_numpys_on_any_content(game):
    """``ActionMask.nonzero`` reads the int8 bytes as booleans for speed: the legal actions it
    finds are numpy's own, for the env's masks and for any byte values, views and shapes."""
    module, n = smallest(game)
    env = module.env(num_players=n)
    env.reset(seed=5)
    mask = env.last()[0]["action_mask"]
    assert isinstance(mask, ActionMask) and isinstance(mask, np.ndarray) and mask.dtype == np.int8
    legal = env.unwrapped.engine.legal_actions(env.unwrapped.game_state)
    assert np.flatnonzero(mask).tolist() == legal
    assert spaces.Discrete(mask.size).sample(mask=mask) in legal
    rng = np.random.default_rng(0)
    noise = rng.integers(-128, 128, size=(3, mask.size), dtype=np.int8)
    noise[rng.random(noise.shape) < 0.8] = 0
    odd = noise.view(ActionMask)  # every byte value, 2-D
    plain = noise.view(np.ndarray)
    for ours, theirs in [(odd, plain), (odd[1], plain[1]), (odd[:, ::7], plain[:, ::7]),
                         (odd.astype(np.float32), plain.astype(np.float32)), (odd == 1, plain == 1)]:
        for a, b in zip(np.nonzero(ours), np.nonzero(theirs)):
            assert np.array_equal(a, b)
        assert np.array_equal(np.flatnonzero(ours), np.flatnonzero(theirs))


def _no_shared_memory(first: dict[str, np.ndarray], second: dict[str, np.ndarray]) -> bool:
    return first is not second and not any(np.shares_memory(a, b) for a in first.values() for b in second.values())


@pytest.mark.parametrize("through", ["env", "recording"])
@pytest.mark.parametrize("game", GAMES)
def test_observations_are_the_callers_to_keep_and_to_change(game, through):
    """Every ``observe`` and ``last`` returns arrays of the caller's own (a replay buffer keeps
    them, a user normalises them in place): no two calls share memory, a kept observation
    stays as it was returned while the game goes on, and one changed in place changes nothing
    that the env returns later. Also through the recording wrapper, and in a recorded game
    replayed."""
    module, n = smallest(game)
    env = module.env(num_players=n, max_turns_per_round=6)
    if through == "recording":
        env = RecordingWrapper(env)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    kept: list[tuple[dict[str, np.ndarray], dict[str, np.ndarray]]] = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        again = env.observe(agent)
        neighbour = env.observe(env.possible_agents[(env.possible_agents.index(agent) + 1) % n])
        assert _no_shared_memory(obs, again) and _no_shared_memory(obs, neighbour)
        assert all(np.array_equal(obs[k], again[k]) for k in obs)
        kept.append((obs, {k: v.copy() for k, v in obs.items()}))
        action = None if term or trunc else int(rng.choice(np.flatnonzero(again["action_mask"])))
        for array in again.values():
            array[...] = 7  # a caller's own use of its copy
        after = env.observe(agent)
        assert all(np.array_equal(after[k], obs[k]) for k in obs), "a caller's change reached the env"
        env.step(action)
    assert len(kept) > 50
    for returned, as_returned in kept:
        assert all(np.array_equal(returned[k], as_returned[k]) for k in returned)
    if through == "recording":
        (record,) = env.records
        seen = [env.observe(env.agent_selection) for _, env in replay_steps(record)]
        assert all(_no_shared_memory(a, b) for a, b in zip(seen, seen[1:]))
