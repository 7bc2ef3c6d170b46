"""One table of a game: the object every consumer plays through (the AEC env, and through it
the wrappers, evaluation, play and recording), run by the compiled core or by the Python
reference engine (docs/architecture.md#the-compiled-core).

``make_table(engine, observer, backend)`` returns a ``ReferenceTable`` (the engine's own
``GameState``, the executable reference) or a ``CompiledTable`` (``rummy_env._core.Table``):
both deal a seed the same way, list the same legal actions, apply them with the same effects
and errors, and encode the same observations, bit for bit, in every game.

A compiled table's ``state`` is a new ``GameState`` copied out of the core at every read
(about 30 us): cheap enough for agents that look at the table, and changing it changes
neither the game nor a later read (``set_state`` changes the game).
"""

from __future__ import annotations

import random
from typing import Any, Mapping

import numpy as np

from . import _core
from .actions import ActionLayout, RunAction, SetAction
from .backend import Backend, default_backend, seed_words
from .engine import Engine
from .melds import Meld
from .observation import Observer
from .rules.spec import GameRules
from .state import GameState, Phase, RoundResult, TableMeld, new_table_stamp


def compiled_table(rules: GameRules, layout: ActionLayout | None = None) -> _core.Table:
    """The compiled core's ``Table`` for ``rules``: one table dealt and played as the Python
    engine plays it (``rummy_env.engine.Engine``), step for step."""
    return _core.Table(**table_arguments(rules, layout))


def table_arguments(rules: GameRules, layout: ActionLayout | None = None) -> dict[str, Any]:
    """The rules as the core's ``Table`` and ``Batch`` take them, with the action layout
    (``ActionLayout``'s ids are the core's; ``layout``, the rules' own, saves building it)."""
    cs, melds = rules.deck.card_set, rules.melds
    arguments = dict(
        num_players=rules.num_players, num_suits=cs.num_suits, num_ranks=cs.num_ranks,
        has_wild_card=cs.has_wild_card, cards=rules.deck.cards(), set_min=melds.set_min,
        set_max=-1 if melds.set_max is None else melds.set_max, set_distinct_suits=melds.set_distinct_suits,
        run_min=melds.run_min, ace_high=melds.ace_high, all_wild_melds=melds.all_wild_melds,
        rank_penalties=list(rules.rank_penalties), hand_sizes=[r.hand_size for r in rules.rounds],
        wild_ranks=[-1 if r.wild_rank is None else r.wild_rank for r in rules.rounds],
        max_turns_per_round=rules.max_turns_per_round)
    play = rules.contract_play
    if play is not None:
        arguments["contract"] = dict(
            melds_after_down=play.melds_after_down, swap_needs_earlier_down=play.swap_needs_earlier_down,
            max_deep_draw=play.max_deep_draw, max_table_melds=play.max_table_melds, wild_penalty=play.wild_penalty,
            contract_runs_apart=play.contract_runs_apart, max_set_action_wilds=play.max_set_action_wilds,
            buying=play.buying, max_buys_per_round=-1 if play.max_buys_per_round is None else play.max_buys_per_round,
            sets=[r.contract[0] for r in rules.rounds], runs=[r.contract[1] for r in rules.rounds],
            down_means_out=[r.down_means_out for r in rules.rounds],
            out_by_melding=[r.out_by_melding for r in rules.rounds],
            layout=_core_layout(layout if layout is not None else ActionLayout.of(rules)))
    return arguments


def _core_layout(layout: ActionLayout) -> list[tuple[int, int, int, int, list[int]]]:
    """Each action as the core reads it: ``(kind, a, b, c, set naturals)`` (``rummy::Action``)."""
    out = []
    for kind, arg in zip(layout.kinds, layout.args):
        if isinstance(arg, SetAction):
            out.append((int(kind), arg.rank, arg.wilds, -1, list(arg.naturals)))
        elif isinstance(arg, RunAction):
            out.append((int(kind), arg.suit, arg.low, arg.high, []))
        elif isinstance(arg, tuple):
            out.append((int(kind), arg[0], arg[1], -1, []))
        else:
            out.append((int(kind), -1 if arg is None else arg, -1, -1, []))
    return out


class ReferenceTable:
    """A table on the Python engine: its ``GameState`` is the game."""

    backend: Backend = "python"

    def __init__(self, engine: Engine, observer: Observer) -> None:
        self.engine, self.observer = engine, observer
        self.state: GameState | None = None

    @property
    def has_game(self) -> bool:
        return self.state is not None

    def new_game(self, seed: int | None, options: Mapping[str, Any] | None = None) -> None:
        self.state = self.engine.new_game(seed, options)

    def set_state(self, state: GameState) -> None:
        """Continues from a copy of ``state`` (the caller keeps ``state``)."""
        self.state = state.clone()

    def state_copy(self) -> GameState:
        """A copy of the game's state, the caller's own."""
        return self.state.clone()

    def to_act(self) -> int:
        return self.engine.to_act(self.state)

    @property
    def game_over(self) -> bool:
        return self.state.phase == Phase.GAME_OVER

    def legal_actions(self) -> list[int]:
        return [] if self.game_over else self.engine.legal_actions(self.state)

    def legal_mask(self) -> np.ndarray:
        """The legal actions as a new int8 array over the action space, 1 where legal."""
        flags = bytearray(self.engine.layout.size)  # filled as bytes: cheaper than numpy indexing
        for action in self.legal_actions():
            flags[action] = 1
        return np.frombuffer(flags, dtype=np.int8)

    def apply(self, action: int, actor: str | None = None) -> RoundResult | None:
        return self.engine.apply(self.state, action, actor=actor)

    def observe(self, seat: int) -> np.ndarray:
        return self.observer.encode(self.state, seat)


class CompiledTable:
    """A table in the compiled core; its ``state`` is read out of the core (module docstring)."""

    backend: Backend = "native"

    def __init__(self, engine: Engine, observer: Observer) -> None:
        self.engine, self.observer = engine, observer
        self._core = compiled_table(engine.rules, engine.layout)
        self._dealt = False
        self._legal: list[int] | None = None
        self._stamped: tuple[list[TableMeld] | None, int] = (None, 0)  # the last table read out, its stamp
        self._read: GameState | None = None  # the state read out since the last move, kept unchanged
        self._melds: dict[tuple, TableMeld] = {}  # melds read out, by the core's terms: unchanged ones are reused

    @property
    def has_game(self) -> bool:
        return self._dealt

    @property
    def state(self) -> GameState | None:
        """A new copy of the core's state at every read (module docstring): read out of the
        core once per move, then cloned (a fifth of the cost)."""
        if not self._dealt:
            return None
        if self._read is None:
            state = game_state(self._core.state(), self._melds)
            last_table, stamp = self._stamped  # the stamp changes with the table only
            if last_table is not None and len(last_table) == len(state.table) and all(
                    a is b for a, b in zip(last_table, state.table)):
                state.table_stamp = stamp
            self._stamped = (state.table, state.table_stamp)
            self._read = state
        return self._read.clone()

    def new_game(self, seed: int | None, options: Mapping[str, Any] | None = None) -> None:
        if options or seed is None:  # the scenario options are the reference's to read
            self.set_state(self.engine.new_game(seed, options))
            return
        self._core.reset(seed_words(seed))
        self._changed()

    def state_copy(self) -> GameState:
        return self.state  # already a new copy at every read

    def set_state(self, state: GameState) -> None:
        """Continues from a copy of ``state`` (the caller keeps ``state``)."""
        self._core.set_state(core_state(state))
        self._changed()
        self._stamped = (list(state.table), state.table_stamp)

    def __getstate__(self) -> dict[str, Any]:  # the core's table pickles as its state
        return {"engine": self.engine, "observer": self.observer,
                "core": self._core.state() if self._dealt else None}

    def __setstate__(self, saved: dict[str, Any]) -> None:
        self.__init__(saved["engine"], saved["observer"])
        if saved["core"] is not None:
            self._core.set_state(saved["core"])
            self._changed()

    def _changed(self) -> None:
        self._dealt = True
        self._legal = None
        self._read = None

    def to_act(self) -> int:
        return self._core.to_act

    @property
    def game_over(self) -> bool:
        return self._core.game_over

    def legal_actions(self) -> list[int]:
        if self._legal is None:
            self._legal = self._core.legal_actions()
        return self._legal

    def legal_mask(self) -> np.ndarray:
        return np.zeros(self.engine.layout.size, np.int8) if self.game_over else self._core.legal_mask()

    def apply(self, action: int, actor: str | None = None) -> RoundResult | None:
        try:
            ended = self._core.apply(action)  # checks the action first, and changes nothing if illegal
        except (ValueError, TypeError):  # the reference words the refusal
            self.engine.apply(self.state, action, actor=actor)
            raise AssertionError(f"the reference engine accepted action {action}, which the core refuses") from None
        self._legal = self._read = None
        return None if ended is None else RoundResult(list(ended[0]), ended[1])

    def observe(self, seat: int) -> np.ndarray:
        return self._core.observe(seat)


def make_table(engine: Engine, observer: Observer, backend: Backend | None = None) -> ReferenceTable | CompiledTable:
    """The table for ``engine``'s rules: the compiled core's unless ``backend`` (or
    ``RUMMY_ENV_BACKEND``) is ``python``."""
    if (backend or default_backend()) == "native":
        return CompiledTable(engine, observer)
    return ReferenceTable(engine, observer)


def core_state(state: GameState) -> dict[str, Any]:
    """``state`` in the core's terms (``_core.Table.state()``'s dict)."""
    table = [(t.owner, t.meld.kind == "set", list(t.meld.naturals), t.meld.wilds, t.meld.rank, t.meld.suit,
              t.meld.low, t.meld.high, list(t.cards)) for t in state.table]
    return {"round": state.round, "dealer": state.dealer, "current": state.current, "phase": int(state.phase),
            "hands": [list(h) for h in state.hands], "known": [list(k) for k in state.known],
            "hand_sizes": list(state.hand_sizes), "stock": list(state.stock), "discard": list(state.discard),
            "discard_seats": list(state.discard_seats), "discard_counts": list(state.discard_counts),
            "scores": list(state.scores), "round_penalties": [list(p) for p in state.round_penalties],
            "taken_face": state.taken_face, "went_out": state.went_out, "last_turns_left": state.last_turns_left,
            "turns": state.turns, "table": table, "rng": list(state.rng.getstate()[1]),
            "down_turn": list(state.down_turn), "buys": list(state.buys), "contract_left": tuple(state.contract_left),
            "must_place": state.must_place, "wilds_owed": state.wilds_owed, "wilds_to_meld": state.wilds_to_meld,
            "asked": state.asked}


def game_state(core: Mapping[str, Any], melds: dict[tuple, TableMeld] | None = None) -> GameState:
    """The core's state (``_core.Table.state()``) as the engine's ``GameState``; ``melds``
    (the core's terms of a meld to its ``TableMeld``) reuses the melds already read out."""
    rng = random.Random.__new__(random.Random)  # unseeded: no OS entropy read
    rng.setstate((3, tuple(core["rng"]), None))
    melds = {} if melds is None else melds
    if len(melds) > 4096:
        melds.clear()
    table = []
    for owner, is_set, naturals, wilds, rank, suit, low, high, cards in core["table"]:
        key = (owner, is_set, tuple(naturals), wilds, rank, suit, low, high, tuple(cards))
        meld = melds.get(key)
        if meld is None:
            meld = melds[key] = TableMeld(owner, Meld("set", key[2], wilds, rank=rank) if is_set
                                          else Meld("run", key[2], wilds, suit=suit, low=low, high=high), key[8])
        table.append(meld)
    return GameState(
        round=core["round"], dealer=core["dealer"], current=core["current"], phase=Phase(core["phase"]),
        hands=[bytearray(h) for h in core["hands"]], hand_sizes=core["hand_sizes"], stock=core["stock"],
        discard=core["discard"], discard_counts=bytearray(core["discard_counts"]),
        discard_seats=core["discard_seats"], known=[bytearray(k) for k in core["known"]], table=table,
        scores=core["scores"], table_stamp=new_table_stamp(), round_penalties=core["round_penalties"],
        taken_face=core["taken_face"], went_out=core["went_out"], last_turns_left=core["last_turns_left"],
        turns=core["turns"], down_turn=core["down_turn"], buys=core["buys"], contract_left=tuple(core["contract_left"]),
        must_place=core["must_place"], wilds_owed=core["wilds_owed"], wilds_to_meld=core["wilds_to_meld"],
        asked=core["asked"], rng=rng)
