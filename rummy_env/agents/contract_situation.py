"""One decision of a contract game as the baseline agents read it: ``Situation`` (the legal
actions by kind, the hand, the round and its contract, the table, the discard pile, the
copies of each face still to come) and the seat's ``TableReader``, which decodes
observations and memoises the table's melds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..actions import ActionKind
from ..observation_view import ObservationView
from .base import Decision, SeatInfo
from .contract_planner import Deck, TableMeld

if TYPE_CHECKING:
    from .contract_heuristics import ContractAgent


class TableReader:
    """One configuration's observations, read through the seat's decoder, with the table's
    melds memoised (the table changes rarely)."""

    def __init__(self, seat: SeatInfo) -> None:
        self.decoder = seat.observation
        self.n = seat.num_players
        self.deep = "discard_order" in self.decoder.offsets
        self._tables: dict[bytes, list[TableMeld]] = {}

    def table(self, deck: Deck, view: ObservationView) -> list[TableMeld]:
        """The melds on the table, in slot order."""
        key = view.part("table_slots").tobytes()
        hit = self._tables.get(key)
        if hit is None:
            hit = [TableMeld(deck, slot.is_set, slot.naturals, slot.represents, slot.set_wilds)
                   for slot in view.table_slots()]
            if len(self._tables) > 256:
                self._tables.clear()
            self._tables[key] = hit
        return hit


class Situation:
    """One decision, read once from the observation: the legal actions by kind, the hand,
    the round and its contract, the table, the discard pile's top cards, and (on demand)
    how many cards of each face may still come. Seats are relative: 0 is this seat, 1 the
    player to its left (who draws next), and so on."""

    def __init__(self, agent: ContractAgent, decision: Decision) -> None:
        deck, reader = agent.deck, agent.reader
        self.deck = deck
        self.legal = decision.legal_actions.tolist()
        kinds = agent.layout.kinds
        self.by_kind: dict[ActionKind, list[int]] = {}
        for a in self.legal:
            self.by_kind.setdefault(kinds[a], []).append(a)
        view = self.view = reader.decoder.decode(decision.observation)
        self.hand = view.counts("hand")
        self.naturals = tuple(self.hand[:deck.naturals])
        self.wilds = self.hand[deck.wild] if deck.wild >= 0 else 0
        self.size = sum(self.hand)
        self.phase = view.phase
        self.n = reader.n
        self.round = view.index("round")
        self.spec = deck.rules.rounds[self.round]
        self.sets, self.runs = self.spec.contract
        self.all_cards = self.spec.down_means_out
        self.gone_down = view.flags("gone_down")
        self.down = self.gone_down[0]
        self.hand_sizes = view.hand_sizes
        self.turns = view.turns
        self.stock_size = view.stock_size
        self.pile_size = int(view.part("discard_pile").sum())
        self.top = view.face("discard_order" if reader.deep else "discard_top")
        self.table = reader.table(deck, view)
        self._live: list[int] | None = None
        self._elsewhere: list[int] | None = None
        self.availability: list[int] | None = None

    def pile_faces(self, depth: int) -> list[int]:
        """The top ``depth`` cards of the discard pile, as faces."""
        return self.view.discard_order(depth)

    @property
    def scores(self) -> list[int]:
        """Every seat's total before this deal, this seat first."""
        return self.view.scores

    def buy_offer(self) -> int:
        return self.view.face("buy_offer")

    def buys(self) -> int:
        """Cards this seat has bought this round."""
        return self.view.buys[0]

    @property
    def live(self) -> list[int]:
        """Per face, the copies that may still come to this hand: not in it, not on the
        table, not known to be held by another player, and not in the discard pile unless
        the stock is so small that the pile will soon be shuffled into it."""
        if self._live is None:
            view = self.view
            seen = view.part("table") + view.part("known_held").reshape(self.n - 1, -1).sum(axis=0)
            if self.stock_size > 3 * self.n:
                seen = seen + view.part("discard_pile")
            self._live = [max(0, c - h - int(k)) for c, h, k in zip(self.deck.copies, self.hand, seen.tolist())]
        return self._live

    @property
    def pile_counts(self) -> list[int]:
        """Per face, the cards of it in the discard pile."""
        return self.view.counts("discard_pile")

    @property
    def known_counts(self) -> list[int]:
        """Per face, the cards of it that other players are known to hold."""
        known = self.view.part("known_held").reshape(self.n - 1, -1).sum(axis=0)
        return [int(c) for c in known.tolist()]

    @property
    def held_elsewhere(self) -> list[int]:
        """Per face, the copies that may be in other players' hands (not in this hand,
        on the table or in the discard pile)."""
        if self._elsewhere is None:
            seen = (self.view.part("table") + self.view.part("discard_pile")).tolist()
            self._elsewhere = [max(0, c - h - int(k)) for c, h, k in zip(self.deck.copies, self.hand, seen)]
        return self._elsewhere

    @property
    def table_counts(self) -> list[int]:
        """Per face, the cards of it in the melds on the table."""
        return self.view.counts("table")

    def known_of(self, seat: int) -> list[int]:
        """Faces the (relative) seat is publicly known to hold (taken from the discard pile
        or bought)."""
        return self.view.known_of(seat)
