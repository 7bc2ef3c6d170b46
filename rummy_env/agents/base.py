"""The one agent interface used by baselines, trained policies and users' own code.

An agent sees exactly what its seat may see: its observation and action mask, and the
same seat's ``describe(agent)`` view (its own hand only). It never holds the environment,
so it cannot read hidden information (other hands, the stock order).

A game is played by ``play_game``: ``start_game`` once per seat, then ``act`` at every
decision of that seat (buy questions included, which come out of turn). ``Episode`` is the
one loop under it, and under the trainer's rollouts and imitation games too: the seat to act,
its decision, the action back, and each seat's rewards of every step (a round that ends on
one seat's step pays every seat).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from ..actions import ActionLayout
from ..env import AssertOutOfBoundsWrapper, OrderEnforcingWrapper, RummyEnv
from ..observation_view import ObservationDecoder
from ..rules import GameRules


@dataclass(frozen=True)
class SeatInfo:
    """The public facts of a seat in a game: which game and rules, the action layout (for
    action text), and the observation's decoder (where each part lies, and how to read it)."""

    game: str
    agent: str
    """The agent's name in the environment, ``player_<seat>``."""
    seat: int
    num_players: int
    rules: GameRules
    layout: ActionLayout
    observation: ObservationDecoder

    @classmethod
    def of(cls, env: RummyEnv, agent: str) -> "SeatInfo":
        raw = env.unwrapped
        return cls(
            game=raw.rules.game, agent=agent, seat=raw.possible_agents.index(agent),
            num_players=raw.rules.num_players, rules=raw.rules, layout=raw.layout,
            observation=raw.observer.decoder,
        )


class Decision:
    """One decision of a seat: its observation, its mask, and (built only if asked for)
    its ``describe(agent)`` view."""

    __slots__ = ("observation", "action_mask", "_view_of", "_view", "_legal")

    def __init__(self, observation: np.ndarray, action_mask: np.ndarray, view_of: Callable[[], dict[str, Any]]) -> None:
        self.observation = observation
        self.action_mask = action_mask
        self._view_of = view_of
        self._view: dict[str, Any] | None = None
        self._legal: np.ndarray | None = None

    @property
    def legal_actions(self) -> np.ndarray:
        """The legal action ids, ascending."""
        if self._legal is None:
            self._legal = np.flatnonzero(self.action_mask)
        return self._legal

    @property
    def view(self) -> dict[str, Any]:
        """``describe(agent)`` of this seat at this decision (JSON-like, own hand only)."""
        if self._view is None:
            self._view = self._view_of()
        return self._view


class Agent:
    """Base class: override ``act``; override ``start_game`` to reset per-game memory
    (call ``super().start_game``, which keeps ``self.seat_info`` and a seeded ``self.rng``)."""

    name = "agent"

    def start_game(self, seat: SeatInfo, seed: int | None) -> None:
        self.seat_info = seat
        self.rng = random.Random(seed)

    def act(self, decision: Decision) -> int:
        raise NotImplementedError


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    name = "random"

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions
        return int(legal[self.rng.randrange(len(legal))])


@dataclass
class GameResult:
    """The outcome of one game, by seat."""

    scores: list[int]
    round_penalties: list[list[int]]
    """Per round played, each seat's penalty."""
    winners: list[int]
    decisions: list[int]
    """Decisions each seat made."""


class Episode:
    """One game at a time on one env, decision by decision: ``seat`` is to act, ``observe``
    or ``decision`` is what it sees, ``step`` takes its action and returns every seat's
    reward of that step, until ``over``."""

    def __init__(self, env: RummyEnv) -> None:
        self.outer = env  # reset through any wrappers, so that they know of it
        self.env = raw = env.unwrapped
        self._step = _step_of(env)
        self.names = raw.possible_agents
        self._seat_of = {name: seat for seat, name in enumerate(self.names)}
        self.seat_infos = [SeatInfo.of(raw, name) for name in self.names]

    def reset(self, seed: int | None, options: dict[str, Any] | None = None) -> None:
        self.outer.reset(seed=seed, options=options)

    @property
    def over(self) -> bool:
        return self.env.terminations[self.env.agent_selection]

    @property
    def seat(self) -> int:
        """The seat to act: the player whose turn it is, or the one asked to buy."""
        return self._seat_of[self.env.agent_selection]

    def observe(self) -> dict[str, np.ndarray]:
        """The observation and action mask of the seat to act."""
        return self.env.observe(self.env.agent_selection)

    def decision(self) -> Decision:
        obs, env, name = self.observe(), self.env, self.env.agent_selection
        return Decision(obs["observation"], obs["action_mask"], lambda: env.describe(name))

    def step(self, action: int) -> list[float]:
        """Plays the seat's action; each seat's reward of this step, by seat."""
        self._step(action)
        rewards = self.env.rewards
        return [rewards[name] for name in self.names]

    def result(self, decisions: list[int]) -> GameResult:
        state = self.env.game_state
        return GameResult(list(state.scores), [list(p) for p in state.round_penalties],
                          self.env.engine.winners(state), decisions)


_CHECKS_ONLY = (OrderEnforcingWrapper, AssertOutOfBoundsWrapper)
"""The standard wrappers: they only check what the raw env checks again, at a cost per step."""


def _step_of(env: RummyEnv) -> Callable[[int], None]:
    """The step every action goes through: the raw env's when only the standard checking
    wrappers are around it, else the outermost wrapper's, so that a wrapper with a purpose
    (a recording, say) sees every action."""
    layer = env
    while layer is not env.unwrapped:
        if not isinstance(layer, _CHECKS_ONLY):
            return env.step
        layer = layer.env
    return env.unwrapped.step


def play_game(env: RummyEnv, agents: Sequence[Agent], seed: int | None,
              options: dict[str, Any] | None = None) -> GameResult:
    """Plays one game with ``agents[s]`` in seat ``s``; each agent is started with a seed
    derived from ``seed`` and its seat. Raises ``IllegalActionError`` if an agent returns
    an illegal action."""
    raw = env.unwrapped
    if len(agents) != raw.rules.num_players:
        raise ValueError(f"{raw.rules.game} with {raw.rules.num_players} players needs as many agents, "
                         f"not {len(agents)}")
    episode = Episode(env)
    episode.reset(seed, options)
    for seat, agent in enumerate(agents):
        agent.start_game(episode.seat_infos[seat], None if seed is None else seed * 1_000_003 + seat)
    decisions = [0] * len(agents)
    while not episode.over:
        seat = episode.seat
        decisions[seat] += 1
        episode.step(agents[seat].act(episode.decision()))
    return episode.result(decisions)
