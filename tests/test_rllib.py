"""``rummy_training.rllib``: RLlib's own env checker passes, RLlib's own episode bookkeeping
gives every seat its whole return, illegal actions end the game, and the masked module
never samples an illegal action (PPO training itself runs in test_examples.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import rummy_env

pytest.importorskip("ray.rllib", reason="the [rllib] extra is not installed")
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.env.multi_agent_episode import MultiAgentEpisode  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from rummy_training.rllib import SHARED_POLICY, MaskedPPOModule, RummyMultiAgentEnv, ppo_config  # noqa: E402

GAMES = tuple(rummy_env.GAMES)


@pytest.mark.parametrize("game", GAMES)
def test_rllibs_env_checker_passes(game: str):
    """The checker steps with an unmasked sample of the action space: the adapter ends that
    game instead of raising (the raw env would raise IllegalActionError)."""
    check_multiagent_environments(RummyMultiAgentEnv({"game": game}))


def _play(env: RummyMultiAgentEnv, seed: int) -> MultiAgentEpisode:
    """A game of random legal actions, recorded by RLlib's own episode bookkeeping."""
    rng = np.random.default_rng(seed)
    episode = MultiAgentEpisode(observation_space=env.observation_spaces, action_space=env.action_spaces,
                                agent_module_ids={a: SHARED_POLICY for a in env.agents})
    obs, infos = env.reset(seed=seed)
    episode.add_env_reset(observations=obs, infos=infos)
    done = False
    while not done:
        (agent, seen), = obs.items()
        action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
        obs, rewards, terminateds, truncateds, infos = env.step({agent: action})
        episode.add_env_step(observations=obs, actions={agent: action}, rewards=rewards, infos=infos,
                             terminateds=terminateds, truncateds=truncateds)
        done = terminateds["__all__"]
    return episode


def test_observations_are_the_callers_to_keep_and_to_change():
    """No two calls' observations share memory, and one changed in place changes nothing later."""
    env = RummyMultiAgentEnv({"game": "three_thirteen", "num_players": 3})
    obs, _ = env.reset(seed=3)
    returned, kept = [obs], [{a: {k: v.copy() for k, v in seen.items()} for a, seen in obs.items()}]
    for _ in range(20):
        (agent, seen), = obs.items()
        action = int(np.flatnonzero(seen["action_mask"])[0])
        for array in seen.values():
            array[...] = 0  # the caller's own use of its copy, after reading it
        obs, *_ = env.step({agent: action})
        returned.append(obs)
        kept.append({a: {k: v.copy() for k, v in seen.items()} for a, seen in obs.items()})
    assert all(np.flatnonzero(seen["action_mask"]).size for obs in kept for seen in obs.values())
    arrays = [array for obs in returned for seen in obs.values() for array in seen.values()]
    assert not any(np.shares_memory(a, b) for i, a in enumerate(arrays) for b in arrays[i + 1:])


def test_rllibs_episode_gives_every_seat_its_whole_return():
    """Rounds end on one seat's step and pay every seat: RLlib credits each seat's reward to
    its last action, so each seat's return is the game's (relative mode)."""
    env = RummyMultiAgentEnv({"game": "three_thirteen", "num_players": 3})
    for seed in (1, 2):
        episode = _play(env, seed)
        penalties = np.array(env.game.game_state.round_penalties, dtype=float)
        expected = (penalties.mean(axis=1, keepdims=True) - penalties).sum(axis=0) / 100.0
        returns = [episode.agent_episodes[agent].get_return() for agent in env.agents]
        assert returns == pytest.approx(expected.tolist(), abs=1e-6)
        assert np.abs(expected).sum() > 0


def test_an_illegal_action_ends_the_game_with_the_illegal_reward_for_its_seat_only():
    env = RummyMultiAgentEnv({"game": "three_thirteen", "illegal_reward": -2.0})
    obs, _ = env.reset(seed=3)
    (agent, seen), = obs.items()
    before = env.game.game_state.hands[env.agents.index(agent)][:]
    illegal = int(np.flatnonzero(seen["action_mask"] == 0)[0])
    obs, rewards, terminateds, _, infos = env.step({agent: illegal})
    assert terminateds["__all__"] and set(obs) == set(env.agents)
    assert rewards == {a: (-2.0 if a == agent else 0.0) for a in env.agents}
    assert infos[agent]["illegal_action"] == illegal
    assert env.game.game_state.hands[env.agents.index(agent)] == before


def test_the_masked_module_puts_no_probability_on_illegal_actions():
    env = RummyMultiAgentEnv({"game": "three_thirteen"})
    config = ppo_config("three_thirteen", hidden_sizes=(32,))
    module = config.rl_module_spec.rl_module_specs[SHARED_POLICY]
    module.observation_space, module.action_space = env.observation_spaces["player_0"], env.action_spaces["player_0"]
    net = module.build()
    assert isinstance(net, MaskedPPOModule)
    observations, masks = [], []
    for seed in range(16):
        (_, seen), = env.reset(seed=seed)[0].items()
        observations.append(seen["observations"])
        masks.append(seen["action_mask"])
    batch = {Columns.OBS: {"observations": torch.tensor(np.stack(observations)),
                           "action_mask": torch.tensor(np.stack(masks))}}
    for forward in (net.forward_exploration, net.forward_inference, net.forward_train):
        logits = forward(dict(batch))[Columns.ACTION_DIST_INPUTS]
        probabilities = torch.softmax(logits, dim=-1)
        assert torch.all(probabilities[torch.tensor(np.stack(masks)) == 0] == 0)
        assert torch.allclose(probabilities.sum(dim=-1), torch.ones(16))
    values = net.compute_values(dict(batch))
    assert values.shape == (16,)
