"""The observer: a flat float32 vector from one seat's point of view, built from named parts.

Seats in every per-seat part are *relative* to the observer: index 0 is the observer,
1 the player to its left, and so on. Only the ``hand`` part is private; every other part
is what the whole table can see, which keeps hidden-information leaks easy to test.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .engine import Engine, GameState, Phase

PRIVATE_PARTS = ("hand",)


@dataclass(frozen=True)
class Part:
    name: str
    size: int
    description: str


class Observer:
    """Encodes a ``GameState`` for one seat; ``parts`` documents the layout in order."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        rules = engine.rules
        n, faces = rules.num_players, engine.card_set.num_faces
        self.num_players = n
        self.num_faces = faces
        self._hand_scale = 1.0 / (max(r.hand_size for r in rules.rounds) + 1)
        self._card_scale = 1.0 / len(rules.deck.cards())
        self._turn_scale = 1.0 / rules.max_turns_per_round
        self.parts = (
            Part("hand", faces, "own hand: count of each face"),
            Part("discard_top", faces, "top card of the discard pile, one-hot"),
            Part("discard_pile", faces, "count of each face in the discard pile"),
            Part("known_held", (n - 1) * faces,
                 "per other seat (left first): faces it took from the discard pile and still holds"),
            Part("table", faces, "count of each face in melds shown on the table"),
            Part("taken_face", faces, "one-hot: face taken from the discard pile this turn"),
            Part("hand_sizes", n, "cards in each seat's hand / (largest hand size + 1)"),
            Part("scores", n, "cumulative score of each seat / 100"),
            Part("gone_out", n, "1 for the seat that went out this round"),
            Part("to_act", n, "one-hot: the seat to act"),
            Part("dealer", n, "one-hot: the dealer's seat"),
            Part("round", rules.num_rounds, "one-hot: the round"),
            Part("wild_rank", engine.card_set.num_ranks, "one-hot: the round's wild rank"),
            Part("phase", 2, "one-hot: draw, discard"),
            Part("stock_size", 1, "cards in the stock / cards in the game"),
            Part("turns", 1, "turns started this round / max_turns_per_round"),
        )
        self.offsets: dict[str, slice] = {}
        start = 0
        for part in self.parts:
            self.offsets[part.name] = slice(start, start + part.size)
            start += part.size
        self.size = start
        assert self.offsets["taken_face"].stop == (n + 4) * faces, "per-face parts must come first"
        self._starts = {name: sl.start for name, sl in self.offsets.items()}
        self._wild_ranks = [r.wild_rank for r in rules.rounds]

    def encode(self, state: GameState, seat: int) -> np.ndarray:
        n, faces, at = self.num_players, self.num_faces, self._starts
        # The per-face parts (hand .. taken_face) are laid out together: gather them as
        # bytes and convert once, which is several times cheaper than part by part.
        top = bytearray(faces)
        if state.discard:
            top[state.discard[-1]] = 1
        block = state.hands[seat] + top + state.discard_counts
        for rel in range(1, n):
            block += state.known[(seat + rel) % n]
        table = bytearray(faces)
        for tm in state.table:
            for f in tm.cards:
                table[f] += 1
        taken = bytearray(faces)
        if state.taken_face >= 0:
            taken[state.taken_face] = 1
        block += table + taken
        obs = np.zeros(self.size, dtype=np.float32)
        obs[: len(block)] = np.frombuffer(block, np.uint8)
        hand_sizes, scores = at["hand_sizes"], at["scores"]
        for rel in range(n):
            p = (seat + rel) % n
            obs[hand_sizes + rel] = state.hand_sizes[p] * self._hand_scale
            obs[scores + rel] = state.scores[p] * 0.01
        if state.went_out >= 0:
            obs[at["gone_out"] + (state.went_out - seat) % n] = 1.0
        if state.phase != Phase.GAME_OVER:
            obs[at["to_act"] + (state.current - seat) % n] = 1.0
            obs[at["phase"] + int(state.phase)] = 1.0
        obs[at["dealer"] + (state.dealer - seat) % n] = 1.0
        obs[at["round"] + state.round] = 1.0
        wild_rank = self._wild_ranks[state.round]
        if wild_rank is not None:
            obs[at["wild_rank"] + wild_rank] = 1.0
        obs[at["stock_size"]] = len(state.stock) * self._card_scale
        obs[at["turns"]] = state.turns * self._turn_scale
        return obs
