"""The observer: a flat float32 vector from one seat's point of view, built from named parts,
and read back by name through its ``decoder`` (``rummy_env/observation_view.py``).

Seats in every per-seat part are *relative* to the observer: index 0 is the observer,
1 the player to its left, and so on. Only the ``hand`` part is private; every other part
is what the whole table can see, which keeps hidden-information leaks easy to test.

The parts holding small counts (cards by face, the table's slots) come first and are
gathered as bytes and converted once, which is several times cheaper than part by part.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .engine import Engine
from .observation_view import ObservationDecoder, ObservationView
from .state import GameState, Phase, TableMeld

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
        cs = engine.card_set
        n, faces, naturals = rules.num_players, cs.num_faces, cs.num_naturals
        self.num_players = n
        self.num_faces = faces
        self.contract = rules.contract_play is not None
        self.buying = self.contract and rules.contract_play.buying
        self.depth = engine.layout.max_deep_draw
        self.num_slots = engine.layout.num_slots
        self._hand_scale = 1.0 / (max(r.hand_size for r in rules.rounds) + 1)
        self._card_scale = 1.0 / len(rules.deck.cards())
        self._turn_scale = 1.0 / rules.max_turns_per_round
        self._slot_size = n + 2 + 2 * naturals + 1
        byte_parts = [Part("hand", faces, "own hand: count of each face")]
        if self.depth >= 2:
            byte_parts.append(Part("discard_order", self.depth * faces,
                                   "the top cards of the discard pile, top first: one-hot face per depth"))
        else:
            byte_parts.append(Part("discard_top", faces, "top card of the discard pile, one-hot"))
        byte_parts += [
            Part("discard_pile", faces, "count of each face in the discard pile"),
            Part("known_held", (n - 1) * faces,
                 "per other seat (left first): faces everyone saw it take (from the discard pile, "
                 "by a buy or a swap) and has not played or discarded since"),
            Part("table", faces, "count of each face in the melds on the table"),
            Part("taken_face", faces, "one-hot: face taken from the top of the discard pile this turn"),
        ]
        self.deep_draws = self.depth >= 2
        if self.deep_draws:
            byte_parts.append(Part("must_place", faces, "one-hot: deep-drawn face that must still go on the table"))
        if self.contract:
            byte_parts += [
                Part("table_slots", self.num_slots * self._slot_size,
                     "per meld slot: owner (relative seat, one-hot), set / run, natural count per "
                     "face, the faces its wilds represent (runs), wilds in a set"),
            ]
        if self.buying:
            byte_parts.append(Part("buy_offer", faces, "one-hot: the top discard offered in the buy question"))
        float_parts = [
            Part("hand_sizes", n, "cards in each seat's hand / (largest hand size + 1)"),
            Part("scores", n, "cumulative score of each seat / 100"),
            Part("gone_down" if self.contract else "gone_out", n,
                 "1 for each seat that has gone down this round" if self.contract
                 else "1 for the seat that went out this round"),
            Part("to_act", n, "one-hot: the seat to act (the one asked, during a buy question)"),
            Part("dealer", n, "one-hot: the dealer's seat"),
            Part("round", rules.num_rounds, "one-hot: the round"),
        ]
        if self.contract:
            float_parts += [
                Part("contract", 3, "the round's contract: sets / 4, runs / 4, 1 if the hand must be emptied "
                                  "without a final discard (going down uses every card, or out by melding)"),
                Part("contract_left", 2, "sets / 4 and runs / 4 still to lay in the going down in progress"),
                Part("wilds_owed", 1, "wilds taken back by a swap that must still be played this turn"),
            ]
            if self.buying:
                float_parts += [
                    Part("turn_owner", n, "one-hot: the seat whose turn it is"),
                    Part("buys", n, "cards each seat bought this round (each with a penalty card) / 10"),
                    Part("phase", 4, "one-hot: draw, play, going down, buy question"),
                ]
            else:
                float_parts.append(Part("phase", 3, "one-hot: draw, play, going down"))
        else:
            float_parts += [
                Part("wild_rank", cs.num_ranks, "one-hot: the round's wild rank"),
                Part("phase", 2, "one-hot: draw, play (discard or go out)"),
            ]
        float_parts += [
            Part("stock_size", 1, "cards in the stock / cards in the game"),
            Part("turns", 1, "turns started this round / max_turns_per_round"),
        ]
        self.parts = tuple(byte_parts + float_parts)
        self.offsets: dict[str, slice] = {}
        start = 0
        for part in self.parts:
            self.offsets[part.name] = slice(start, start + part.size)
            start += part.size
        self.size = start
        phase_names = ("draw", "play", "going_down", "buy")
        self.decoder = ObservationDecoder(
            offsets=dict(self.offsets), size=self.size, num_players=n, num_faces=faces, num_naturals=naturals,
            hand_scale=max(r.hand_size for r in rules.rounds) + 1, card_scale=len(rules.deck.cards()),
            turn_scale=rules.max_turns_per_round, phases=phase_names[: self.offsets["phase"].stop - self.offsets["phase"].start],
        )
        self._bytes_size = sum(p.size for p in byte_parts)
        self._tail_starts = {p.name: self.offsets[p.name].start - self._bytes_size for p in float_parts}
        self._wild_ranks = [r.wild_rank for r in rules.rounds]
        self._contracts = [r.contract or (0, 0) for r in rules.rounds]
        # the hand must be emptied without a final discard (down = out, or out by melding)
        self._no_final_discard = [r.down_means_out or r.out_by_melding for r in rules.rounds]
        self._meld_codes: dict = {}
        self._table_cache: dict[tuple[int, int], tuple[bytes, bytes]] = {}
        self._last_slots: dict[int, tuple[list[TableMeld], bytes, int]] = {}
        self._empty_slots = bytes(self.num_slots * self._slot_size)
        self._meld_counts: dict[tuple[int, ...], int] = {}
        self._top_cache: dict[tuple[int, ...], bytes] = {}
        self._tail_cache: dict[tuple, list[float]] = {}
        self._one_hot = [bytes(f) + b"\x01" + bytes(faces - f - 1) for f in range(faces)]
        self._no_face = bytes(faces)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)``: the least and the most each entry of ``encode`` can be, in any
        state of this configuration (the observation space's ``low`` and ``high``)."""
        rules, cs = self.engine.rules, self.engine.card_set
        copies = np.asarray(rules.deck.face_counts(), dtype=np.float32)  # most cards of a face
        total_cards = float(len(rules.deck.cards()))
        wilds = float(rules.num_wild_cards)
        contracts = [r.contract or (0, 0) for r in rules.rounds]
        most_sets = max(c[0] for c in contracts) / 4
        most_runs = max(c[1] for c in contracts) / 4
        play = rules.contract_play
        most_buys = total_cards if play is None or play.max_buys_per_round is None else play.max_buys_per_round
        one_slot = np.concatenate([
            np.ones(self.num_players + 2, np.float32),  # owner, kind
            copies[: cs.num_naturals], np.ones(cs.num_naturals, np.float32),  # naturals, represented faces
            [wilds],  # wilds in a set
        ])
        per_face = {"hand", "discard_pile", "known_held", "table"}
        highs = {
            "table_slots": np.tile(one_slot, self.num_slots),
            "hand_sizes": total_cards * self._hand_scale,  # buying can grow a hand past the deal
            "scores": 2 * rules.max_score * 0.01,  # a reset may start from scores up to max_score
            "contract": np.array([most_sets, most_runs, 1.0], np.float32),
            "contract_left": np.array([most_sets, most_runs], np.float32),
            "wilds_owed": wilds,
            "buys": most_buys * 0.1,
        }
        high = np.concatenate([
            np.resize(copies, part.size) if part.name in per_face
            else np.broadcast_to(np.asarray(highs.get(part.name, 1.0), np.float32), (part.size,))
            for part in self.parts
        ]).astype(np.float32)
        return np.zeros(self.size, np.float32), high

    def decode(self, observation: np.ndarray) -> ObservationView:
        """The observation read back by part name (see ``ObservationView``)."""
        return self.decoder.decode(observation)

    def encode(self, state: GameState, seat: int) -> np.ndarray:
        n, one_hot, none = self.num_players, self._one_hot, self._no_face
        known = state.known
        parts = [state.hands[seat], self._discard_top(state.discard), state.discard_counts]
        parts += known[seat + 1:] + known[:seat]  # the other seats, left first
        table, slots = self._table_parts(state, seat)
        parts += (table, one_hot[state.taken_face] if state.taken_face >= 0 else none)
        if self.deep_draws:
            parts.append(one_hot[state.must_place] if state.must_place >= 0 else none)
        if self.contract:
            parts.append(slots)
        if self.buying:
            parts.append(one_hot[state.discard[-1]] if state.phase == Phase.BUY else none)
        block = b"".join(parts)
        # The scalar parts go into a list written once: numpy item writes cost more.
        tail, at = self._tail_base(state, seat), self._tail_starts
        # per-seat parts: the lists rotated to put the observer first
        k, scale, sizes = at["hand_sizes"], self._hand_scale, state.hand_sizes
        tail[k:k + n] = [size * scale for size in sizes[seat:] + sizes[:seat]]
        if self.contract:
            k, turns = at["gone_down"], state.down_turn
            tail[k:k + n] = [1.0 if turn >= 0 else 0.0 for turn in turns[seat:] + turns[:seat]]
            if state.phase == Phase.GOING_DOWN:
                sets, runs = state.contract_left
                k = at["contract_left"]
                tail[k:k + 2] = (sets / 4, runs / 4)
            tail[at["wilds_owed"]] = float(state.wilds_owed)
        elif state.went_out >= 0:
            tail[at["gone_out"] + (state.went_out - seat) % n] = 1.0
        if state.phase != Phase.GAME_OVER:
            tail[at["to_act"] + (self.engine.to_act(state) - seat) % n] = 1.0
            tail[at["phase"] + int(state.phase)] = 1.0
            if self.buying:
                tail[at["turn_owner"] + (state.current - seat) % n] = 1.0
        if self.buying:
            k, buys = at["buys"], state.buys
            tail[k:k + n] = [bought * 0.1 for bought in buys[seat:] + buys[:seat]]
        tail[at["stock_size"]] = len(state.stock) * self._card_scale
        tail[at["turns"]] = state.turns * self._turn_scale
        obs = np.empty(self.size, dtype=np.float32)
        obs[: self._bytes_size] = np.frombuffer(block, np.uint8)
        obs[self._bytes_size:] = tail
        return obs

    def _discard_top(self, discard: list[int]) -> bytes:
        """``discard_order`` (or ``discard_top``): one-hot faces of the top cards, top first,
        cached by those cards (the pile's top changes on few steps)."""
        key = tuple(discard[-self.depth:])
        hit = self._top_cache.get(key)
        if hit is None:
            one_hot = self._one_hot
            hit = b"".join([one_hot[f] for f in reversed(key)]) + self._no_face * (self.depth - len(key))
            if len(self._top_cache) > 256:
                self._top_cache.clear()
            self._top_cache[key] = hit
        return hit

    def _tail_base(self, state: GameState, seat: int) -> list[float]:
        """A fresh copy of the scalar parts that hold for a whole round (scores, dealer,
        round, contract or wild rank), zero elsewhere."""
        key = (state.round, state.dealer, seat, tuple(state.scores))
        base = self._tail_cache.get(key)
        if base is None:
            n, at = self.num_players, self._tail_starts
            base = [0.0] * (self.size - self._bytes_size)
            for rel in range(n):
                base[at["scores"] + rel] = state.scores[(seat + rel) % n] * 0.01
            if self.contract:
                sets, runs = self._contracts[state.round]
                k = at["contract"]
                base[k:k + 3] = (sets / 4, runs / 4, float(self._no_final_discard[state.round]))
            elif self._wild_ranks[state.round] is not None:
                base[at["wild_rank"] + self._wild_ranks[state.round]] = 1.0
            base[at["dealer"] + (state.dealer - seat) % n] = 1.0
            base[at["round"] + state.round] = 1.0
            if len(self._tail_cache) > 256:
                self._tail_cache.clear()
            self._tail_cache[key] = base
        return list(base)

    def _table_parts(self, state: GameState, seat: int) -> tuple[bytes, bytes]:
        """The ``table`` and ``table_slots`` parts, cached by the table's stamp (the table
        changes on few steps) and otherwise updated from what this seat saw last: most
        changes touch one slot, so only the slots whose melds are not the same objects
        are rewritten, and their cards counted (as ints with one byte per face: no face
        reaches 256 cards)."""
        key = (state.table_stamp, seat)
        hit = self._table_cache.get(key)
        if hit is not None:
            return hit
        now, size = state.table, self._slot_size
        last_table, slots, total = self._last_slots.get(seat, ((), self._empty_slots, 0))
        if len(now) < len(last_table):  # a new round
            last_table, slots, total = (), self._empty_slots, 0
        buffer = None
        for k, tm in enumerate(now):
            old = last_table[k] if k < len(last_table) else None
            if old is not tm:
                total += self._card_counts(tm) - (self._card_counts(old) if old is not None else 0)
                if self.contract:
                    if buffer is None:
                        buffer = bytearray(slots)
                    buffer[k * size:(k + 1) * size] = self._slot_code(tm, seat)
        if buffer is not None:
            slots = bytes(buffer)
        self._last_slots[seat] = (list(now), slots, total)
        if len(self._table_cache) > 64:
            self._table_cache.clear()
        hit = self._table_cache[key] = (total.to_bytes(self.num_faces, "little"), slots if self.contract else b"")
        return hit

    def _card_counts(self, tm: TableMeld) -> int:
        """A meld's cards as an int with one byte per face, memoised by its cards."""
        counts = self._meld_counts.get(tm.cards)
        if counts is None:
            counts = sum(1 << (8 * f) for f in tm.cards)
            if len(self._meld_counts) > 4096:
                self._meld_counts.clear()
            self._meld_counts[tm.cards] = counts
        return counts

    def _slot_code(self, tm: TableMeld, seat: int) -> bytes:
        """One ``table_slots`` entry: the owner relative to ``seat``, then the meld's code."""
        owner = bytearray(self.num_players)
        owner[(tm.owner - seat) % self.num_players] = 1
        return bytes(owner) + self._meld_code(tm)

    def _meld_code(self, tm: TableMeld) -> bytes:
        """A meld's slot features after the owner: kind, naturals, represented faces, set wilds."""
        code = self._meld_codes.get(tm.meld)
        if code is None:
            cs = self.engine.card_set
            meld, N = tm.meld, cs.num_naturals
            kind = b"\x01\x00" if meld.kind == "set" else b"\x00\x01"
            naturals, represents = bytearray(N), bytearray(N)
            for f in meld.naturals:
                naturals[f] += 1
            set_wilds = 0
            if meld.kind == "set":
                set_wilds = meld.wilds
            else:
                for q in meld.wild_positions(cs.num_ranks):
                    represents[cs.face(meld.suit, q % cs.num_ranks)] = 1
            code = kind + naturals + represents + bytes([set_wilds])
            if len(self._meld_codes) > 4096:
                self._meld_codes.clear()
            self._meld_codes[tm.meld] = code
        return code
