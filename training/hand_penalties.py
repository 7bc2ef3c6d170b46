"""``features: hand_penalties`` for the legal-action policy: exact meld penalties of the
seat's own hand, batched in the compiled core's meld solver.

For games without contracts (Three-Thirteen), from each decision's observation alone (the
seat's hand and the round's wild rank), ``size = faces + 1`` numbers:

- per face ``f`` (at a discard decision, for each face held): ``(pen(H) - pen(H - f)) / 10``,
  what discarding one ``f`` saves, where ``pen`` is the hand's least penalty over every
  arrangement (the round's wilds as wilds); 0 for faces not held and at a draw;
- ``pen(H) / 100``.

The dense trainer's ``three_thirteen_penalties`` (``features.py``) computes these in Python,
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

    def __init__(self, game: str, rules_config: dict[str, Any], parts: dict[str, tuple[int, int]]) -> None:
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
        self.discarding = parts["phase"][0] + 1  # the phase part's second entry: a discard decision

    @property
    def size(self) -> int:
        return self.faces + 1

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
        return out

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
