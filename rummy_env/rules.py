"""Each game as data: one frozen rules dataclass read by the one engine (RULES.md)."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import DeckSpec
from .melds import MeldRules

DEFAULT_MAX_TURNS_PER_ROUND = 400


@dataclass(frozen=True)
class RoundSpec:
    """One round (deal): how many cards each player gets and which rank is wild."""

    hand_size: int
    wild_rank: int | None = None


@dataclass(frozen=True)
class GameRules:
    """Everything that distinguishes one game (and one configuration of it)."""

    game: str
    num_players: int
    deck: DeckSpec
    rounds: tuple[RoundSpec, ...]
    melds: MeldRules
    rank_penalties: tuple[int, ...]
    """Penalty of an unmatched natural, by rank index; an unmatched wild-rank card scores
    its own rank's value."""
    max_turns_per_round: int = DEFAULT_MAX_TURNS_PER_ROUND

    def __post_init__(self) -> None:
        if not isinstance(self.max_turns_per_round, int) or self.max_turns_per_round < 1:
            raise ValueError(f"max_turns_per_round must be a positive integer, not {self.max_turns_per_round!r}")
        total = len(self.deck.cards())
        for number, spec in enumerate(self.rounds, start=1):
            if self.num_players * spec.hand_size + 1 > total:
                raise ValueError(
                    f"{self.game}: {self.num_players} players x {spec.hand_size} cards in round "
                    f"{number} plus an upcard need {self.num_players * spec.hand_size + 1} cards, "
                    f"but the deck has {total}"
                )

    @property
    def num_rounds(self) -> int:
        return len(self.rounds)


def _check_players(game: str, num_players: object, low: int, high: int) -> int:
    if isinstance(num_players, bool) or not isinstance(num_players, int) or not low <= num_players <= high:
        raise ValueError(f"{game} is for {low} to {high} players, not {num_players!r}")
    return num_players


def three_thirteen(
    num_players: int = 4,
    num_decks: int | None = None,
    max_turns_per_round: int = DEFAULT_MAX_TURNS_PER_ROUND,
) -> GameRules:
    """Three-Thirteen: 11 rounds of 3..13 cards, the rank equal to the hand size wild."""
    num_players = _check_players("three_thirteen", num_players, 2, 4)
    if num_decks is None:
        num_decks = 1 if num_players == 2 else 2
    return GameRules(
        game="three_thirteen",
        num_players=num_players,
        deck=DeckSpec("standard", num_decks, 0),
        # round r deals r + 2 cards and the rank worth r + 2 (index r + 1) is wild
        rounds=tuple(RoundSpec(hand_size=r + 2, wild_rank=r + 1) for r in range(1, 12)),
        melds=MeldRules(all_wild_melds=True),
        rank_penalties=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10),
        max_turns_per_round=max_turns_per_round,
    )
