"""Single-agent views of the games, for libraries that train one agent at a time.

``SingleAgentEnv`` is a Gymnasium env in which one learning seat plays a whole game against
opponents that act inside ``step``:

    from rummy_env.wrappers import SingleAgentEnv
    env = SingleAgentEnv("three_thirteen", opponents="greedy", num_players=4)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].nonzero()[0][0]))

**Spaces.** ``observation_space`` is the seat's observation vector (the AEC env's
``observation`` part, a float32 ``Box``); ``action_space`` the game's flat ``Discrete``
layout. The legal actions of the current decision are ``action_masks()`` (bool, the method
SB3-contrib's ``MaskablePPO`` calls) and ``info["action_mask"]``. Every array returned is new,
the caller's own to keep or change (Gymnasium's checker asks that no two calls share one).

**Opponents.** One spec for every other seat, or one per seat in seat order skipping the
learner's: an agent spec of ``rummy_env.agents.make_agent`` (``"random"``, ``"greedy"``,
``"expert"``, a checkpoint path, ``"module:Class"``), an ``Agent``, or a callable that
takes a ``Decision`` (observation, action mask, legal actions) and returns an action.
Opponents are started with seeds drawn from the env's seed, so ``reset(seed=s)`` replays the
same game for the same actions.

**Rewards.** A round's rewards usually arrive while an opponent acts (the round ends on
their step). Every reward the learning seat receives, on any step of the game, is added to
the reward that ``step`` returns: the sum of an episode's rewards is the seat's whole
return in the AEC env (a reward paid before the seat's first decision comes with its first
step's). ``reward_mode`` is the AEC env's (default ``relative``).

**The learner's seat** is ``learner_seat``, or drawn at each reset (from the seed) if None,
so one policy learns every seat. ``info["seat"]`` tells which.

**Illegal actions** (not in the mask): with ``illegal_action="terminate"`` (the default, as
PettingZoo's ``TerminateIllegalWrapper``) the game ends at once with ``illegal_reward`` and
``info["illegal_action"]`` set; the game is unchanged, and a masked policy never sees it.
Checkers that step with unmasked samples (Gymnasium's ``check_env``) thus run; with
``"raise"`` the action raises ``IllegalActionError`` and leaves the game unchanged. An action
outside the action space or not an integer always raises ``ValueError``.

``env.game`` is the underlying AEC env (for ``render``, ``describe``, the state).
``decisions`` counts every seat's decisions since construction (the unit of this project's
throughput figures).
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Sequence, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from .agents import Agent, Decision, Episode, make_agent
from .env import RummyEnv
from .registry import game_spec

Opponent = Union[str, Agent, Callable[[Decision], int]]
ILLEGAL_ACTIONS = ("terminate", "raise")


class _CallableAgent(Agent):
    """A function of the decision, as an agent."""

    def __init__(self, policy: Callable[[Decision], int]) -> None:
        self.policy = policy
        self.name = getattr(policy, "__name__", "callable")

    def act(self, decision: Decision) -> int:
        return int(self.policy(decision))


def _as_agent(opponent: Opponent) -> Agent:
    if isinstance(opponent, Agent):
        return opponent
    if isinstance(opponent, str):
        return make_agent(opponent)
    if callable(opponent):
        return _CallableAgent(opponent)
    raise ValueError(f"an opponent is an agent spec, an Agent or a callable of the decision, not {opponent!r}")


class SingleAgentEnv(gymnasium.Env):
    """One learning seat against opponents, as a Gymnasium env (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, game: str = "three_thirteen", opponents: Opponent | Sequence[Opponent] = "random",
                 learner_seat: int | None = None, illegal_action: str = "terminate", illegal_reward: float = -1.0,
                 render_mode: str | None = None, **env_kwargs: Any) -> None:
        self.game: RummyEnv = game_spec(game).raw_env(render_mode=render_mode, **env_kwargs)
        self.render_mode = render_mode
        num_players = self.game.rules.num_players
        if learner_seat is not None and (isinstance(learner_seat, bool) or learner_seat not in range(num_players)):
            raise ValueError(f"learner_seat must be None or a seat 0..{num_players - 1}, not {learner_seat!r}")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL_ACTIONS)}, not {illegal_action!r}")
        if isinstance(opponents, (str, Agent)) or callable(opponents) or not isinstance(opponents, Sequence):
            # one given for all: each seat gets its own agent (an agent keeps its seat's memory)
            opponents = [opponents] + [copy.deepcopy(opponents) if isinstance(opponents, Agent) else opponents
                                       for _ in range(num_players - 2)]
        opponents = list(opponents)
        if len(opponents) != num_players - 1:
            raise ValueError(f"{self.game.rules.game} with {num_players} players needs {num_players - 1} opponents "
                             f"(or one for all), not {len(opponents)}")
        self.opponents = [_as_agent(o) for o in opponents]
        self.fixed_seat = learner_seat
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.episode = Episode(self.game)
        self.observation_space = self.game.observation_space(self.game.possible_agents[0])["observation"]
        self.action_space = spaces.Discrete(self.game.layout.size)
        self.seat = 0
        self.decisions = 0
        self._pending = 0.0  # the learner's rewards since its last step
        self._done = True
        self._agents: list[Agent | None] = []

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**31 - 1))
        self.episode.reset(game_seed, options)
        n = self.game.rules.num_players
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(n))
        others = iter(self.opponents)
        self._agents = [None if s == self.seat else next(others) for s in range(n)]
        for s, agent in enumerate(self._agents):
            if agent is not None:
                agent.start_game(self.episode.seat_infos[s], int(self.np_random.integers(2**31 - 1)))
        self._pending = 0.0
        self._done = False
        self._play_opponents()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("the game is over: call reset() before step()")
        action = self._checked(action)
        if not self.episode.observe()["action_mask"][action]:
            if self.illegal_action == "raise":
                self.game.step(action)  # raises IllegalActionError naming the action; the game is unchanged
            self._done = True
            info = self._info()
            info["illegal_action"] = action
            return self._observation(), self.illegal_reward, True, False, info
        self._play(action)
        self._play_opponents()
        reward, self._pending = self._pending, 0.0
        self._done = self.episode.over
        info = self._info()
        if self._done:
            state = self.game.game_state
            info.update(scores=list(state.scores), winners=self.game.engine.winners(state))
        return self._observation(), reward, self._done, False, info

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner's current decision, as booleans (none once over)."""
        if self._done:
            return np.zeros(self.action_space.n, dtype=bool)
        return self.episode.observe()["action_mask"].astype(bool)

    def render(self) -> str | None:
        return self.game.render()

    def close(self) -> None:
        self.game.close()

    # ------------------------------------------------------------------ the game
    def _checked(self, action: Any) -> int:
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action must be an integer in 0..{self.action_space.n - 1}, not {action!r}")
        if not 0 <= action < self.action_space.n:
            raise ValueError(f"action {action} is outside the action space 0..{self.action_space.n - 1}")
        return int(action)

    def _play(self, action: int) -> None:
        rewards = self.episode.step(action)
        self.decisions += 1
        self._pending += rewards[self.seat]

    def _play_opponents(self) -> None:
        while not self.episode.over and self.episode.seat != self.seat:
            self._play(self._agents[self.episode.seat].act(self.episode.decision()))

    def _observation(self) -> np.ndarray:
        return self.game.observe(self.game.possible_agents[self.seat])["observation"]

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "seat": self.seat}
