"""RLlib (new API stack): the games as an RLlib ``MultiAgentEnv``, and an action-masking
PPO module, so that RLlib's PPO trains one shared policy over every seat with its env
checking on. ``examples/rllib_ppo.py`` runs it; docs/integrations.md explains it.

    from rummy_training.rllib import RummyMultiAgentEnv, ppo_config
    algo = ppo_config("three_thirteen").build_algo()
    algo.train()

**The env** (``RummyMultiAgentEnv(config)``, ``config`` being RLlib's ``env_config``:
``game``, ``illegal_reward`` and any env option such as ``num_players``). Turn-based: each
step returns the observation of the one seat to act next, ``{"observations": ...,
"action_mask": ...}`` (the mask as float32, as RLlib's masking modules take it). Every step
returns every seat's reward of that step: a round usually ends on another seat's step, and
RLlib's ``MultiAgentEpisode`` adds such rewards to the seat's last action, so each seat's
return is its whole return in the game. At the game's end every seat gets its final
observation and ``terminateds["__all__"]``.

**Illegal actions.** RLlib's env checker steps the env once with an unmasked sample of the
action space. An action not in the mask ends the game at once (as PettingZoo's
``TerminateIllegalWrapper``): the seat that took it gets ``illegal_reward`` (default -1),
the others 0; the game itself is unchanged. A masked policy never takes one.

**The module** (``MaskedPPOModule``): RLlib's default PPO torch module on the
``observations`` part, with the logits of illegal actions pushed to the float minimum
before sampling, in training, exploration and inference alike, so that no probability and
no entropy goes to them.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN

from rummy_env import game_spec
from rummy_env.agents import Episode
from rummy_env.env import RummyEnv

SHARED_POLICY = "shared"


class RummyMultiAgentEnv(MultiAgentEnv):
    """A game as an RLlib multi-agent env (see the module docstring)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        options = dict(config or {})
        game = options.pop("game", "three_thirteen")
        self.illegal_reward = float(options.pop("illegal_reward", -1.0))
        self.game: RummyEnv = game_spec(game).raw_env(**options)
        self.episode = Episode(self.game)
        self.agents = self.possible_agents = list(self.game.possible_agents)
        inner = self.game.observation_space(self.agents[0])
        size = self.game.layout.size
        space = spaces.Dict({"observations": inner["observation"],
                             "action_mask": spaces.Box(0.0, 1.0, shape=(size,), dtype=np.float32)})
        self.observation_spaces = {agent: space for agent in self.agents}
        self.action_spaces = {agent: spaces.Discrete(size) for agent in self.agents}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        self.episode.reset(seed, options)
        acting = self.agents[self.episode.seat]
        return {acting: self._observe(acting)}, {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        acting = self.agents[self.episode.seat]
        if acting not in action_dict:
            raise ValueError(f"{acting} is to act, but the actions are for {sorted(action_dict)}")
        action = int(action_dict[acting])
        if not 0 <= action < self.game.layout.size or not self.episode.observe()["action_mask"][action]:
            rewards = {agent: self.illegal_reward if agent == acting else 0.0 for agent in self.agents}
            return self._end(rewards, {acting: {"illegal_action": action}})
        rewards = dict(zip(self.agents, map(float, self.episode.step(action))))
        if self.episode.over:
            return self._end(rewards, {})
        following = self.agents[self.episode.seat]
        return {following: self._observe(following)}, rewards, {"__all__": False}, {"__all__": False}, {}

    def _end(self, rewards: dict[str, float], infos: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        observations = {agent: self._observe(agent) for agent in self.agents}
        done = {agent: True for agent in self.agents} | {"__all__": True}
        return observations, rewards, done, {"__all__": False}, infos

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.game.observe(agent)
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module on ``observations``, with illegal actions masked out."""

    def __init__(self, *, observation_space: gymnasium.Space | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, spaces.Dict) or set(observation_space) != {"observations", "action_mask"}:
            raise ValueError(f"MaskedPPOModule needs a Dict observation space of 'observations' and 'action_mask', "
                             f"not {observation_space}")
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)  # the networks see no mask

    def setup(self) -> None:
        super().setup()
        self.observation_space = self.observation_space_with_mask

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = _split(batch)
        return _masked(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = _split(batch)
        return _masked(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = _split(batch)
        return _masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        _, batch = _split(batch)
        return super().compute_values(batch, embeddings)


def _split(batch: dict[str, Any]) -> tuple[torch.Tensor, dict[str, Any]]:
    """The mask, and a copy of the batch whose observations are the ``observations`` part."""
    observations = batch[Columns.OBS]
    return observations["action_mask"], {**batch, Columns.OBS: observations["observations"]}


def _masked(outputs: dict[str, Any], mask: torch.Tensor) -> dict[str, Any]:
    logits = outputs[Columns.ACTION_DIST_INPUTS]
    outputs[Columns.ACTION_DIST_INPUTS] = torch.where(mask > 0, logits, torch.full_like(logits, FLOAT_MIN))
    return outputs


def ppo_config(game: str = "three_thirteen", env_options: dict[str, Any] | None = None,
               hidden_sizes: tuple[int, ...] = (256, 256)) -> PPOConfig:
    """RLlib PPO on ``game``: one shared, masked policy for every seat, env checking on.
    Add ``.env_runners(...)``, ``.training(...)`` and the like to taste."""
    return (
        PPOConfig()
        .environment(RummyMultiAgentEnv, env_config={"game": game, **(env_options or {})},
                     disable_env_checking=False)
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=lambda agent_id, episode, **kw: SHARED_POLICY)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            SHARED_POLICY: RLModuleSpec(module_class=MaskedPPOModule,
                                        model_config={"fcnet_hiddens": list(hidden_sizes), "fcnet_activation": "relu",
                                                      "vf_share_layers": False})}))
    )
