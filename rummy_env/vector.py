"""Many tables of one game stepped in one call: the batched API (docs/architecture.md#the-batched-api).

``make(game, num_tables, num_players=..., seed=..., **rules)`` returns ``Tables``:

- ``reset(seeds=None)`` deals every table a new game. Table ``i`` with ``seeds[i]`` is dealt
  exactly as the AEC env's ``reset(seed=seeds[i])`` deals, and its later games come from the
  same stream as that env's later ``reset()``; without seeds each table draws its next game
  from its own stream, which ``make(seed=s)`` starts reproducibly (table ``i``'s from
  ``numpy.random.default_rng([abs(s), i])``; from OS entropy when ``seed`` is ``None``).
  ``game_seeds[i]`` is the seed of table ``i``'s current game: ``env.reset(seed=...)`` with it
  replays the game in the AEC env.
- ``observe()`` returns an ``Observation``: ``seat`` (int32 ``[N]``, the seat to act at each
  table, a buyer asked out of turn included), ``obs`` (float32 ``[N, observation_size]``, that
  seat's observation, the AEC env's bit for bit) and ``mask`` (bool ``[N, num_actions]``).
  The arrays are new on every call and the caller's: a later ``step`` never changes them.
  ``observe(out=buffers)`` fills the caller's own ``Observation`` of arrays of those shapes
  and dtypes instead (say, rows of a rollout buffer) and returns it.
- ``step(actions)`` applies one action id at each table and returns ``(rewards, done)``:
  ``rewards`` float32 ``[N, num_players]``, what every seat received on that step (the AEC
  env's ``rewards`` after the same step, in the batch's ``reward_mode``), and ``done`` bool
  ``[N]``. A finished table is dealt its next game at once; its final scores are in
  ``final_scores`` (int32 ``[N, num_players]``, rows where ``done``) until the next step.
  Every action is checked before any is applied: an illegal one raises
  ``IllegalActionError`` naming the table, the seat and the action, and changes no table.
  ``step(actions, active)`` steps only the tables where ``active`` (bool ``[N]``) is true.
  One call at a time: a call on a batch that another thread's call is still running in
  raises ``RuntimeError``. An error other than these (memory running out) may leave the
  tables and ``game_seeds`` apart: reset the batch after it.
- ``legal_lists()`` returns ``(ids, counts)``: int32 ``[N, K]``, each table's legal action ids
  ascending and then -1, with ``K`` the largest count, and int32 ``[N]``, the counts: the legal
  actions without a scan of ``[N, num_actions]`` masks (a policy that scores legal actions).
- ``streams()`` and ``set_streams(saved)`` save and restore where each table's later games
  come from, so that a batch's games in progress can be saved as their seeds and actions.
- ``random_legal(rng, active=None)`` picks a uniformly random legal action at each table
  (at each ``active`` one) from the tables' own legal lists, in the core's threads: the same
  picks as ``vector_env.random_legal(rng, observe().mask)``, without scanning the masks.

The ``native`` backend (the default) runs the tables in the compiled core
(``src/core/batch.cpp``) on a pool of ``num_threads`` threads; the result does not depend on
the thread count. The ``python`` backend runs the same API on the reference engine, one table
after another.
"""

from __future__ import annotations

import copy
from typing import Any, NamedTuple, Sequence

import numpy as np

from . import _core
from .actions import ActionLayout
from .backend import BACKENDS, Backend, default_backend, seed_words
from .engine import Engine
from .env import REWARD_MODES, round_rewards
from .observation import Observer
from .registry import game_spec
from .rules import GameRules
from .state import GameState, IllegalActionError, Phase
from .table import table_arguments


class Observation(NamedTuple):
    """What ``Tables.observe`` returns: at each table, the seat to act, its view and mask."""

    seat: np.ndarray
    obs: np.ndarray
    mask: np.ndarray


def make(
    game: str,
    num_tables: int,
    num_players: int | None = None,
    seed: int | None = None,
    *,
    num_threads: int = 1,
    reward_mode: str = "relative",
    backend: Backend | None = None,
    **rules: Any,
) -> Tables:
    """``num_tables`` tables of ``game`` (a name of ``rummy_env.registry.GAMES``) with the
    game's rule options ``rules``, dealt their first games (module docstring)."""
    spec = game_spec(game)
    if isinstance(num_tables, bool) or not isinstance(num_tables, int) or num_tables < 1:
        raise ValueError(f"num_tables must be a positive integer, not {num_tables!r}")
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) or not 1 <= num_threads <= 256:
        raise ValueError(f"num_threads must be an integer from 1 to 256, not {num_threads!r}")
    if reward_mode not in REWARD_MODES:
        raise ValueError(f"reward_mode must be one of {REWARD_MODES}, not {reward_mode!r}")
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if num_players is not None:
        rules["num_players"] = num_players
    try:
        game_rules = spec.rules(**rules)
    except TypeError as err:
        raise ValueError(f"bad configuration for {game}: {err}") from None
    kind = NativeTables if (backend or default_backend()) == "native" else PythonTables
    return kind(game_rules, num_tables, seed, num_threads, reward_mode)


class Tables:
    """A batch of tables of one game (module docstring); ``NativeTables`` and
    ``PythonTables`` run it."""

    backend: Backend

    def __init__(self, rules: GameRules, num_tables: int, seed: int | None, num_threads: int,
                 reward_mode: str) -> None:
        self.rules = rules
        self.game = rules.game
        self.num_tables = num_tables
        self.num_players = rules.num_players
        self.num_threads = num_threads
        self.reward_mode = reward_mode
        self.layout = self._open(rules, num_tables, num_threads, reward_mode)
        self.num_actions = self.layout.size
        if seed is not None:
            seed = Engine.check_seed(seed)
        self._streams = [np.random.default_rng(None if seed is None else [abs(seed), i]) for i in range(num_tables)]
        self.game_seeds: list[int] = [0] * num_tables
        """The seed of each table's current game (``env.reset(seed=...)`` deals it again)."""
        self._next_seeds = np.zeros(num_tables, dtype=np.uint64)
        self._draw_next_seeds(range(num_tables))
        self._legal_width = 64
        self.final_scores = np.zeros((num_tables, self.num_players), dtype=np.int32)
        """Each table's final scores of the game that the last step finished, where ``done``."""
        self.reset()

    def _open(self, rules: GameRules, num_tables: int, num_threads: int, reward_mode: str) -> ActionLayout:
        """Builds the tables (undealt); returns the game's action layout."""
        raise NotImplementedError

    @property
    def observation_size(self) -> int:
        raise NotImplementedError

    def reset(self, seeds: Sequence[int] | None = None) -> None:
        """Every table a new game (module docstring); a bad seed raises ``ValueError`` and
        changes no table."""
        if seeds is None:  # each stream's next game, drawn after the last
            game_seeds, streams = [int(s) for s in self._next_seeds], self._streams
        else:
            if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__len__") or len(seeds) != self.num_tables:
                raise ValueError(f"seeds must hold one seed per table ({self.num_tables}), not {seeds!r}")
            game_seeds = [Engine.check_seed(s) for s in seeds]
            if None in game_seeds:
                raise ValueError(f"seeds must be integers, not {seeds!r}")
            streams = [np.random.default_rng(abs(s)) for s in game_seeds]
        self._streams = streams
        self.game_seeds = game_seeds
        for i, s in enumerate(game_seeds):
            self._deal(i, s)
        self._draw_next_seeds(range(self.num_tables))

    def streams(self) -> dict[str, Any]:
        """Where each table's later games come from (its random stream and next game's seed),
        to save with the games in progress: ``set_streams`` after dealing them again
        (``reset(seeds=game_seeds)``) and replaying their actions restores the batch."""
        return {"streams": copy.deepcopy(self._streams), "next_seeds": self._next_seeds.copy()}

    def set_streams(self, saved: dict[str, Any]) -> None:
        """Continues each table's later games from ``saved`` (of ``streams``, same table count)."""
        if len(saved["streams"]) != self.num_tables or saved["next_seeds"].shape != (self.num_tables,):
            raise ValueError(f"saved streams of {len(saved['streams'])} tables, not {self.num_tables}")
        self._streams, self._next_seeds = copy.deepcopy(saved["streams"]), saved["next_seeds"].copy()

    def _draw_next_seeds(self, tables: Any) -> None:
        """The seed of each of ``tables``' next game: the step that ends a game deals it."""
        for i in tables:
            self._next_seeds[i] = self._streams[i].integers(2**63)

    def observe(self, out: Observation | None = None) -> Observation:
        """Every table's seat to act, its observation and mask: new arrays, or ``out`` filled."""
        if out is None:
            out = Observation(np.empty(self.num_tables, dtype=np.int32),
                              np.empty((self.num_tables, self.observation_size), dtype=np.float32),
                              np.empty((self.num_tables, self.num_actions), dtype=np.bool_))
        else:
            self._check_out(out)
        self._observe(*out)
        return out

    def _check_out(self, out: Any) -> None:
        shapes = {"seat": ((self.num_tables,), np.int32), "obs": ((self.num_tables, self.observation_size), np.float32),
                  "mask": ((self.num_tables, self.num_actions), np.bool_)}
        if not isinstance(out, Observation):
            raise ValueError(f"out must be an Observation (seat, obs, mask), not {type(out).__name__}")
        for (name, (shape, dtype)), array in zip(shapes.items(), out):
            if not (isinstance(array, np.ndarray) and array.shape == shape and array.dtype == dtype
                    and array.flags.c_contiguous and array.flags.writeable):
                raise ValueError(f"out.{name} must be a writeable C-contiguous {np.dtype(dtype).name} array of "
                                 f"shape {shape}")

    def _observe(self, seat: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> None:
        raise NotImplementedError

    def step(self, actions: Any, active: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """One action at each table, or at each ``active`` one (bool ``[N]``; the others are
        left as they are, their entries of ``actions`` unread): ``(rewards, done)``."""
        if active is not None:
            active = np.asarray(active)
            if active.shape != (self.num_tables,) or active.dtype != np.bool_:
                raise ValueError(f"active must be a bool array of shape ({self.num_tables},), not "
                                 f"{active.dtype} {active.shape}; no table was changed")
            active = np.ascontiguousarray(active)
        actions = self._action_array(actions, active)
        rewards = np.zeros((self.num_tables, self.num_players), dtype=np.float32)
        done = np.zeros(self.num_tables, dtype=np.bool_)
        illegal = self._step(actions, active, rewards, done)
        if illegal >= 0:
            raise self._illegal(illegal, int(actions[illegal]))
        finished = np.flatnonzero(done)  # those tables were dealt their next game
        for i in finished:
            self.game_seeds[i] = int(self._next_seeds[i])
        self._draw_next_seeds(finished)
        return rewards, done

    def _action_array(self, actions: Any, active: np.ndarray | None) -> np.ndarray:
        array = np.asarray(actions)
        if array.shape != (self.num_tables,):
            raise IllegalActionError(f"actions must hold one action id per table, shape ({self.num_tables},), "
                                     f"not {array.shape}; no table was changed")
        if array.dtype.kind not in "iu":
            raise IllegalActionError(f"actions must be integer action ids, not {array.dtype}; no table was changed")
        return np.ascontiguousarray(array, dtype=np.int64) if array.dtype.kind == "i" else self._unsigned(array, active)

    def _unsigned(self, array: np.ndarray, active: np.ndarray | None) -> np.ndarray:
        too_big = np.flatnonzero((array >= self.num_actions) & (True if active is None else active))
        if too_big.size:
            raise self._illegal(int(too_big[0]), int(array[too_big[0]]))
        return np.where(array >= self.num_actions, -1, array).astype(np.int64)

    def _illegal(self, table: int, action: int) -> IllegalActionError:
        legal = self.legal_actions(table)
        text = self.layout.text(action) if 0 <= action < self.num_actions else "outside the action space"
        return IllegalActionError(
            f"table {table}: illegal action {action} ({text}) for seat {self._seat(table)}; legal now: "
            + ", ".join(self.layout.text(a) for a in legal) + "; no table was changed")

    def legal_actions(self, table: int) -> list[int]:
        """The legal action ids at ``table``, ascending."""
        raise NotImplementedError

    def legal_lists(self) -> tuple[np.ndarray, np.ndarray]:
        """Each table's legal action ids, ascending, padded with -1 to the largest count
        (int32 ``[N, K]``), and the counts (int32 ``[N]``)."""
        counts = np.empty(self.num_tables, dtype=np.int32)
        width = self._legal_width
        while True:
            ids = np.empty((self.num_tables, width), dtype=np.int32)
            self._legal_lists(ids, counts)
            most = int(counts.max())
            if most <= width:
                return ids[:, :most], counts
            width = self._legal_width = max(most, 2 * width)  # wider at once: counts grow within a game

    def _legal_lists(self, ids: np.ndarray, counts: np.ndarray) -> None:
        raise NotImplementedError

    def random_legal(self, rng: np.random.Generator, active: Any = None) -> np.ndarray:
        """A uniformly random legal action at each table (each ``active`` one; 0 at the others),
        int64 ``[N]``: the picks and the use of ``rng`` of
        ``vector_env.random_legal(rng, observe().mask[active])``, without reading the masks."""
        rows = np.arange(self.num_tables) if active is None else np.flatnonzero(np.asarray(active, dtype=np.bool_))
        uniforms = np.zeros(self.num_tables)
        uniforms[rows] = rng.random(len(rows))
        actions = np.zeros(self.num_tables, dtype=np.int64)
        self._pick_legal(uniforms, actions)
        if active is not None:
            actions[~np.asarray(active, dtype=np.bool_)] = 0
        return actions

    def _pick_legal(self, uniforms: np.ndarray, actions: np.ndarray) -> None:
        raise NotImplementedError

    def _seat(self, table: int) -> int:
        raise NotImplementedError

    def _deal(self, table: int, seed: int) -> None:
        raise NotImplementedError

    def _step(self, actions: np.ndarray, active: np.ndarray | None, rewards: np.ndarray, done: np.ndarray) -> int:
        raise NotImplementedError


_REWARD_MODE_IDS = {mode: i for i, mode in enumerate(REWARD_MODES)}


class NativeTables(Tables):
    """The tables in the compiled core (``src/core/batch.cpp``), on a thread pool."""

    backend: Backend = "native"

    def _open(self, rules: GameRules, num_tables: int, num_threads: int, reward_mode: str) -> ActionLayout:
        layout = ActionLayout.of(rules)
        self._core = _core.Batch(num_tables, num_threads, _REWARD_MODE_IDS[reward_mode],
                                 **table_arguments(rules, layout))
        return layout

    @property
    def observation_size(self) -> int:
        return self._core.observation_size

    def _deal(self, table: int, seed: int) -> None:
        self._core.reset(table, seed_words(seed))

    def _observe(self, seat: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> None:
        self._core.observe(seat, obs, mask)

    def legal_actions(self, table: int) -> list[int]:
        return self._core.legal_actions(table)

    def _seat(self, table: int) -> int:
        return self._core.to_act(table)

    def _pick_legal(self, uniforms: np.ndarray, actions: np.ndarray) -> None:
        self._core.pick_legal(uniforms, actions)

    def _legal_lists(self, ids: np.ndarray, counts: np.ndarray) -> None:
        self._core.legal_lists(ids, counts)

    def _step(self, actions: np.ndarray, active: np.ndarray | None, rewards: np.ndarray, done: np.ndarray) -> int:
        return self._core.step(actions, active, self._next_seeds, rewards, done, self.final_scores)


class PythonTables(Tables):
    """The tables on the reference engine (``rummy_env.engine``), one after another."""

    backend: Backend = "python"

    def _open(self, rules: GameRules, num_tables: int, num_threads: int, reward_mode: str) -> ActionLayout:
        self.engine = Engine(rules)
        self.observer = Observer(self.engine)
        self.states: list[GameState] = [None] * num_tables  # type: ignore[list-item]
        return self.engine.layout

    @property
    def observation_size(self) -> int:
        return self.observer.size

    def _deal(self, table: int, seed: int) -> None:
        self.states[table] = self.engine.new_game(seed)

    def _observe(self, seat: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> None:
        mask[...] = False
        for i, state in enumerate(self.states):
            seat[i] = self.engine.to_act(state)
            obs[i] = self.observer.encode(state, int(seat[i]))
            mask[i, self.engine.legal_actions(state)] = True

    def legal_actions(self, table: int) -> list[int]:
        return list(self.engine.legal_actions(self.states[table]))

    def _seat(self, table: int) -> int:
        return self.engine.to_act(self.states[table])

    def _pick_legal(self, uniforms: np.ndarray, actions: np.ndarray) -> None:
        for i, state in enumerate(self.states):
            legal = self.engine.legal_actions(state)
            actions[i] = legal[min(int(uniforms[i] * len(legal)), len(legal) - 1)]

    def _legal_lists(self, ids: np.ndarray, counts: np.ndarray) -> None:
        ids[...] = -1
        for i, state in enumerate(self.states):
            legal = self.engine.legal_actions(state)
            counts[i] = len(legal)
            shown = min(len(legal), ids.shape[1])
            ids[i, :shown] = legal[:shown]

    def _step(self, actions: np.ndarray, active: np.ndarray | None, rewards: np.ndarray, done: np.ndarray) -> int:
        tables = range(self.num_tables) if active is None else np.flatnonzero(active)
        for i in tables:
            if actions[i] not in self.engine.legal_actions(self.states[i]):
                return int(i)
        for i in tables:
            state, action = self.states[i], actions[i]
            result = self.engine.apply(state, int(action))
            if result is None:
                continue
            received = round_rewards(self.reward_mode, result.penalties, result.game_over, state.scores)
            if received is not None:
                rewards[i] = received
            if state.phase == Phase.GAME_OVER:
                done[i] = True
                self.final_scores[i] = state.scores
                self.states[i] = self.engine.new_game(int(self._next_seeds[i]))
        return -1


__all__ = ["Observation", "Tables", "NativeTables", "PythonTables", "make"]
