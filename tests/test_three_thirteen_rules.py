"""Named scenario tests for every Three-Thirteen rule and decision of
docs/rules/three_thirteen.md.

Each test builds an exact situation with ``reset(seed, options={"deck": ..., "dealer": ...,
"round": ..., "scores": ...})``: ``build_deck`` turns the hands we want (by seat), the upcard
and the first stock cards into the full shuffled order of the game's cards, dealt one at a
time from the dealer's left (docs/rules/README.md#shuffle-and-deal and
docs/rules/README.md#scenario-set-up).

Sections follow docs/rules/README.md and docs/rules/three_thirteen.md: shared procedure
(deal, first player, dealer, stock exhaustion, turn cap, game end), meld basics,
Three-Thirteen (rounds and wilds, melds, going out, last turns, scoring, the discard rule),
environment conventions (round boundaries, rewards), notation and scenario set-up.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scenario import (
    P,
    arrange_deck,
    desc,
    draw_from_reshuffled_stock,
    empty_the_stock,
    legal,
    play,
    reset_to,
)

from rummy_env import IllegalActionError, three_thirteen_v0

pytestmark = pytest.mark.usefixtures("each_backend")  # every test on the core and on the reference

RANKS = "A23456789TJQK"
SUITS = "CDHS"
ONE_DECK = [r + s for s in SUITS for r in RANKS]
WILD_BY_ROUND = "3456789TJQK"  # round r (1-based): wild rank WILD_BY_ROUND[r - 1]


# ---------------------------------------------------------------------------- helpers
def game_cards(num_players: int, num_decks: int | None = None) -> list[str]:
    """Every physical card of the game: one deck for 2 players, two for 3-4, no jokers."""
    if num_decks is None:
        num_decks = 1 if num_players == 2 else 2
    return ONE_DECK * num_decks


def build_deck(num_players, dealer, hands, upcard, stock=(), num_decks=None) -> list[str]:
    """The exact deck order dealing ``hands`` (by seat), then ``upcard``, then ``stock``."""
    return arrange_deck(game_cards(num_players, num_decks), num_players, dealer, hands, upcard, stock)


def start(num_players, round_no, dealer, hands, upcard, stock=(), scores=None, seed=0, **config):
    """A wrapped env reset to the scenario."""
    env = three_thirteen_v0.env(num_players=num_players, **config)
    deck = build_deck(num_players, dealer, hands, upcard, stock, config.get("num_decks"))
    return reset_to(env, deck, dealer, round_no, scores, seed)


def card_key(card: str) -> tuple[int, int]:
    return SUITS.index(card[1]), RANKS.index(card[0])


def ordered(cards) -> list[str]:
    return sorted(cards, key=card_key)


def melds_of(env) -> list[tuple[str, str, list[str]]]:
    return sorted((m["owner"], m["kind"], ordered(m["cards"])) for m in desc(env)["melds"])


# Junk hands for round 1 (wild 3s): no two cards can ever share a meld with one more card.
JUNK_A = ["2C", "5D", "9S"]  # penalty 16
JUNK_B = ["AC", "4D", "TS"]  # penalty 15
JUNK_C = ["2D", "6S", "9H"]  # penalty 17


# ============================================================ Shared procedure: deal
def test_deal_is_one_card_at_a_time_from_dealers_left_then_upcard_then_stock():
    env = three_thirteen_v0.env(num_players=3)
    head = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC"]
    deck = head + ONE_DECK[13:] + ONE_DECK  # the raw order, written out without the helper
    assert sorted(deck) == sorted(game_cards(3))
    env.reset(seed=0, options={"deck": deck, "dealer": 1, "round": 1})
    d = desc(env)
    # seat 2 (left of dealer 1) gets deck[0], seat 0 deck[1], seat 1 deck[2], seat 2 deck[3], ...
    assert d["hands"] == {P(2): ["AC", "4C", "7C"], P(0): ["2C", "5C", "8C"], P(1): ["3C", "6C", "9C"]}
    assert d["discard"] == ["TC"]
    assert d["stock_size"] == 104 - 3 * 3 - 1
    assert d["current"] == P(2) and d["phase"] == "draw" and d["dealer"] == 1
    play(env, "draw stock")  # deck[n*h + 1] is the first stock draw
    assert desc(env)["hands"][P(2)] == ["AC", "4C", "7C", "JC"]
    play(env, "discard AC")
    assert desc(env)["current"] == P(0)  # play moves left
    play(env, "draw stock")
    assert desc(env)["hands"][P(0)] == ["2C", "5C", "8C", "QC"]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_first_player_is_left_of_dealer(num_players):
    env = three_thirteen_v0.env(num_players=num_players)
    for dealer in range(num_players):
        env.reset(seed=dealer, options={"dealer": dealer})
        assert desc(env)["dealer"] == dealer
        assert desc(env)["current"] == P((dealer + 1) % num_players)
        assert env.agent_selection == P((dealer + 1) % num_players)


@pytest.mark.parametrize("num_players, num_decks, total", [(2, None, 52), (3, None, 104), (4, None, 104), (2, 2, 104)])
def test_card_count_per_player_count(num_players, num_decks, total):
    env = three_thirteen_v0.env(num_players=num_players, num_decks=num_decks)
    env.reset(seed=3, options={"round": 11})
    d = desc(env)
    held = sum(len(h) for h in d["hands"].values())
    assert held + len(d["discard"]) + d["stock_size"] == total
    assert d["stock_size"] == total - num_players * 13 - 1
    every = [c for h in d["hands"].values() for c in h] + d["discard"]
    assert all(c in ONE_DECK for c in every)  # no jokers


def test_configuration_that_cannot_be_dealt_is_rejected():
    with pytest.raises(ValueError, match="53 cards"):
        three_thirteen_v0.env(num_players=4, num_decks=1)  # 4 x 13 + 1 > 52
    for n in (1, 5):
        with pytest.raises(ValueError, match="2 to 4 players"):
            three_thirteen_v0.env(num_players=n)


# ============================================================ Shared procedure: dealer
def test_random_dealer_at_game_start_depends_on_the_seed():
    env = three_thirteen_v0.env(num_players=4)
    dealers = []
    for seed in range(200):
        env.reset(seed=seed)
        dealers.append(desc(env)["dealer"])
        assert desc(env)["current"] == P((dealers[-1] + 1) % 4)
    counts = Counter(dealers)
    assert set(counts) == {0, 1, 2, 3}
    assert all(25 <= k <= 75 for k in counts.values()), counts  # uniform: 50 expected each
    # The same seed gives the same dealer and the same deal.
    env.reset(seed=17)
    first = desc(env)
    env.reset(seed=17)
    assert desc(env) == first
    env.reset(seed=18)
    assert desc(env)["hands"] != first["hands"]


def test_dealer_rotates_left_every_round_and_game_ends_after_round_11():
    env = three_thirteen_v0.env(num_players=3, max_turns_per_round=1)
    env.reset(seed=5, options={"dealer": 2})
    expected_scores = [0, 0, 0]
    for r in range(1, 12):
        d = desc(env)
        dealer = (2 + r - 1) % 3
        assert (d["round"], d["dealer"], d["current"]) == (r, dealer, P((dealer + 1) % 3))
        assert d["hand_sizes"] == {P(i): r + 2 for i in range(3)}
        assert d["wild_rank"] == WILD_BY_ROUND[r - 1]
        assert d["turns"] == 0 and d["melds"] == [] and len(d["discard"]) == 1
        assert not any(env.terminations.values())
        who = d["current"]
        before = Counter(d["hands"][who])
        play(env, "draw stock")
        (drawn,) = list((Counter(desc(env)["hands"][who]) - before).elements())
        play(env, f"discard {drawn}")  # the one allowed turn: dead round, next round dealt
        pens = desc(env)["round_penalties"][-1]
        expected_scores = [s + pens[P(i)] for i, s in enumerate(expected_scores)]
    d = desc(env)
    assert len(d["round_penalties"]) == 11
    assert d["scores"] == {P(i): s for i, s in enumerate(expected_scores)}
    assert d["phase"] == "game_over" and d["current"] is None and d["round"] == 11
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.unwrapped.legal_actions_text() == []
    best = min(expected_scores)
    assert env.unwrapped.engine.winners(env.unwrapped.game_state) == [
        i for i, s in enumerate(expected_scores) if s == best
    ]


# ============================================================ Three-Thirteen: rounds and wilds
@pytest.mark.parametrize("round_no", range(1, 12))
def test_hand_size_and_wild_rank_per_round(round_no):
    for n, total in ((2, 52), (4, 104)):
        env = three_thirteen_v0.env(num_players=n)
        env.reset(seed=round_no, options={"round": round_no})
        d = desc(env)
        assert d["round"] == round_no
        assert d["wild_rank"] == WILD_BY_ROUND[round_no - 1]
        assert d["hand_sizes"] == {P(i): round_no + 2 for i in range(n)}
        assert all(len(h) == round_no + 2 for h in d["hands"].values())
        assert d["stock_size"] == total - n * (round_no + 2) - 1


def test_round_one_threes_are_wild_in_a_set():
    # Round 1 (3 cards, 3s wild): 9S 3C 3D + KH: either 9S or KH can be left out.
    env = start(2, 1, 0, [JUNK_B, ["9S", "3C", "3D"]], "QD", ["KH"])
    play(env, "draw stock")
    assert legal(env) == sorted(["discard 3C", "discard 3D", "discard 9S", "discard KH", "go out 9S", "go out KH"])
    play(env, "go out 9S")
    d = desc(env)
    assert melds_of(env) == [(P(1), "set", ["3C", "3D", "KH"])]
    assert d["melds"][0]["represents"] == "K"


def test_three_wilds_are_a_natural_set():
    env = start(2, 1, 0, [JUNK_B, ["3C", "3D", "3H"]], "QD", ["9S"])
    play(env, "draw stock")
    assert legal(env) == sorted(
        [f"{a} {c}" for a in ("discard", "go out") for c in ("3C", "3D", "3H", "9S")]
    )


def test_round_two_fours_are_wild_and_complete_a_run():
    # Round 2 (4 cards, 4s wild): 5H 6H 4C 8H melds as 5H-6H-(4C as 7H)-8H; KS is left out.
    env = start(2, 2, 0, [["2C", "5D", "9S", "JD"], ["5H", "6H", "4C", "KS"]], "QD", ["8H"])
    assert desc(env)["wild_rank"] == "4"
    play(env, "draw stock")
    assert legal(env) == sorted(["discard 4C", "discard 5H", "discard 6H", "discard 8H", "discard KS", "go out KS"])
    play(env, "go out KS")
    d = desc(env)
    assert melds_of(env) == [(P(1), "run", ["4C", "5H", "6H", "8H"])]
    assert d["melds"][0]["represents"] == ["7H"]


def test_the_previous_rounds_wild_is_not_wild():
    # Same as above but with 3C instead of 4C: in round 2 the 3 is a natural, no going out.
    env = start(2, 2, 0, [["2C", "5D", "9S", "JD"], ["5H", "6H", "3C", "KS"]], "QD", ["8H"])
    play(env, "draw stock")
    assert legal(env) == sorted(["discard 3C", "discard 5H", "discard 6H", "discard 8H", "discard KS"])


def test_two_wilds_in_one_run():
    # Round 3 (5 cards, 5s wild): AH 2H 3H + 5C 5D = AH-2H-3H-4H-5H; 9S left out.
    env = start(2, 3, 0, [["2C", "6D", "9C", "JD", "KC"], ["9S", "5C", "5D", "AH", "2H"]], "QD", ["3H"])
    play(env, "draw stock")
    assert [a for a in legal(env) if a.startswith("go out")] == ["go out 9S"]


# ============================================================ Meld basics: runs, sets
def test_go_out_offered_only_when_all_but_one_card_meld():
    hands = [["2C", "5D", "9S", "JD"], ["7C", "8C", "9C", "KD"]]
    env = start(2, 2, 0, hands, "QS", ["TC"])
    play(env, "draw stock")  # 7C 8C 9C TC KD: the run melds, KD is left out
    assert legal(env) == sorted(["discard 7C", "discard 8C", "discard 9C", "discard TC", "discard KD", "go out KD"])
    env = start(2, 2, 0, hands, "QS", ["QH"])
    play(env, "draw stock")  # 7C 8C 9C QH KD: two cards do not meld
    assert legal(env) == sorted(["discard 7C", "discard 8C", "discard 9C", "discard QH", "discard KD"])


def test_ace_is_low_a23_is_a_run():
    # Round 4 (6 cards, 6s wild, none held).
    env = start(2, 4, 0, [["2C", "5D", "TS", "JD", "QC", "4S"], ["AH", "2H", "3H", "9C", "9D", "KS"]], "8D", ["9S"])
    play(env, "draw stock")
    assert [a for a in legal(env) if a.startswith("go out")] == ["go out KS"]


@pytest.mark.parametrize("hand", [
    ["QH", "KH", "AH", "9C", "9D", "2S"],  # Q-K-A: the ace is not high
    ["KH", "AH", "2H", "9C", "9D", "5S"],  # K-A-2: no wrapping
])
def test_ace_is_not_high_and_runs_do_not_wrap(hand):
    env = start(2, 4, 0, [["2C", "5D", "TS", "JD", "QC", "4S"], hand], "8D", ["9S"])
    play(env, "draw stock")
    assert [a for a in legal(env) if a.startswith("go out")] == []


def test_ace_is_low_at_scoring_too():
    # Player 0 ends holding QH KH AH 9C: nothing melds (no Q-K-A), penalty 10 + 10 + 1 + 9.
    env = start(2, 2, 0, [["QH", "KH", "AH", "9C"], ["5H", "6H", "4C", "KS"]], "QD", ["8H", "2S"])
    play(env, "draw stock", "go out KS", "draw stock", "discard 2S")
    assert desc(env)["round_penalties"] == [{P(0): 30, P(1): 0}]


def test_sets_may_hold_duplicate_faces_with_two_decks():
    env = start(3, 1, 2, [["6H", "6H", "6C"], JUNK_A, JUNK_B], "QD", ["KS"])
    play(env, "draw stock")
    assert legal(env) == sorted(["discard 6C", "discard 6H", "discard KS", "go out KS"])


def test_a_card_belongs_to_one_meld_only():
    # 7C 7D 7S 8S 9S: the 7S cannot be both in the set and in the run; 2D is not wild in round 3.
    env = start(2, 3, 0, [["2C", "6D", "9C", "JD", "KC"], ["7C", "7D", "7S", "8S", "9S"]], "QD", ["2D"])
    play(env, "draw stock")
    assert [a for a in legal(env) if a.startswith("go out")] == []


# ============================================================ Going out
def test_going_out_discards_the_last_card_and_shows_the_arrangement():
    env = start(2, 4, 0, [["2C", "5D", "TS", "JD", "QC", "4S"], ["AH", "2H", "3H", "9C", "9D", "KS"]], "8D", ["9S"])
    play(env, "draw stock", "go out KS")
    d = desc(env)
    assert d["discard"] == ["8D", "KS"]
    assert d["hands"][P(1)] == [] and d["hand_sizes"][P(1)] == 0
    assert d["gone_down"] == {P(0): False, P(1): True}
    assert melds_of(env) == [(P(1), "run", ["AH", "2H", "3H"]), (P(1), "set", ["9C", "9D", "9S"])]
    assert [m["slot"] for m in d["melds"]] == [0, 1]
    # The round goes on: the other player takes the last turn.
    assert (d["round"], d["current"], d["phase"]) == (4, P(0), "draw")
    assert legal(env) == ["draw discard", "draw stock"]


def test_going_out_may_use_the_wild_as_the_discard():
    # 7C 7D 7S + the wild 3H: leaving out any one card, the other three meld.
    env = start(2, 1, 0, [JUNK_B, ["7C", "7D", "7S"]], "QD", ["3H"])
    play(env, "draw stock")
    assert [a for a in legal(env) if a.startswith("go out")] == sorted(
        ["go out 3H", "go out 7C", "go out 7D", "go out 7S"]
    )
    play(env, "go out 3H")
    assert desc(env)["discard"][-1] == "3H"
    assert melds_of(env) == [(P(1), "set", ["7C", "7D", "7S"])]


# ============================================================ Last turns
def last_turn_scenario():
    # 4 players, round 1 (3s wild), dealer 0: seat 1 plays first and goes out at once.
    hands = [JUNK_B, ["7C", "7D", "7S"], JUNK_A, ["8H", "8D", "3S"]]
    return start(4, 1, 0, hands, "5C", ["KH", "JC", "QD"], reward_mode="relative")


def test_last_turns_one_each_in_seat_order_without_going_out_then_next_round():
    env = last_turn_scenario()
    play(env, "draw stock", "go out KH")
    assert desc(env)["current"] == P(2)
    play(env, "draw stock", "discard JC")
    d = desc(env)
    assert (d["round"], d["current"]) == (1, P(3))
    play(env, "draw stock")
    # 8H 8D 3S would meld with QD left out, but going out is not offered in last turns.
    assert legal(env) == sorted(["discard 3S", "discard 8D", "discard 8H", "discard QD"])
    play(env, "discard QD")
    assert (desc(env)["round"], desc(env)["current"]) == (1, P(0))
    assert legal(env) == ["draw discard", "draw stock"]  # either pile
    play(env, "draw discard")
    # the discard rule holds in last turns too: QD was just taken
    assert legal(env) == sorted(["discard 4D", "discard AC", "discard TS"])
    play(env, "discard TS")
    # The last turn ended the round; round 2 is dealt in the same step. Player 3's
    # 8H 8D + wild 3S melds completely and scores 0 though it did not go out.
    d = desc(env)
    assert d["round_penalties"] == [{P(0): 1 + 4 + 10, P(1): 0, P(2): 2 + 5 + 9, P(3): 0}]
    assert d["scores"] == {P(0): 15, P(1): 0, P(2): 16, P(3): 0}
    assert (d["round"], d["dealer"], d["current"], d["phase"], d["turns"]) == (2, 1, P(2), "draw", 0)
    assert d["hand_sizes"] == {P(i): 4 for i in range(4)}
    assert d["melds"] == [] and len(d["discard"]) == 1 and d["wild_rank"] == "4"
    assert d["gone_down"] == {P(i): False for i in range(4)}
    assert env.agent_selection == P(2)
    # relative rewards at that step: (mean - own) / 100, mean = 31 / 4
    assert env.rewards == pytest.approx({P(0): -0.0725, P(1): 0.0775, P(2): -0.0825, P(3): 0.0775})
    assert sum(env.rewards.values()) == pytest.approx(0.0)
    assert env.last()[1] == pytest.approx(env.rewards[P(2)])


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("dealer", [0, 1])
def test_every_other_player_gets_exactly_one_last_turn(num_players, dealer):
    n = num_players
    first, goer = (dealer + 1) % n, (dealer + 2) % n
    hands = [None] * n
    hands[goer] = ["7C", "7D", "7S"]
    junk = [JUNK_A, JUNK_B, JUNK_C]
    for i in range(n):
        if hands[i] is None:
            hands[i] = junk.pop()
    last_draws = ["JD", "8S", "5C"][: n - 1]
    env = start(n, 1, dealer, hands, "4H", ["QC", "KH"] + last_draws)
    assert desc(env)["current"] == P(first)
    play(env, "draw stock", "discard QC")
    assert desc(env)["current"] == P(goer)
    play(env, "draw stock", "go out KH")
    order = [(goer + k) % n for k in range(1, n)]  # from the left of the player who went out
    assert len(order) == n - 1 and goer not in order
    for seat, card in zip(order, last_draws):
        d = desc(env)
        assert (d["round"], d["current"]) == (1, P(seat))
        play(env, "draw stock")
        assert not any(a.startswith("go out") for a in legal(env))
        play(env, f"discard {card}")
    d = desc(env)
    assert d["round"] == 2 and d["dealer"] == (dealer + 1) % n and d["current"] == P((dealer + 2) % n)
    assert len(d["round_penalties"]) == 1 and d["round_penalties"][0][P(goer)] == 0


# ============================================================ Scoring
def scoring_scenario(**config):
    # 3 players, round 5 (7 cards, 7s wild), dealer 2: seat 0 goes out at once.
    hands = [
        ["AC", "2C", "3C", "4C", "9D", "9H", "9S"],  # melds completely, draws KD and goes out
        ["4H", "5H", "6H", "6C", "6D", "6S", "KC"],  # best: 4H-5H-6H + 6C 6D 6S, KC = 10
        ["AD", "2S", "TH", "JS", "QC", "KH", "7C"],  # nothing melds; the wild 7C scores 7
    ]
    return start(3, 5, 2, hands, "2H", ["KD", "8D", "5S"], scores=[5, 7, 9], **config)


def play_scoring_round(env):
    play(env, "draw stock")
    assert "go out KD" in legal(env)
    play(env, "go out KD", "draw stock", "discard 8D", "draw stock", "discard 5S")


def test_scoring_uses_the_optimal_arrangement_and_penalty_values():
    env = scoring_scenario()
    play_scoring_round(env)
    d = desc(env)
    # A greedy four-6s set would leave 4H 5H KC = 19 for player 1; the best is 10.
    # Player 2: A 1 + 2 + T 10 + J 10 + Q 10 + K 10 + unmatched wild 7 = 50.
    assert d["round_penalties"] == [{P(0): 0, P(1): 10, P(2): 50}]
    assert d["scores"] == {P(0): 5, P(1): 17, P(2): 59}
    assert d["round"] == 6


def test_penalty_values_of_every_rank():
    # Round 10 (12 cards, Q wild): player 1 keeps A..T, J and K of mixed suits, no wild: 55 + 10 + 10.
    keeper = ["AC", "2D", "3H", "4S", "5C", "6D", "7H", "8S", "9C", "TD", "JH", "KS"]
    goer = ["3D", "4D", "5D", "7D", "8D", "9D", "JD", "QD", "KD", "AD", "AH", "AS"]
    env = start(2, 10, 1, [goer, keeper], "2C", ["2H", "5H"])
    play(env, "draw stock", "go out 2H", "draw stock", "discard 5H")
    assert desc(env)["round_penalties"] == [{P(0): 0, P(1): 75}]


def test_unmatched_wild_scores_its_own_face_value_round_11():
    # Round 11 (K wild): the keeper's KH cannot be used (no two naturals fit together): 75 + 10.
    keeper = ["AC", "2D", "3H", "4S", "5C", "6D", "7H", "8S", "9C", "TD", "JH", "QS", "KH"]
    goer = ["2C", "3C", "4C", "3D", "4D", "5D", "7D", "8D", "9D", "JD", "QD", "KD", "KS"]
    env = start(2, 11, 0, [keeper, goer], "2H", ["5H", "6H"])
    play(env, "draw stock", "go out 5H", "draw stock", "discard 6H")
    assert desc(env)["round_penalties"] == [{P(0): 85, P(1): 0}]


# ============================================================ Discard rule
def discard_rule_env(hand, upcard, stock=("QS",)):
    # 3 players (two decks), round 1, dealer 2: seat 0 plays first.
    return start(3, 1, 2, [hand, ["2C", "5D", "JS"], JUNK_B], upcard, list(stock))


def test_taken_face_may_not_be_discarded_nor_gone_out_with():
    env = discard_rule_env(["9C", "9D", "9H"], "KS")
    play(env, "draw discard")
    assert desc(env)["taken_from_discard"] == "KS"
    assert legal(env) == sorted(["discard 9C", "discard 9D", "discard 9H"])
    with pytest.raises(IllegalActionError):
        play(env, "go out KS")
    # The same hand drawing a KS from the stock may discard it or go out with it.
    env = discard_rule_env(["9C", "9D", "9H"], "2H", ["KS"])
    play(env, "draw stock")
    assert desc(env)["taken_from_discard"] is None
    assert legal(env) == sorted(["discard 9C", "discard 9D", "discard 9H", "discard KS", "go out KS"])


def test_taken_face_may_be_discarded_when_another_copy_is_held():
    env = discard_rule_env(["9C", "9D", "KS"], "KS")
    play(env, "draw discard")
    assert legal(env) == sorted(["discard 9C", "discard 9D", "discard KS"])
    env = discard_rule_env(["9C", "9D", "9S"], "9S")
    play(env, "draw discard")
    assert legal(env) == sorted(
        [f"{a} {c}" for a in ("discard", "go out") for c in ("9C", "9D", "9S")]
    )


def test_discard_rule_lasts_only_for_the_turn():
    env = discard_rule_env(["9C", "9D", "9H"], "KS", ["JD", "QH", "KC"])
    play(env, "draw discard", "discard 9C")
    assert desc(env)["taken_from_discard"] is None
    play(env, "draw stock", "discard JD", "draw stock", "discard QH", "draw stock")
    assert "discard KS" in legal(env)


# ============================================================ Rewards
@pytest.mark.parametrize("mode, expected", [
    ("relative", {P(0): 0.20, P(1): 0.10, P(2): -0.30}),  # mean 20
    ("penalty", {P(0): 0.0, P(1): -0.10, P(2): -0.50}),
    ("win", {P(0): 0.0, P(1): 0.0, P(2): 0.0}),  # only at game end
])
def test_round_end_rewards_per_reward_mode(mode, expected):
    env = scoring_scenario(reward_mode=mode)
    rewards_seen = []
    play(env, "draw stock", "go out KD", "draw stock", "discard 8D", "draw stock")
    rewards_seen.append(dict(env.rewards))
    play(env, "discard 5S")
    assert all(v == 0 for v in rewards_seen[0].values())  # nothing before the round ends
    assert env.rewards == pytest.approx(expected)
    if mode == "relative":
        assert sum(env.rewards.values()) == pytest.approx(0.0)
    assert not any(env.terminations.values())


def final_round(mode, keeper, scores=(100, 90)):
    # Round 11, 2 players, dealer 1: seat 0 holds AC..KC (KC wild as itself) and goes out.
    clubs = [r + "C" for r in RANKS]
    env = start(2, 11, 1, [clubs, keeper], "4H", ["2H", "3H"], scores=list(scores), reward_mode=mode)
    play(env, "draw stock", "go out 2H", "draw stock", "discard 3H")
    return env


RUN_AD_QD = [r + "D" for r in "A23456789TJQ"]
RUN_AD_JD = [r + "D" for r in "A23456789TJ"]


@pytest.mark.parametrize("keeper, penalty, win_rewards", [
    (RUN_AD_QD + ["TS"], 10, {P(0): 1.0, P(1): 1.0}),  # 100 vs 100: ties share the win
    (RUN_AD_QD + ["5S"], 5, {P(0): -1.0, P(1): 1.0}),  # 100 vs 95
    (RUN_AD_JD + ["TS", "9S"], 19, {P(0): 1.0, P(1): -1.0}),  # 100 vs 109
], ids=["tie", "seat1_wins", "seat0_wins"])
def test_game_end_after_round_11_win_rewards_and_winners(keeper, penalty, win_rewards):
    env = final_round("win", keeper)
    d = desc(env)
    assert d["round_penalties"] == [{P(0): 0, P(1): penalty}]
    assert d["scores"] == {P(0): 100, P(1): 90 + penalty}
    assert env.rewards == win_rewards
    winners = [i for i in range(2) if win_rewards[P(i)] == 1.0]
    assert env.unwrapped.engine.winners(env.unwrapped.game_state) == winners
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert d["phase"] == "game_over" and d["current"] is None and d["round"] == 11
    assert env.unwrapped.legal_actions_text() == []
    for agent in env.possible_agents:
        assert not env.observe(agent)["action_mask"].any()
    while env.agents:  # PettingZoo: terminated agents step None until removed
        env.step(None)


@pytest.mark.parametrize("mode, expected", [
    ("relative", {P(0): 0.095, P(1): -0.095}),
    ("penalty", {P(0): 0.0, P(1): -0.19}),
])
def test_final_round_rewards_in_round_modes(mode, expected):
    env = final_round(mode, RUN_AD_JD + ["TS", "9S"])
    assert env.rewards == pytest.approx(expected)
    assert all(env.terminations.values())


# ============================================================ Stock exhaustion, dead rounds, turn cap
def exhausted_stock_env(seed):
    env = three_thirteen_v0.env(num_players=2, num_decks=1)
    env.reset(seed=seed, options={"deck": list(ONE_DECK), "dealer": 0, "round": 11})
    # hands: 26 cards; upcard ONE_DECK[26]; stock ONE_DECK[27:], 25 cards
    for k in range(25):
        play(env, "draw stock", f"discard {ONE_DECK[27 + k]}")
    return env


def test_stock_reshuffle_all_discards_but_top():
    env = exhausted_stock_env(seed=1)
    d = desc(env)
    assert d["stock_size"] == 0 and d["round"] == 11 and d["turns"] == 25
    assert d["discard"] == ONE_DECK[26:52]
    d = desc(draw_from_reshuffled_stock(exhausted_stock_env))
    assert d["stock_size"] == 24 and d["round"] == 11


def test_dead_round_when_reshuffle_gives_no_cards():
    env = start(2, 1, 0, [JUNK_B, JUNK_A], "KD", ["QH"])
    empty_the_stock(env)
    assert desc(env)["discard"] == ["KD"]
    play(env, "draw stock")
    d = desc(env)
    assert d["round_penalties"] == [{P(0): 15, P(1): 16}]
    assert (d["round"], d["dealer"], d["current"], d["turns"]) == (2, 1, P(0), 0)
    assert d["hand_sizes"] == {P(0): 4, P(1): 4}
    assert env.rewards == pytest.approx({P(0): 0.005, P(1): -0.005})


def test_dead_round_player_who_went_out_keeps_zero():
    # 3 players, dealer 0: seat 1 takes the upcard 7S and goes out with JS; the discard pile
    # is then just JS; with an empty stock the next draw ends the round dead.
    env = start(3, 1, 0, [JUNK_B, ["7C", "7D", "JS"], JUNK_A], "7S", ["QH"])
    play(env, "draw discard", "go out JS")
    assert desc(env)["discard"] == ["JS"]
    empty_the_stock(env)
    play(env, "draw stock")
    d = desc(env)
    assert d["round_penalties"] == [{P(0): 15, P(1): 0, P(2): 16}]
    assert d["round"] == 2


def test_turn_cap_ends_round_dead_and_scores_hands():
    hands = [JUNK_B, ["7C", "7D", "7S"], JUNK_A]
    env = start(3, 1, 0, hands, "5C", ["KH", "JC", "QD", "8S"], max_turns_per_round=3)
    play(env, "draw stock", "discard KH")  # seat 1 could go out; it does not
    play(env, "draw stock", "discard JC")
    d = desc(env)
    assert (d["round"], d["turns"], d["current"]) == (1, 2, P(0))
    play(env, "draw stock")  # the third turn has started; the round ends when it ends
    assert (desc(env)["round"], desc(env)["turns"], desc(env)["phase"]) == (1, 3, "play")
    play(env, "discard QD")
    d = desc(env)
    assert d["round_penalties"] == [{P(0): 15, P(1): 0, P(2): 16}]
    assert (d["round"], d["dealer"], d["current"], d["turns"]) == (2, 1, P(2), 0)
    assert d["hand_sizes"] == {P(i): 4 for i in range(3)}
    mean = 31 / 3
    assert env.rewards == pytest.approx({P(0): (mean - 15) / 100, P(1): mean / 100, P(2): (mean - 16) / 100})
    assert not any(env.truncations.values()) and not any(env.terminations.values())
    # the cap applies to the next round too
    for _ in range(3):
        who = desc(env)["current"]
        before = Counter(desc(env)["hands"][who])
        play(env, "draw stock")
        (drawn,) = list((Counter(desc(env)["hands"][who]) - before).elements())
        play(env, f"discard {drawn}")
    assert desc(env)["round"] == 3 and len(desc(env)["round_penalties"]) == 2


def test_turn_cap_reached_by_the_going_out_turn_ends_the_round_at_once():
    hands = [JUNK_B, JUNK_A, ["7C", "7D", "7S"]]
    env = start(3, 1, 0, hands, "5C", ["KH", "JC"], max_turns_per_round=2)
    play(env, "draw stock", "discard KH", "draw stock", "go out JC")  # turn 2 of 2
    d = desc(env)
    assert d["round_penalties"] == [{P(0): 15, P(1): 16, P(2): 0}]
    assert (d["round"], d["dealer"], d["current"]) == (2, 1, P(2))


# ============================================================ Scenario options
def test_scenario_options_round_dealer_scores_honoured():
    env = three_thirteen_v0.env(num_players=4)
    env.reset(seed=4, options={"round": 7, "dealer": 3, "scores": [10, 20, 30, 40]})
    d = desc(env)
    assert (d["round"], d["dealer"], d["current"], d["wild_rank"]) == (7, 3, P(0), "9")
    assert d["scores"] == {P(0): 10, P(1): 20, P(2): 30, P(3): 40}
    assert d["round_penalties"] == []  # skipped rounds have no entry
    assert d["hand_sizes"] == {P(i): 9 for i in range(4)}
    env.reset(seed=4, options={"scores": {P(0): 1, P(1): 2, P(2): 3, P(3): 4}})
    assert desc(env)["scores"] == {P(0): 1, P(1): 2, P(2): 3, P(3): 4}
    assert desc(env)["round"] == 1


def test_later_rounds_are_shuffled_from_the_seed():
    def next_round_hands(seed):
        env = start(3, 1, 0, [JUNK_B, ["7C", "7D", "7S"], JUNK_A], "5C", ["KH", "JC", "QD"], seed=seed,
                    max_turns_per_round=3)
        play(env, "draw stock", "discard KH", "draw stock", "discard JC", "draw stock", "discard QD")
        assert desc(env)["round"] == 2
        return desc(env)["hands"]

    assert next_round_hands(7) == next_round_hands(7)
    assert next_round_hands(7) != next_round_hands(8)


@pytest.mark.parametrize("options, message", [
    ({"deck": ONE_DECK[:-1]}, "deck"),
    ({"deck": ONE_DECK[:-1] + ["AC"]}, "AC"),
    ({"deck": ONE_DECK * 2}, "deck"),
    ({"deck": ONE_DECK[:-1] + ["ZZ"]}, "ZZ"),
    ({"deck": "AC 2C"}, "deck"),
    ({"round": 0}, "round"),
    ({"round": 12}, "round"),
    ({"round": "3"}, "round"),
    ({"dealer": -1}, "dealer"),
    ({"dealer": 2}, "dealer"),
    ({"scores": [0]}, "scores"),
    ({"scores": [0, 0, 0]}, "scores"),
    ({"scores": {P(0): 0, "bob": 0}}, "scores"),
])
def test_bad_scenario_options_raise_value_error(options, message):
    env = three_thirteen_v0.env(num_players=2)
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0, options=options)


def test_bad_configuration_raises_value_error():
    with pytest.raises(ValueError, match="reward_mode"):
        three_thirteen_v0.env(num_players=2, reward_mode="score")
    with pytest.raises(ValueError, match="max_turns_per_round"):
        three_thirteen_v0.env(num_players=2, max_turns_per_round=0)


# ============================================================ Notation and illegal actions
def test_action_text_round_trip():
    raw = three_thirteen_v0.raw_env(num_players=2)
    for a in range(raw.action_space(P(0)).n):
        assert raw.text_to_action(raw.action_to_text(a)) == a
    assert raw.action_to_text(0) == "draw stock" and raw.action_to_text(1) == "draw discard"
    assert raw.text_to_action("discard 7H") == 2 + 2 * 13 + 6
    assert raw.text_to_action("go out KS") == 105
    assert raw.text_to_action("Discard 10h") == raw.text_to_action("discard TH")


@pytest.mark.parametrize("text", ["draw pile", "discard", "discard 1X", "go out", "go home 7H", "", "play 7H", "discard JK"])
def test_malformed_action_text_raises_value_error(text):
    raw = three_thirteen_v0.raw_env(num_players=2)
    with pytest.raises(ValueError):
        raw.text_to_action(text)


def test_illegal_action_names_action_and_agent_and_changes_nothing():
    env = discard_rule_env(["9C", "9D", "9H"], "KS")
    raw = env.unwrapped
    for attempt in ("discard 9C", "go out 9C"):  # draw phase
        before = desc(env)
        with pytest.raises(IllegalActionError, match=attempt) as info:
            play(env, attempt)
        assert P(0) in str(info.value)
        assert desc(env) == before and env.agent_selection == P(0)
    play(env, "draw discard")
    for attempt in ("discard KS", "go out KS", "draw stock", "discard 2C", "go out 9C"):
        before = desc(env)
        with pytest.raises(IllegalActionError, match=attempt) as info:
            play(env, attempt)
        assert P(0) in str(info.value)
        assert desc(env) == before
    assert issubclass(IllegalActionError, ValueError)
    # the state still plays on normally
    play(env, "discard 9C")
    assert desc(env)["current"] == P(1)
    assert raw.describe()["discard"] == ["9C"]


def test_action_mask_matches_legal_actions():
    env = discard_rule_env(["9C", "9D", "9H"], "KS", ["9S"])
    play(env, "draw stock")
    mask = env.observe(P(0))["action_mask"]
    texts = sorted(env.unwrapped.action_to_text(a) for a in np.flatnonzero(mask))
    assert texts == legal(env) == sorted(
        [f"{a} {c}" for a in ("discard", "go out") for c in ("9C", "9D", "9H", "9S")]
    )
    assert not env.observe(P(1))["action_mask"].any()
    assert not env.observe(P(2))["action_mask"].any()


def test_the_env_plays_on_the_backend_asked_for(each_backend):
    """The fixture that runs this module twice does switch the engine under the env."""
    assert three_thirteen_v0.env().unwrapped.backend == each_backend
    assert three_thirteen_v0.env(backend="python").unwrapped.backend == "python"
