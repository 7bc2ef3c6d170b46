"""Dealing: a new game from a seed and the scenario options, each round's shuffle and
deal, and the reshuffle of the discard pile into an empty stock
(docs/rules/README.md#shared-procedure, docs/rules/README.md#scenario-set-up)."""

from __future__ import annotations

import operator
import random
from typing import Any, Mapping

from ..state import GameState, Phase, new_table_stamp
from .context import RulesContext

SCENARIO_OPTIONS = ("deck", "dealer", "round", "scores")
"""The options of ``new_game`` (and so of the env's ``reset``) that set up an exact scenario."""


class Dealing:
    """Deals the rounds of one game's rules."""

    def __init__(self, ctx: RulesContext) -> None:
        self.rules = ctx.rules
        self.card_set = ctx.card_set
        self.num_players = ctx.num_players
        self._all_cards = ctx.rules.deck.cards()
        self._face_totals = ctx.rules.deck.face_counts()

    def new_game(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> GameState:
        """A new game, dealt; ``options`` are the scenario options of docs/rules/README.md#scenario-set-up."""
        options = dict(options or {})
        unknown = set(options) - set(SCENARIO_OPTIONS)
        if unknown:
            raise ValueError(f"unknown scenario option(s) {sorted(unknown)}; known: {', '.join(SCENARIO_OPTIONS)}")
        n = self.num_players
        rng = random.Random(self.check_seed(seed))
        round_index = self._option_round(options.get("round", 1)) - 1
        dealer = rng.randrange(n)
        if "dealer" in options:
            dealer = self._option_seat("dealer", options["dealer"])
        scores = self._option_scores(options.get("scores"))
        deck = self._option_deck(options["deck"]) if "deck" in options else None
        state = GameState(
            round=round_index, dealer=dealer, current=0, phase=Phase.DRAW,
            hands=[], hand_sizes=[], stock=[], discard=[], discard_counts=bytearray(), discard_seats=[], known=[],
            table=[],
            scores=scores, rng=rng,
        )
        self.deal(state, deck)
        return state

    @staticmethod
    def check_seed(seed: Any) -> int | None:
        """The seed as an int (any integer type, numpy's included), or a ``ValueError``."""
        if seed is None:
            return None
        try:
            if isinstance(seed, bool):
                raise TypeError
            return operator.index(seed)  # any integer, numpy's included
        except TypeError:
            raise ValueError(f"seed must be an integer or None, not {seed!r}") from None

    def _option_round(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= self.rules.num_rounds:
            raise ValueError(f"option 'round' must be an integer from 1 to {self.rules.num_rounds}, not {value!r}")
        return value

    def _option_seat(self, name: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < self.num_players:
            raise ValueError(f"option {name!r} must be a seat from 0 to {self.num_players - 1}, not {value!r}")
        return value

    def _option_scores(self, value: Any) -> list[int]:
        if value is None:
            return [0] * self.num_players
        if (
            not isinstance(value, (list, tuple))
            or len(value) != self.num_players
            or any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= self.rules.max_score
                   for v in value)
        ):
            raise ValueError(f"option 'scores' must be {self.num_players} integers from 0 to "
                             f"{self.rules.max_score}, one per seat, not {value!r}")
        return list(value)

    def _option_deck(self, value: Any) -> list[int]:
        if not isinstance(value, (list, tuple)):
            raise ValueError("option 'deck' must be a list of card strings")
        faces = [self.card_set.parse(text) for text in value]
        if sorted(faces) != sorted(self._all_cards):
            have = [0] * self.card_set.num_faces
            for f in faces:
                have[f] += 1
            diff = [
                f"{self.card_set.format(f)} x{have[f]} (expected {want})"
                for f, want in enumerate(self._face_totals) if have[f] != want
            ]
            raise ValueError(
                f"option 'deck' must hold exactly the game's {len(self._all_cards)} cards; "
                f"got {len(faces)}, differing at: {', '.join(diff[:8])}"
            )
        return faces

    def deal(self, state: GameState, deck: list[int] | None = None) -> None:
        """Shuffle (unless the order is given) and deal the state's round."""
        n, spec = self.num_players, self.rules.rounds[state.round]
        if deck is None:
            deck = list(self._all_cards)
            state.rng.shuffle(deck)
        faces = self.card_set.num_faces
        state.hands = [bytearray(faces) for _ in range(n)]
        state.known = [bytearray(faces) for _ in range(n)]
        dealt = n * spec.hand_size
        for k in range(dealt):  # one at a time, from the dealer's left
            state.hands[(state.dealer + 1 + k) % n][deck[k]] += 1
        state.hand_sizes = [spec.hand_size] * n
        state.discard = [deck[dealt]]
        state.discard_counts = bytearray(faces)
        state.discard_counts[deck[dealt]] = 1
        state.discard_seats = [-1]
        state.stock = deck[:dealt:-1]  # reversed: the next card to draw is last
        state.table = []
        state.table_stamp = new_table_stamp()
        state.taken_face = -1
        state.went_out = -1
        state.last_turns_left = 0
        state.turns = 0
        state.down_turn = [-1] * n
        state.contract_left = (0, 0)
        state.must_place = -1
        state.wilds_owed = 0
        state.wilds_to_meld = 0
        state.asked = -1
        state.buys = [0] * n
        state.current = (state.dealer + 1) % n
        state.phase = Phase.DRAW
        state.legal_cache = None

    def reshuffle(self, state: GameState) -> None:
        """docs/rules/README.md#empty-stock: the discard pile but its top card becomes the stock."""
        state.stock = state.discard[:-1]
        del state.discard[:-1]
        del state.discard_seats[:-1]
        state.discard_counts = bytearray(self.card_set.num_faces)
        if state.discard:
            state.discard_counts[state.discard[0]] = 1
        state.rng.shuffle(state.stock)
