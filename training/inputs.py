"""What a legal-action policy reads of a game: one description per game and rules, built once.

``game_inputs(game, rules_config, features="none")`` returns a ``GameInputs``, cached per process (building the
env and its action layout takes up to 0.3 s in Toonerville Rook, so nothing builds them per
table or per checkpoint). A checkpoint saves it (``to_dict``) and a loaded one rebuilds its
network from it (``from_dict``) without building an env.

**The state's input** is the seat's observation (``rummy_env.observation``) without its two
largest parts, measured in ``docs/training.md``: ``table_slots`` (each table meld's cards,
slot by slot: 1,332 of Contract Rummy's 2,854 numbers, 3,808 of Toonerville Rook's 4,372) and
the discard pile's order below its top ``DISCARD_ROWS`` cards. ``table`` (the counts of every
face on the table) stays, and an action that names a slot is scored with the slot's own
embedding (below). ``columns`` lists the observation positions kept, in order.

**Features** (``LEGAL_FEATURES``): ``none``, ``hand_penalties`` or ``hand_and_draw_penalties``
(games without contracts: ``hand_penalties.py``, the exact least penalty of the hand, what
each discard saves and, with the second, what taking the top discard saves; batched in the
core's meld solver), appended to the kept columns; ``states`` computes the
whole input from observations.

**Each action** is described by tokens: its kind, the faces it names, and small numbers
(a slot, a deep draw's depth, a set's wilds, a run's suit and ends); ``tokens[a]`` lists
action ``a``'s, padded with 0. ``face_channels[a]`` gives, for an action about one face
(discard, go out, lay off, swap), the positions in the state's input of that face's entries
in each per-face part (``FACE_PARTS``) and in the features' per-face block, and ``-1`` for
the other actions: the policy scores an action with what the seat sees about its card, with
weights that every face shares.
"""

from __future__ import annotations

import atexit
import functools
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rummy_env.actions import ActionKind, RunAction, SetAction
from rummy_env.registry import game_spec

from .hand_penalties import HandPenalties

DISCARD_ROWS = 4
"""Rows of the discard pile's order (the top cards) the state's input keeps."""
DROPPED_PARTS = ("table_slots",)
FACE_PARTS = ("hand", "discard_top", "discard_pile", "known_held", "table", "taken_face", "must_place", "buy_offer")
FACE_ACTIONS = (ActionKind.DISCARD, ActionKind.GO_OUT, ActionKind.LAY_OFF, ActionKind.SWAP)
LEGAL_FEATURES: tuple[str, ...] = ("none", "hand_penalties", "hand_and_draw_penalties")
"""The feature sets of the legal-action policy (the dense policy's are ``features.FEATURES``)."""
SMALL_NUMBERS = 64
"""Token values for small numbers (slots, depths, wilds, suits, run ends) are 0..63."""


@dataclass(frozen=True)
class GameInputs:
    """A game's inputs for a legal-action policy (module docstring)."""

    game: str
    rules_config: dict[str, Any]
    observation_size: int
    action_size: int
    num_players: int
    num_faces: int
    columns: np.ndarray
    """int64 ``[D]``: the observation positions the state's input keeps, ascending."""
    tokens: np.ndarray
    """int64 ``[A, M]``: each action's tokens (0 pads)."""
    face_channels: np.ndarray
    """int64 ``[A, C]``: per action about one face, its face's positions in the state's input; -1 else."""
    parts: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Each observation part's ``(start, stop)``."""
    features: str = "none"
    """The feature set appended to the kept columns (``LEGAL_FEATURES``)."""

    def __deepcopy__(self, memo: dict) -> "GameInputs":
        return self  # never changed once built: a copied network (a pool snapshot) shares it and its solver

    @functools.cached_property
    def feature_set(self) -> HandPenalties | None:
        """What computes the features (built at first use: the core's meld solver)."""
        if self.features == "none":
            return None
        return HandPenalties(self.game, self.rules_config, self.parts, draw=self.features == "hand_and_draw_penalties")

    @property
    def input_size(self) -> int:
        return len(self.columns) + feature_size(self.features, self.num_faces)

    def states(self, observations: np.ndarray) -> np.ndarray:
        """The state's input of ``[B, observation_size]`` observations: the kept columns,
        then the features."""
        kept = observations[:, self.columns]
        if self.feature_set is None:
            return kept
        return np.concatenate([kept, self.feature_set(observations)], axis=1)

    @property
    def num_tokens(self) -> int:
        return 1 + len(ActionKind) + self.num_faces + 2 * SMALL_NUMBERS

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a checkpoint (``torch.load(weights_only=True)`` reads it)."""
        return {"game": self.game, "rules_config": dict(self.rules_config),
                "observation_size": self.observation_size, "action_size": self.action_size,
                "num_players": self.num_players, "num_faces": self.num_faces,
                "columns": self.columns.tolist(), "tokens": self.tokens.tolist(),
                "face_channels": self.face_channels.tolist(),
                "parts": {name: list(span) for name, span in self.parts.items()}, "features": self.features}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GameInputs":
        arrays = {name: np.asarray(data[name], dtype=np.int64) for name in ("columns", "tokens", "face_channels")}
        parts = {name: (int(span[0]), int(span[1])) for name, span in data["parts"].items()}
        return cls(**{**data, **arrays, "parts": parts})


def feature_size(features: str, faces: int) -> int:
    """How many numbers a legal-action feature set appends."""
    return {"none": 0, "hand_penalties": faces + 1, "hand_and_draw_penalties": faces + 2}[features]


def game_inputs(game: str, rules_config: dict[str, Any], features: str = "none") -> GameInputs:
    """The description of ``game`` with the env options ``rules_config`` and a feature set of
    ``LEGAL_FEATURES`` (cached per process)."""
    if features not in LEGAL_FEATURES:
        raise ValueError(f"features of the legal-action policy must be one of {', '.join(LEGAL_FEATURES)}, "
                         f"not {features!r}")
    return _cached(game, json.dumps(rules_config, sort_keys=True), features)


@functools.lru_cache(maxsize=16)
def _cached(game: str, rules_json: str, features: str) -> GameInputs:
    rules_config = json.loads(rules_json)
    env = game_spec(game).raw_env(**rules_config)
    observer, layout = env.observer, env.layout
    faces = observer.num_faces
    kept = np.ones(observer.size, dtype=bool)
    for name, part in observer.offsets.items():
        if name in DROPPED_PARTS:
            kept[part] = False
        elif name == "discard_order":
            kept[part.start + DISCARD_ROWS * faces:part.stop] = False
    columns = np.flatnonzero(kept)
    position = np.full(observer.size, -1, dtype=np.int64)
    position[columns] = np.arange(len(columns))
    face_starts: list[int] = []
    for name in FACE_PARTS:
        part = observer.offsets.get(name)
        if part is not None:
            face_starts += list(range(part.start, part.stop, faces))
    tokens = [_tokens(kind, args, faces) for kind, args in zip(layout.kinds, layout.args)]
    width = max(len(t) for t in tokens)
    feature_blocks = [len(columns)] if features != "none" else []  # the features' per-face block
    face_channels = np.full((layout.size, len(face_starts) + len(feature_blocks)), -1, dtype=np.int64)
    for a, (kind, args) in enumerate(zip(layout.kinds, layout.args)):
        if kind in FACE_ACTIONS:
            face = args if isinstance(args, int) else args[0]
            face_channels[a] = list(position[[start + face for start in face_starts]]) + \
                [block + face for block in feature_blocks]
    inputs = GameInputs(game=game, rules_config=rules_config, observation_size=observer.size,
                        action_size=layout.size, num_players=observer.num_players, num_faces=faces,
                        columns=columns, tokens=np.array([t + [0] * (width - len(t)) for t in tokens], dtype=np.int64),
                        face_channels=face_channels,
                        parts={name: (part.start, part.stop) for name, part in observer.offsets.items()},
                        features=features)
    inputs.feature_set  # refuses a feature set the game cannot have, now
    return inputs


def _tokens(kind: ActionKind, args: Any, faces: int) -> list[int]:
    """An action's tokens: kind ``1 + kind``, then faces, then small numbers of two kinds
    (counts and positions: slots, depths, wilds; suits and run ends)."""
    face_at = 1 + len(ActionKind)
    count_at = face_at + faces
    place_at = count_at + SMALL_NUMBERS
    tokens = [1 + int(kind)]
    if isinstance(args, SetAction):
        tokens += [face_at + f for f in args.naturals] + [count_at + args.wilds, place_at + args.rank]
    elif isinstance(args, RunAction):
        tokens += [place_at + args.suit, place_at + 16 + args.low, place_at + 32 + args.high]
    elif isinstance(args, tuple):  # (face, slot)
        tokens += [face_at + args[0], count_at + args[1]]
    elif kind == ActionKind.DEEP_DRAW:
        tokens += [count_at + args]
    elif args is not None:  # a face: discard, go out
        tokens += [face_at + args]
    return tokens


# the cached inputs hold the features' meld solvers (compiled objects): released before the
# interpreter tears its modules down, which nanobind reports as leaks when they outlive it
atexit.register(_cached.cache_clear)
