"""Named scenario tests for every Contract Rummy rule and decision of
docs/rules/contract_rummy.md.

Each test builds an exact situation with ``reset(seed, options={"deck": ..., "dealer": ...,
"round": ..., "scores": ...})``: ``build_deck`` turns the hands we want (by seat; ``None``
for a seat whose cards do not matter), the upcard and the first stock cards into the full
shuffled order of the game's cards, dealt one at a time from the dealer's left
(docs/rules/README.md#shuffle-and-deal and docs/rules/README.md#scenario-set-up). Most
scenarios have 3 players (one deck and a joker) and dealer 2, so seat 0 plays first; those
that need duplicate faces have 5 players (two decks, two jokers) and dealer 4.

Sections follow docs/rules/contract_rummy.md: players and cards (configuration), the seven
deals (hand sizes, contracts, dealer, one-at-a-time deal, first player), meld basics, sets,
runs (ace low and high, no wrapping, one ace, runs kept apart), drawing (stock, top
discard, deep draws and their limit), going down (exact contract, staged, no dead ends),
laying off (after going down, either end of a run, sets up to 4, where a joker or an ace
goes), joker swaps, the discard rule, going out and scoring, rewards, deal 7 (down = out),
stock exhaustion and the turn cap, game end, notation, scenario options and illegal
actions.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scenario import (
    STANDARD_DECK,
    P,
    arrange_deck,
    desc,
    draw_from_reshuffled_stock,
    empty_the_stock,
    legal,
    play,
    reset_to,
)
from scenario import contract_rummy_cards as game_cards

from rummy_env import IllegalActionError, contract_rummy_v0
from rummy_env.rules.turn_search import TurnSearch

pytestmark = pytest.mark.usefixtures("each_backend")  # every test on the core's solvers and on the reference's

RANKS = "A23456789TJQK"
SUITS = "CDHS"
HAND_SIZE = {1: 10, 2: 10, 3: 10, 4: 10, 5: 12, 6: 12, 7: 12}
CONTRACT = {1: (2, 0), 2: (1, 1), 3: (0, 2), 4: (3, 0), 5: (2, 1), 6: (1, 2), 7: (0, 3)}
PENALTY = {**{r: int(r) for r in "23456789"}, "T": 10, "J": 10, "Q": 10, "K": 10, "A": 15}
# Cards for seats whose hands do not matter: consecutive cards differ in rank and suit.
FILL_ORDER = [RANKS[k * 5 % 13] + SUITS[k % 4] for k in range(52)]


# ---------------------------------------------------------------------------- helpers
def build_deck(num_players, dealer, hands, upcard, stock=(), num_decks=None, num_jokers=None) -> list[str]:
    """The exact deck order dealing ``hands`` (by seat; a ``None`` hand is filled with unused
    cards in ``FILL_ORDER``), then ``upcard``, then ``stock``."""
    cards = game_cards(num_players, num_decks, num_jokers)
    fill = [c for c in FILL_ORDER + ["JK"] for _ in range(cards.count(c))]
    return arrange_deck(cards, num_players, dealer, hands, upcard, stock, fill, hand_size=10)


def start(num_players, deal, dealer, hands, upcard, stock=(), scores=None, seed=0, **config):
    """A wrapped env reset to the scenario."""
    env = contract_rummy_v0.env(num_players=num_players, **config)
    deck = build_deck(num_players, dealer, hands, upcard, stock, config.get("num_decks"), config.get("num_jokers"))
    return reset_to(env, deck, dealer, deal, scores, seed)


def legal_of(env, kind: str) -> list[str]:
    """The legal actions whose text starts with ``kind`` (``"meld"``, ``"lay off"``, ...)."""
    return [a for a in legal(env) if a.startswith(kind)]


def hand(env, seat: int) -> list[str]:
    return desc(env)["hands"][P(seat)]


def discards(cards) -> list[str]:
    return sorted(f"discard {c}" for c in set(cards))


def pass_turn(env) -> str:
    """The player to act draws from the stock and discards the card drawn."""
    who = desc(env)["current"]
    before = Counter(desc(env)["hands"][who])
    play(env, "draw stock")
    (drawn,) = list((Counter(desc(env)["hands"][who]) - before).elements())
    play(env, f"discard {drawn}")
    return drawn


def assert_illegal(env, text: str) -> None:
    """``text`` raises ``IllegalActionError`` naming it and the agent, and changes nothing."""
    before = desc(env)
    agent = env.agent_selection
    with pytest.raises(IllegalActionError, match=text) as info:
        play(env, text)
    assert agent in str(info.value)
    assert desc(env) == before and env.agent_selection == agent


def run_bounds(env, slot: int) -> tuple[int, int]:
    """Positions ``low..high`` of a run on the table (0 = ace low .. 13 = ace high)."""
    meld = env.unwrapped.game_state.table[slot].meld
    return meld.low, meld.high


def penalty(cards) -> int:
    return sum(15 if c == "JK" else PENALTY[c[0]] for c in cards)


# ============================================================ Players and cards
@pytest.mark.parametrize("n", range(3, 9))
def test_three_to_eight_players_accepted(n):
    env = contract_rummy_v0.env(num_players=n)
    env.reset(seed=n)
    assert env.possible_agents == [P(i) for i in range(n)]
    assert desc(env)["hand_sizes"] == {P(i): 10 for i in range(n)}


@pytest.mark.parametrize("n", [1, 2, 9, 10])
def test_two_and_nine_players_rejected(n):
    with pytest.raises(ValueError, match="3 to 8 players"):
        contract_rummy_v0.env(num_players=n)


@pytest.mark.parametrize("n, total, jokers", [
    (3, 53, 1), (4, 53, 1), (5, 106, 2), (6, 106, 2), (7, 106, 2), (8, 106, 2),
])
def test_deck_is_one_deck_and_a_joker_for_3_4_players_two_decks_and_two_jokers_for_5_8(n, total, jokers):
    env = contract_rummy_v0.env(num_players=n)
    raw = env.unwrapped
    fmt = raw.engine.card_set.format
    assert Counter(fmt(f) for f in raw.rules.deck.cards()) == Counter(game_cards(n))
    for deal in (1, 7):
        env.reset(seed=deal, options={"round": deal})
        d = desc(env)
        every = [c for h in d["hands"].values() for c in h] + d["discard"]
        assert len(every) + d["stock_size"] == total
        assert d["stock_size"] == total - n * HAND_SIZE[deal] - 1
        stock = [fmt(f) for f in raw.game_state.stock]
        assert Counter(every + stock) == Counter(game_cards(n))
        assert Counter(every + stock)["JK"] == jokers


@pytest.mark.parametrize("n, decks, jokers, total", [(4, 2, 1, 105), (3, 1, 0, 52), (3, 1, 3, 55), (5, 3, 4, 160)])
def test_num_decks_and_num_jokers_override_the_default(n, decks, jokers, total):
    env = contract_rummy_v0.env(num_players=n, num_decks=decks, num_jokers=jokers)
    deck = build_deck(n, 0, [None] * n, "KD", (), decks, jokers)
    assert len(deck) == total
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    d = desc(env)
    assert sum(d["hand_sizes"].values()) + len(d["discard"]) + d["stock_size"] == total
    with pytest.raises(ValueError, match="deck"):  # the default multiset no longer fits
        env.reset(seed=0, options={"deck": game_cards(n)})
    # without jokers there is nothing to swap, and no set action names a joker
    texts = env.unwrapped.layout.texts
    assert any(t.startswith("swap") for t in texts) == (jokers > 0)
    assert any("+" in t for t in texts) == (jokers > 0)
    assert ("meld set 7 C +2" in texts) == (jokers >= 2)


@pytest.mark.parametrize("n, config, need, have", [
    (8, {"num_decks": 1}, 81, 54),  # 8 x 10 + 1 > 52 + 2 jokers (still the 5-8 default)
    (5, {"num_decks": 1, "num_jokers": 1}, 61, 53),  # deal 5: 5 x 12 + 1 > 53
    (4, {"num_decks": 1, "num_jokers": 0}, None, None),  # 4 x 12 + 1 = 49 <= 52: fits
    (8, {"num_decks": 2, "num_jokers": 0}, None, None),  # 8 x 12 + 1 = 97 <= 104: fits
])
def test_configuration_whose_deal_cannot_fit_is_rejected(n, config, need, have):
    if need is None:
        env = contract_rummy_v0.env(num_players=n, **config)
        env.reset(seed=1, options={"round": 7})
        assert desc(env)["hand_sizes"] == {P(i): 12 for i in range(n)}
        return
    with pytest.raises(ValueError, match=f"need {need} cards, but the deck has {have}"):
        contract_rummy_v0.env(num_players=n, **config)


@pytest.mark.parametrize("config, word", [
    ({"num_decks": 0}, "num_decks"), ({"num_jokers": -1}, "num_jokers"), ({"max_deep_draw": 0}, "max_deep_draw"),
    ({"max_table_melds": 0}, "max_table_melds"), ({"max_turns_per_round": 0}, "max_turns_per_round"),
    ({"reward_mode": "score"}, "reward_mode"), ({"num_rounds": 3}, "num_rounds"),
    # beyond what the cards allow (4 players: one deck and a joker, 53 cards): 17 melds, 53 deep
    ({"max_table_melds": 18}, "max_table_melds"), ({"max_deep_draw": 54}, "max_deep_draw"),
    ({"max_table_melds": 2**31}, "max_table_melds"), ({"max_turns_per_round": 1_000_001}, "max_turns_per_round"),
])
def test_bad_configuration_raises_value_error(config, word):
    with pytest.raises(ValueError, match=word):
        contract_rummy_v0.env(num_players=4, **config)


def test_the_largest_settings_the_cards_allow_are_taken():
    env = contract_rummy_v0.env(num_players=4, max_table_melds=17, max_deep_draw=53, max_turns_per_round=1_000_000)
    env.reset(seed=0)


# ============================================================ The seven deals
@pytest.mark.parametrize("deal", range(1, 8))
def test_hand_size_and_contract_of_each_deal(deal):
    for n, total in ((3, 53), (8, 106)):
        env = contract_rummy_v0.env(num_players=n)
        env.reset(seed=deal, options={"round": deal})
        d = desc(env)
        sets, runs = CONTRACT[deal]
        assert d["round"] == deal and d["num_rounds"] == 7
        assert d["contract"] == {"sets": sets, "runs": runs, "down_means_out": deal == 7, "out_by_melding": False}
        assert d["hand_sizes"] == {P(i): HAND_SIZE[deal] for i in range(n)}
        assert all(len(h) == HAND_SIZE[deal] for h in d["hands"].values())
        assert d["stock_size"] == total - n * HAND_SIZE[deal] - 1
        assert d["contract_left"] is None and d["melds"] == [] and d["phase"] == "draw"
        assert not any(d["gone_down"].values())


def test_deal_is_one_card_at_a_time_from_dealers_left_then_upcard_then_stock():
    env = contract_rummy_v0.env(num_players=3)
    deck = STANDARD_DECK + ["JK"]  # the raw order, written out without the helper
    env.reset(seed=0, options={"deck": deck, "dealer": 1, "round": 1})
    d = desc(env)
    # seat 2 (left of dealer 1) gets deck[0], seat 0 deck[1], seat 1 deck[2], seat 2 deck[3], ...
    for seat, first in ((2, 0), (0, 1), (1, 2)):
        assert Counter(d["hands"][P(seat)]) == Counter(deck[first:30:3])
    assert d["discard"] == [deck[30]]
    assert d["stock_size"] == 53 - 31
    assert (d["current"], d["phase"], d["dealer"]) == (P(2), "draw", 1)
    play(env, "draw stock")  # the card after the upcard is the first stock draw
    assert Counter(hand(env, 2)) - Counter(d["hands"][P(2)]) == Counter([deck[31]])
    play(env, f"discard {deck[31]}")
    assert desc(env)["current"] == P(0)  # play moves left
    play(env, "draw stock")
    assert deck[32] in hand(env, 0)


@pytest.mark.parametrize("n", [3, 4, 5, 8])
def test_first_player_is_left_of_dealer(n):
    env = contract_rummy_v0.env(num_players=n)
    for dealer in range(n):
        env.reset(seed=dealer, options={"dealer": dealer})
        assert desc(env)["dealer"] == dealer
        assert desc(env)["current"] == P((dealer + 1) % n) == env.agent_selection


def test_random_dealer_at_game_start_depends_on_the_seed():
    env = contract_rummy_v0.env(num_players=4)
    dealers = []
    for seed in range(200):
        env.reset(seed=seed)
        dealers.append(desc(env)["dealer"])
    counts = Counter(dealers)
    assert set(counts) == {0, 1, 2, 3}
    assert all(25 <= k <= 75 for k in counts.values()), counts
    env.reset(seed=17)
    first = desc(env)
    env.reset(seed=17)
    assert desc(env) == first


def test_dealer_rotates_left_every_deal_and_game_ends_after_deal_7():
    env = contract_rummy_v0.env(num_players=3, max_turns_per_round=1)
    env.reset(seed=5, options={"dealer": 1})
    totals = [0, 0, 0]
    for deal in range(1, 8):
        d = desc(env)
        dealer = (1 + deal - 1) % 3
        assert (d["round"], d["dealer"], d["current"]) == (deal, dealer, P((dealer + 1) % 3))
        assert d["hand_sizes"] == {P(i): HAND_SIZE[deal] for i in range(3)}
        assert (d["contract"]["sets"], d["contract"]["runs"]) == CONTRACT[deal]
        assert d["turns"] == 0 and d["melds"] == [] and len(d["discard"]) == 1
        hands = d["hands"]
        assert not any(env.terminations.values())
        pass_turn(env)  # the one turn allowed: a dead round, the next deal is dealt
        pens = desc(env)["round_penalties"][-1]
        assert pens == {P(i): penalty(hands[P(i)]) for i in range(3)}
        totals = [t + pens[P(i)] for i, t in enumerate(totals)]
    d = desc(env)
    assert len(d["round_penalties"]) == 7
    assert d["scores"] == {P(i): t for i, t in enumerate(totals)}
    assert d["phase"] == "game_over" and d["current"] is None and d["round"] == 7
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.unwrapped.legal_actions_text() == []


# ============================================================ Meld basics and sets
JUNK = ["2C", "4D", "6S", "KC"]  # no two of these can share a meld with a third card


def deal1_env(hand0, upcard="QH", stock=("QD",), n=3, **config):
    """Deal 1 (2 sets), seat 0 to play first."""
    hands = [hand0] + [None] * (n - 1)
    return start(n, 1, n - 1, hands, upcard, list(stock), **config)


def test_set_is_three_or_four_of_a_rank():
    env = deal1_env(["7C", "7D", "7H", "7S", "9C", "9D", "9H", "2S", "4S", "6S"])
    play(env, "draw stock")
    assert legal_of(env, "meld") == sorted([
        "meld set 7 CDH", "meld set 7 CDS", "meld set 7 CHS", "meld set 7 DHS", "meld set 7 CDHS", "meld set 9 CDH",
    ])
    play(env, "meld set 7 CDHS")
    assert [m["cards"] for m in desc(env)["melds"]] == [["7C", "7D", "7H", "7S"]]


def test_two_cards_of_a_rank_are_not_a_set():
    env = deal1_env(["7C", "7D", "9C", "9D", "9H", "JC", "JD", "JH", "2S", "4S"])
    play(env, "draw stock")
    assert legal_of(env, "meld") == ["meld set 9 CDH", "meld set J CDH"]
    with pytest.raises(ValueError, match="meld set 7 CD"):
        env.unwrapped.text_to_action("meld set 7 CD")  # no such action


def test_set_with_two_naturals_of_one_suit_refused_with_two_decks():
    # 5 players, two decks: 7H 7H 7S is not a set (naturals of different suits)
    env = deal1_env(["7H", "7H", "7S", "9C", "9D", "9H"] + JUNK, n=5)
    play(env, "draw stock")
    assert legal_of(env, "meld") == []
    with pytest.raises(ValueError):
        env.unwrapped.text_to_action("meld set 7 HHS")


def test_lay_off_of_a_suit_already_in_the_set_refused_with_two_decks():
    env = deal1_env(["7C", "7H", "7H", "7S", "9C", "9D", "9H"] + JUNK[:3], stock=["7D"], n=5)
    play(env, "draw stock", "meld set 7 CHS", "meld set 9 CDH")
    assert legal_of(env, "lay off") == ["lay off 7D on 0"]
    assert_illegal(env, "lay off 7H on 0")
    play(env, "lay off 7D on 0")
    assert desc(env)["melds"][0]["cards"] == ["7C", "7H", "7S", "7D"]


def test_two_sets_of_one_rank_in_one_contract_with_two_decks():
    env = deal1_env(["7C", "7D", "7H", "7C", "7D", "7S"] + JUNK, n=5)
    play(env, "draw stock")
    assert "meld set 7 CDH" in legal(env)
    play(env, "meld set 7 CDH")
    assert legal(env) == ["meld set 7 CDS"]  # the other three 7s
    play(env, "meld set 7 CDS")
    d = desc(env)
    assert d["gone_down"][P(0)]
    assert [m["cards"] for m in d["melds"]] == [["7C", "7D", "7H"], ["7C", "7D", "7S"]]


def test_joker_in_a_set_stands_for_the_rank_and_a_set_has_at_most_four_cards():
    env = deal1_env(["7C", "7D", "7H", "JK", "9C", "9D", "9H", "2S", "4S", "6S"])
    play(env, "draw stock")
    sets7 = legal_of(env, "meld set 7")
    assert "meld set 7 CDH +1" in sets7 and "meld set 7 CD +1" in sets7 and "meld set 7 CDH" in sets7
    assert "meld set 9 CDH +1" in legal(env)
    with pytest.raises(ValueError):  # five cards: no such action
        env.unwrapped.text_to_action("meld set 7 CDHS +1")
    play(env, "meld set 7 CDH +1")
    m = desc(env)["melds"][0]
    assert (m["kind"], sorted(m["cards"]), m["represents"]) == ("set", ["7C", "7D", "7H", "JK"], "7")


def test_four_naturals_and_a_joker_is_not_a_set():
    # 7C 7D 7H 7S + JK: the joker cannot join a full set (laid or as a lay-off)
    env = deal1_env(["7C", "7D", "7H", "7S", "JK", "9C", "9D", "9H", "2S", "4S"])
    play(env, "draw stock")
    assert "meld set 7 CDHS" in legal(env)
    assert not [a for a in legal_of(env, "meld set 7") if a.endswith("+1") and len(a.split()[3]) == 4]
    play(env, "meld set 7 CDHS", "meld set 9 CDH")
    assert legal_of(env, "lay off") == ["lay off JK on 1"]


def test_set_of_one_natural_and_two_jokers():
    env = deal1_env(["7C", "JK", "JK", "9C", "9D", "9H"] + JUNK, n=5)
    play(env, "draw stock")
    assert "meld set 7 C +2" in legal(env)
    play(env, "meld set 7 C +2", "meld set 9 CDH")
    assert desc(env)["melds"][0]["cards"] == ["7C", "JK", "JK"]


def test_meld_needs_a_natural_no_meld_of_jokers_alone():
    # 3 jokers (override): a run or a set of jokers alone is never offered, nor namable
    env = start(3, 2, 2, [["JK", "JK", "JK", "9C", "9D", "9H", "2C", "5D", "KH", "7S"], None, None], "QD",
                ["8D"], num_jokers=3)
    play(env, "draw stock")
    runs = legal_of(env, "meld run")
    assert "meld run H J K" in runs and "meld run S 5 7" in runs
    assert "meld run H 2 4" not in runs and "meld run S 2 4" not in runs and "meld run H 3 5" not in runs
    assert "meld set 2 C +2" in legal(env)
    for text in ("meld set 7 +3", "meld set 7 +2", "meld set 7 C +3"):
        with pytest.raises(ValueError):
            env.unwrapped.text_to_action(text)


def test_a_card_belongs_to_one_meld_only():
    # deal 2 (1 set + 1 run): 7C 7D 7S 8S 9S makes a set or a run, not both
    junk = ["2C", "4D", "JH", "KC", "QD"]
    env = start(3, 2, 2, [["7C", "7D", "7S", "8S", "9S"] + junk, None, None], "5H", ["3H"])
    play(env, "draw stock")
    assert legal_of(env, "meld") == []
    env = start(3, 2, 2, [["7C", "7D", "7S", "8S", "9S"] + junk, None, None], "5H", ["7H"])
    play(env, "draw stock")
    assert legal_of(env, "meld") == ["meld run S 7 9", "meld set 7 CDH"]


# ============================================================ Runs
def deal3_env(hand0, stock=("8C",), upcard="QD", n=3, **config):
    """Deal 3 (2 runs), seat 0 to play first."""
    return start(n, 3, n - 1, [hand0] + [None] * (n - 1), upcard, list(stock), **config)


def test_run_is_three_or_more_of_one_suit():
    env = deal3_env(["4H", "5H", "6H", "7H", "8S", "9S", "TS", "2C", "4D", "KC"])
    play(env, "draw stock")
    assert legal_of(env, "meld") == sorted([
        "meld run H 4 6", "meld run H 4 7", "meld run H 5 7", "meld run S 8 T",
    ])
    with pytest.raises(ValueError):
        env.unwrapped.text_to_action("meld run S 9 T")  # two cards: no such action
    play(env, "meld run H 4 7", "meld run S 8 T")
    assert [m["cards"] for m in desc(env)["melds"]] == [["4H", "5H", "6H", "7H"], ["8S", "9S", "TS"]]


def test_ace_is_low_a23_and_high_qka():
    env = deal3_env(["AS", "2S", "3S", "QH", "KH", "AH", "5C", "9D", "7C", "JD"])
    play(env, "draw stock")
    assert legal_of(env, "meld") == ["meld run H Q A", "meld run S A 3"]
    play(env, "meld run H Q A", "meld run S A 3")
    assert [m["cards"] for m in desc(env)["melds"]] == [["QH", "KH", "AH"], ["AS", "2S", "3S"]]
    assert run_bounds(env, 0) == (11, 13) and run_bounds(env, 1) == (0, 2)


def test_runs_never_wrap_k_a_2():
    # deal 2: KS AS 2S JK + a set of 9s: A-2-(3) and (Q)-K-A are runs, K-A-2 is not
    env = start(3, 2, 2, [["KS", "AS", "2S", "JK", "9C", "9D", "9H", "4C", "6D", "8H"], None, None], "QC", ["TD"])
    play(env, "draw stock")
    assert legal_of(env, "meld run") == ["meld run S A 3", "meld run S Q A"]
    for text in ("meld run S K 2", "meld run S K A 2"):
        with pytest.raises(ValueError):
            env.unwrapped.text_to_action(text)


def test_run_holds_at_most_one_ace():
    raw = contract_rummy_v0.raw_env(num_players=5)
    runs = [t for t in raw.layout.texts if t.startswith("meld run")]
    assert "meld run S A K" in runs and "meld run S 2 A" in runs
    assert not any(t.split()[3] == "A" and t.split()[4] == "A" for t in runs)
    with pytest.raises(ValueError, match="meld run S A A"):
        raw.text_to_action("meld run S A A")
    # two decks: QS KS AS AS 2S 3S are two runs with one ace each (apart: Q-A and A-3)
    env = deal3_env(["QS", "KS", "AS", "AS", "2S", "3S", "5C", "9D", "7C", "JD"], n=5)
    play(env, "draw stock")
    assert legal_of(env, "meld") == ["meld run S A 3", "meld run S Q A"]
    play(env, "meld run S Q A")
    assert legal(env) == ["meld run S A 3"]
    play(env, "meld run S A 3")
    assert run_bounds(env, 0) == (11, 13) and run_bounds(env, 1) == (0, 2)


def test_meld_run_uses_every_natural_it_covers_and_jokers_for_the_rest():
    # deal 2: 5H 6H 7H JK 7C 7D. A run first takes the 7H; laying the set first keeps it out.
    hand0 = ["5H", "6H", "7H", "JK", "7C", "7D", "2S", "9D", "JC", "KS"]
    env = start(3, 2, 2, [hand0, None, None], "QC", ["4C"])
    play(env, "draw stock", "meld run H 5 7")
    assert desc(env)["melds"][0]["cards"] == ["5H", "6H", "7H"]
    assert legal(env) == ["meld set 7 CD +1"]
    env = start(3, 2, 2, [hand0, None, None], "QC", ["4C"])
    play(env, "draw stock", "meld set 7 CDH")
    assert legal(env) == ["meld run H 4 6", "meld run H 5 7"]  # the joker as 4H, or as 7H
    play(env, "meld run H 5 7")
    m = desc(env)["melds"][1]
    assert m["cards"] == ["5H", "6H", "JK"] and m["represents"] == ["7H"]


def test_two_runs_of_one_suit_in_one_going_down_may_not_join():
    # 3S..8S: two runs of spades would be adjacent (3-4-5 and 6-7-8 are one run)
    env = deal3_env(["3S", "4S", "5S", "6S", "7S", "8S", "2C", "9D", "JH", "KC"])
    play(env, "draw stock")
    assert legal_of(env, "meld") == []


def test_two_runs_of_one_suit_apart_are_allowed():
    env = deal3_env(["3S", "4S", "5S", "7S", "8S", "9S", "2C", "9D", "JH", "KC"])
    play(env, "draw stock")
    assert legal_of(env, "meld") == ["meld run S 3 5", "meld run S 7 9"]
    play(env, "meld run S 3 5")
    assert legal(env) == ["meld run S 7 9"]
    play(env, "meld run S 7 9")
    assert desc(env)["gone_down"][P(0)]


def test_joker_may_not_join_two_runs_of_one_suit():
    # 3S 4S 5S 7S 8S JK: the joker as 9S keeps the runs apart; as 6S it would join them
    env = deal3_env(["3S", "4S", "5S", "7S", "8S", "JK", "2C", "9D", "JH", "KC"])
    play(env, "draw stock")
    assert legal_of(env, "meld") == ["meld run S 3 5", "meld run S 7 9"]
    play(env, "meld run S 3 5")
    assert legal(env) == ["meld run S 7 9"]
    assert_illegal(env, "meld run S 6 8")
    play(env, "meld run S 7 9")
    assert desc(env)["melds"][1]["represents"] == ["9S"]


def test_overlapping_runs_of_one_suit_allowed_with_two_decks():
    env = deal3_env(["3H", "4H", "5H", "5H", "6H", "7H", "2C", "9D", "JS", "KC"], n=5)
    play(env, "draw stock")
    assert "meld run H 3 5" in legal(env)
    play(env, "meld run H 3 5")
    assert legal(env) == ["meld run H 5 7"]
    play(env, "meld run H 5 7")
    assert [m["cards"] for m in desc(env)["melds"]] == [["3H", "4H", "5H"], ["5H", "6H", "7H"]]


def test_runs_of_different_going_downs_may_be_adjacent():
    # seat 0 lays 3H-5H; seat 1 then lays 6H-8H in its own going down
    hand0 = ["3H", "4H", "5H", "9S", "TS", "JS", "2C", "4D", "KC", "QD"]
    hand1 = ["6H", "7H", "8H", "5D", "6D", "7D", "JC", "AS", "7C", "2D"]
    env = start(3, 3, 2, [hand0, hand1, None], "KH", ["8C", "9C"])
    play(env, "draw stock", "meld run H 3 5", "meld run S 9 J", "discard 8C")
    play(env, "draw stock")
    assert "meld run H 6 8" in legal(env)


# ============================================================ Drawing
def test_draw_stock_or_top_discard():
    env = deal1_env(["7C", "7D", "9C", "9D", "JH"] + JUNK + ["3S"], upcard="5H", stock=["KS"])
    assert legal(env) == ["draw discard", "draw stock"]
    play(env, "draw discard")
    d = desc(env)
    assert "5H" in d["hands"][P(0)] and d["discard"] == [] and d["taken_from_discard"] == "5H"
    assert d["hand_sizes"][P(0)] == 11 and d["phase"] == "play" and d["turns"] == 1
    env = deal1_env(["7C", "7D", "9C", "9D", "JH"] + JUNK + ["3S"], upcard="5H", stock=["KS"])
    play(env, "draw stock")
    d = desc(env)
    assert "KS" in d["hands"][P(0)] and d["discard"] == ["5H"] and d["taken_from_discard"] is None


def deep_draw_not_down_env(hand2, **config):
    """Deal 1; seats 0 and 1 discard KS and 2H: seat 2 sees the pile 5H KS 2H (top last)."""
    env = start(3, 1, 2, [None, None, hand2], "5H", ["KS", "2H", "QD"], **config)
    play(env, "draw stock", "discard KS", "draw stock", "discard 2H")
    assert desc(env)["discard"] == ["5H", "KS", "2H"] and desc(env)["current"] == P(2)
    return env


DEEP_HAND = ["9C", "9D", "9H", "5C", "5D", "3C", "7D", "JS", "QC", "8S"]


def test_deep_draw_offered_when_the_deep_card_can_go_down():
    env = deep_draw_not_down_env(DEEP_HAND)
    # depth 3 (5H) makes a set of 5s with 5C 5D; depth 2 (KS) fits nowhere
    assert legal(env) == ["draw discard", "draw discard 3", "draw stock"]
    assert_illegal(env, "draw discard 2")
    play(env, "draw discard 3")
    d = desc(env)
    assert d["discard"] == [] and d["hand_sizes"][P(2)] == 13
    assert Counter(d["hands"][P(2)]) == Counter(DEEP_HAND + ["5H", "KS", "2H"])  # the cards above come too
    assert d["must_place"] == "5H" and d["taken_from_discard"] is None
    # no discard until the 5H is on the table
    assert legal(env) == ["meld set 5 CDH", "meld set 9 CDH"]
    play(env, "meld set 9 CDH")
    assert legal(env) == ["meld set 5 CDH"]
    play(env, "meld set 5 CDH")
    assert desc(env)["must_place"] is None
    # the cards above are free to discard, the one that was on top (2H) included
    assert legal(env) == discards(["3C", "7D", "JS", "QC", "8S", "KS", "2H"])


def test_deep_draw_refused_when_the_deep_card_cannot_go_down():
    hand2 = ["9C", "9D", "9H", "5C", "AD", "3C", "7D", "JS", "QC", "8S"]  # one 5 only
    env = deep_draw_not_down_env(hand2)
    assert legal(env) == ["draw discard", "draw stock"]
    assert_illegal(env, "draw discard 3")


def test_deep_draw_refused_when_the_contract_cannot_be_made():
    hand2 = ["9C", "9D", "TH", "5C", "5D", "3C", "7D", "JS", "QC", "8S"]  # 5s only: no 2 sets
    env = deep_draw_not_down_env(hand2)
    assert legal(env) == ["draw discard", "draw stock"]


def test_deep_drawn_joker_must_go_on_the_table():
    hand2 = ["9C", "9D", "9H", "5C", "5D", "3C", "7D", "JS", "QC", "8S"]
    env = start(3, 1, 2, [None, None, hand2], "JK", ["KS", "2H", "QD"])
    play(env, "draw stock", "discard KS", "draw stock", "discard 2H")
    assert legal(env) == ["draw discard", "draw discard 3", "draw stock"]
    play(env, "draw discard 3")
    assert desc(env)["must_place"] == "JK"
    assert legal(env) == ["meld set 5 CD +1", "meld set 9 CDH"]
    play(env, "meld set 9 CDH", "meld set 5 CD +1")
    assert desc(env)["must_place"] is None and "discard KS" in legal(env)


def test_deep_draws_cards_are_publicly_known_to_be_held():
    env = deep_draw_not_down_env(DEEP_HAND)
    raw = env.unwrapped
    faces = raw.engine.card_set

    def known_by_seat_0(seat):  # seat 0's view of another seat's known cards
        obs = env.observe(P(0))["observation"][raw.observer.offsets["known_held"]]
        block = obs[(seat - 1) * 53:seat * 53]
        return sorted(faces.format(f) for f in np.flatnonzero(block))

    assert known_by_seat_0(2) == []
    play(env, "draw discard 3")
    assert known_by_seat_0(2) == sorted(["5H", "KS", "2H"])
    play(env, "meld set 9 CDH", "meld set 5 CDH")
    assert known_by_seat_0(2) == sorted(["KS", "2H"])  # the 5H is on the table
    play(env, "discard KS")
    assert known_by_seat_0(2) == ["2H"]


@pytest.mark.parametrize("hand1, offered", [
    (["JC", "JD", "JH", "5C", "5D", "5S", "2D", "3H", "8D", "KH"], True),
    (["JC", "JD", "TH", "5C", "5D", "5S", "2D", "3H", "8D", "KH"], False),  # no contract
], ids=["can_go_down", "cannot_go_down"])
def test_deep_draw_met_by_a_lay_off_after_going_down_the_same_turn(hand1, offered):
    # seat 0 goes down with 7s and 9s and discards QC: seat 1 sees 9S QC; the 9S fits seat 0's
    # set of 9s once seat 1 has gone down
    hand0 = ["7C", "7D", "7H", "9C", "9D", "9H", "2S", "4S", "6S", "KD"]
    env = start(3, 1, 2, [hand0, hand1, None], "9S", ["QC"])
    play(env, "draw stock", "meld set 7 CDH", "meld set 9 CDH", "discard QC")
    assert legal(env) == sorted(["draw discard", "draw stock"] + (["draw discard 2"] if offered else []))
    if not offered:
        return
    play(env, "draw discard 2")
    assert legal(env) == ["meld set 5 CDS", "meld set J CDH"]
    play(env, "meld set 5 CDS", "meld set J CDH")
    assert legal(env) == ["lay off 9S on 1"]
    play(env, "lay off 9S on 1")
    assert legal(env) == discards(["2D", "3H", "8D", "KH", "QC"])


@pytest.mark.parametrize("limit, offered", [(1, []), (2, []), (3, ["draw discard 3"]), (20, ["draw discard 3"])])
def test_deep_draw_depth_is_limited_by_max_deep_draw(limit, offered):
    env = deep_draw_not_down_env(DEEP_HAND, max_deep_draw=limit)
    assert legal(env) == sorted(["draw discard", "draw stock"] + offered)
    texts = env.unwrapped.layout.texts
    assert ("draw discard 2" in texts) == (limit >= 2)
    assert f"draw discard {limit + 1}" not in texts
    if limit < 3:
        with pytest.raises(ValueError, match="draw discard 3"):
            env.unwrapped.text_to_action("draw discard 3")


def deep_draw_down_env():
    """Deal 1: seat 0 goes down (7s and 9s) and discards QC; seats 1 and 2 discard 7S and
    5H: at seat 0's second turn the pile is 9S QC 7S 5H (top last)."""
    hand0 = ["7C", "7D", "7H", "9C", "9D", "9H", "2S", "4S", "6S", "KD"]
    env = start(3, 1, 2, [hand0, None, None], "9S", ["QC", "7S", "5H", "3D"])
    play(env, "draw stock", "meld set 7 CDH", "meld set 9 CDH", "discard QC")
    pass_turn(env)
    pass_turn(env)
    assert desc(env)["discard"] == ["9S", "QC", "7S", "5H"] and desc(env)["current"] == P(0)
    return env


def test_deep_draw_by_a_player_who_is_down_needs_a_lay_off():
    env = deep_draw_down_env()
    # 7S (depth 2) fits the set of 7s, 9S (depth 4) the set of 9s; QC (depth 3) fits nothing
    assert legal(env) == ["draw discard", "draw discard 2", "draw discard 4", "draw stock"]
    assert_illegal(env, "draw discard 3")
    play(env, "draw discard 4")
    d = desc(env)
    assert d["must_place"] == "9S" and d["discard"] == []
    assert Counter(d["hands"][P(0)]) == Counter(["2S", "4S", "6S", "KD", "9S", "QC", "7S", "5H"])
    assert legal(env) == ["lay off 7S on 0", "lay off 9S on 1"]  # no discard yet
    play(env, "lay off 7S on 0")
    assert legal(env) == ["lay off 9S on 1"]
    play(env, "lay off 9S on 1")
    assert desc(env)["must_place"] is None
    assert legal(env) == discards(["2S", "4S", "6S", "KD", "QC", "5H"])


def test_deep_drawn_card_may_be_laid_off_after_a_card_above_it():
    # seat 0 is down with 4H 5H 6H; the pile ends 8H 7H: 8H fits once 7H is laid off
    hand0 = ["7C", "7D", "7S", "4H", "5H", "6H", "2C", "4D", "KC", "AD"]
    env = start(3, 2, 2, [hand0, None, None], "QD", ["JD", "8H", "7H", "3S"])
    play(env, "draw stock", "meld set 7 CDS", "meld run H 4 6", "discard JD")
    play(env, "draw stock", "discard 8H", "draw stock", "discard 7H")
    assert legal(env) == ["draw discard", "draw discard 2", "draw stock"]
    play(env, "draw discard 2")
    assert desc(env)["must_place"] == "8H"
    assert legal(env) == ["lay off 7H on 1"]
    play(env, "lay off 7H on 1")
    assert legal(env) == ["lay off 8H on 1"]
    play(env, "lay off 8H on 1")
    assert legal(env) == discards(["2C", "4D", "KC", "AD"])


DEEP_PILE_HAND0 = ["3H", "4H", "5H", "6H", "9C", "JK", "JC", "KD", "2S", "4S"]


def deep_pile_env(hand1=None, stock=("QD", "8H", "2H", "QC", "8C", "KC", "7C", "AH", "6C"), upcard="5D",
                  seat1_goes_down=False):
    """Deal 3: seat 0 goes down with 3H-6H and 9C-JK-JC (the joker for TC) and discards QD
    (the first stock card); then every seat draws the next stock card and discards it (seat
    1, ``seat1_goes_down``, first goes down with 6C-8C and 2D-4D) until seat 0 is to play
    again with eight cards above the upcard and QD."""
    env = start(3, 3, 2, [DEEP_PILE_HAND0, hand1, None], upcard, list(stock))
    play(env, "draw stock", "meld run H 3 6", "meld run C 9 J", "discard QD")
    if seat1_goes_down:
        play(env, "draw stock", "meld run C 6 8", "meld run D 2 4", f"discard {stock[1]}")
    while len(desc(env)["discard"]) < 10:
        pass_turn(env)
    assert desc(env)["current"] == P(0)
    return env


def count_search_states(monkeypatch) -> list[int]:
    """A counter of the states the turn search builds (``TurnSearch.after``) from now on."""
    calls = [0]
    after = TurnSearch.after

    def counting(self, state, action):
        calls[0] += 1
        return after(self, state, action)

    monkeypatch.setattr(TurnSearch, "after", counting)
    return calls


def test_deep_drawn_card_out_of_reach_is_refused_without_trying_every_order_of_lay_offs(monkeypatch):
    # 8H (depth 8) needs 7H, which is nowhere, or a wild: the table's joker comes back only
    # for TC, which seat 0 does not hold. The search once built 170 states to refuse it,
    # laying off the seven cards above it in every order (minutes with twenty cards)
    env = deep_pile_env()
    assert desc(env)["discard"][-8:] == ["8H", "2H", "QC", "8C", "KC", "7C", "AH", "6C"]
    states = count_search_states(monkeypatch)
    assert "draw discard 8" not in legal(env)
    assert_illegal(env, "draw discard 8")
    assert states[0] < 10


def test_deep_drawn_card_reached_with_a_wild_a_swap_brings_back():
    # as above, but seat 0 kept TC on its second turn: swapping it for the joker gives the
    # wild that stands for 7H, and 8H fits after it
    env = start(3, 3, 2, [DEEP_PILE_HAND0, None, None], "5D", ["QD", "8H", "2H", "TC", "8C", "KC", "7C", "AH", "6C"])
    play(env, "draw stock", "meld run H 3 6", "meld run C 9 J", "discard QD")
    pass_turn(env)
    pass_turn(env)
    play(env, "draw stock", "discard 2S")
    while len(desc(env)["discard"]) < 10:
        pass_turn(env)
    assert hand(env, 0) == ["TC", "KD", "4S"] and desc(env)["discard"][2] == "8H"
    assert "draw discard 8" in legal(env)
    play(env, "draw discard 8", "swap TC on 1", "lay off JK on 0")
    assert "lay off 8H on 0" in legal(env)


def test_a_swap_giving_the_deep_drawn_card_itself_brings_no_wild_for_it(monkeypatch):
    # TC (depth 8) would fit seat 1's 6C-8C after a wild for 9C, and the one joker that
    # could come back needs TC itself: swapped in, it is on the table but not placed
    hand1 = ["6C", "7C", "8C", "2D", "3D", "4D", "9S", "TS", "JS", "QS"]
    env = deep_pile_env(hand1, ["QD", "TC", "2H", "QC", "5C", "KC", "AH", "6D", "AD"], "KS", seat1_goes_down=True)
    assert desc(env)["discard"][2] == "TC" and "TC" not in hand(env, 0)
    states = count_search_states(monkeypatch)
    assert "draw discard 8" not in legal(env)
    assert states[0] < 10


def test_a_second_ace_for_a_run_holding_one_is_refused_without_trying_every_order_of_lay_offs(monkeypatch):
    # two decks: seat 0's AH-6H would reach the ace-high place once 7H-KH (above the second
    # AH in the pile) are laid off, but a run holds one ace
    hand0 = ["AH", "2H", "3H", "4H", "5H", "6H", "9C", "JK", "JC", "2S"]
    env = start(5, 3, 4, [hand0, None, None, None, None], "5D",
                ["3S", "AH", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "QC"])
    play(env, "draw stock", "meld run H A 6", "meld run C 9 J", "discard 3S")
    while len(desc(env)["discard"]) < 11:
        pass_turn(env)
    assert desc(env)["current"] == P(0) and desc(env)["discard"][2] == "AH"
    states = count_search_states(monkeypatch)
    assert "draw discard 9" not in legal(env)
    assert states[0] < 10


def test_deep_draw_obligation_met_then_the_cards_above_may_be_discarded():
    env = deep_draw_down_env()
    play(env, "draw discard 2", "lay off 7S on 0")
    assert legal(env) == discards(["2S", "4S", "6S", "KD", "5H"])  # 5H was the top card: free
    play(env, "discard 5H")
    assert desc(env)["must_place"] is None and desc(env)["current"] == P(1)


# ============================================================ Going down
def test_first_meld_only_offered_when_the_whole_contract_can_be_made():
    env = deal1_env(["7C", "7D", "7H", "9C", "9D", "JH"] + JUNK)
    play(env, "draw stock")
    assert legal(env) == discards(["7C", "7D", "7H", "9C", "9D", "JH", "QD"] + JUNK)
    assert_illegal(env, "meld set 7 CDH")


def test_going_down_is_staged_and_must_be_completed():
    env = deal1_env(["7C", "7D", "7H", "9C", "9D", "9H", "JC", "JD"] + JUNK[:2], stock=["JH"])
    play(env, "draw stock", "meld set 7 CDH")
    d = desc(env)
    assert d["phase"] == "going_down" and d["contract_left"] == {"sets": 1, "runs": 0}
    assert not d["gone_down"][P(0)]
    # only the rest of the contract: no discard, no lay-off, no partial contract
    assert legal(env) == ["meld set 9 CDH", "meld set J CDH"]
    assert_illegal(env, "discard 2C")
    play(env, "meld set J CDH")
    d = desc(env)
    assert d["phase"] == "play" and d["contract_left"] is None and d["gone_down"][P(0)]
    assert [m["owner"] for m in d["melds"]] == [P(0), P(0)] and [m["slot"] for m in d["melds"]] == [0, 1]


def test_going_down_lays_exactly_the_contract():
    # three sets held in deal 1 (2 sets): the third is not laid after going down
    env = deal1_env(["7C", "7D", "7H", "9C", "9D", "9H", "JC", "JD", "JH", "2C"])
    play(env, "draw stock", "meld set 7 CDH", "meld set 9 CDH")
    assert legal_of(env, "meld") == []
    assert legal(env) == discards(["JC", "JD", "JH", "2C", "QD"])
    assert_illegal(env, "meld set J CDH")


def test_going_down_uses_only_the_contracts_kinds():
    # deal 1 (2 sets): a run in hand is never offered; deal 2 (set + run): a second run is not
    env = deal1_env(["7C", "7D", "7H", "9C", "9D", "9H", "3S", "4S", "5S", "2C"])
    play(env, "draw stock")
    assert not legal_of(env, "meld run")
    hand0 = ["7C", "7D", "7H", "3S", "4S", "5S", "9H", "TH", "JH", "2C"]
    env = start(3, 2, 2, [hand0, None, None], "QD", ["KC"])
    play(env, "draw stock", "meld run S 3 5")
    assert legal(env) == ["meld set 7 CDH"]
    play(env, "meld set 7 CDH")
    assert legal_of(env, "meld") == []


def test_going_down_needs_free_table_slots():
    # max_table_melds=2 and a contract of 3 sets: never offered
    hand0 = ["7C", "7D", "7H", "9C", "9D", "9H", "JC", "JD", "JH", "2C"]
    env = start(3, 4, 2, [hand0, None, None], "QD", ["KC"], max_table_melds=2)
    play(env, "draw stock")
    assert legal_of(env, "meld") == []
    env = start(3, 4, 2, [hand0, None, None], "QD", ["KC"])
    play(env, "draw stock")
    assert "meld set 7 CDH" in legal(env)


def test_no_dead_end_going_down_leaving_only_the_taken_card():
    # 2S..6S 2H..6H and the upcard KC taken: laying both full runs would leave KC, which the
    # discard rule forbids discarding; so that going down is never offered
    hand0 = ["2S", "3S", "4S", "5S", "6S", "2H", "3H", "4H", "5H", "6H"]
    env = deal3_env(hand0, upcard="KC")
    play(env, "draw discard")
    assert "meld run S 2 6" in legal(env)
    play(env, "meld run S 2 6")
    assert "meld run H 2 6" not in legal(env) and "meld run H 2 5" in legal(env)
    play(env, "meld run H 2 5")
    assert "lay off 6H on 1" not in legal(env)  # it would leave KC alone
    assert legal(env) == ["discard 6H"]


# ============================================================ Laying off
def lay_off_env():
    """Deal 2 (1 set + 1 run). Seat 0 goes down with 7C 7D 7S and 4H 5H 6H; seat 1 draws
    3H, holding 7H (fits the set and the run's high end) and a joker."""
    hand0 = ["7C", "7D", "7S", "4H", "5H", "6H", "2C", "4D", "KC", "AD"]
    hand1 = ["9C", "9D", "9H", "TS", "JS", "QS", "7H", "2D", "5C", "JK"]
    env = start(3, 2, 2, [hand0, hand1, None], "QD", ["JD", "3H", "8C", "8H"])
    play(env, "draw stock", "meld set 7 CDS", "meld run H 4 6")
    assert legal_of(env, "lay off") == []  # nothing of seat 0's fits
    play(env, "discard JD", "draw stock")
    return env


def test_lay_off_refused_before_going_down():
    env = lay_off_env()
    assert not desc(env)["gone_down"][P(1)]
    assert legal_of(env, "lay off") == []
    for text in ("lay off 7H on 0", "lay off 3H on 1", "lay off JK on 0"):
        assert_illegal(env, text)


def test_lay_off_on_other_players_melds_in_the_turn_of_going_down():
    env = lay_off_env()
    play(env, "meld set 9 CDH", "meld run S T Q")
    assert desc(env)["gone_down"] == {P(0): True, P(1): True, P(2): False}
    assert legal_of(env, "lay off") == [
        "lay off 3H on 1", "lay off 7H on 0", "lay off 7H on 1",
        "lay off JK on 0", "lay off JK on 1", "lay off JK on 2", "lay off JK on 3",
    ]
    play(env, "lay off 3H on 1", "lay off 7H on 1")  # either end of seat 0's run
    d = desc(env)
    assert d["melds"][1]["owner"] == P(0) and d["melds"][1]["cards"] == ["4H", "5H", "6H", "3H", "7H"]
    assert run_bounds(env, 1) == (2, 6)
    assert d["hand_sizes"][P(1)] == 3


def test_lay_off_in_a_later_turn_on_own_meld():
    env = lay_off_env()
    play(env, "meld set 9 CDH", "meld run S T Q", "lay off 3H on 1", "lay off 7H on 1", "discard 2D")
    pass_turn(env)  # seat 2
    play(env, "draw stock")  # seat 0 draws 8H
    assert legal_of(env, "lay off") == ["lay off 8H on 1"]
    play(env, "lay off 8H on 1")
    assert run_bounds(env, 1) == (2, 7) and desc(env)["melds"][1]["cards"][-1] == "8H"


def test_set_filled_up_to_four_then_refused():
    env = lay_off_env()
    play(env, "meld set 9 CDH", "meld run S T Q", "lay off 7H on 0")
    assert desc(env)["melds"][0]["cards"] == ["7C", "7D", "7S", "7H"]
    assert "lay off JK on 0" not in legal(env) and "lay off JK on 2" in legal(env)
    assert_illegal(env, "lay off JK on 0")


def test_joker_lay_off_on_a_set_of_three():
    hand0 = ["7C", "7D", "7H", "9C", "9D", "9H", "9S", "JK", "2C", "4D"]
    env = deal1_env(hand0, stock=["KC"])
    play(env, "draw stock", "meld set 7 CDH", "meld set 9 CDHS")
    assert legal_of(env, "lay off") == ["lay off JK on 0"]  # not on the full set of 9s
    play(env, "lay off JK on 0")
    m = desc(env)["melds"][0]
    assert m["cards"] == ["7C", "7D", "7H", "JK"] and m["represents"] == "7"


def joker_lay_off_env():
    """Deal 3: seat 0 lays QS KS AS and 4H 5H 6H; seat 1 goes down with clubs and
    diamonds and holds the joker."""
    hand0 = ["QS", "KS", "AS", "4H", "5H", "6H", "2C", "7D", "9S", "JC"]
    hand1 = ["2D", "3D", "4D", "6C", "7C", "8C", "JK", "KH", "5S", "TD"]
    env = start(3, 3, 2, [hand0, hand1, None], "QD", ["KC", "3S"])
    play(env, "draw stock", "meld run S Q A", "meld run H 4 6", "discard KC")
    play(env, "draw stock", "meld run D 2 4", "meld run C 6 8")
    return env


@pytest.mark.parametrize("slot, represents, bounds", [
    (0, ["JS"], (10, 13)),  # Q-K-A: the high end is closed, the joker goes low
    (1, ["7H"], (3, 6)),  # 4-5-6: the high end is open, the joker goes high
    (2, ["5D"], (1, 4)),  # seat 1's own run
])
def test_joker_lay_off_on_a_run_goes_high_when_open_else_low(slot, represents, bounds):
    env = joker_lay_off_env()
    assert f"lay off JK on {slot}" in legal(env)
    play(env, f"lay off JK on {slot}")
    m = desc(env)["melds"][slot]
    assert m["represents"] == represents and "JK" in m["cards"]
    assert run_bounds(env, slot) == bounds


def ace_lay_off_env():
    """Deal 3. Seat 0 lays 5S-9S and 2H-4H, keeps AS KD. Seat 1 lays clubs and diamonds
    2-4 and lays off TS JS QS; seat 2 lays clubs and diamonds 5-7 (next to seat 1's:
    another going down) and lays off KS 4S 3S. Seat 0 then draws 2S: the run is 2S..KS."""
    hand0 = ["5S", "6S", "7S", "8S", "9S", "2H", "3H", "4H", "AS", "KD"]
    hand1 = ["2C", "3C", "4C", "2D", "3D", "4D", "TS", "JS", "QS", "8C"]
    hand2 = ["5C", "6C", "7C", "5D", "6D", "7D", "KS", "4S", "3S", "9C"]
    env = start(3, 3, 2, [hand0, hand1, hand2], "8D", ["JH", "QH", "TH", "2S"])
    play(env, "draw stock", "meld run S 5 9", "meld run H 2 4", "discard JH")
    play(env, "draw stock", "meld run C 2 4", "meld run D 2 4")
    play(env, "lay off TS on 0", "lay off JS on 0", "lay off QS on 0", "discard QH")
    play(env, "draw stock", "meld run C 5 7", "meld run D 5 7")
    play(env, "lay off KS on 0", "lay off 4S on 0", "lay off 3S on 0", "discard TH")
    play(env, "draw stock", "lay off 2S on 0")
    assert run_bounds(env, 0) == (1, 12)  # 2S..KS: both ends open
    return env


def test_run_extended_at_either_end_by_other_players():
    env = ace_lay_off_env()
    cards = desc(env)["melds"][0]["cards"]
    assert sorted(cards) == sorted(["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS"])
    assert [m["owner"] for m in desc(env)["melds"]] == [P(0), P(0), P(1), P(1), P(2), P(2)]


def test_ace_that_fits_both_ends_of_a_2_to_k_run_goes_high():
    env = ace_lay_off_env()
    assert "lay off AS on 0" in legal(env)
    play(env, "lay off AS on 0")
    assert run_bounds(env, 0) == (1, 13)  # 2..A, not A..K
    assert desc(env)["hand_sizes"][P(0)] == 1


# ============================================================ Joker swap
SWAP_HAND1 = ["7C", "7D", "7S", "2C", "3C", "4C", "TD", "JD", "QD", "5H", "AS", "9H"]


def swap_env(hand1=SWAP_HAND1, hand2=None, stock=("KC", "8D", "QH", "2H", "5D")):
    """Deal 6 (1 set + 2 runs), 3 jokers (override). Seat 0 goes down with 9C 9D JK (set),
    3H 4H JK 6H (the joker is 5H) and QS KS JK (the joker is AS); seat 1 goes down (7s,
    clubs 2-4, diamonds T-Q) holding 5H, AS and 9H."""
    hand0 = ["9C", "9D", "JK", "JK", "JK", "3H", "4H", "6H", "QS", "KS", "2D", "8S"]
    env = start(3, 6, 2, [hand0, hand1, hand2], "6S", list(stock), num_jokers=3)
    play(env, "draw stock", "meld set 9 CD +1", "meld run H 3 6", "meld run S Q A", "discard KC")
    d = desc(env)
    assert [m["represents"] for m in d["melds"]] == ["9", ["5H"], ["AS"]]
    play(env, "draw stock", "meld set 7 CDS", "meld run C 2 4", "meld run D T Q")
    return env


def test_joker_swap_refused_on_the_turn_of_going_down():
    env = swap_env()
    assert desc(env)["gone_down"][P(1)]
    assert legal_of(env, "swap") == []
    assert_illegal(env, "swap 5H on 1")
    assert legal_of(env, "lay off") == ["lay off 9H on 0"]


def test_joker_swap_in_a_later_turn_needs_the_exact_card():
    env = swap_env()
    play(env, "discard 8D")
    pass_turn(env)  # seat 2
    pass_turn(env)  # seat 0 (2H)
    play(env, "draw stock")  # seat 1 draws 5D
    assert sorted(hand(env, 1)) == sorted(["5H", "AS", "9H", "5D"])
    # 5H for the joker of 3H-6H, AS for the ace-high joker of Q-K-A; not 5D; not the set's joker
    assert legal_of(env, "swap") == ["swap 5H on 1", "swap AS on 2"]
    assert_illegal(env, "swap 5D on 1")
    assert_illegal(env, "swap 9H on 0")


def test_swapped_joker_must_be_laid_off_before_discarding():
    env = swap_env()
    play(env, "discard 8D")
    pass_turn(env)
    pass_turn(env)
    play(env, "draw stock", "swap 5H on 1")
    d = desc(env)
    assert d["wilds_owed"] == 1 and sorted(d["hands"][P(1)]) == sorted(["JK", "AS", "9H", "5D"])
    assert d["melds"][1]["cards"] == ["3H", "4H", "6H", "5H"] and d["melds"][1]["represents"] == []
    assert legal_of(env, "discard") == []  # the joker first
    assert_illegal(env, "discard 5D")
    # it may go on any meld with room: a set (then dead there) or a run
    assert legal_of(env, "lay off JK") == [f"lay off JK on {s}" for s in range(6)]
    # the joker taken back is publicly known to be in seat 1's hand (seat 0 sees it)
    raw = env.unwrapped
    known = env.observe(P(0))["observation"][raw.observer.offsets["known_held"]]
    assert known[52] == 1  # first block: the player to seat 0's left, face 52 = JK
    play(env, "lay off JK on 1")
    d = desc(env)
    assert d["wilds_owed"] == 0 and d["melds"][1]["represents"] == ["7H"]
    assert legal_of(env, "discard") == discards(["AS", "9H", "5D"])
    # a second swap (the ace-high joker) in the same turn, the joker laid off on a set
    play(env, "swap AS on 2")
    assert desc(env)["melds"][2]["cards"] == ["QS", "KS", "AS"] and legal_of(env, "discard") == []
    play(env, "lay off JK on 0")
    assert desc(env)["melds"][0]["cards"] == ["9C", "9D", "JK", "JK"]
    assert legal(env) == discards(["9H", "5D"])


SWAP_HAND1_NO_5H = SWAP_HAND1[:-3] + ["KH", "AS", "9H"]
SWAP_HAND2 = ["TC", "JC", "QC", "KD", "2S", "3S", "4S", "8H", "TH", "5C", "6D", "AH"]


def test_joker_swap_refused_to_a_player_not_down():
    env = swap_env(SWAP_HAND1_NO_5H, SWAP_HAND2, stock=("KC", "8D", "5H", "3D", "5D"))
    play(env, "discard 8D")
    play(env, "draw stock")  # seat 2 (not down) draws 5H
    assert "5H" in hand(env, 2)
    assert legal_of(env, "swap") == [] and legal_of(env, "lay off") == []
    assert_illegal(env, "swap 5H on 1")


def test_swap_does_not_meet_a_deep_draw_obligation():
    # seat 2 discards 5H, seat 0 discards 8S: seat 1 (down) could swap 5H in but not lay it off
    env = swap_env(SWAP_HAND1_NO_5H, SWAP_HAND2, stock=("KC", "8D", "5H", "3D", "5D"))
    play(env, "discard 8D", "draw stock", "discard 5H", "draw stock", "discard 8S")
    assert desc(env)["discard"][-2:] == ["5H", "8S"] and desc(env)["current"] == P(1)
    assert "draw discard 2" not in legal(env)
    assert_illegal(env, "draw discard 2")


# ============================================================ The discard rule
def test_taken_face_may_not_be_discarded():
    env = deal1_env(["7C", "7D", "9C", "9D", "JH"] + JUNK + ["3S"], upcard="KS")
    play(env, "draw discard")
    assert desc(env)["taken_from_discard"] == "KS"
    assert "discard KS" not in legal(env)
    assert_illegal(env, "discard KS")
    # the same face drawn from the stock may be discarded
    env = deal1_env(["7C", "7D", "9C", "9D", "JH"] + JUNK + ["3S"], upcard="2H", stock=["KS"])
    play(env, "draw stock")
    assert "discard KS" in legal(env)


def test_taken_face_may_be_discarded_when_another_copy_is_held():
    env = deal1_env(["7C", "7D", "9C", "9D", "KS"] + JUNK + ["3S"], upcard="KS", n=5)
    play(env, "draw discard")
    assert "discard KS" in legal(env)


def test_meld_uses_the_taken_card_first():
    # two decks: 7H held, 7H taken; the set takes the taken 7H, so the other may be discarded
    env = deal1_env(["7C", "7D", "7H", "9C", "9D", "9H"] + JUNK, upcard="7H", n=5)
    play(env, "draw discard", "meld set 7 CDH")
    assert desc(env)["taken_from_discard"] is None
    play(env, "meld set 9 CDH")
    assert "discard 7H" in legal(env)
    # (before any meld the held copy already lets the face go)
    env = deal1_env(["7C", "7D", "7H", "9C", "9D", "9H"] + JUNK, upcard="7H", n=5)
    play(env, "draw discard", "discard 7H")
    assert desc(env)["current"] == P(1)


def test_lay_off_uses_the_taken_card_first():
    hand0 = ["7C", "7D", "7H", "7S", "9C", "9D", "9H"] + JUNK[:3]
    env = start(5, 1, 4, [hand0] + [None] * 4, "QD", ["KC", "2H", "3H", "4H", "7S"])
    play(env, "draw stock", "meld set 7 CDH", "meld set 9 CDH", "discard KC")
    for _ in range(3):
        pass_turn(env)
    play(env, "draw stock", "discard 7S")  # seat 4 discards the other 7S
    play(env, "draw discard")  # seat 0 takes it: two 7S in hand
    assert desc(env)["taken_from_discard"] == "7S"
    play(env, "lay off 7S on 0")
    assert desc(env)["taken_from_discard"] is None
    assert "discard 7S" in legal(env)


def test_discard_rule_lasts_only_for_the_turn():
    env = deal1_env(["7C", "7D", "9C", "9D", "JH"] + JUNK + ["3S"], upcard="KS", stock=["5H", "8H", "2D"])
    play(env, "draw discard", "discard 3S")
    assert desc(env)["taken_from_discard"] is None
    pass_turn(env)
    pass_turn(env)
    play(env, "draw stock")
    assert "discard KS" in legal(env)


# ============================================================ Going out and scoring
GOER = ["2S", "3S", "4S", "5S", "6S", "2H", "3H", "4H", "5H", "6H"]
KEEPER1 = ["AC", "JK", "KD", "QD", "JC", "TC", "9C", "7D", "8H", "3C"]  # 15+15+10*4+9+7+8+3 = 97
KEEPER2 = ["AD", "2D", "4D", "TD", "9H", "7C", "8S", "QS", "KH", "JH"]  # 15+2+4+10+9+7+8+10+10+10 = 85


def going_out_env(stock, scores=None, reward_mode="relative"):
    return start(3, 3, 2, [GOER, KEEPER1, KEEPER2], "5C", list(stock), scores=scores, reward_mode=reward_mode)


def test_scenario_hands_follow_the_penalty_table():
    # 2..10 face value, J Q K 10, A 15, joker 15: KEEPER1 and KEEPER2 hold every kind of card
    # but 5 and 6, which GOER holds (scored in the dead-round tests below)
    assert penalty(KEEPER1) == 97 and penalty(KEEPER2) == 85 and penalty(GOER) == 40


def assert_round_over_won_by_seat_0(env, scores=(0, 0, 0)):
    d = desc(env)
    assert d["round_penalties"] == [{P(0): 0, P(1): 97, P(2): 85}]
    assert d["scores"] == {P(0): scores[0], P(1): scores[1] + 97, P(2): scores[2] + 85}
    # the next deal at once (no last turns), the next dealer
    assert (d["round"], d["dealer"], d["current"], d["phase"], d["turns"]) == (4, 0, P(1), "draw", 0)
    assert d["melds"] == [] and d["hand_sizes"] == {P(i): 10 for i in range(3)}
    assert not any(d["gone_down"].values())
    assert not any(env.terminations.values())


def test_going_out_by_discarding_the_last_card():
    env = going_out_env(["KC"])
    play(env, "draw stock", "meld run S 2 6", "meld run H 2 6")
    assert legal(env) == ["discard KC"] and desc(env)["round"] == 3
    play(env, "discard KC")
    assert_round_over_won_by_seat_0(env)


def test_going_out_by_melding_the_last_card():
    env = going_out_env(["7H"])
    play(env, "draw stock", "meld run S 2 6")
    assert "meld run H 2 7" in legal(env)
    play(env, "meld run H 2 7")  # the hand is empty: no discard
    assert_round_over_won_by_seat_0(env)


def test_going_out_by_laying_off_the_last_card():
    env = going_out_env(["7S"])
    play(env, "draw stock", "meld run S 2 6", "meld run H 2 6")
    assert legal(env) == ["discard 7S", "lay off 7S on 0"]
    play(env, "lay off 7S on 0")
    assert_round_over_won_by_seat_0(env)


def test_scores_accumulate_from_the_starting_scores():
    env = going_out_env(["KC"], scores=[10, 20, 30])
    play(env, "draw stock", "meld run S 2 6", "meld run H 2 6", "discard KC")
    assert_round_over_won_by_seat_0(env, scores=(10, 20, 30))


@pytest.mark.parametrize("mode, expected", [
    ("relative", {P(0): (182 / 3) / 100, P(1): (182 / 3 - 97) / 100, P(2): (182 / 3 - 85) / 100}),
    ("penalty", {P(0): 0.0, P(1): -0.97, P(2): -0.85}),
    ("win", {P(0): 0.0, P(1): 0.0, P(2): 0.0}),  # only at game end
])
def test_the_step_that_ends_the_round_gives_its_rewards(mode, expected):
    env = going_out_env(["KC"], reward_mode=mode)
    play(env, "draw stock", "meld run S 2 6", "meld run H 2 6")
    assert all(v == 0 for v in env.rewards.values())
    play(env, "discard KC")
    assert env.rewards == pytest.approx(expected)
    if mode == "relative":
        assert sum(env.rewards.values()) == pytest.approx(0.0)
    pass_turn(env)  # the next step gives nothing
    assert all(v == 0 for v in env.rewards.values())


# ============================================================ Deal 7: down = out
SEVEN = ["AS", "2S", "3S", "4S", "5S", "4H", "5H", "6H", "7H", "8C", "9C", "TC"]
SEVEN1 = ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD"]  # 89
SEVEN2 = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "QC", "KC", "8H", "9H", "TH"]  # 89


def deal7_env(draw, scores=(0, 0, 0), reward_mode="relative"):
    return start(3, 7, 2, [SEVEN, SEVEN1, SEVEN2], "JS", [draw], scores=list(scores), reward_mode=reward_mode)


def test_deal_7_three_runs_leaving_a_card_over_not_offered():
    env = deal7_env("KD")  # three runs (S A-5, H 4-7, C 8-T) and KD over
    play(env, "draw stock")
    assert legal(env) == discards(SEVEN + ["KD"])
    assert_illegal(env, "meld run S A 5")


def test_deal_7_three_runs_using_every_card_go_down_and_out():
    env = deal7_env("JC", scores=(100, 60, 70))
    play(env, "draw stock")
    assert legal_of(env, "meld") == ["meld run C 8 J", "meld run H 4 7", "meld run S A 5"]
    play(env, "meld run S A 5")
    assert legal(env) == ["meld run C 8 J", "meld run H 4 7"]  # no discard, no other run
    play(env, "meld run H 4 7", "meld run C 8 J")  # the last card goes down: out, game over
    d = desc(env)
    assert d["round_penalties"] == [{P(0): 0, P(1): 89, P(2): 89}]
    assert d["scores"] == {P(0): 100, P(1): 149, P(2): 159}
    assert d["gone_down"] == {P(0): True, P(1): False, P(2): False}  # marks the player who went out
    assert d["phase"] == "game_over" and d["current"] is None and d["round"] == 7
    assert all(env.terminations.values()) and not any(env.truncations.values())


def test_deal_7_a_player_not_going_down_discards():
    env = deal7_env("KD")
    play(env, "draw stock", "discard KD")
    assert desc(env)["current"] == P(1)


def test_deal_7_last_run_must_use_every_card_no_lay_off_no_final_discard():
    env = deal7_env("JC")
    play(env, "draw stock", "meld run S A 5", "meld run H 4 7")
    # C 8-T would leave JC, C 9-J would leave 8C: only C 8-J goes down with every card
    assert legal(env) == ["meld run C 8 J"]


def test_deal_7_no_going_down_that_needs_a_lay_off():
    # AS..7S + 4H..9H: three runs need spades split in two (A-3 and 4-7 or A-4 and 5-7), which
    # join; S A-3, S 5-7, H 4-9 and then laying off 4S is not a deal-7 going down
    hand0 = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "4H", "5H", "6H", "7H", "8H"]
    env = start(3, 7, 2, [hand0, None, None], "QD", ["9H"])
    play(env, "draw stock")
    assert legal_of(env, "meld") == []


# ============================================================ Game end
@pytest.mark.parametrize("scores, winners", [
    ((60, 60, 70), [0]),  # 60, 149, 159
    ((149, 60, 70), [0, 1]),  # 149, 149, 159: ties share the win
    ((200, 20, 70), [1]),  # 200, 109, 159
], ids=["seat0_wins", "tie", "seat1_wins"])
def test_game_end_after_deal_7_lowest_total_wins(scores, winners):
    env = deal7_env("JC", scores=scores, reward_mode="win")
    play(env, "draw stock", "meld run S A 5", "meld run H 4 7", "meld run C 8 J")
    assert env.unwrapped.engine.winners(env.unwrapped.game_state) == winners
    assert env.rewards == {P(i): 1.0 if i in winners else -1.0 for i in range(3)}
    assert env.unwrapped.legal_actions_text() == []
    for agent in env.possible_agents:
        assert not env.observe(agent)["action_mask"].any()
    while env.agents:
        env.step(None)


def test_final_deal_rewards_in_relative_mode():
    env = deal7_env("JC", scores=(0, 0, 0), reward_mode="relative")
    play(env, "draw stock", "meld run S A 5", "meld run H 4 7", "meld run C 8 J")
    mean = 178 / 3
    assert env.rewards == pytest.approx({P(0): mean / 100, P(1): (mean - 89) / 100, P(2): (mean - 89) / 100})


# ============================================================ Stock exhaustion, dead rounds, turn cap
def exhausted_stock_env(seed):
    env = contract_rummy_v0.env(num_players=3)
    deck = STANDARD_DECK + ["JK"]
    env.reset(seed=seed, options={"deck": deck, "dealer": 2, "round": 5})
    # hands: 36 cards; upcard deck[36]; stock deck[37:], 16 cards
    for k in range(16):
        play(env, "draw stock", f"discard {deck[37 + k]}")
    return env


def test_stock_exhaustion_reshuffles_the_discard_pile_less_its_top():
    env = exhausted_stock_env(seed=1)
    d = desc(env)
    assert d["stock_size"] == 0 and d["round"] == 5 and d["turns"] == 16
    assert d["discard"] == (STANDARD_DECK + ["JK"])[36:]
    d = desc(draw_from_reshuffled_stock(exhausted_stock_env))
    assert d["stock_size"] == 15 and d["round"] == 5


def test_dead_round_when_the_reshuffle_gives_no_cards():
    env = going_out_env(["KC"])
    empty_the_stock(env)
    assert desc(env)["discard"] == ["5C"]
    play(env, "draw stock")
    d = desc(env)
    assert d["round_penalties"] == [{P(0): 40, P(1): 97, P(2): 85}]
    assert (d["round"], d["dealer"], d["current"], d["turns"]) == (4, 0, P(1), 0)
    mean = (40 + 97 + 85) / 3
    assert env.rewards == pytest.approx({P(0): (mean - 40) / 100, P(1): (mean - 97) / 100, P(2): (mean - 85) / 100})


def test_turn_cap_ends_the_round_dead_scoring_every_hand():
    env = start(3, 3, 2, [GOER, KEEPER1, KEEPER2], "5C", ["KC", "QH", "2C"], reward_mode="penalty",
                max_turns_per_round=3)
    pass_turn(env)
    pass_turn(env)
    play(env, "draw stock")  # the third turn has started: the round ends when it ends
    assert (desc(env)["round"], desc(env)["turns"], desc(env)["phase"]) == (3, 3, "play")
    play(env, "discard 2C")
    d = desc(env)
    assert d["round_penalties"] == [{P(0): 40, P(1): 97, P(2): 85}]
    assert (d["round"], d["dealer"], d["current"], d["turns"]) == (4, 0, P(1), 0)
    assert env.rewards == pytest.approx({P(0): -0.40, P(1): -0.97, P(2): -0.85})
    assert not any(env.truncations.values()) and not any(env.terminations.values())


def test_turn_cap_reached_by_the_going_out_turn_scores_the_goer_zero():
    env = start(3, 3, 2, [GOER, KEEPER1, KEEPER2], "5C", ["KC"], max_turns_per_round=1)
    play(env, "draw stock", "meld run S 2 6", "meld run H 2 6", "discard KC")
    assert desc(env)["round_penalties"] == [{P(0): 0, P(1): 97, P(2): 85}]
    assert desc(env)["round"] == 4


# ============================================================ Notation
@pytest.mark.parametrize("n, size", [(3, 1522), (4, 1837), (5, 2282), (8, 3227)])
def test_action_text_round_trips_for_every_id(n, size):
    raw = contract_rummy_v0.raw_env(num_players=n)
    assert raw.action_space(P(0)).n == size
    texts = [raw.action_to_text(a) for a in range(size)]
    assert len(set(texts)) == size
    for a, text in enumerate(texts):
        assert raw.text_to_action(text) == a


def test_action_ids_follow_the_documented_layout():
    raw = contract_rummy_v0.raw_env(num_players=4)
    blocks = {name: (b.start, b.size) for name, b in raw.layout.blocks.items()}
    assert blocks == {
        "deep_draw": (2, 19), "discard": (21, 53), "meld_set": (74, 195), "meld_run": (269, 308),
        "lay_off": (577, 636), "swap": (1213, 624),
    }
    assert raw.action_to_text(0) == "draw stock" and raw.action_to_text(1) == "draw discard"
    assert raw.text_to_action("draw discard 2") == 2 and raw.text_to_action("draw discard 20") == 20
    assert raw.text_to_action("discard AC") == 21 and raw.text_to_action("discard JK") == 21 + 52
    assert raw.text_to_action("lay off 7H on 2") == 577 + 2 * 53 + 2 * 13 + 6
    assert raw.text_to_action("swap KS on 11") == 1213 + 11 * 52 + 51


@pytest.mark.parametrize("variant, canonical", [
    ("Draw Stock", "draw stock"),
    ("DRAW DISCARD 3", "draw discard 3"),
    ("discard 10h", "discard TH"),
    ("discard jk", "discard JK"),
    ("meld set 7 shd", "meld set 7 DHS"),
    ("meld set 10 SC +1", "meld set T CS +1"),
    ("meld run h 10 k", "meld run H T K"),
    ("meld run s q a", "meld run S Q A"),
    ("  lay   off 7h on 2 ", "lay off 7H on 2"),
    ("lay off jk on 0", "lay off JK on 0"),
    ("SWAP as on 1", "swap AS on 1"),
])
def test_lenient_action_parsing(variant, canonical):
    raw = contract_rummy_v0.raw_env(num_players=4)
    assert raw.text_to_action(variant) == raw.text_to_action(canonical)
    assert raw.action_to_text(raw.text_to_action(variant)) == canonical


@pytest.mark.parametrize("text", [
    "", "draw", "draw pile", "draw discard 1", "draw discard 21", "discard", "discard 1X", "discard 7H 8H",
    "go out 7H", "meld set 7", "meld set 7 HHS", "meld set 7 CDHS +1", "meld set 7 +2", "meld set 7 DH +0",
    "meld set Z CDH", "meld run S A A", "meld run S K 2", "meld run S 9 T", "meld run X 3 5", "meld run S 3",
    "lay off 7H", "lay off 7H on 12", "lay off 7H on x", "swap JK on 0", "swap 7H on 12", "buy", "pass",
])
def test_malformed_action_text_raises_value_error_naming_it(text):
    raw = contract_rummy_v0.raw_env(num_players=3)  # 9 meld slots: 0..8
    with pytest.raises(ValueError) as info:
        raw.text_to_action(text)
    assert repr(text) in str(info.value)


# ============================================================ Scenario options
@pytest.mark.parametrize("options, message", [
    ({"deck": STANDARD_DECK}, "deck"),  # no joker
    ({"deck": STANDARD_DECK + ["JK", "JK"]}, "JK"),
    ({"deck": STANDARD_DECK[:-1] + ["AC", "JK"]}, "AC"),
    ({"deck": game_cards(5)}, "deck"),
    ({"deck": STANDARD_DECK[:-1] + ["ZZ", "JK"]}, "ZZ"),
    ({"deck": "AC 2C"}, "deck"),
    ({"round": 0}, "round"),
    ({"round": 8}, "round"),
    ({"round": "3"}, "round"),
    ({"dealer": -1}, "dealer"),
    ({"dealer": 3}, "dealer"),
    ({"dealer": True}, "dealer"),
    ({"scores": [0, 0]}, "scores"),
    ({"scores": [0, 0, 0, 0]}, "scores"),
    ({"scores": [0, 0, "1"]}, "scores"),
    ({"scores": {P(0): 0, P(1): 0, "bob": 0}}, "scores"),
])
def test_bad_scenario_options_raise_value_error(options, message):
    env = contract_rummy_v0.env(num_players=3)
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0, options=options)


def test_scenario_options_round_dealer_scores_honoured():
    env = contract_rummy_v0.env(num_players=4)
    env.reset(seed=4, options={"round": 6, "dealer": 3, "scores": [10, 20, 30, 40]})
    d = desc(env)
    assert (d["round"], d["dealer"], d["current"]) == (6, 3, P(0))
    assert d["contract"] == {"sets": 1, "runs": 2, "down_means_out": False, "out_by_melding": False}
    assert d["scores"] == {P(0): 10, P(1): 20, P(2): 30, P(3): 40}
    assert d["round_penalties"] == []  # skipped deals have no entry
    env.reset(seed=4, options={"scores": {P(0): 1, P(1): 2, P(2): 3, P(3): 4}})
    assert desc(env)["scores"] == {P(0): 1, P(1): 2, P(2): 3, P(3): 4} and desc(env)["round"] == 1


def test_later_deals_are_shuffled_from_the_seed():
    def next_deal_hands(seed):
        env = start(3, 3, 2, [GOER, KEEPER1, KEEPER2], "5C", ["KC"], seed=seed)
        play(env, "draw stock", "meld run S 2 6", "meld run H 2 6", "discard KC")
        assert desc(env)["round"] == 4
        return desc(env)["hands"]

    assert next_deal_hands(7) == next_deal_hands(7)
    assert next_deal_hands(7) != next_deal_hands(8)


# ============================================================ Illegal actions and the mask
def test_illegal_action_names_action_and_agent_and_changes_nothing():
    env = deal1_env(["7C", "7D", "7H", "9C", "9D", "9H"] + JUNK, upcard="KS")
    for attempt in ("discard 7C", "meld set 7 CDH", "lay off 7S on 0", "draw discard 2"):
        assert_illegal(env, attempt)
    play(env, "draw discard")
    for attempt in ("draw stock", "discard KS", "discard 5H", "meld run S 2 4", "lay off 7S on 0", "swap 7S on 0"):
        assert_illegal(env, attempt)
    assert issubclass(IllegalActionError, ValueError)
    play(env, "discard 2C")
    assert desc(env)["current"] == P(1) and desc(env)["discard"] == ["2C"]


def test_action_mask_matches_legal_actions():
    env = swap_env()
    play(env, "discard 8D")
    pass_turn(env)
    pass_turn(env)
    play(env, "draw stock", "swap 5H on 1")
    mask = env.observe(P(1))["action_mask"]
    texts = sorted(env.unwrapped.action_to_text(a) for a in np.flatnonzero(mask))
    assert texts == legal(env) and texts
    assert not env.observe(P(0))["action_mask"].any()
    assert not env.observe(P(2))["action_mask"].any()
