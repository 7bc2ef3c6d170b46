"""The fixed, flat action layout and the canonical action text (RULES.md, "Notation").

Every action means the same thing in every state ("discard 7H", never "discard hand
slot 3"). The layout is a sequence of blocks; for a deck with ``F`` faces:

==========  ============  ==========================
offset      size          action
==========  ============  ==========================
0           1             ``draw stock``
1           1             ``draw discard``
2           F             ``discard <card>`` by face
2 + F       F             ``go out <card>`` by face
==========  ============  ==========================
"""

from __future__ import annotations

from enum import IntEnum

from .cards import CardSet


class ActionKind(IntEnum):
    DRAW_STOCK = 0
    DRAW_DISCARD = 1
    DISCARD = 2
    GO_OUT = 3


class ActionLayout:
    """Bijection between action ids, ``(kind, face)`` pairs and action text."""

    DRAW_STOCK = 0
    DRAW_DISCARD = 1
    DISCARD_BASE = 2

    def __init__(self, card_set: CardSet) -> None:
        self.card_set = card_set
        self.num_faces = card_set.num_faces
        self.go_out_base = self.DISCARD_BASE + self.num_faces
        self.size = self.go_out_base + self.num_faces

    def discard(self, face: int) -> int:
        return self.DISCARD_BASE + face

    def go_out(self, face: int) -> int:
        return self.go_out_base + face

    def decode(self, action: int) -> tuple[ActionKind, int]:
        """``(kind, face)`` of an action id (face -1 for draws)."""
        if action == self.DRAW_STOCK:
            return ActionKind.DRAW_STOCK, -1
        if action == self.DRAW_DISCARD:
            return ActionKind.DRAW_DISCARD, -1
        if self.DISCARD_BASE <= action < self.go_out_base:
            return ActionKind.DISCARD, action - self.DISCARD_BASE
        if self.go_out_base <= action < self.size:
            return ActionKind.GO_OUT, action - self.go_out_base
        raise ValueError(f"action {action!r} is outside the action space 0..{self.size - 1}")

    def text(self, action: int) -> str:
        kind, face = self.decode(action)
        if kind == ActionKind.DRAW_STOCK:
            return "draw stock"
        if kind == ActionKind.DRAW_DISCARD:
            return "draw discard"
        card = self.card_set.format(face)
        return f"discard {card}" if kind == ActionKind.DISCARD else f"go out {card}"

    def parse(self, text: str) -> int:
        """Action id of an action's text (lenient on case and spaces); ``ValueError`` on
        text that names no action of this layout."""
        if not isinstance(text, str):
            raise ValueError(f"action text must be a string, not {text!r}")
        words = text.strip().lower().split()
        try:
            if words == ["draw", "stock"]:
                return self.DRAW_STOCK
            if words == ["draw", "discard"]:
                return self.DRAW_DISCARD
            if len(words) == 2 and words[0] == "discard":
                return self.discard(self.card_set.parse(words[1]))
            if len(words) == 3 and words[:2] == ["go", "out"]:
                return self.go_out(self.card_set.parse(words[2]))
        except ValueError as err:
            raise ValueError(f"{text!r} names no action: {err}") from None
        raise ValueError(f"{text!r} names no action (expected e.g. 'draw stock', 'draw discard', "
                         f"'discard 7H', 'go out 7H')")
