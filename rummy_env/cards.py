"""Cards, decks and their canonical text (docs/rules/README.md#card-text).

A card is an ``int`` *face*. Natural faces are ``suit * num_ranks + rank`` with ranks
0-based (standard: A=0 .. K=12; Rook: 1=0 .. 14=13); the deck's wild card (joker or Rook),
when the deck has one, is the face ``num_suits * num_ranks``. Several physical cards of one
face are interchangeable, so hands are kept as per-face counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DeckKind = Literal["standard", "rook"]

STANDARD_RANKS = "A23456789TJQK"
STANDARD_SUITS = "CDHS"
ROOK_COLOURS = "RYGB"


@dataclass(frozen=True)
class CardSet:
    """The faces of one kind of deck, and their text."""

    kind: DeckKind
    num_suits: int
    num_ranks: int
    has_wild_card: bool

    @property
    def num_naturals(self) -> int:
        return self.num_suits * self.num_ranks

    @property
    def num_faces(self) -> int:
        return self.num_naturals + (1 if self.has_wild_card else 0)

    @property
    def wild_card(self) -> int:
        """The face of the joker / Rook (only meaningful when ``has_wild_card``)."""
        return self.num_naturals

    @property
    def suit_letters(self) -> str:
        return STANDARD_SUITS if self.kind == "standard" else ROOK_COLOURS

    def suit(self, face: int) -> int:
        return face // self.num_ranks

    def rank(self, face: int) -> int:
        return face % self.num_ranks

    def face(self, suit: int, rank: int) -> int:
        return suit * self.num_ranks + rank

    def rank_text(self, rank: int) -> str:
        return STANDARD_RANKS[rank] if self.kind == "standard" else str(rank + 1)

    def format(self, face: int) -> str:
        if self.has_wild_card and face == self.wild_card:
            return "JK" if self.kind == "standard" else "ROOK"
        if not 0 <= face < self.num_naturals:
            raise ValueError(f"{face} is not a card face of a {self.kind} deck")
        return self.rank_text(self.rank(face)) + self.suit_letters[self.suit(face)]

    def parse_rank(self, text: str) -> int:
        """Rank index of a rank's text (lenient: lower case, ``10`` for ``T``)."""
        t = text.strip().upper()
        if self.kind == "standard":
            if t == "10":
                t = "T"
            if len(t) == 1 and t in STANDARD_RANKS:
                return STANDARD_RANKS.index(t)
        elif t.isdigit() and 1 <= int(t) <= self.num_ranks:
            return int(t) - 1
        raise ValueError(f"{text!r} is not a rank of a {self.kind} deck")

    def parse_suit(self, text: str) -> int:
        t = text.strip().upper()
        if len(t) == 1 and t in self.suit_letters:
            return self.suit_letters.index(t)
        raise ValueError(f"{text!r} is not a suit of a {self.kind} deck")

    def parse(self, text: str) -> int:
        """Face of a card's text; raises ``ValueError`` on text that names no card."""
        if not isinstance(text, str):
            raise ValueError(f"a card must be given as text, not {text!r}")
        t = text.strip().upper()
        if self.has_wild_card and t == ("JK" if self.kind == "standard" else "ROOK"):
            return self.wild_card
        if len(t) < 2:
            raise ValueError(f"{text!r} is not a card of a {self.kind} deck")
        try:
            return self.face(self.parse_suit(t[-1]), self.parse_rank(t[:-1]))
        except ValueError:
            raise ValueError(f"{text!r} is not a card of a {self.kind} deck") from None


@dataclass(frozen=True)
class DeckSpec:
    """How many decks of which kind, and how many jokers, are shuffled together."""

    kind: DeckKind = "standard"
    num_decks: int = 1
    num_jokers: int = 0

    def __post_init__(self) -> None:
        if self.kind not in ("standard", "rook"):
            raise ValueError(f"deck kind must be 'standard' or 'rook', not {self.kind!r}")
        if not isinstance(self.num_decks, int) or not 1 <= self.num_decks <= 8:
            raise ValueError(f"num_decks must be an integer from 1 to 8, not {self.num_decks!r}")
        if not isinstance(self.num_jokers, int) or not 0 <= self.num_jokers <= 8:
            raise ValueError(f"num_jokers must be an integer from 0 to 8, not {self.num_jokers!r}")

    @property
    def card_set(self) -> CardSet:
        if self.kind == "standard":
            return CardSet("standard", 4, 13, self.num_jokers > 0)
        return CardSet("rook", 4, 14, True)

    def cards(self) -> list[int]:
        """Every physical card, as faces, in a fixed (unshuffled) order."""
        cs = self.card_set
        cards = [f for _ in range(self.num_decks) for f in range(cs.num_naturals)]
        wilds = self.num_jokers if self.kind == "standard" else self.num_decks
        return cards + [cs.wild_card] * wilds

    def face_counts(self) -> list[int]:
        counts = [0] * self.card_set.num_faces
        for f in self.cards():
            counts[f] += 1
        return counts
