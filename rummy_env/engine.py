"""The rules engine: one engine for every game, built from the rule components that the
game's ``GameRules`` chooses, dispatching each decision to the component of its phase.

It knows nothing of PettingZoo. A game is a mutable ``GameState``; the engine lists the
legal actions of the player to act (cached until the next move) and applies one, after
checking it, following the shared procedure of docs/rules/README.md#shared-procedure. The
components, one module per concern under ``rummy_env/rules/``:

=================  ==========================================================  ============
phase              component                                                   module
=================  ==========================================================  ============
(set-up)           ``Dealing``: seeds, scenario options, deal, reshuffle      deal
``DRAW``           ``Drawing``: stock, top discard; ``DeepDraw`` deeper        draw, deep_draw
``BUY``            ``Buying``: the buy question out of turn                    buy
``PLAY``           ``ShowHandTurn``: discard or go out (no contracts)          show_hand
``PLAY``,          ``ContractTurn``: go down (``Melding``), lay off            contract_turn,
``GOING_DOWN``     (``LayOffs``), swap (``Swaps``) as ``TurnMoves``,           turn_moves, melding,
                   discard; ``TurnSearch`` keeps every offered move            lay_off, swap,
                   finishable                                                  turn_search
(round end)        ``Rounds`` with ``CardValuePenalty`` / ``ArrangedPenalty``  rounds, scoring
=================  ==========================================================  ============

Which components a game has, and their parameters, is data of its ``GameRules``
(``rummy_env/rules/presets.py``): contract play or not, deep draws, buying, the penalties.
"""

from __future__ import annotations

from typing import Any, Mapping

from .actions import ActionKind
from .rules.buy import Buying
from .rules.context import RulesContext
from .rules.contract_turn import ContractTurn
from .rules.deal import Dealing
from .rules.deep_draw import DeepDraw
from .rules.draw import Drawing, StockDraw
from .rules.lay_off import LayOffs
from .rules.melding import Melding
from .rules.rounds import Rounds
from .rules.scoring import ArrangedPenalty, CardValuePenalty
from .rules.show_hand import ShowHandTurn
from .rules.spec import GameRules
from .rules.swap import Swaps
from .rules.turn_moves import TurnMoves
from .rules.turn_search import TurnSearch
from .state import GameState, IllegalActionError, Phase, RoundResult

_DRAWS = (ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD, ActionKind.DEEP_DRAW)


class Engine:
    """Runs games of one ``GameRules``."""

    def __init__(self, rules: GameRules) -> None:
        ctx = self.ctx = RulesContext(rules)
        self.rules = rules
        self.card_set = ctx.card_set
        self.layout = ctx.layout
        self.solver = ctx.solver
        self.num_players = rules.num_players
        self.dealing = Dealing(ctx)
        play = rules.contract_play
        scoring = ArrangedPenalty(ctx) if play is None else CardValuePenalty(ctx, play.wild_penalty)
        self.rounds = Rounds(ctx, self.dealing, scoring)
        # built bottom up: each component gets the ones it uses, and none points back
        stock = StockDraw(self.dealing, self.rounds)
        self.buying: Buying | None = None
        self.search: TurnSearch | None = None
        deep_draw: DeepDraw | None = None
        if play is None:
            self.turn: ShowHandTurn | ContractTurn = ShowHandTurn(ctx, self.rounds)
        else:
            lay_offs = LayOffs(ctx)
            moves = TurnMoves(ctx, Melding(ctx), lay_offs, Swaps(ctx))
            self.search = TurnSearch(ctx, moves)
            self.turn = ContractTurn(ctx, self.rounds, moves, self.search)
            if play.max_deep_draw >= 2:
                deep_draw = DeepDraw(ctx, self.search, lay_offs)
            if play.buying:
                self.buying = Buying(ctx, self.dealing, stock, play.max_buys_per_round)
        self.drawing = Drawing(stock, deep_draw, self.buying)
        self._legal_of_phase = {
            Phase.DRAW: self.drawing.legal,
            Phase.PLAY: self.turn.legal,
            Phase.GOING_DOWN: self.turn.legal,
            Phase.GAME_OVER: lambda state: [],
        }
        if self.buying is not None:
            self._legal_of_phase[Phase.BUY] = self.buying.legal

    def new_game(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> GameState:
        """A new game, dealt; ``options`` are the scenario options of docs/rules/README.md#scenario-set-up."""
        return self.dealing.new_game(seed, options)

    check_seed = staticmethod(Dealing.check_seed)

    @staticmethod
    def to_act(state: GameState) -> int:
        """The seat to act: the player whose turn it is, or the one asked to buy."""
        return state.asked if state.phase == Phase.BUY else state.current

    def legal_actions(self, state: GameState) -> list[int]:
        """Legal action ids of the player to act, ascending (cached until the next move)."""
        if state.legal_cache is None:
            state.legal_cache = self._legal_of_phase[state.phase](state)
        return state.legal_cache

    def apply(self, state: GameState, action: int, actor: str | None = None) -> RoundResult | None:
        """Apply the acting player's action; returns the result if a round ended.

        Raises ``IllegalActionError`` naming the action and the player (``actor``, or the
        seat) and leaves the state unchanged when the action is not legal.
        """
        if state.phase == Phase.GAME_OVER:
            raise IllegalActionError("the game is over: no action can be taken")
        if action not in self.legal_actions(state):
            who = actor if actor is not None else f"seat {self.to_act(state)}"
            text = self.layout.text(action) if 0 <= action < self.layout.size else "outside the action space"
            legal = ", ".join(self.layout.text(a) for a in self.legal_actions(state))
            reason = self.turn.refusal_reason(state, action)
            raise IllegalActionError(f"illegal action {action} ({text}) for {who}{reason}; legal now: {legal}")
        state.legal_cache = None
        kind, arg = self.layout.kinds[action], self.layout.args[action]
        if kind in _DRAWS:
            return self.drawing.apply(state, kind, arg)
        if kind == ActionKind.BUY or kind == ActionKind.PASS:
            return self.buying.apply(state, kind == ActionKind.BUY)
        return self.turn.apply(state, kind, arg)

    def hand_penalty(self, state: GameState, seat: int) -> int:
        """Penalty of the seat's hand if the round ended now."""
        return self.rounds.scoring.hand_penalty(state, seat)

    winners = staticmethod(Rounds.winners)
