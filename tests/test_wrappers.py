"""``rummy_env.wrappers.SingleAgentEnv``: Gymnasium's checker, every reward reaching the
learner, opponents, seats, illegal actions and determinism, over every registered game."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import rummy_env
from rummy_env import IllegalActionError
from rummy_env.agents import Agent, Decision, make_agent
from rummy_env.wrappers import SingleAgentEnv

from invariant_checks import freeze

GAMES = tuple(rummy_env.GAMES)


def _play(env: SingleAgentEnv, seed: int, learner: Agent | None = None) -> tuple[list[float], list[np.ndarray]]:
    """One whole game with ``learner`` (greedy by default) choosing the learning seat's actions."""
    learner = learner or make_agent("greedy")
    obs, info = env.reset(seed=seed)
    learner.start_game(env.episode.seat_infos[env.seat], seed)
    rewards, observations, done = [], [obs], False
    while not done:
        decision = env.episode.decision()
        assert env.episode.seat == env.seat and np.array_equal(decision.observation, obs)
        assert np.array_equal(decision.action_mask.astype(bool), info["action_mask"]) and info["action_mask"].any()
        action = learner.act(decision)
        obs, reward, done, truncated, info = env.step(action)
        assert not truncated
        rewards.append(reward)
        observations.append(obs)
    return rewards, observations


@pytest.mark.parametrize("game", GAMES)
def test_gymnasiums_env_checker_passes(game: str):
    check_env(SingleAgentEnv(game, opponents="greedy"), skip_render_check=True)


def _arrays(obs: np.ndarray, info: dict) -> list[np.ndarray]:
    return [obs, info["action_mask"]]


@pytest.mark.parametrize("game", GAMES)
def test_observations_and_masks_are_the_callers_to_keep_and_to_change(game: str):
    """What ``reset``, ``step`` (an illegal action's too) and ``action_masks`` return shares no
    memory with what any other call returns, and changing it in place changes nothing later
    (Gymnasium 1.4's checker asks the first; every Gymnasium version's users need both)."""
    env = SingleAgentEnv(game, opponents="greedy", learner_seat=1)
    obs, info = env.reset(seed=5)
    returned = [_arrays(obs, info), [env.action_masks()]]
    kept = [a.copy() for a in returned[0]]
    for step in range(6):
        legal = np.flatnonzero(env.action_masks())
        obs, _, done, _, info = env.step(int(legal[step % len(legal)]))
        returned.append(_arrays(obs, info))
        if step == 0:
            for array in returned[-1]:
                array[...] = 1  # a caller's own use of its copy
        assert not done
    assert all(np.array_equal(a, b) for a, b in zip(returned[0], kept))
    before = returned[-1][0].copy()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, done, _, info = env.step(illegal)  # ends the episode on the same state
    assert done and reward == -1.0 and np.array_equal(obs, before) and not info["action_mask"].any()
    returned.append(_arrays(obs, info))
    flat = [array for arrays in returned for array in arrays]
    assert not any(np.shares_memory(a, b) for i, a in enumerate(flat) for b in flat[i + 1:])


@pytest.mark.parametrize("game", GAMES)
def test_every_reward_of_the_seat_reaches_the_learner(game: str):
    """The episode's rewards add up to the seat's return of the whole game, though most
    rounds end on an opponent's step (relative mode: the table's mean penalty minus the seat's)."""
    env = SingleAgentEnv(game, opponents="greedy")
    for seed in (1, 2):
        rewards, _ = _play(env, seed)
        penalties = np.array(env.game.game_state.round_penalties, dtype=float)
        expected = float(np.sum(penalties.mean(axis=1) - penalties[:, env.seat]) / 100.0)
        assert sum(rewards) == pytest.approx(expected, abs=1e-9)
        assert sum(r != 0 for r in rewards) >= 2  # paid round by round, not once at the end


def test_the_penalty_reward_mode_is_passed_to_the_game():
    env = SingleAgentEnv("three_thirteen", opponents="greedy", reward_mode="penalty")
    rewards, _ = _play(env, 4)
    own = sum(p[env.seat] for p in env.game.game_state.round_penalties)
    assert sum(rewards) == pytest.approx(-own / 100.0)


def test_the_same_seed_replays_the_same_game_and_seat():
    env = SingleAgentEnv("three_thirteen", opponents=["greedy", "random", "expert"])
    first_rewards, first_obs = _play(env, 7)
    seat = env.seat
    _play(env, 8)
    again_rewards, again_obs = _play(env, 7)
    assert env.seat == seat and first_rewards == again_rewards
    assert all(np.array_equal(a, b) for a, b in zip(first_obs, again_obs, strict=True))


def test_the_learner_seat_is_fixed_or_drawn_at_each_reset():
    fixed = SingleAgentEnv("three_thirteen", learner_seat=2)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(8)} == {2}
    drawn = SingleAgentEnv("three_thirteen")
    assert {drawn.reset(seed=s)[1]["seat"] for s in range(20)} == {0, 1, 2, 3}


def test_a_callable_opponent_is_asked_for_each_of_its_decisions():
    seen: list[int] = []

    def first_legal(decision: Decision) -> int:
        seen.append(len(decision.legal_actions))
        return int(decision.legal_actions[0])

    env = SingleAgentEnv("three_thirteen", opponents=first_legal, learner_seat=1, num_players=2)
    _play(env, 3)
    assert len(seen) > 10 and all(n > 0 for n in seen)


def test_an_agent_given_once_plays_each_seat_with_its_own_copy():
    agent = make_agent("greedy")
    env = SingleAgentEnv("three_thirteen", opponents=agent, learner_seat=0)
    env.reset(seed=1)
    opponents = [a for a in env._agents if a is not None]
    assert len({id(a) for a in opponents}) == 3
    assert [a.seat_info.seat for a in opponents] == [1, 2, 3]


@pytest.mark.parametrize("kwargs, words", [
    ({"opponents": ["greedy"]}, "needs 3 opponents (or one for all), not 1"),
    ({"opponents": "grredy"}, "unknown agent spec 'grredy'"),
    ({"opponents": 3}, "an opponent is an agent spec"),
    ({"learner_seat": 4}, "learner_seat must be None or a seat 0..3, not 4"),
    ({"illegal_action": "ignore"}, "illegal_action must be one of terminate, raise"),
    ({"game": "poker"}, "poker"),
])
def test_bad_arguments_are_refused_by_name(kwargs: dict, words: str):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        SingleAgentEnv(**kwargs)


def _state(env: SingleAgentEnv) -> tuple:
    state = env.game.game_state
    return tuple(freeze(getattr(state, f.name)) for f in dataclasses.fields(state))


def _illegal(env: SingleAgentEnv) -> int:
    return int(np.flatnonzero(~env.action_masks())[0])


def test_an_illegal_action_ends_the_episode_with_the_illegal_reward_and_leaves_the_game_unchanged():
    env = SingleAgentEnv("three_thirteen", illegal_reward=-3.0)
    env.reset(seed=5)
    before = _state(env)
    action = _illegal(env)
    _, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-3.0, True, False, action)
    assert _state(env) == before and not env.action_masks().any()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(action)


def test_with_raise_an_illegal_action_is_an_error_naming_it_and_the_game_goes_on():
    env = SingleAgentEnv("three_thirteen", illegal_action="raise")
    env.reset(seed=5)
    before = _state(env)
    action = _illegal(env)
    with pytest.raises(IllegalActionError, match=str(action)):
        env.step(action)
    assert _state(env) == before
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # the game goes on


@pytest.mark.parametrize("action, words", [(-1, "outside the action space 0..105"), (106, "outside"),
                                           (None, "must be an integer"), (1.5, "must be an integer"),
                                           (True, "must be an integer")])
def test_actions_that_are_no_action_id_are_value_errors(action, words):
    env = SingleAgentEnv("three_thirteen")
    env.reset(seed=5)
    before = _state(env)
    with pytest.raises(ValueError, match=words):
        env.step(action)
    assert _state(env) == before


def test_numpy_integer_actions_are_accepted():
    env = SingleAgentEnv("three_thirteen")
    env.reset(seed=5)
    legal = np.flatnonzero(env.action_masks())
    env.step(np.int64(legal[0]))
    env.step(np.array(np.flatnonzero(env.action_masks())[0]))


def test_it_works_in_stable_baselines3_vector_envs():
    """SB3-contrib reads the masks of every env of a vector env through ``action_masks``."""
    pytest.importorskip("sb3_contrib", reason="the [sb3] extra is not installed")
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    vec = DummyVecEnv([lambda: SingleAgentEnv("three_thirteen", opponents="greedy") for _ in range(3)])
    vec.seed(11)
    vec.reset()
    rng = np.random.default_rng(0)
    episodes = 0
    while episodes < 4:  # past episode ends: the auto-reset keeps the masks right
        masks = get_action_masks(vec)
        assert masks.shape == (3, 106) and masks.any(axis=1).all()
        _, _, dones, _ = vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        episodes += int(dones.sum())
