"""Turns and rounds: the turn passing left, the last turns after a player goes out, the
turn cap, each round's scoring and the next deal, and the game's end
(docs/rules/README.md#shared-procedure, docs/rules/README.md#turn-cap)."""

from __future__ import annotations

from typing import Protocol

from ..state import GameState, Phase, RoundResult
from .context import RulesContext
from .deal import Dealing


class HandScoring(Protocol):
    def hand_penalty(self, state: GameState, seat: int) -> int: ...


def start_turn(state: GameState) -> None:
    """The player to act has drawn: the turn's play begins."""
    state.turns += 1
    state.phase = Phase.PLAY


class Rounds:
    """Ends turns and rounds, scores hands with ``scoring`` and deals the next round."""

    def __init__(self, ctx: RulesContext, dealing: Dealing, scoring: HandScoring) -> None:
        self.rules = ctx.rules
        self.num_players = ctx.num_players
        self.dealing = dealing
        self.scoring = scoring

    def end_turn(self, state: GameState, going_out: bool = False) -> RoundResult | None:
        if state.went_out >= 0 and not going_out:
            state.last_turns_left -= 1
            if state.last_turns_left == 0:
                return self.end_round(state)
        if state.turns >= self.rules.max_turns_per_round:
            return self.end_round(state)  # dead round at the cap: docs/rules/README.md#turn-cap
        state.current = (state.current + 1) % self.num_players
        state.phase = Phase.DRAW
        return None

    def end_round(self, state: GameState) -> RoundResult:
        penalties = [0 if p == state.went_out else self.scoring.hand_penalty(state, p)
                     for p in range(self.num_players)]
        state.round_penalties.append(penalties)
        for p, pen in enumerate(penalties):
            state.scores[p] += pen
        state.legal_cache = None
        if state.round + 1 >= self.rules.num_rounds:
            state.phase = Phase.GAME_OVER
            return RoundResult(penalties, game_over=True)
        state.round += 1
        state.dealer = (state.dealer + 1) % self.num_players
        self.dealing.deal(state)
        return RoundResult(penalties, game_over=False)

    @staticmethod
    def winners(state: GameState) -> list[int]:
        """Seats with the lowest cumulative score (ties share the win)."""
        best = min(state.scores)
        return [p for p, s in enumerate(state.scores) if s == best]
