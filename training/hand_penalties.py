"""``features: hand_penalties`` and ``hand_and_draw_penalties`` for the legal-action policy:
exact meld penalties of the seat's own hand, batched in the compiled core's meld solver.

For games without contracts (Three-Thirteen), from each decision's observation alone (the
seat's hand, the top discard and the round's wild rank), ``hand_penalties`` is ``faces + 1``
numbers:

- per face ``f`` (at a discard decision, for each face held): ``(pen(H) - pen(H - f)) / 10``,
  what discarding one ``f`` saves, where ``pen`` is the hand's least penalty over every
  arrangement (the round's wilds as wilds); 0 for faces not held and at a draw;
- ``pen(H) / 100``;

and ``hand_and_draw_penalties`` one more: at a draw with a top discard ``t``,
``(pen(H) - min_d pen(H + t - d)) / 10`` over the discards allowed after taking it (not ``t``
itself unless the hand holds another): what taking it, then the best discard, saves.

The dense trainer's ``three_thirteen_penalties`` (``features.py``) computes these (the draw's
too) in Python,
a decision at a time, through the baselines' solver wrapper; this asks the core's
``min_penalty_many`` for every hand of a collection step at once, one call per wild rank.
The per-face block is a face channel of the scoring (``GameInputs.face_channels``): a
discard is scored with what it saves, by weights every face shares.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.backend import solver
from rummy_env.registry import game_spec


class HandPenalties:
    """The ``hand_penalties`` numbers of a batch of observations (module docstring)."""

    def __init__(self, game: str, rules_config: dict[str, Any], parts: dict[str, tuple[int, int]],
                 draw: bool = False) -> None:
        rules = game_spec(game).rules(**{k: v for k, v in rules_config.items() if k != "reward_mode"})
        if rules.contract_play is not None:
            raise ValueError(f"features 'hand_penalties' are for games without contracts, not {game}")
        cs = rules.deck.card_set
        self.faces, self.ranks, self.suits = cs.num_naturals, cs.num_ranks, cs.num_suits
        self.solver = solver(cs, rules.melds)
        self.rank_values = list(rules.rank_penalties)
        self.values = [self.rank_values[f % self.ranks] for f in range(self.faces)]
        self.hand = slice(*parts["hand"])
        self.wild_rank = slice(*parts["wild_rank"])
        self.top = slice(*parts["discard_top"])
        self.drawing = parts["phase"][0]  # the phase part's first entry: a draw decision
        self.discarding = parts["phase"][0] + 1  # its second: a discard decision
        self.draw = draw

    @property
    def size(self) -> int:
        return self.faces + 1 + self.draw

    def __call__(self, observations: np.ndarray) -> np.ndarray:
        """``[B, size]`` float32 for ``[B, observation_size]`` observations."""
        rows = len(observations)
        out = np.zeros((rows, self.size), np.float32)
        if not rows:
            return out
        hands = observations[:, self.hand].astype(np.int32)
        wild_ranks = observations[:, self.wild_rank].argmax(1)
        base = self._penalties(hands, wild_ranks)
        out[:, self.faces] = base / 100
        row, face = np.nonzero(hands * (observations[:, self.discarding] > 0)[:, None])
        if len(row):
            without = hands[row].copy()
            without[np.arange(len(row)), face] -= 1
            out[row, face] = (base[row] - self._penalties(without, wild_ranks[row])) / 10
        if self.draw:
            self._draw_gains(out[:, self.faces + 1], observations, hands, wild_ranks, base)
        return out

    def _draw_gains(self, out: np.ndarray, observations: np.ndarray, hands: np.ndarray, wild_ranks: np.ndarray,
                    base: np.ndarray) -> None:
        """Writes each draw's gain from the top discard into ``out`` (module docstring)."""
        offered = observations[:, self.top]
        rows = np.flatnonzero((observations[:, self.drawing] > 0) & (offered.max(1) > 0))
        if not len(rows):
            return
        taken = hands[rows] + offered[rows].astype(np.int32)
        allowed = taken.copy()
        allowed[np.arange(len(rows)), offered[rows].argmax(1)] -= 1  # the taken card only if another is held
        pair, face = np.nonzero(allowed)
        after = taken[pair].copy()
        after[np.arange(len(pair)), face] -= 1
        penalties = self._penalties(after, wild_ranks[rows][pair])
        best = np.full(len(rows), np.iinfo(np.int64).max)
        np.minimum.at(best, pair, penalties)
        out[rows] = (base[rows] - best) / 10

    def _penalties(self, hands: np.ndarray, wild_ranks: np.ndarray) -> np.ndarray:
        """The least penalty of each hand (per-face counts) in its round (its wild rank)."""
        penalties = np.zeros(len(hands), np.int64)
        for rank in np.unique(wild_ranks).tolist():
            mine = np.flatnonzero(wild_ranks == rank)
            wild_faces = [suit * self.ranks + rank for suit in range(self.suits)]
            naturals = hands[mine].copy()
            wilds = naturals[:, wild_faces].sum(1).astype(np.int32)
            naturals[:, wild_faces] = 0
            penalties[mine] = self.solver.min_penalty_many(naturals, wilds, self.values, self.rank_values[rank])
        return penalties
