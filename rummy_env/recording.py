"""Recording games, and replaying a recording exactly (docs/recording.md).

A **record** is one game as plain JSON data: the game, the env's options, the seed, the
players, every action in order (seat, id and text) and the results. ``RecordingWrapper``
makes one of every game played through it. ``replay`` deals a record's game again from its
seed and applies its actions, checking at every step the seat to act, the action's text
and that it is legal, then the results; the first difference raises ``ReplayError``
naming the step. A recording file holds one record per line (JSON lines):
``recording_file`` writes one, ``read_records`` reads one back.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from pettingzoo import AECEnv
from pettingzoo.utils import BaseWrapper

from . import __version__
from .agents import GameResult
from .env import RummyEnv
from .registry import GAMES, game_spec
from .rules.deal import SCENARIO_OPTIONS
from .state import IllegalActionError, Phase

FORMAT = "rummy_env-record-1"
"""The ``format`` of every record this version writes and reads."""

Record = dict[str, Any]


class RecordError(ValueError):
    """Data that is not a record this version can read."""


class ReplayError(RecordError):
    """A record whose game does not replay as recorded."""


def game_name(env: RummyEnv) -> str:
    """The registry name (``rummy_env.GAMES``) of an env's game."""
    return env.metadata["name"].removesuffix("_v0")


class RecordingWrapper(BaseWrapper):
    """Records every game played through it, from ``reset`` to its end, as a record (see
    the module docstring). A finished record goes to ``on_record`` if given, else onto
    ``records``. ``players`` (one name or agent spec per seat) is read at each ``reset``,
    so it can change between games. A game left unfinished by the next ``reset`` is
    dropped: a record is always a whole game."""

    def __init__(self, env: AECEnv, players: Sequence[str] | None = None,
                 on_record: Callable[[Record], None] | None = None) -> None:
        super().__init__(env)
        self.raw: RummyEnv = env.unwrapped
        raw = self.raw
        self.players = players
        self.on_record = on_record
        self.records: list[Record] = []
        self._game: Record | None = None
        # kept as JSON text, so that options that are not JSON fail here, before any game,
        # and each record gets its own copy
        self._env_options = json.dumps({"num_players": raw.rules.num_players, "rules": env_rules(raw),
                                        "reward_mode": raw.reward_mode})

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        raw = self.raw
        players = raw.possible_agents if self.players is None else self.players
        if len(players) != raw.rules.num_players:
            raise ValueError(f"players names {len(players)} seats, but the game has {raw.rules.num_players}")
        self.env.reset(seed=seed, options=options)
        self._game = {
            "format": FORMAT,
            "rummy_env": __version__,
            "game": game_name(raw),
            "env": json.loads(self._env_options),
            "seed": raw.game_seed,
            "options": scenario_options(options),
            "players": [str(p) for p in players],
            "actions": [],
        }

    def step(self, action: int | None) -> None:
        raw = self.raw
        agent = raw.agent_selection
        if self._game is None or raw.terminations[agent] or raw.truncations[agent]:
            self.env.step(action)  # a done seat's None: nothing to record
            return
        self.env.step(action)  # an illegal action raises here, and is not recorded
        self._game["actions"].append({"seat": raw.possible_agents.index(agent), "action": int(action),
                                      "text": raw.layout.text(int(action))})
        if raw.game_state.phase == Phase.GAME_OVER:
            record, self._game = self._game, None
            record["result"] = results(raw)
            (self.on_record or self.records.append)(record)


def scenario_options(options: dict[str, Any] | None) -> dict[str, Any] | None:
    """The reset options that set up the game (the env ignores any others), as JSON data."""
    known = {key: value for key, value in (options or {}).items() if key in SCENARIO_OPTIONS}
    return json.loads(json.dumps(known)) if known else None


def env_rules(raw: RummyEnv) -> dict[str, Any]:
    """The env's rule options but the player count, as JSON data."""
    rules = {key: value for key, value in raw.rule_config.items() if key != "num_players"}
    try:
        return json.loads(json.dumps(rules))
    except (TypeError, ValueError) as err:
        raise ValueError(f"a recording keeps the rule options as JSON, and {rules} is not: {err}") from None


def results(raw: RummyEnv) -> dict[str, Any]:
    """A finished game's final scores, each round's penalties and the winners, by seat."""
    state = raw.game_state
    return {"scores": list(state.scores), "round_penalties": [list(p) for p in state.round_penalties],
            "winners": raw.engine.winners(state)}


# ---------------------------------------------------------------------- checking a record
_FIELDS: dict[str, tuple[type, ...]] = {
    "game": (str,), "env": (dict,), "seed": (int,), "players": (list,), "actions": (list,), "result": (dict,),
}


def check_record(record: Any) -> Record:
    """``record`` if it has the shape of a record of this format; else ``RecordError`` naming
    what is wrong (the game's own content is checked by ``replay``)."""
    if not isinstance(record, dict) or "format" not in record:
        raise RecordError("not a rummy_env recording (a JSON object with a \"format\" field)")
    if record["format"] != FORMAT:
        raise RecordError(f"record format {record['format']!r} is not one this version reads ({FORMAT!r})")
    for key, types in _FIELDS.items():
        if not isinstance(record.get(key), types) or isinstance(record.get(key), bool):
            raise RecordError(f"the record's {key!r} is missing or not a {types[0].__name__}")
    if record["game"] not in GAMES:
        raise RecordError(f"the record's game {record['game']!r} is not one of {', '.join(GAMES)}")
    env = record["env"]
    if not isinstance(env.get("num_players"), int) or not isinstance(env.get("rules", {}), dict):
        raise RecordError("the record's 'env' needs an integer 'num_players' and a 'rules' object")
    for step, entry in enumerate(record["actions"], 1):
        if not (isinstance(entry, dict) and isinstance(entry.get("seat"), int) and isinstance(entry.get("action"), int)
                and isinstance(entry.get("text"), str)):
            raise RecordError(f"step {step}: an action is {{\"seat\": int, \"action\": int, \"text\": str}}, not {entry!r}")
    if set(record["result"]) < {"scores", "round_penalties", "winners"}:
        raise RecordError("the record's 'result' needs 'scores', 'round_penalties' and 'winners'")
    return record


def make_env(record: Mapping[str, Any]) -> RummyEnv:
    """A raw env of the record's game and options, not yet reset."""
    env = record["env"]
    try:
        return game_spec(record["game"]).raw_env(num_players=env["num_players"],
                                                 reward_mode=env.get("reward_mode", "relative"), **env.get("rules", {}))
    except ValueError as err:
        raise RecordError(f"the record's env options do not build {record['game']}: {err}") from None


# ---------------------------------------------------------------------- replaying
def replay_steps(record: Any) -> Iterator[tuple[int, RummyEnv]]:
    """Deals the record's game again and applies its actions: yields ``(0, env)`` after the
    deal and ``(k, env)`` after the k-th action (the raw env, to read; do not step it).
    Raises ``ReplayError`` naming the step at the first difference from the record."""
    record = check_record(record)
    env = make_env(record)
    try:
        env.reset(seed=record["seed"], options=record.get("options"))
    except ValueError as err:
        raise ReplayError(f"the record's seed or options do not deal a game: {err}") from None
    yield 0, env
    actions = record["actions"]
    total = len(actions)
    for step, entry in enumerate(actions, 1):
        where = f"step {step} of {total}"
        if env.game_state.phase == Phase.GAME_OVER:
            raise ReplayError(f"{where}: the game is already over, yet the record goes on")
        seat, action = entry["seat"], entry["action"]
        to_act = env.possible_agents.index(env.agent_selection)
        if seat != to_act:
            raise ReplayError(f"{where}: the record has seat {seat} acting, but player_{to_act} is to act")
        if not 0 <= action < env.layout.size:
            raise ReplayError(f"{where}: action {action} is outside the action space 0..{env.layout.size - 1}")
        text = env.layout.text(action)
        if text != entry["text"]:
            raise ReplayError(f"{where}: action {action} is {text!r}, but the record says {entry['text']!r}")
        try:
            env.step(action)
        except IllegalActionError as err:
            raise ReplayError(f"{where}: {err}") from None
        yield step, env
    if env.game_state.phase != Phase.GAME_OVER:
        raise ReplayError(f"after all {total} recorded actions the game is not over: the record is cut short")
    replayed, recorded = results(env), record["result"]
    for key in ("scores", "round_penalties", "winners"):
        if replayed[key] != recorded[key]:
            raise ReplayError(f"the replayed {key} {replayed[key]} differ from the recorded {recorded[key]}")


def replay(record: Any) -> GameResult:
    """Replays a record exactly (see ``replay_steps``) and returns its result; raises
    ``ReplayError`` naming the step where the game departs from the record."""
    record = check_record(record)
    for _, env in replay_steps(record):
        pass
    decisions = [0] * env.rules.num_players
    for entry in record["actions"]:
        decisions[entry["seat"]] += 1
    state = env.game_state
    return GameResult(list(state.scores), [list(p) for p in state.round_penalties], env.engine.winners(state),
                      decisions)


# ---------------------------------------------------------------------- files
def record_line(record: Record) -> str:
    """One record as one line of JSON (compact: a long game has thousands of actions)."""
    return json.dumps(record, separators=(",", ":")) + "\n"


@contextmanager
def recording_file(path: str | os.PathLike) -> Iterator[Callable[[Record], None]]:
    """Gives a function that writes a record to ``path``, one line each. They go to a
    temporary file beside it that replaces ``path`` only when the block ends without an
    error: there is never half a recording. ``OSError`` if the file cannot be created."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as f:
        def write(record: Record) -> None:
            f.write(record_line(record))

        try:
            yield write
        except BaseException:
            f.close()
            tmp.unlink(missing_ok=True)
            raise
    tmp.replace(path)


def read_records(path: str | os.PathLike) -> Iterator[tuple[int, Record]]:
    """``(line number, record)`` for each record of a recording file, each checked by
    ``check_record``; ``RecordError`` names the line of the first bad one. ``OSError`` if
    the file cannot be read."""
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise RecordError(f"{path}, line {number}: not JSON ({err.msg}): not a recording") from None
            try:
                yield number, check_record(record)
            except RecordError as err:
                raise RecordError(f"{path}, line {number}: {err}") from None
