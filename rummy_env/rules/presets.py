"""The three games, each a short preset: a function from its options to ``GameRules``
that chooses the deck, the rounds, the meld rules, the scoring and the contract play
(the components' parameters). A variant is one more preset (docs/architecture.md#adding-a-game)."""

from __future__ import annotations

import functools
import inspect
from typing import Callable

from ..cards import DeckSpec
from ..melds import MeldRules
from .spec import DEFAULT_MAX_TURNS_PER_ROUND, ContractPlay, GameRules, RoundSpec


MIN_MELD_CARDS = 3
"""The fewest cards of a meld in any game: a table holds at most the deck's cards over this many
melds, the most that ``max_table_melds`` may ask for (each slot is a block of actions)."""


def _check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise ValueError(f"{name} must be an integer {bound}, not {value!r}")
    return value


def for_players(low: int, high: int) -> Callable[[Callable[..., GameRules]], Callable[..., GameRules]]:
    """Marks a preset with the player counts its game allows (``player_counts``, which the
    game registry reads) and refuses any other ``num_players`` with a ``ValueError``."""

    def mark(preset: Callable[..., GameRules]) -> Callable[..., GameRules]:
        signature = inspect.signature(preset)

        @functools.wraps(preset)
        def checked(*args: object, **options: object) -> GameRules:
            try:
                bound = signature.bind(*args, **options)
            except TypeError as err:  # as the preset itself would say it
                raise TypeError(f"{preset.__name__}() {err}") from None
            bound.apply_defaults()
            n = bound.arguments["num_players"]
            if isinstance(n, bool) or not isinstance(n, int) or not low <= n <= high:
                raise ValueError(f"{preset.__name__} is for {low} to {high} players, not {n!r}")
            return preset(*args, **options)

        checked.player_counts = tuple(range(low, high + 1))  # type: ignore[attr-defined]
        return checked

    return mark


@for_players(2, 4)
def three_thirteen(
    num_players: int = 4,
    num_decks: int | None = None,
    max_turns_per_round: int = DEFAULT_MAX_TURNS_PER_ROUND,
) -> GameRules:
    """Three-Thirteen: 11 rounds of 3..13 cards, the rank equal to the hand size wild."""
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


CONTRACT_RUMMY_DEALS = (
    (10, (2, 0)),
    (10, (1, 1)),
    (10, (0, 2)),
    (10, (3, 0)),
    (12, (2, 1)),
    (12, (1, 2)),
    (12, (0, 3)),
)
"""Contract Rummy's deals: cards each, and the contract as ``(sets, runs)``."""


@for_players(3, 8)
def contract_rummy(
    num_players: int = 4,
    num_decks: int | None = None,
    num_jokers: int | None = None,
    max_deep_draw: int = 20,
    max_table_melds: int | None = None,
    max_turns_per_round: int = DEFAULT_MAX_TURNS_PER_ROUND,
) -> GameRules:
    """Contract Rummy: 7 deals, each with a contract of sets and runs to go down with."""
    # and as many jokers (docs/rules/contract_rummy.md#default-decks-and-jokers)
    default_decks = 1 if num_players <= 4 else 2
    num_decks = default_decks if num_decks is None else _check_int("num_decks", num_decks, 1, 8)
    num_jokers = default_decks if num_jokers is None else _check_int("num_jokers", num_jokers, 0, 8)
    deck = DeckSpec("standard", num_decks, num_jokers)
    cards = len(deck.cards())
    max_deep_draw = _check_int("max_deep_draw", max_deep_draw, 1, cards)
    # Exactly the contract and no melds after going down: at most 3 melds per player.
    max_table_melds = 3 * num_players if max_table_melds is None else _check_int(
        "max_table_melds", max_table_melds, 1, cards // MIN_MELD_CARDS)
    last = len(CONTRACT_RUMMY_DEALS) - 1
    return GameRules(
        game="contract_rummy",
        num_players=num_players,
        deck=deck,
        rounds=tuple(
            RoundSpec(hand_size=size, contract=contract, down_means_out=(k == last))
            for k, (size, contract) in enumerate(CONTRACT_RUMMY_DEALS)
        ),
        melds=MeldRules(set_max=4, set_distinct_suits=True, ace_high=True),
        # A 15, 2..10 face value, J Q K 10
        rank_penalties=(15, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10),
        contract_play=ContractPlay(
            melds_after_down=False,
            swap_needs_earlier_down=True,
            max_deep_draw=max_deep_draw,
            max_table_melds=max_table_melds,
            wild_penalty=15,
        ),
        max_turns_per_round=max_turns_per_round,
    )


TOONERVILLE_ROOK_ROUNDS = (
    (12, (2, 0)),
    (12, (1, 1)),
    (12, (0, 2)),
    (12, (3, 0)),
    (12, (2, 1)),
    (12, (1, 2)),
    (12, (4, 0)),
    (12, (0, 3)),
    (15, (5, 0)),
    (16, (0, 4)),
    (14, (2, 2)),
)
"""Toonerville Rook's rounds: cards each, and the contract as ``(sets, runs)``."""


@for_players(3, 5)
def toonerville_rook(
    num_players: int = 4,
    max_buys_per_round: int | None = None,
    max_table_melds: int | None = None,
    max_turns_per_round: int = DEFAULT_MAX_TURNS_PER_ROUND,
) -> GameRules:
    """Toonerville Rook: 11 rounds with contracts, one Rook deck per player, buying out of turn."""
    deck = DeckSpec("rook", num_players)
    cards = len(deck.cards())
    if max_buys_per_round is not None:
        max_buys_per_round = _check_int("max_buys_per_round", max_buys_per_round, 0, cards)
    max_table_melds = 8 * num_players if max_table_melds is None else _check_int(
        "max_table_melds", max_table_melds, 1, cards // MIN_MELD_CARDS)
    last = len(TOONERVILLE_ROOK_ROUNDS) - 1
    return GameRules(
        game="toonerville_rook",
        num_players=num_players,
        deck=deck,
        rounds=tuple(
            RoundSpec(hand_size=size, contract=contract, out_by_melding=(k == last))
            for k, (size, contract) in enumerate(TOONERVILLE_ROOK_ROUNDS)
        ),
        melds=MeldRules(set_min=3, run_min=4),
        # 1..9 score 5, 10..14 score 10
        rank_penalties=(5,) * 9 + (10,) * 5,
        contract_play=ContractPlay(
            melds_after_down=True,
            swap_needs_earlier_down=False,
            max_deep_draw=1,
            max_table_melds=max_table_melds,
            wild_penalty=25,
            contract_runs_apart=False,
            buying=True,
            max_buys_per_round=max_buys_per_round,
        ),
        max_turns_per_round=max_turns_per_round,
    )
