"""Cards, decks and their canonical text (docs/rules/README.md#card-text)."""

from __future__ import annotations

from collections import Counter

import pytest

from rummy_env.actions import ActionKind, ActionLayout
from rummy_env.rules import three_thirteen
from rummy_env.cards import DeckSpec


@pytest.mark.parametrize(
    "deck, first, last, wild",
    [
        (DeckSpec("standard", 1, 1), "AC", "KS", "JK"),
        (DeckSpec("rook", 1, 0), "1R", "14B", "ROOK"),
    ],
)
def test_every_face_prints_and_parses_back(deck, first, last, wild):
    cs = deck.card_set
    texts = [cs.format(f) for f in range(cs.num_faces)]
    assert texts[0] == first and texts[cs.num_naturals - 1] == last and texts[-1] == wild
    assert len(set(texts)) == cs.num_faces
    assert [cs.parse(t) for t in texts] == list(range(cs.num_faces))


def test_canonical_standard_text():
    cs = DeckSpec("standard", 2, 0).card_set
    assert [cs.format(cs.parse(t)) for t in ("7H", "TS", "AC", "KD")] == ["7H", "TS", "AC", "KD"]
    assert cs.parse("7H") == 2 * 13 + 6  # suits C D H S, ranks A..K


def test_lenient_parsing():
    cs = DeckSpec("standard", 1, 1).card_set
    assert cs.parse("10h") == cs.parse("TH")
    assert cs.parse(" qs ") == cs.parse("QS")
    assert cs.parse("jk") == cs.wild_card
    rook = DeckSpec("rook", 3).card_set
    assert rook.parse("rook") == rook.wild_card
    assert rook.parse("14g") == rook.face(2, 13)


@pytest.mark.parametrize("text", ["", "7", "1H", "ZZ", "7X", "JK", "11H", 7, None])
def test_text_that_names_no_standard_card_is_rejected(text):
    cs = DeckSpec("standard", 1, 0).card_set  # no jokers in this deck
    with pytest.raises(ValueError):
        cs.parse(text)


@pytest.mark.parametrize("text", ["0R", "15R", "AR", "5H", "JK"])
def test_text_that_names_no_rook_card_is_rejected(text):
    with pytest.raises(ValueError):
        DeckSpec("rook", 1).card_set.parse(text)


def test_deck_contents():
    two = Counter(DeckSpec("standard", 2, 2).cards())
    assert sum(two.values()) == 106 and two[0] == 2 and two[52] == 2
    rook = Counter(DeckSpec("rook", 4).cards())
    assert sum(rook.values()) == 4 * 57 and rook[56] == 4


@pytest.mark.parametrize("kwargs", [{"kind": "tarot"}, {"num_decks": 0}, {"num_jokers": -1}, {"num_decks": "2"}])
def test_bad_deck_spec_is_rejected(kwargs):
    with pytest.raises(ValueError):
        DeckSpec(**kwargs)


def test_action_layout_is_a_bijection():
    layout = ActionLayout(three_thirteen(3))
    assert layout.size == 2 + 52 + 52
    texts = [layout.text(a) for a in range(layout.size)]
    assert texts[:3] == ["draw stock", "draw discard", "discard AC"]
    assert texts[layout.start("go_out")] == "go out AC"
    assert [layout.parse(t) for t in texts] == list(range(layout.size))
    assert layout.decode(layout.go_out(layout.card_set.parse("7H"))) == (ActionKind.GO_OUT, 19 + 13)
    assert layout.parse("  Go  Out 10h ") == layout.parse("go out TH")
    for bad in (-1, layout.size):
        with pytest.raises(ValueError, match="outside"):
            layout.decode(bad)
