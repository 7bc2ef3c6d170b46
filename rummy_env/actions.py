"""The fixed, flat action layout of each game and the canonical action text
(docs/rules/README.md#action-text).

Every action means the same thing in every state ("discard 7H", never "discard hand
slot 3"). The layout is a sequence of blocks, each present only in the games that use it;
for a deck with ``F`` faces (``N`` natural faces), ``D`` = ``max_deep_draw`` and ``M`` =
``max_table_melds`` meld slots, in this order:

============  ==========  ====================================================
block         size        action
============  ==========  ====================================================
draw_stock    1           ``draw stock``
draw_discard  1           ``draw discard`` (the top card)
buy           2           ``buy``, ``pass``: the buy question (games with buying)
deep_draw     D - 1       ``draw discard N``, N = 2..D (contract games with deep draws)
discard       F           ``discard 7H``, by face
go_out        F           ``go out 7H``, by face (Three-Thirteen)
meld_set      see below   ``meld set 7 DHS``, ``meld set 7 HS +1`` (contract games)
meld_run      see below   ``meld run H 3 6``, ``meld run S Q A`` (contract games)
lay_off       M * F       ``lay off 7H on 2``: slot-major, id = start + slot * F + face
swap          M * N       ``swap 7H on 2``: slot-major, id = start + slot * N + face
============  ==========  ====================================================

``meld_set`` lists, rank by rank, every multiset of 1..4 natural suits (each suit once when
sets need distinct suits, else up to the number of decks) with 0..2 wilds (at most the
game's wild cards) whose size the set rules allow. ``meld_run`` lists, suit by suit, every
span ``low..high`` of run positions a legal run can cover (position ``R`` is the ace high).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import IntEnum
from itertools import combinations_with_replacement
from typing import Any

from .cards import CardSet
from .rules import GameRules


class ActionKind(IntEnum):
    DRAW_STOCK = 0
    DRAW_DISCARD = 1
    DEEP_DRAW = 2
    DISCARD = 3
    GO_OUT = 4
    MELD_SET = 5
    MELD_RUN = 6
    LAY_OFF = 7
    SWAP = 8
    BUY = 9
    PASS = 10


@dataclass(frozen=True)
class Block:
    kind: ActionKind
    start: int
    size: int

    @property
    def stop(self) -> int:
        return self.start + self.size


@dataclass(frozen=True)
class SetAction:
    """A ``meld set`` action: the rank, the natural faces named, and the wilds added."""

    rank: int
    naturals: tuple[int, ...]
    wilds: int


@dataclass(frozen=True)
class RunAction:
    """A ``meld run`` action: the suit and the positions ``low..high`` it covers."""

    suit: int
    low: int
    high: int


class ActionLayout:
    """Bijection between action ids, ``(kind, argument)`` pairs and action text.

    Arguments: a depth for ``DEEP_DRAW``, a face for ``DISCARD`` / ``GO_OUT``, a
    ``SetAction`` / ``RunAction`` for melds, ``(face, slot)`` for ``LAY_OFF`` / ``SWAP``.
    """

    @staticmethod
    def of(rules: GameRules) -> "ActionLayout":
        """The layout of ``rules``, built once per process and shared: a layout is never
        changed after it is built, and building Toonerville Rook's takes 0.08 s."""
        return _shared_layout(rules)


    DRAW_STOCK = 0
    DRAW_DISCARD = 1

    def __init__(self, rules: GameRules) -> None:
        cs = rules.deck.card_set
        self.card_set = cs
        self.num_faces = cs.num_faces
        play = rules.contract_play
        kinds: list[ActionKind] = [ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD]
        args: list[Any] = [None, None]
        self.blocks: dict[str, Block] = {}

        def block(name: str, kind: ActionKind, items: list[Any]) -> None:
            self.blocks[name] = Block(kind, len(kinds), len(items))
            kinds.extend([kind] * len(items))
            args.extend(items)

        self.max_deep_draw = play.max_deep_draw if play else 1
        self.num_slots = play.max_table_melds if play else 0
        if play is not None and play.buying:
            self.blocks["buy"] = Block(ActionKind.BUY, len(kinds), 2)
            kinds += [ActionKind.BUY, ActionKind.PASS]
            args += [None, None]
        if self.max_deep_draw >= 2:
            block("deep_draw", ActionKind.DEEP_DRAW, list(range(2, self.max_deep_draw + 1)))
        block("discard", ActionKind.DISCARD, list(range(cs.num_faces)))
        if play is None:
            block("go_out", ActionKind.GO_OUT, list(range(cs.num_faces)))
        else:
            block("meld_set", ActionKind.MELD_SET, _set_actions(rules))
            block("meld_run", ActionKind.MELD_RUN, _run_actions(rules))
            block("lay_off", ActionKind.LAY_OFF, [(f, s) for s in range(self.num_slots) for f in range(cs.num_faces)])
            if rules.num_wild_cards:
                block("swap", ActionKind.SWAP, [(f, s) for s in range(self.num_slots) for f in range(cs.num_naturals)])
        self.kinds = kinds
        self.args = args
        self.size = len(kinds)
        self.ace_high = rules.melds.ace_high
        self.set_copies = _set_copies(rules)
        self.texts = [self._text(k, a) for k, a in zip(kinds, args)]
        self._ids = {t: i for i, t in enumerate(self.texts)}
        self._set_ids = {a: i for i, a in enumerate(args) if isinstance(a, SetAction)}
        self._run_ids = {a: i for i, a in enumerate(args) if isinstance(a, RunAction)}

    # ------------------------------------------------------------------ ids
    def start(self, name: str) -> int:
        return self.blocks[name].start

    @property
    def buy(self) -> int:
        """Id of ``buy`` (``pass`` is the next id); only in games with buying."""
        return self.blocks["buy"].start

    def discard(self, face: int) -> int:
        return self.blocks["discard"].start + face

    def go_out(self, face: int) -> int:
        return self.blocks["go_out"].start + face

    def deep_draw(self, depth: int) -> int:
        return self.blocks["deep_draw"].start + depth - 2

    def lay_off(self, face: int, slot: int) -> int:
        return self.blocks["lay_off"].start + slot * self.num_faces + face

    def swap(self, face: int, slot: int) -> int:
        return self.blocks["swap"].start + slot * self.card_set.num_naturals + face

    def meld_set(self, action: SetAction) -> int | None:
        """Id of a set action, or ``None`` if the layout has no such action."""
        return self._set_ids.get(action)

    def meld_run(self, action: RunAction) -> int | None:
        return self._run_ids.get(action)

    def decode(self, action: int) -> tuple[ActionKind, Any]:
        """``(kind, argument)`` of an action id."""
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < self.size:
            raise ValueError(f"action {action!r} is outside the action space 0..{self.size - 1}")
        return self.kinds[action], self.args[action]

    # ------------------------------------------------------------------ text
    def position_text(self, position: int) -> str:
        return self.card_set.rank_text(position % self.card_set.num_ranks)

    def _text(self, kind: ActionKind, arg: Any) -> str:
        fmt = self.card_set.format
        if kind == ActionKind.DRAW_STOCK:
            return "draw stock"
        if kind == ActionKind.DRAW_DISCARD:
            return "draw discard"
        if kind == ActionKind.DEEP_DRAW:
            return f"draw discard {arg}"
        if kind == ActionKind.BUY:
            return "buy"
        if kind == ActionKind.PASS:
            return "pass"
        if kind == ActionKind.DISCARD:
            return f"discard {fmt(arg)}"
        if kind == ActionKind.GO_OUT:
            return f"go out {fmt(arg)}"
        if kind == ActionKind.MELD_SET:
            letters = "".join(self.card_set.suit_letters[self.card_set.suit(f)] for f in arg.naturals)
            extra = f" +{arg.wilds}" if arg.wilds else ""
            return f"meld set {self.card_set.rank_text(arg.rank)} {letters}{extra}"
        if kind == ActionKind.MELD_RUN:
            suit = self.card_set.suit_letters[arg.suit]
            return f"meld run {suit} {self.position_text(arg.low)} {self.position_text(arg.high)}"
        face, slot = arg
        return f"{'lay off' if kind == ActionKind.LAY_OFF else 'swap'} {fmt(face)} on {slot}"

    def text(self, action: int) -> str:
        self.decode(action)
        return self.texts[action]

    def parse(self, text: str) -> int:
        """Action id of an action's text (lenient: case, spacing, ``10`` for ``T``, set
        suits in any order); ``ValueError`` naming the text when it names no action."""
        if not isinstance(text, str):
            raise ValueError(f"action text must be a string, not {text!r}")
        try:
            canonical = self._canonical(text.strip().split())
        except ValueError as err:
            raise ValueError(f"{text!r} names no action: {err}") from None
        if canonical is None or canonical not in self._ids:
            examples = ", ".join(repr(self.texts[b.start]) for b in self.blocks.values())
            raise ValueError(f"{text!r} names no action of this game (actions look like "
                             f"'draw stock', 'draw discard', {examples})")
        return self._ids[canonical]

    def _canonical(self, words: list[str]) -> str | None:
        cs = self.card_set
        low = [w.lower() for w in words]
        if low in (["draw", "stock"], ["draw", "discard"], ["buy"], ["pass"]):
            return " ".join(low)
        if len(low) == 3 and low[:2] == ["draw", "discard"] and low[2].isdigit():
            return f"draw discard {int(low[2])}"
        if len(low) == 2 and low[0] == "discard":
            return f"discard {cs.format(cs.parse(words[1]))}"
        if len(low) == 3 and low[:2] == ["go", "out"]:
            return f"go out {cs.format(cs.parse(words[2]))}"
        if len(low) in (4, 5) and low[:2] == ["meld", "set"]:
            rank = cs.parse_rank(words[2])
            suits = sorted(cs.parse_suit(c) for c in words[3])
            extra = ""
            if len(low) == 5:
                if not (low[4].startswith("+") and low[4][1:].isdigit() and int(low[4][1:]) > 0):
                    raise ValueError(f"{words[4]!r} is not a wild count such as '+1'")
                extra = f" +{int(low[4][1:])}"
            letters = "".join(cs.suit_letters[s] for s in suits)
            return f"meld set {cs.rank_text(rank)} {letters}{extra}"
        if len(low) == 5 and low[:2] == ["meld", "run"]:
            suit = cs.suit_letters[cs.parse_suit(words[2])]
            return f"meld run {suit} {cs.rank_text(cs.parse_rank(words[3]))} {cs.rank_text(cs.parse_rank(words[4]))}"
        if len(low) == 5 and low[:2] == ["lay", "off"] and low[3] == "on" and low[4].isdigit():
            return f"lay off {cs.format(cs.parse(words[2]))} on {int(low[4])}"
        if len(low) == 4 and low[0] == "swap" and low[2] == "on" and low[3].isdigit():
            return f"swap {cs.format(cs.parse(words[1]))} on {int(low[3])}"
        return None


def _set_copies(rules: GameRules) -> int:
    """The most naturals of one face a ``meld set`` action names."""
    return 1 if rules.melds.set_distinct_suits else min(4, rules.deck.num_decks)


def _set_actions(rules: GameRules) -> list[SetAction]:
    cs, mr = rules.deck.card_set, rules.melds
    copies = _set_copies(rules)
    max_wilds = min(rules.contract_play.max_set_action_wilds, rules.num_wild_cards)
    actions = []
    for rank in range(cs.num_ranks):
        for k in range(1, 5):
            for suits in combinations_with_replacement(range(cs.num_suits), k):
                if any(suits.count(s) > copies for s in set(suits)):
                    continue
                for wilds in range(max_wilds + 1):
                    size = k + wilds
                    if size >= mr.set_min and (mr.set_max is None or size <= mr.set_max):
                        actions.append(SetAction(rank, tuple(cs.face(s, rank) for s in suits), wilds))
    return actions


def run_positions(card_set: CardSet, ace_high: bool) -> int:
    """Number of run positions: the ranks, plus the ace above the king when ace is high."""
    return card_set.num_ranks + (1 if ace_high else 0)


def _run_actions(rules: GameRules) -> list[RunAction]:
    cs, mr = rules.deck.card_set, rules.melds
    R, top = cs.num_ranks, run_positions(cs, mr.ace_high) - 1
    return [
        RunAction(suit, low, high)
        for suit in range(cs.num_suits)
        for low in range(top + 1)
        for high in range(low + mr.run_min - 1, min(top, low + R - 1) + 1)
        if not (low == 0 and high == R)  # one ace per run
    ]


@functools.lru_cache(maxsize=64)
def _shared_layout(rules: GameRules) -> ActionLayout:
    return ActionLayout(rules)
