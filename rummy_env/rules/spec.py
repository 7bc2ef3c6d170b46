"""A game as data: the frozen ``GameRules`` that a preset builds and the rule components
read (docs/rules/README.md)."""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import DeckSpec
from ..melds import MeldRules

DEFAULT_MAX_TURNS_PER_ROUND = 400
MAX_TURNS_PER_ROUND = 1_000_000
"""The largest turn cap a game takes (the compiled core counts turns in 32 bits)."""


@dataclass(frozen=True)
class RoundSpec:
    """One round (deal): the hand size, the wild rank, and the contract to go down with."""

    hand_size: int
    wild_rank: int | None = None
    contract: tuple[int, int] | None = None
    """``(sets, runs)`` of the contract, in games that go down."""
    down_means_out: bool = False
    """Going down must use every card in hand, with no final discard (Contract Rummy deal 7)."""
    out_by_melding: bool = False
    """The last card may not be discarded: the hand is emptied by melds and lay-offs only
    (Toonerville Rook round 11)."""


@dataclass(frozen=True)
class ContractPlay:
    """How a contract game goes down, lays off and swaps wilds (absent: Three-Thirteen's
    going out by showing the whole hand)."""

    melds_after_down: bool
    """New melds of any kind may follow once down (else going down lays exactly the
    contract's melds and no more)."""
    swap_needs_earlier_down: bool
    """Only a player who went down in an earlier turn may swap a wild out of a run (else any
    player may, after drawing and outside a going down; one not yet down must then go
    down this turn with the wild)."""
    max_deep_draw: int
    """Deepest discard that ``draw discard N`` may take (below 2: no deep draw)."""
    max_table_melds: int
    """Meld slots in the action space; no new meld is offered once all are taken."""
    wild_penalty: int
    """Penalty of a joker / Rook card left in hand."""
    contract_runs_apart: bool = True
    """Two runs of one suit laid in the same going down may not join up (be adjacent)."""
    max_set_action_wilds: int = 2
    """The most wilds a ``meld set`` action names (docs/rules/README.md#action-text)."""
    buying: bool = False
    """Other players may buy the top discard when the player to act draws from the stock
    (Toonerville Rook)."""
    max_buys_per_round: int | None = None
    """Buys allowed to each player per round (``None``: unlimited)."""


@dataclass(frozen=True)
class GameRules:
    """Everything that distinguishes one game (and one configuration of it)."""

    game: str
    num_players: int
    deck: DeckSpec
    rounds: tuple[RoundSpec, ...]
    melds: MeldRules
    rank_penalties: tuple[int, ...]
    """Penalty of an unmatched natural, by rank index; in Three-Thirteen an unmatched
    wild-rank card scores its own rank's value."""
    contract_play: ContractPlay | None = None
    max_turns_per_round: int = DEFAULT_MAX_TURNS_PER_ROUND

    def __post_init__(self) -> None:
        if isinstance(self.max_turns_per_round, bool) or not isinstance(self.max_turns_per_round, int) \
                or not 1 <= self.max_turns_per_round <= MAX_TURNS_PER_ROUND:
            raise ValueError(f"max_turns_per_round must be an integer from 1 to {MAX_TURNS_PER_ROUND:,}, "
                             f"not {self.max_turns_per_round!r}")
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

    @property
    def max_round_penalty(self) -> int:
        """The most one seat can score in a round: every card of the game in its hand."""
        cs = self.deck.card_set
        wild_value = self.contract_play.wild_penalty if self.contract_play is not None else 0
        return sum(wild_value if cs.has_wild_card and f == cs.wild_card else self.rank_penalties[cs.rank(f)]
                   for f in self.deck.cards())

    @property
    def max_score(self) -> int:
        """The most a seat's cumulative score can reach from zero in a game."""
        return self.num_rounds * self.max_round_penalty

    @property
    def num_wild_cards(self) -> int:
        """Physical joker / Rook cards in the game."""
        return self.deck.num_jokers if self.deck.kind == "standard" else self.deck.num_decks
