"""The PettingZoo AEC adapter over the engine, shared by every game's ``<game>_v0`` module.

It maps seats to agents (``player_i`` is seat ``i``), round results to rewards, and the
engine's state to observations, masks, text and JSON; it holds no rules of its own.
"""

from __future__ import annotations

import copy
import warnings
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .backend import Backend
from .engine import Engine
from .rules.deal import SCENARIO_OPTIONS
from .state import GameState, IllegalActionError, Phase, RoundResult
from .observation import Observer
from .rules import GameRules
from .table import make_table

REWARD_MODES = ("relative", "penalty", "win")
RENDER_MODES = ("ansi", "human")


def round_rewards(reward_mode: str, penalties: list[int], game_over: bool, scores: list[int]) -> list[float] | None:
    """Each seat's reward for a round that ended with ``penalties`` (``scores``: the game's
    totals after it), or ``None`` where the mode gives none: ``relative``, the table's mean
    penalty less the seat's, ``penalty``, minus the seat's, both per 100 points; ``win``, at
    the game's end only, 1 for each seat with the lowest total and -1 for the others."""
    if reward_mode == "relative":
        mean = sum(penalties) / len(penalties)
        return [(mean - pen) / 100.0 for pen in penalties]
    if reward_mode == "penalty":
        return [-pen / 100.0 for pen in penalties]
    if not game_over:
        return None
    best = min(scores)
    return [1.0 if score == best else -1.0 for score in scores]


class ActionMask(np.ndarray):
    """The type of ``action_mask``: an int8 array like any other (the dtype gymnasium's
    ``Discrete.sample(mask=...)`` requires), whose ``nonzero`` reads its bytes as booleans.

    numpy finds the nonzero items of an int8 array through one function call per item, and
    those of a bool array in a vectorised loop: ``np.flatnonzero(mask)``, ``np.nonzero`` and
    ``mask.nonzero()`` on a 6,587-wide Toonerville Rook mask take about 2.5 us instead of 14,
    a sixth of an environment step. A byte is nonzero as an int8 exactly when it is as a
    bool, so the result is the same for any content, of any shape."""

    def nonzero(self) -> tuple[np.ndarray, ...]:
        if self.dtype.itemsize == 1 and self.dtype.kind in "biu":
            return self.view(np.bool_, np.ndarray).nonzero()
        return super().nonzero()


@dataclass
class EnvSnapshot:
    """Everything ``set_state`` needs to continue a game exactly (see ``get_state``)."""

    state: GameState
    agents: list[str]
    agent_selection: str
    rewards: dict[str, float]
    cumulative_rewards: dict[str, float]
    terminations: dict[str, bool]
    truncations: dict[str, bool]
    recent_actions: tuple[tuple[int, int], ...] = ()
    """The last actions (seat, action id) that ``render`` shows."""


RECENT_ACTIONS = 6
"""Actions that ``render`` lists, the most recent last."""


class RummyEnv(AECEnv):
    """AEC environment for one game; subclasses name the game and its rules factory."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "name": "rummy", "is_parallelizable": False}
    rules_factory: Callable[..., GameRules]

    def __init__(self, render_mode: str | None = None, reward_mode: str = "relative", backend: Backend | None = None,
                 **rule_config: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, not {reward_mode!r}")
        try:
            self.rules = type(self).rules_factory(**rule_config)
        except TypeError as err:
            raise ValueError(f"bad configuration for {self.metadata['name']}: {err}") from None
        self.rule_config: dict[str, Any] = dict(rule_config)
        """The rule options this env was built with (a recording keeps them to rebuild it)."""
        self.render_mode = render_mode
        self.reward_mode = reward_mode
        self.engine = Engine(self.rules)
        self.observer = Observer(self.engine)
        self.layout = self.engine.layout
        if backend is not None and backend not in ("native", "python"):
            raise ValueError(f"backend must be 'native' or 'python', not {backend!r}")
        self.table = make_table(self.engine, self.observer, backend)
        """The game's one table (``rummy_env.table``): the compiled core's, unless
        ``backend="python"`` (or ``RUMMY_ENV_BACKEND=python``) asks for the reference."""
        self.backend: Backend = self.table.backend
        n = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = self.observer.bounds()
        obs_space = spaces.Dict({
            "observation": spaces.Box(low, high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(self.layout.size,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.layout.size) for a in self.possible_agents}
        self.game_seed: int | None = None
        self._obs_cache: dict[str, tuple[np.ndarray, ActionMask]] = {}
        self._recent: deque[tuple[int, int]] = deque(maxlen=RECENT_ACTIONS)
        self._seeds: np.random.Generator | None = None
        """The env's own stream of game seeds: seeded by ``reset(seed=s)``, drawn from by
        every ``reset()`` without a seed (from OS entropy until the first seed)."""

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game. ``reset(seed=s)`` deals the game of seed ``s`` and seeds the env's
        stream of game seeds, from which every later ``reset()`` without a seed draws its
        game: same seed, same actions, same games. Unknown ``options`` keys are ignored with
        a ``UserWarning``; a bad value of a known one raises ``ValueError`` and changes
        nothing (the game, the seed stream)."""
        options = self._known_options(options)
        if isinstance(options.get("scores"), dict):
            options["scores"] = self._scores_by_seat(options["scores"])
        if seed is not None:
            game_seed = self.engine.check_seed(seed)
            seeds = np.random.default_rng(abs(game_seed))
        else:  # draw from a copy, kept only if the game starts
            seeds = copy.deepcopy(self._seeds) if self._seeds is not None else np.random.default_rng()
            game_seed = int(seeds.integers(2**63))
        self.table.new_game(game_seed, options)
        self.game_seed = game_seed  # drawn or given: reset(seed=game_seed) deals this game again
        self._seeds = seeds
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._rewards_given = False
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.table.to_act()]
        self._obs_cache = {}
        self._recent = deque(maxlen=RECENT_ACTIONS)

    @property
    def game_state(self) -> GameState | None:
        """The game's state (``None`` before the first ``reset``): on the compiled core a new
        copy read out of it at every read, which ``set_state``, not a change in place, carries
        back."""
        return self.table.state

    @staticmethod
    def _known_options(options: Any) -> dict[str, Any]:
        if options is None:
            return {}
        if not isinstance(options, dict):
            raise ValueError(f"options must be a dict, not {options!r}")
        unknown = [key for key in options if key not in SCENARIO_OPTIONS]
        if unknown:
            warnings.warn(f"reset ignores the unknown option(s) {unknown}; the known options are "
                          f"{list(SCENARIO_OPTIONS)}", UserWarning, stacklevel=3)
        return {key: value for key, value in options.items() if key in SCENARIO_OPTIONS}

    def _scores_by_seat(self, scores: dict) -> list[int]:
        if set(scores) != set(self.possible_agents):
            raise ValueError(f"option 'scores' as a dict must name exactly the agents {self.possible_agents}")
        return [scores[a] for a in self.possible_agents]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation and action mask, as new arrays of the caller's own: what
        the caller keeps or changes in place never reaches a later ``observe``. Both are
        computed once per state and agent; each call copies them (about a microsecond,
        ``benchmarks/README.md``)."""
        cached = self._obs_cache.get(agent)
        if cached is None:
            table, seat = self._require_table(), self._seat[agent]
            if not table.game_over and table.to_act() == seat:
                mask = table.legal_mask().view(ActionMask)
            else:
                mask = np.zeros(self.layout.size, np.int8).view(ActionMask)
            observation = table.observe(seat)
            mask.flags.writeable = observation.flags.writeable = False  # the cache's own: only copies leave
            cached = self._obs_cache[agent] = (observation, mask)
        observation, mask = cached
        return {"observation": observation.copy(), "action_mask": mask.copy()}

    def step(self, action: int | None) -> None:
        table = self._require_table()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        check_action_id(agent, action, self.layout.size)
        result = table.apply(int(action), actor=agent)
        self._recent.append((self._seat[agent], int(action)))
        self._cumulative_rewards[agent] = 0.0
        self._obs_cache = {}
        if self._rewards_given:  # rewards only arrive at round ends: most steps give none
            self.rewards = {a: 0.0 for a in self.agents}
            self._rewards_given = False
        if result is not None:
            self._score_round(result)
            self._rewards_given = True
            self._accumulate_rewards()
        if table.game_over:
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[table.to_act()]
        if self.render_mode == "human":
            self.render()

    def _score_round(self, result: RoundResult) -> None:
        scores = self.game_state.scores if result.game_over else []  # read only at the game's end
        rewards = round_rewards(self.reward_mode, result.penalties, result.game_over, scores)
        if rewards is not None:
            for a, reward in zip(self.possible_agents, rewards):
                self.rewards[a] = reward

    def _require_table(self):
        if not self.table.has_game:
            raise RuntimeError("call reset() before using the environment")
        return self.table

    def _require_state(self) -> GameState:
        return self._require_table().state

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ inspection and control
    def action_to_text(self, action: int) -> str:
        if isinstance(action, np.integer):
            action = int(action)
        return self.layout.text(action)  # anything but an integer id is refused

    def text_to_action(self, text: str) -> int:
        return self.layout.parse(text)

    def legal_actions_text(self) -> list[str]:
        """Text of every legal action of the agent to act (empty at game end)."""
        return [self.layout.text(a) for a in self._require_table().legal_actions()]

    def describe(self, agent: str | None = None) -> dict[str, Any]:
        """The state as JSON-serialisable data; with ``agent``, only what it may see of hands."""
        state = self._require_state()
        if agent is not None and agent not in self._seat:
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}")
        fmt = self.engine.card_set.format
        names = self.possible_agents

        def cards(counts: list[int]) -> list[str]:
            return [fmt(f) for f, k in enumerate(counts) for _ in range(k)]

        shown = names if agent is None else [agent]
        spec = self.rules.rounds[state.round]
        contract = self.rules.contract_play is not None
        if contract:
            gone_down = {a: state.down_turn[i] >= 0 for i, a in enumerate(names)}
        else:
            gone_down = {a: state.went_out == i for i, a in enumerate(names)}
        going_down = state.phase == Phase.GOING_DOWN
        over = state.phase == Phase.GAME_OVER
        buying = contract and self.rules.contract_play.buying
        return {
            "game": self.rules.game,
            "round": state.round + 1,
            "num_rounds": self.rules.num_rounds,
            "dealer": state.dealer,
            "current": None if over else names[state.current],
            "to_act": None if over else names[self.engine.to_act(state)],
            "phase": state.phase.name.lower(),
            "hands": {a: cards(state.hands[self._seat[a]]) for a in shown},
            "hand_sizes": {a: state.hand_sizes[i] for i, a in enumerate(names)},
            "discard": [fmt(f) for f in state.discard],
            "stock_size": len(state.stock),
            "melds": [self._describe_meld(slot, tm) for slot, tm in enumerate(state.table)],
            "gone_down": gone_down,
            "scores": {a: state.scores[i] for i, a in enumerate(names)},
            "round_penalties": [{a: pens[i] for i, a in enumerate(names)} for pens in state.round_penalties],
            "wild_rank": None if spec.wild_rank is None else self.engine.card_set.rank_text(spec.wild_rank),
            "contract": None if spec.contract is None else {
                "sets": spec.contract[0], "runs": spec.contract[1], "down_means_out": spec.down_means_out,
                "out_by_melding": spec.out_by_melding},
            "contract_left": None if not going_down else {
                "sets": state.contract_left[0], "runs": state.contract_left[1]},
            "turns": state.turns,
            "taken_from_discard": None if state.taken_face < 0 else fmt(state.taken_face),
            "must_place": None if state.must_place < 0 else fmt(state.must_place),
            "wilds_owed": state.wilds_owed,
            **({
                "buy_question": None if state.phase != Phase.BUY else {
                    "card": fmt(state.discard[-1]), "asked": names[state.asked]},
                "buys": {a: state.buys[i] for i, a in enumerate(names)},
            } if buying else {}),
        }

    def _describe_meld(self, slot: int, tm) -> dict[str, Any]:
        cs = self.engine.card_set
        meld = tm.meld
        if meld.kind == "set":
            represents = cs.rank_text(meld.rank) if meld.naturals else None
        else:
            represents = [cs.format(cs.face(meld.suit, q % cs.num_ranks)) for q in meld.wild_positions(cs.num_ranks)]
        return {
            "slot": slot,
            "owner": self.possible_agents[tm.owner],
            "kind": meld.kind,
            "cards": [cs.format(f) for f in tm.cards],
            "represents": represents,
        }

    def render_text(self) -> str:
        d = self.describe()
        if d["contract"] is not None:
            c = d["contract"]
            rule = f"contract {c['sets']} sets + {c['runs']} runs" + (", all cards" if c["down_means_out"] else "") + (
                ", no final discard" if c["out_by_melding"] else "")
        else:
            rule = f"wild {d['wild_rank']}"
        lines = [
            f"{d['game']} round {d['round']}/{d['num_rounds']} ({rule}), "
            f"dealer player_{d['dealer']}, to act: {d['to_act']} ({d['phase']}), "
            f"turn {d['turns']}, stock {d['stock_size']}",
            f"discard (top last): {' '.join(d['discard'][-8:])}",
        ]
        for a in self.possible_agents:
            mark = "*" if a == d["to_act"] else " "
            down = " down" if d["gone_down"][a] else ""
            lines.append(f"{mark} {a} score {d['scores'][a]:4d}{down}  hand: {' '.join(d['hands'][a])}")
        for m in d["melds"]:
            wilds = f" (wilds as {' '.join(m['represents'])})" if m["represents"] and m["kind"] == "run" else ""
            lines.append(f"  meld {m['slot']} ({m['owner']}, {m['kind']}): {' '.join(m['cards'])}{wilds}")
        if d.get("buy_question"):
            q = d["buy_question"]
            lines.append(f"  buy question: {q['asked']} may buy {q['card']}")
        if d["contract_left"]:
            left = d["contract_left"]
            lines.append(f"  still to lay: {left['sets']} set(s), {left['runs']} run(s)")
        if d["must_place"]:
            lines.append(f"  must place: {d['must_place']}")
        if d["wilds_owed"]:
            lines.append(f"  wilds owed: {d['wilds_owed']}")
        if d["round_penalties"]:
            last = d["round_penalties"][-1]
            lines.append(f"last round ({len(d['round_penalties'])}) penalties: "
                         + ", ".join(f"{a} {p}" for a, p in last.items()))
        if self._recent:
            lines.append("last actions: " + "; ".join(f"{self.possible_agents[seat]} {self.layout.text(action)}"
                                                       for seat, action in self._recent))
        return "\n".join(lines)

    def get_state(self) -> EnvSnapshot:
        """A snapshot from which ``set_state`` continues the game identically."""
        return EnvSnapshot(
            state=self._require_table().state_copy(),
            agents=list(self.agents),
            agent_selection=self.agent_selection,
            rewards=dict(self.rewards),
            cumulative_rewards=dict(self._cumulative_rewards),
            terminations=dict(self.terminations),
            truncations=dict(self.truncations),
            recent_actions=tuple(self._recent),
        )

    def set_state(self, snapshot: EnvSnapshot) -> None:
        if not isinstance(snapshot, EnvSnapshot) or len(snapshot.state.hands) != self.rules.num_players:
            raise ValueError("set_state takes a snapshot from get_state() of an env with the same configuration")
        self.table.set_state(snapshot.state)
        self.agents = list(snapshot.agents)
        self.agent_selection = snapshot.agent_selection
        self.rewards = dict(snapshot.rewards)
        self._rewards_given = any(self.rewards.values())
        self._cumulative_rewards = dict(snapshot.cumulative_rewards)
        self.terminations = dict(snapshot.terminations)
        self.truncations = dict(snapshot.truncations)
        self.infos = {a: {} for a in self.agents}
        self._obs_cache = {}
        self._recent = deque(snapshot.recent_actions, maxlen=RECENT_ACTIONS)


# PettingZoo's wrappers proxy every attribute through ``__getattr__`` (about 5 us a read,
# per layer), and an AEC loop reads several on every step. The two wrappers below are the
# standard ones with the same checks, reading the wrapped env directly.


class _ForwardLast:
    env: AECEnv

    def last(self, observe: bool = True):
        return self.env.last(observe)


class _AfterReset:
    """An attribute of the raw env, readable through the wrapper only after ``reset``."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, wrapper: Any, owner: type | None = None) -> Any:
        if wrapper is None:
            return self
        if not wrapper._has_reset:
            raise AttributeError(f"{self.name} cannot be accessed before reset")
        return getattr(wrapper._raw, self.name)


def check_action_id(agent: str, action: Any, size: int) -> None:
    """Raises ``IllegalActionError`` naming ``action`` and the action space unless it is an
    integer id in ``0..size-1`` (``None`` is for seats that are done, checked before)."""
    if action is None:
        raise IllegalActionError(f"{agent}: action None is only for a seat that is done; {agent} is to act "
                                 f"with an integer id in 0..{size - 1}")
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise IllegalActionError(f"{agent}: action {action!r} is not an action id: "
                                 f"an action is an integer in 0..{size - 1}")
    if not 0 <= action < size:
        raise IllegalActionError(f"{agent}: action {action} is outside the action space 0..{size - 1}")


class AssertOutOfBoundsWrapper(_ForwardLast, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's bounds check, left to the raw env's ``step``, which makes the same check
    (``check_action_id``) and raises ``IllegalActionError`` naming the action and the range
    instead of a bare ``AssertionError``: checking twice would cost every step twice."""

    def step(self, action: int | None) -> None:
        self.env.step(action)


class OrderEnforcingWrapper(_ForwardLast, wrappers.OrderEnforcingWrapper):
    agents = _AfterReset()
    agent_selection = _AfterReset()
    rewards = _AfterReset()
    terminations = _AfterReset()
    truncations = _AfterReset()
    infos = _AfterReset()

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)


def wrap(raw: RummyEnv) -> AECEnv:
    """The standard PettingZoo wrappers; illegal actions raise rather than being penalised."""
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(raw))


__all__ = ["ActionMask", "RummyEnv", "EnvSnapshot", "IllegalActionError", "round_rewards", "wrap"]
