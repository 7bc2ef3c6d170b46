"""Named scenario tests for every Toonerville Rook rule and decision of
docs/rules/toonerville_rook.md.

Each test builds an exact situation with ``reset(seed, options={"deck": ..., "dealer": ...,
"round": ..., "scores": ...})``: ``build_deck`` turns the hands we want (by seat; ``None``
for a seat whose cards do not matter), the upcard and the first stock cards into the full
shuffled order of the game's cards, dealt one at a time from the dealer's left (docs/rules/README.md#shuffle-and-deal
and docs/rules/README.md#scenario-set-up). Most scenarios have 3 players (three Rook
decks) and dealer 2, so seat 0 plays first; the buying scenarios have 4 or 5 players (dealer
3 or 4) so that the order of the buy question shows.

Every ``draw stock`` may start a buy question (docs/rules/toonerville_rook.md#buying): the helpers
``draw_stock`` and ``pass_turn`` answer it (everyone passes unless a buyer is named) and
record who was asked.

Sections follow docs/rules/toonerville_rook.md: players and cards, rounds and contracts (hand sizes, deal, dealer),
sets, runs, the Rook, drawing and buying, going down, laying off, Rook swaps, the discard
rule, going out, round 11, penalties and game end, stock exhaustion and the turn cap,
notation, scenario options and the mask.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scenario import (
    ROOK_DECK,
    P,
    arrange_deck,
    desc,
    draw_from_reshuffled_stock,
    empty_the_stock,
    legal,
    play,
    reset_to,
)
from scenario import toonerville_rook_cards as game_cards

from rummy_env import IllegalActionError, toonerville_rook_v0
from rummy_env.state import Phase

pytestmark = pytest.mark.usefixtures("each_backend")  # every test on the core's solvers and on the reference's

COLOURS = "RYGB"
HAND_SIZE = {**{r: 12 for r in range(1, 9)}, 9: 15, 10: 16, 11: 14}
CONTRACT = {1: (2, 0), 2: (1, 1), 3: (0, 2), 4: (3, 0), 5: (2, 1), 6: (1, 2), 7: (4, 0), 8: (0, 3),
            9: (5, 0), 10: (0, 4), 11: (2, 2)}
# Cards for seats whose hands do not matter: any 14 consecutive ones differ in number, and
# cards of one colour among them are 4 numbers apart (no set, no run).
FILL_ORDER = [f"{k % 14 + 1}{COLOURS[(k + k // 14) % 4]}" for k in range(56)]
# Face ids (docs/rules/README.md#card-text and the module docstring): colour * 14 + number - 1, the Rook 56.
ROOK_FACE = 56


# ---------------------------------------------------------------------------- helpers
def face_id(card: str) -> int:
    return ROOK_FACE if card == "ROOK" else COLOURS.index(card[-1]) * 14 + int(card[:-1]) - 1


def build_deck(num_players, dealer, hands, upcard, stock=()) -> list[str]:
    """The exact deck order dealing ``hands`` (by seat; a ``None`` hand is filled with unused
    cards in ``FILL_ORDER``, the Rooks last), then ``upcard``, then ``stock``."""
    fill = FILL_ORDER * num_players + ["ROOK"] * num_players
    return arrange_deck(game_cards(num_players), num_players, dealer, hands, upcard, stock, fill, hand_size=12)


def start(num_players, round_no, dealer, hands, upcard, stock=(), scores=None, seed=0, **config):
    """A wrapped env reset to the scenario."""
    env = toonerville_rook_v0.env(num_players=num_players, **config)
    return reset_to(env, build_deck(num_players, dealer, hands, upcard, stock), dealer, round_no, scores, seed)


def legal_of(env, kind: str) -> list[str]:
    """The legal actions whose text starts with ``kind`` (``"meld"``, ``"lay off"``, ...)."""
    return [a for a in legal(env) if a.startswith(kind)]


def hand(env, seat: int) -> list[str]:
    return desc(env)["hands"][P(seat)]


def discards(cards) -> list[str]:
    return sorted(f"discard {c}" for c in set(cards))


def seat_of(agent: str) -> int:
    return int(agent.rsplit("_", 1)[1])


def answer_buy_question(env, buyer: int | None = None) -> list[int]:
    """Answers the buy question in progress (if any): every seat asked passes, except
    ``buyer``, who buys. Returns the seats asked, in order."""
    asked = []
    while desc(env)["phase"] == "buy":
        d = desc(env)
        who = seat_of(d["buy_question"]["asked"])
        assert env.agent_selection == d["to_act"] == P(who)
        asked.append(who)
        play(env, "buy" if who == buyer else "pass")
    return asked


def draw_stock(env, buyer: int | None = None) -> list[int]:
    """The player to act draws from the stock; the buy question is answered (see
    ``answer_buy_question``). Returns the seats asked."""
    play(env, "draw stock")
    return answer_buy_question(env, buyer)


def drawn_by(env, seat: int, before: list[str]) -> list[str]:
    return sorted((Counter(hand(env, seat)) - Counter(before)).elements())


def pass_turn(env) -> str:
    """The player to act draws from the stock (nobody buys) and discards the card drawn."""
    who = seat_of(desc(env)["current"])
    before = hand(env, who)
    draw_stock(env)
    (drawn,) = drawn_by(env, who, before)
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


def penalty(cards) -> int:
    return sum(25 if c == "ROOK" else 5 if int(c[:-1]) <= 9 else 10 for c in cards)


def obs_part(env, observer: int, part: str) -> np.ndarray:
    raw = env.unwrapped
    return env.observe(P(observer))["observation"][raw.observer.offsets[part]]


def known_held(env, observer: int, seat: int) -> list[str]:
    """What ``observer``'s observation says ``seat`` is known to hold (part ``known_held``:
    one block of 57 per other seat, the observer's left neighbour first)."""
    n = len(env.possible_agents)
    k = (seat - observer - 1) % n
    block = obs_part(env, observer, "known_held")[k * 57:(k + 1) * 57]
    fmt = env.unwrapped.engine.card_set.format
    return sorted(fmt(f) for f in np.flatnonzero(block) for _ in range(int(block[f])))


def mask_texts(env, agent: str) -> list[str]:
    mask = env.observe(agent)["action_mask"]
    return sorted(env.unwrapped.action_to_text(a) for a in np.flatnonzero(mask))


def keep_stock(env, cards: int) -> None:
    """Cuts the stock to its next ``cards`` cards through ``set_state`` (like
    ``empty_the_stock``: reachable only by manipulation)."""
    raw = env.unwrapped
    snap = raw.get_state()
    snap.state.stock = snap.state.stock[len(snap.state.stock) - cards:]
    raw.set_state(snap)
    assert desc(env)["stock_size"] == cards


def next_stock_cards(env, k: int) -> list[str]:
    fmt = env.unwrapped.engine.card_set.format
    return [fmt(f) for f in reversed(env.unwrapped.game_state.stock[-k:])]


# ============================================================ Players and cards
@pytest.mark.parametrize("n", [3, 4, 5])
def test_one_57_card_rook_deck_per_player(n):
    env = toonerville_rook_v0.env(num_players=n)
    raw = env.unwrapped
    fmt = raw.engine.card_set.format
    assert len(ROOK_DECK) == 57 and ROOK_DECK.count("ROOK") == 1
    assert Counter(fmt(f) for f in raw.rules.deck.cards()) == Counter(ROOK_DECK * n)
    env.reset(seed=n)
    d = desc(env)
    every = [c for h in d["hands"].values() for c in h] + d["discard"]
    stock = [fmt(f) for f in raw.game_state.stock]
    assert len(every) + len(stock) == 57 * n
    assert Counter(every + stock) == Counter(ROOK_DECK * n)
    assert Counter(every + stock)["ROOK"] == n and Counter(every + stock)["7G"] == n
    assert d["stock_size"] == 57 * n - 12 * n - 1


@pytest.mark.parametrize("n", [0, 1, 2, 6, 8])
def test_two_and_six_players_rejected(n):
    with pytest.raises(ValueError, match="3 to 5 players"):
        toonerville_rook_v0.env(num_players=n)


@pytest.mark.parametrize("round_no", range(1, 12))
def test_hand_size_and_contract_of_each_round(round_no):
    for n in (3, 5):
        env = toonerville_rook_v0.env(num_players=n)
        env.reset(seed=round_no, options={"round": round_no})
        d = desc(env)
        sets, runs = CONTRACT[round_no]
        assert d["round"] == round_no and d["num_rounds"] == 11
        assert d["contract"] == {"sets": sets, "runs": runs, "down_means_out": False,
                                 "out_by_melding": round_no == 11}
        assert d["hand_sizes"] == {P(i): HAND_SIZE[round_no] for i in range(n)}
        assert all(len(h) == HAND_SIZE[round_no] for h in d["hands"].values())
        assert d["stock_size"] == 57 * n - n * HAND_SIZE[round_no] - 1
        assert d["contract_left"] is None and d["melds"] == [] and d["phase"] == "draw"
        # the observation's contract part: sets / 4, runs / 4, 1 in round 11 (no final discard)
        assert list(obs_part(env, 0, "contract")) == pytest.approx([sets / 4, runs / 4, float(round_no == 11)])


def test_deal_is_one_card_at_a_time_from_dealers_left_then_upcard_then_stock():
    env = toonerville_rook_v0.env(num_players=3)
    deck = game_cards(3)  # the raw order, written out without the helper
    env.reset(seed=0, options={"deck": deck, "dealer": 1, "round": 1})
    d = desc(env)
    # seat 2 (left of dealer 1) gets deck[0], seat 0 deck[1], seat 1 deck[2], seat 2 deck[3], ...
    for seat, first in ((2, 0), (0, 1), (1, 2)):
        assert Counter(d["hands"][P(seat)]) == Counter(deck[first:36:3])
    assert d["discard"] == [deck[36]]
    assert d["stock_size"] == 171 - 37
    assert (d["current"], d["phase"], d["dealer"]) == (P(2), "draw", 1)
    before = hand(env, 2)
    draw_stock(env)  # the card after the upcard is the first stock draw
    assert drawn_by(env, 2, before) == [deck[37]]
    play(env, f"discard {deck[37]}")
    assert desc(env)["current"] == P(0)  # play moves left
    before = hand(env, 0)
    draw_stock(env)
    assert drawn_by(env, 0, before) == [deck[38]]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_first_player_is_left_of_dealer(n):
    env = toonerville_rook_v0.env(num_players=n)
    for dealer in range(n):
        env.reset(seed=dealer, options={"dealer": dealer})
        assert desc(env)["dealer"] == dealer
        assert desc(env)["current"] == P((dealer + 1) % n) == env.agent_selection


def test_dealer_rotates_left_every_round_and_game_ends_after_round_11():
    env = toonerville_rook_v0.env(num_players=3, max_turns_per_round=1, max_buys_per_round=0)
    env.reset(seed=5, options={"dealer": 1})
    totals = [0, 0, 0]
    for round_no in range(1, 12):
        d = desc(env)
        dealer = (1 + round_no - 1) % 3
        assert (d["round"], d["dealer"], d["current"]) == (round_no, dealer, P((dealer + 1) % 3))
        assert d["hand_sizes"] == {P(i): HAND_SIZE[round_no] for i in range(3)}
        assert (d["contract"]["sets"], d["contract"]["runs"]) == CONTRACT[round_no]
        assert d["turns"] == 0 and d["melds"] == [] and len(d["discard"]) == 1
        hands = d["hands"]
        assert not any(env.terminations.values())
        pass_turn(env)  # the one turn allowed: a dead round, the next round is dealt
        pens = desc(env)["round_penalties"][-1]
        assert pens == {P(i): penalty(hands[P(i)]) for i in range(3)}
        totals = [t + pens[P(i)] for i, t in enumerate(totals)]
    d = desc(env)
    assert len(d["round_penalties"]) == 11
    assert d["scores"] == {P(i): t for i, t in enumerate(totals)}
    assert d["phase"] == "game_over" and d["current"] is None and d["round"] == 11
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.unwrapped.legal_actions_text() == []


# ============================================================ Sets
JUNK = ["1R", "3Y", "7G", "11B", "13R", "2G"]  # distinct numbers, no run: they meld with nothing


def round1_env(hand0, upcard="14B", stock=("4Y",), n=3, hands=None, **config):
    """Round 1 (2 sets), seat 0 to play first."""
    hands = [hand0] + (hands or [None] * (n - 1))
    return start(n, 1, n - 1, hands, upcard, list(stock), **config)


def test_set_is_three_or_more_of_one_number_any_colours_duplicates_allowed():
    env = round1_env(["5R", "5R", "5Y", "9G", "9B", "9Y"] + JUNK)
    draw_stock(env)
    assert legal_of(env, "meld") == ["meld set 5 RRY", "meld set 9 YGB"]
    play(env, "meld set 5 RRY")
    m = desc(env)["melds"][0]
    assert (m["kind"], sorted(m["cards"]), m["represents"]) == ("set", ["5R", "5R", "5Y"], "5")
    play(env, "meld set 9 YGB")
    assert desc(env)["gone_down"][P(0)]


def test_three_copies_of_one_face_are_a_set():
    env = round1_env(["5R", "5R", "5R", "9G", "9B", "9Y"] + JUNK)
    draw_stock(env)
    assert "meld set 5 RRR" in legal(env)
    play(env, "meld set 5 RRR", "meld set 9 YGB")
    assert sorted(desc(env)["melds"][0]["cards"]) == ["5R", "5R", "5R"]


def test_two_cards_of_a_number_are_not_a_set():
    env = round1_env(["5R", "5Y", "9G", "9B", "9Y"] + JUNK + ["12G"])
    draw_stock(env)
    assert legal_of(env, "meld") == []  # one set only: the contract (2 sets) cannot be made
    with pytest.raises(ValueError, match="meld set 5 RY"):
        env.unwrapped.text_to_action("meld set 5 RY")  # no such action


def test_set_has_no_maximum_size():
    # 5R 5R 5Y 5G go down as a set of 4 (the most a meld action names); 5B and 5Y are laid off
    env = round1_env(["5R", "5R", "5Y", "5G", "5B", "5Y", "9R", "9Y", "9G", "1R", "3Y", "7G"], stock=["13R"])
    draw_stock(env)
    play(env, "meld set 5 RRYG", "meld set 9 RYG")
    assert sorted(legal_of(env, "lay off")) == ["lay off 5B on 0", "lay off 5Y on 0"]
    play(env, "lay off 5B on 0", "lay off 5Y on 0")
    assert sorted(desc(env)["melds"][0]["cards"]) == sorted(["5R", "5R", "5Y", "5G", "5B", "5Y"])
    with pytest.raises(ValueError):
        env.unwrapped.text_to_action("meld set 5 RRYGB")  # 5 naturals: not a meld action


# ============================================================ Runs
def round3_env(hand0, upcard="9Y", stock=("2B",), n=3, **config):
    """Round 3 (2 runs), seat 0 to play first."""
    return start(n, 3, n - 1, [hand0] + [None] * (n - 1), upcard, list(stock), **config)


def test_run_is_four_or_more_of_one_colour():
    env = round3_env(["3G", "4G", "5G", "6G", "7G", "10R", "11R", "12R", "13R", "1Y", "8B", "14Y"])
    draw_stock(env)
    assert legal_of(env, "meld") == sorted(["meld run G 3 6", "meld run G 3 7", "meld run G 4 7", "meld run R 10 13"])
    for text in ("meld run G 3 5", "meld run G 5 7", "meld run R 11 13"):
        with pytest.raises(ValueError, match=text):  # three cards: no such action
            env.unwrapped.text_to_action(text)
    play(env, "meld run G 3 7", "meld run R 10 13")
    d = desc(env)
    assert [sorted(m["cards"]) for m in d["melds"]] == [
        sorted(["3G", "4G", "5G", "6G", "7G"]), sorted(["10R", "11R", "12R", "13R"])]
    assert d["gone_down"][P(0)]


def test_three_card_run_not_offered():
    # G 3-5 is only three cards: no second run, so no going down at all
    env = round3_env(["3G", "4G", "5G", "10R", "11R", "12R", "13R", "1Y", "8B", "14Y", "7Y", "2R"])
    draw_stock(env)
    assert legal_of(env, "meld") == []


def test_run_needs_one_colour():
    env = round3_env(["3G", "4G", "5R", "6G", "10R", "11R", "12R", "13R", "1Y", "8B", "14Y", "7Y"])
    draw_stock(env)
    assert legal_of(env, "meld") == []


@pytest.mark.parametrize("with_11b, offered", [
    (False, []),  # 12B 13B 14B 1B 2B: 12-13-14-1 and 13-14-1-2 would wrap
    (True, ["meld run B 11 14", "meld run R 4 7"]),
], ids=["12_13_14_1_refused", "11_to_14_fine"])
def test_runs_never_wrap_from_14_to_1(with_11b, offered):
    hand0 = ["12B", "13B", "14B", "1B", "2B", "4R", "5R", "6R", "7R", "9Y", "3G"]
    hand0 += ["11B"] if with_11b else ["10Y"]
    env = round3_env(hand0, stock=["8G"])
    draw_stock(env)
    assert legal_of(env, "meld") == offered
    for text in ("meld run B 12 1", "meld run B 13 2", "meld run B 14 3", "meld run B 11 1"):
        with pytest.raises(ValueError, match=text):
            env.unwrapped.text_to_action(text)


def test_two_runs_of_one_colour_may_touch_in_one_going_down():
    # decision: 1-4 and 5-8 of red are two runs (no "join up" rule in Toonerville Rook)
    env = round3_env(["1R", "2R", "3R", "4R", "5R", "6R", "7R", "8R", "10Y", "12G", "3B", "6Y"], stock=["14B"])
    draw_stock(env)
    assert "meld run R 1 4" in legal(env) and "meld run R 1 8" not in legal(env)
    play(env, "meld run R 1 4")
    assert legal(env) == ["meld run R 5 8"]
    play(env, "meld run R 5 8")
    d = desc(env)
    assert d["gone_down"][P(0)] and [m["kind"] for m in d["melds"]] == ["run", "run"]


# ============================================================ The Rook
def test_rook_is_wild_in_a_set():
    env = round1_env(["12R", "12B", "ROOK", "ROOK", "9R", "9Y", "9G", "1R", "3Y", "7G", "5B", "13Y"])
    draw_stock(env)
    sets12 = legal_of(env, "meld set 12")
    assert "meld set 12 RB +2" in sets12 and "meld set 12 RB +1" in sets12
    play(env, "meld set 12 RB +2")
    m = desc(env)["melds"][0]
    assert (m["kind"], sorted(m["cards"]), m["represents"]) == ("set", ["12B", "12R", "ROOK", "ROOK"], "12")


def test_rook_is_wild_in_a_run_and_a_run_uses_the_hands_naturals():
    env = round3_env(["11G", "13G", "14G", "ROOK", "4R", "5R", "6R", "7R", "1Y", "8B", "3B", "10Y"])
    draw_stock(env)
    assert "meld run G 11 14" in legal(env)
    play(env, "meld run G 11 14")
    m = desc(env)["melds"][0]
    assert m["kind"] == "run" and sorted(m["cards"]) == ["11G", "13G", "14G", "ROOK"]
    assert m["represents"] == ["12G"]


def test_meld_of_rooks_only_not_offered():
    # 5 players: 5 Rooks; 4 of them in one hand could be a set or a run of Rooks alone
    hand0 = ["ROOK"] * 4 + ["9R", "9Y", "9G", "4R", "4Y", "4G", "1Y", "13B"]
    env = round1_env(hand0, stock=["7G"], n=5)
    draw_stock(env)
    for text in legal_of(env, "meld"):
        assert text.split()[3][0] in COLOURS  # every set names a natural
    for text in ("meld set 5 +3", "meld set 5 +2", "meld set 5 +4", "meld set 5 R +3"):
        with pytest.raises(ValueError):
            env.unwrapped.text_to_action(text)
    play(env, "meld set 9 RYG", "meld set 4 RYG")
    held = Counter(hand(env, 0))
    assert held == Counter(["ROOK"] * 4 + ["1Y", "13B", "7G"])
    runs = legal_of(env, "meld run")
    assert "meld run Y 1 4" in runs and "meld run G 4 7" in runs  # one natural and Rooks
    for text in runs:  # every run offered holds a natural of the hand
        _, _, colour, low, high = text.split()
        assert any(f"{k}{colour}" in held for k in range(int(low), int(high) + 1)), text
    assert "meld run R 1 4" not in runs and "meld run B 1 4" not in runs
    assert_illegal(env, "meld run R 1 4")


# ============================================================ Drawing and buying
def test_draw_stock_or_top_discard():
    env = round1_env(JUNK + ["5R", "5Y", "9G", "9B", "12R", "12Y"], upcard="14B", stock=["4Y"])
    assert legal(env) == ["draw discard", "draw stock"]
    play(env, "draw discard")
    d = desc(env)
    assert "14B" in d["hands"][P(0)] and d["discard"] == [] and d["taken_from_discard"] == "14B"
    assert d["hand_sizes"][P(0)] == 13 and d["phase"] == "play" and d["turns"] == 1


def test_draw_discard_asks_no_question():
    env = start(4, 1, 3, [None] * 4, "14B", ["4Y"])
    play(env, "draw discard")
    d = desc(env)
    assert d["phase"] == "play" and d["buy_question"] is None and env.agent_selection == P(0)
    assert d["buys"] == {P(i): 0 for i in range(4)}


def test_round_first_upcard_can_be_bought_everyone_else_asked():
    # the upcard was discarded by nobody: all three others are asked, from seat 0's left
    env = start(4, 1, 3, [None] * 4, "14B", ["4Y", "6B"])
    before = hand(env, 0)
    play(env, "draw stock")
    d = desc(env)
    assert d["phase"] == "buy" and d["buy_question"] == {"card": "14B", "asked": P(1)}
    assert d["current"] == P(0) and d["to_act"] == P(1) and env.agent_selection == P(1)
    assert answer_buy_question(env) == [1, 2, 3]
    # everyone passed: seat 0 draws the next stock card and plays on
    d = desc(env)
    assert drawn_by(env, 0, before) == ["4Y"] and d["discard"] == ["14B"]
    assert (d["phase"], d["current"], env.agent_selection) == ("play", P(0), P(0))
    assert d["hand_sizes"] == {P(0): 13, P(1): 12, P(2): 12, P(3): 12}


def test_buy_question_asks_left_first_and_stops_at_first_buyer():
    # 5 players, seat 0 to play: asked 1, 2, 3 (buys); seat 4 is never asked
    env = start(5, 1, 4, [None] * 5, "14B", ["4Y", "6B"])
    play(env, "draw stock")
    seen = []
    for answer in ("pass", "pass", "buy"):
        d = desc(env)
        assert d["phase"] == "buy" and d["current"] == P(0)
        seen.append(d["buy_question"]["asked"])
        play(env, answer)
    assert seen == [P(1), P(2), P(3)]
    d = desc(env)
    assert d["phase"] == "play" and d["buy_question"] is None and env.agent_selection == P(0)
    assert d["buys"] == {P(0): 0, P(1): 0, P(2): 0, P(3): 1, P(4): 0}


def test_closest_buyer_to_the_left_wins():
    # seat 1, the first asked, buys: the question ends, seats 2 and 3 are never asked
    env = start(4, 1, 3, [None] * 4, "14B", ["4Y", "6B"])
    assert draw_stock(env, buyer=1) == [1]
    assert "14B" in hand(env, 1) and desc(env)["phase"] == "play"
    assert desc(env)["buys"] == {P(0): 0, P(1): 1, P(2): 0, P(3): 0}


def test_discarder_never_asked():
    env = start(4, 1, 3, [None] * 4, "14B", ["4Y", "6B", "8G"])
    assert draw_stock(env) == [1, 2, 3]
    play(env, "discard 4Y")  # seat 0 discards the 4Y
    assert desc(env)["current"] == P(1)
    assert draw_stock(env) == [2, 3]  # seat 1 to act, seat 0 discarded the 4Y: neither asked
    play(env, "discard 6B")
    assert draw_stock(env) == [3, 0]  # seat 2 to act, seat 1 discarded the 6B


def test_new_top_card_after_a_purchase_keeps_its_own_discarder():
    # decision: the discarder is tracked per card. Seats 0 and 1 discard 4Y and 6B; the 6B
    # is taken off the pile (through set_state, as after a purchase, which in play is always
    # followed by a discard), so the 4Y of seat 0 is on top when seat 2 draws: seat 3 and
    # seat 1 are asked, seat 0 is not.
    env = start(4, 1, 3, [None] * 4, "14B", ["4Y", "6B", "8G"])
    pass_turn(env)
    pass_turn(env)
    assert desc(env)["discard"] == ["14B", "4Y", "6B"] and desc(env)["current"] == P(2)
    raw = env.unwrapped
    snap = raw.get_state()
    s = snap.state
    top = s.discard.pop()
    s.discard_seats.pop()
    s.discard_counts[top] -= 1
    s.stock.append(top)
    raw.set_state(snap)
    assert desc(env)["discard"] == ["14B", "4Y"]
    assert draw_stock(env) == [3, 1]


def test_buyer_gets_the_card_and_a_penalty_card_then_the_current_player_draws():
    env = start(4, 1, 3, [None] * 4, "14B", ["2G", "6Y", "8R"])
    before = {i: hand(env, i) for i in range(4)}
    stock = desc(env)["stock_size"]
    assert draw_stock(env, buyer=2) == [1, 2]
    d = desc(env)
    # the buyer: the top discard and the next stock card (the penalty card)
    assert drawn_by(env, 2, before[2]) == sorted(["14B", "2G"])
    # then the player to act draws the card after the penalty card
    assert drawn_by(env, 0, before[0]) == ["6Y"]
    assert d["hand_sizes"] == {P(0): 13, P(1): 12, P(2): 14, P(3): 12}
    assert d["discard"] == [] and d["stock_size"] == stock - 2
    assert d["buys"] == {P(0): 0, P(1): 0, P(2): 1, P(3): 0}
    assert (d["phase"], d["current"], d["to_act"], d["turns"]) == ("play", P(0), P(0), 1)
    assert next_stock_cards(env, 1) == ["8R"]
    # buying is not a turn: play goes on to seat 1, not after the buyer
    play(env, "discard 6Y")
    assert desc(env)["current"] == P(1)


def test_players_who_are_down_may_buy():
    hand0 = ["5R", "5Y", "5G", "9R", "9Y", "9G", "1B", "3Y", "7G", "11B", "13R", "2G"]
    env = start(4, 1, 3, [hand0, None, None, None], "14B", ["4Y", "6B", "8G", "10R"])
    draw_stock(env)
    play(env, "meld set 5 RYG", "meld set 9 RYG", "discard 4Y")
    assert desc(env)["gone_down"][P(0)]
    pass_turn(env)  # seat 1 discards the 6B
    assert draw_stock(env, buyer=0) == [3, 0]  # seat 2 draws: seat 0, down, is asked and buys
    assert desc(env)["buys"][P(0)] == 1 and "6B" in hand(env, 0)


@pytest.mark.parametrize("cap, asked_at_seat_3", [(None, [0, 1]), (1, [0]), (2, [0, 1])])
def test_max_buys_per_round_stops_a_player_from_being_asked_again(cap, asked_at_seat_3):
    env = start(4, 1, 3, [None] * 4, "14B", ["2G", "6Y", "8R", "10B", "12Y", "3G"], max_buys_per_round=cap)
    assert draw_stock(env, buyer=1) == [1]  # seat 1 buys the upcard (and the 2G)
    play(env, "discard 6Y")
    assert draw_stock(env) == [2, 3]  # seat 1's turn: seat 0 discarded the 6Y
    play(env, "discard 8R")
    assert draw_stock(env) == [3, 0]  # seat 2's turn: seat 1 discarded the 8R
    play(env, "discard 10B")
    # seat 3's turn: seats 0 and 1 may buy the 10B, unless seat 1 has used up its buys
    assert draw_stock(env) == asked_at_seat_3
    assert desc(env)["buys"] == {P(0): 0, P(1): 1, P(2): 0, P(3): 0}


def test_max_buys_per_round_zero_asks_nobody():
    env = start(4, 1, 3, [None] * 4, "14B", ["2G"], max_buys_per_round=0)
    play(env, "draw stock")
    d = desc(env)
    assert d["phase"] == "play" and d["buy_question"] is None and "2G" in hand(env, 0)


def test_max_buys_per_round_counts_per_round():
    deck = build_deck(4, 3, [None] * 4, "14B", ["2G", "6Y"])
    env = toonerville_rook_v0.env(num_players=4, max_buys_per_round=1, max_turns_per_round=1)
    reset_to(env, deck, 3, 1)
    assert draw_stock(env, buyer=2) == [1, 2]  # seat 2 uses its one buy of round 1
    play(env, "discard 6Y")  # the turn cap ends the round: round 2, buys back to 0
    d = desc(env)
    assert d["round"] == 2 and d["buys"] == {P(i): 0 for i in range(4)}
    # the dead round scored seat 2's hand with the bought card and the penalty card
    assert d["round_penalties"][0][P(2)] == penalty(deck[2:48:4] + ["14B", "2G"])
    assert d["current"] == P(1)
    assert draw_stock(env) == [2, 3, 0]  # seat 2 may buy again


def buy_boundary_env(pile: int, stock_left: int):
    """4 players; ``pile - 1`` turns passed (the discard pile holds ``pile`` cards), then the
    stock cut to ``stock_left`` cards; the player to act is to draw."""
    env = start(4, 1, 3, [None] * 4, "14B", ["2G", "6Y", "8R", "10B", "12Y", "3G", "5B", "7R"])
    for _ in range(pile - 1):
        pass_turn(env)
    if stock_left == 0:
        empty_the_stock(env)
    else:
        keep_stock(env, stock_left)
    assert len(desc(env)["discard"]) == pile and desc(env)["phase"] == "draw"
    return env


@pytest.mark.parametrize("pile, stock_left, offered", [
    (1, 2, True),  # the stock gives both cards
    (1, 1, False),  # one card in the stock, nothing to reshuffle
    (2, 1, False),  # one card in the stock; the reshuffle would give nothing (top kept, bought card gone)
    (3, 1, True),  # penalty card from the stock; the draw from the reshuffled pile (1 card)
    (3, 0, False),  # the reshuffle would give 1 card
    (4, 0, True),  # the reshuffle gives 2 cards
], ids=["stock2_pile1", "stock1_pile1", "stock1_pile2", "stock1_pile3", "stock0_pile3", "stock0_pile4"])
def test_buying_offered_only_when_the_stock_can_give_both_cards(pile, stock_left, offered):
    env = buy_boundary_env(pile, stock_left)
    current = desc(env)["current"]
    play(env, "draw stock")
    d = desc(env)
    if offered:
        assert d["phase"] == "buy" and d["buy_question"]["asked"] != current
    else:
        assert d["phase"] == "play" and d["buy_question"] is None and d["current"] == current


def test_bought_card_leaves_the_pile_before_a_reshuffle():
    # pile 14B 2G 6Y 8R (top last), stock empty: the 8R is bought, then 14B 2G (all but the
    # new top 6Y) are reshuffled into the stock: the penalty card and the draw
    env = buy_boundary_env(4, 0)
    assert desc(env)["discard"] == ["14B", "2G", "6Y", "8R"] and desc(env)["current"] == P(3)
    before3, before0 = hand(env, 3), hand(env, 0)
    assert draw_stock(env, buyer=0) == [0]
    d = desc(env)
    bought = drawn_by(env, 0, before0)
    assert "8R" in bought and len(bought) == 2
    (penalty_card,) = list((Counter(bought) - Counter(["8R"])).elements())
    assert sorted([penalty_card] + drawn_by(env, 3, before3)) == ["14B", "2G"]
    assert d["discard"] == ["6Y"] and d["stock_size"] == 0


def test_bought_card_leaves_the_pile_before_a_reshuffle_with_one_stock_card():
    # pile 14B 2G 6Y, one stock card: the penalty card is the stock card; the 6Y is bought,
    # so the reshuffle takes the 14B (all but the new top 2G) and the player draws it
    env = buy_boundary_env(3, 1)
    (last,) = next_stock_cards(env, 1)
    before2, before3 = hand(env, 2), hand(env, 3)
    assert draw_stock(env, buyer=3) == [3]
    assert drawn_by(env, 3, before3) == sorted(["6Y", last])
    assert drawn_by(env, 2, before2) == ["14B"]
    assert desc(env)["discard"] == ["2G"] and desc(env)["stock_size"] == 0


def test_buy_question_is_not_a_turn_and_its_masks_are_buy_and_pass_only():
    env = start(4, 1, 3, [None] * 4, "14B", ["2G", "6Y"], max_turns_per_round=1)
    play(env, "draw stock")
    for asked in (1, 2, 3):
        d = desc(env)
        assert d["phase"] == "buy" and d["turns"] == 0 and d["to_act"] == P(asked)
        assert legal(env) == ["buy", "pass"]
        for seat in range(4):
            texts = mask_texts(env, P(seat))
            assert texts == (["buy", "pass"] if seat == asked else [])
        mask = env.observe(P(asked))["action_mask"]
        assert list(np.flatnonzero(mask)) == [2, 3]
        # the observation: the offer, who acts, whose turn, the phase
        assert list(np.flatnonzero(obs_part(env, 0, "buy_offer"))) == [face_id("14B")]
        assert list(np.flatnonzero(obs_part(env, 0, "to_act"))) == [asked]  # seat 0 is first in its own view
        assert list(np.flatnonzero(obs_part(env, 0, "turn_owner"))) == [0]
        assert list(np.flatnonzero(obs_part(env, 0, "phase"))) == [3]
        play(env, "pass")
    d = desc(env)
    # with max_turns_per_round=1, three questions did not end the round: the one turn did
    assert d["turns"] == 1 and d["phase"] == "play" and d["round"] == 1 and d["round_penalties"] == []
    play(env, "discard 2G")
    assert desc(env)["round"] == 2 and len(desc(env)["round_penalties"]) == 1


def test_bought_card_is_public_the_penalty_card_is_not():
    deck = build_deck(4, 3, [None] * 4, "14B", ["2G", "6Y", "8R"])
    assert deck[48:51] == ["14B", "2G", "6Y"]
    other = list(deck)
    swap_with = next(k for k in range(len(deck) - 1, 51, -1) if deck[k] not in ("2G", "14B", "6Y"))
    other[49], other[swap_with] = other[swap_with], other[49]  # another penalty card
    views = []
    for order in (deck, other):
        env = toonerville_rook_v0.env(num_players=4)
        env.reset(seed=0, options={"deck": order, "dealer": 3, "round": 1})
        draw_stock(env, buyer=2)
        assert known_held(env, 0, 2) == ["14B"] and known_held(env, 3, 2) == ["14B"]
        assert known_held(env, 1, 2) == ["14B"]
        assert list(obs_part(env, 0, "buys")) == pytest.approx([0, 0, 0.1, 0])  # seat 0's view: seats 0 1 2 3
        views.append({seat: env.observe(P(seat))["observation"].copy() for seat in range(4)})
    # what the others see is the same whichever the penalty card was; the buyer sees its hand
    for seat in (0, 1, 3):
        assert np.array_equal(views[0][seat], views[1][seat]), seat
    assert not np.array_equal(views[0][2], views[1][2])


def test_bought_card_may_be_discarded_in_the_buyers_turn():
    # decision: the discard rule speaks of the card taken in one's own turn
    env = start(4, 1, 3, [None] * 4, "14B", ["2G", "6Y", "8R"])
    assert "14B" not in hand(env, 1)
    draw_stock(env, buyer=1)
    play(env, "discard 6Y")
    draw_stock(env)
    assert desc(env)["taken_from_discard"] is None
    assert "discard 14B" in legal(env)
    assert known_held(env, 0, 1) == ["14B"]
    play(env, "discard 14B")
    assert known_held(env, 0, 1) == []


# ============================================================ Going down
def round5_env(hand0, stock=("7R",), **config):
    """Round 5 (1 run + 2 sets), seat 0 to play first."""
    return start(3, 5, 2, [hand0, None, None], "14Y", list(stock), **config)


GOING_DOWN5 = ["5R", "5Y", "5G", "9R", "9Y", "9G", "1B", "2B", "3B", "4B", "11Y", "13G"]


def test_first_meld_only_offered_when_the_whole_contract_can_be_made():
    hand0 = GOING_DOWN5[:9] + ["6B", "11Y", "13G"]  # B 1-3 only: no run
    env = round5_env(hand0)
    draw_stock(env)
    assert legal(env) == discards(hand0 + ["7R"])
    assert_illegal(env, "meld set 5 RYG")
    env = round5_env(hand0, stock=["4B"])  # the 4B completes the run
    draw_stock(env)
    assert sorted(legal_of(env, "meld")) == ["meld run B 1 4", "meld set 5 RYG", "meld set 9 RYG"]


def test_going_down_is_staged_only_remaining_contract_melds_offered():
    env = round5_env(GOING_DOWN5)
    draw_stock(env)
    play(env, "meld set 5 RYG")
    d = desc(env)
    assert d["phase"] == "going_down" and d["contract_left"] == {"sets": 1, "runs": 1}
    assert not d["gone_down"][P(0)]
    # only the rest of the contract: no discard, no lay-off, no other meld
    assert legal(env) == ["meld run B 1 4", "meld set 9 RYG"]
    assert_illegal(env, "discard 7R")
    assert_illegal(env, "lay off 9R on 0")
    play(env, "meld run B 1 4")
    assert desc(env)["contract_left"] == {"sets": 1, "runs": 0} and legal(env) == ["meld set 9 RYG"]
    play(env, "meld set 9 RYG")
    d = desc(env)
    assert d["phase"] == "play" and d["contract_left"] is None and d["gone_down"][P(0)]
    assert [m["owner"] for m in d["melds"]] == [P(0)] * 3 and [m["slot"] for m in d["melds"]] == [0, 1, 2]


def test_going_down_with_more_than_the_contract_in_the_same_turn():
    # round 1 (2 sets): after the two sets, a third set and a run (any kind) may follow
    hand0 = ["5R", "5Y", "5G", "9R", "9Y", "9G", "12R", "12Y", "12G", "1B", "2B", "3B"]
    env = round1_env(hand0, stock=["4B"])
    draw_stock(env)
    assert legal_of(env, "meld run") == []  # not part of the contract
    play(env, "meld set 5 RYG")
    assert "meld run B 1 4" not in legal(env)
    play(env, "meld set 9 RYG")
    assert desc(env)["gone_down"][P(0)]
    assert "meld set 12 RYG" in legal(env) and "meld run B 1 4" in legal(env)
    play(env, "meld run B 1 4")
    d = desc(env)
    assert [m["kind"] for m in d["melds"]] == ["set", "set", "run"] and d["phase"] == "play"
    assert legal(env) == sorted(["meld set 12 RYG"] + discards(["12R", "12Y", "12G"]))
    play(env, "meld set 12 RYG")  # every card on the table: out
    assert desc(env)["round"] == 2 and desc(env)["round_penalties"][0][P(0)] == 0


def test_going_down_needs_free_table_slots():
    # max_table_melds=2 and round 4's contract of 3 sets: never offered
    hand0 = ["5R", "5Y", "5G", "9R", "9Y", "9G", "12R", "12Y", "12G", "1B", "3Y", "7G"]
    env = start(3, 4, 2, [hand0, None, None], "14B", ["13R"], max_table_melds=2)
    draw_stock(env)
    assert legal_of(env, "meld") == []
    env = start(3, 4, 2, [hand0, None, None], "14B", ["13R"])
    draw_stock(env)
    assert "meld set 5 RYG" in legal(env)


def lay_off_env():
    """Round 1. Seat 0 goes down with 5s and 9s, keeps 1B 2B 3B 4B 13R; seat 1 goes down
    with 7s and 11s and holds 5B (fits seat 0's set), 7B (its own) and 12B 13B."""
    hand0 = ["5R", "5Y", "5G", "9R", "9Y", "9G", "1B", "2B", "3B", "4B", "13R", "2G"]
    hand1 = ["7R", "7Y", "7G", "11R", "11Y", "11G", "5B", "7B", "12B", "14G", "3R", "6Y"]
    env = start(3, 1, 2, [hand0, hand1, None], "14B", ["8Y", "10G", "6G", "5B", "4G"])
    draw_stock(env)
    play(env, "meld set 5 RYG", "meld set 9 RYG", "discard 8Y")
    draw_stock(env)  # seat 1 draws 10G
    return env


def test_lay_off_refused_before_going_down():
    env = lay_off_env()
    assert not desc(env)["gone_down"][P(1)] and "5B" in hand(env, 1)
    assert legal_of(env, "lay off") == []
    assert_illegal(env, "lay off 5B on 0")


def test_after_going_down_lay_off_on_any_meld_own_or_others_in_the_same_turn():
    env = lay_off_env()
    play(env, "meld set 7 RYG", "meld set 11 RYG")
    assert desc(env)["gone_down"] == {P(0): True, P(1): True, P(2): False}
    assert legal_of(env, "lay off") == ["lay off 5B on 0", "lay off 7B on 2"]
    play(env, "lay off 5B on 0", "lay off 7B on 2")  # seat 0's set, then its own
    d = desc(env)
    assert d["melds"][0]["owner"] == P(0) and sorted(d["melds"][0]["cards"]) == ["5B", "5G", "5R", "5Y"]
    assert d["melds"][2]["owner"] == P(1) and sorted(d["melds"][2]["cards"]) == ["7B", "7G", "7R", "7Y"]
    assert d["hand_sizes"][P(1)] == 13 - 6 - 2


def test_after_going_down_new_melds_and_lay_offs_in_later_turns():
    env = lay_off_env()
    play(env, "meld set 7 RYG", "meld set 11 RYG", "discard 10G")
    pass_turn(env)  # seat 2 draws and discards 6G
    before = hand(env, 0)
    draw_stock(env)  # seat 0, down since its last turn, draws 5B
    assert drawn_by(env, 0, before) == ["5B"]
    assert "meld run B 1 4" in legal(env) and "meld run B 1 5" in legal(env)  # a new meld of any kind
    assert "lay off 5B on 0" in legal(env)  # its own set
    play(env, "meld run B 1 4")
    assert "lay off 5B on 4" in legal(env)  # its new run
    play(env, "discard 13R")
    draw_stock(env)  # seat 1 draws 4G
    assert sorted(legal_of(env, "lay off")) == ["lay off 5B on 0", "lay off 5B on 4", "lay off 7B on 2"]
    play(env, "lay off 5B on 4")  # on seat 0's run
    assert sorted(desc(env)["melds"][4]["cards"]) == ["1B", "2B", "3B", "4B", "5B"]


def test_rook_laid_off_on_a_run_goes_high_when_open_else_low():
    hand0 = ["11G", "12G", "13G", "14G", "4R", "5R", "6R", "7R", "ROOK", "ROOK", "1Y", "9B"]
    env = round3_env(hand0)
    draw_stock(env)
    play(env, "meld run G 11 14", "meld run R 4 7")
    assert desc(env)["melds"][0]["represents"] == [] and desc(env)["melds"][1]["represents"] == []
    assert sorted(legal_of(env, "lay off")) == ["lay off ROOK on 0", "lay off ROOK on 1"]
    play(env, "lay off ROOK on 0", "lay off ROOK on 1")
    d = desc(env)
    assert d["melds"][0]["represents"] == ["10G"]  # 11-14: the high end is closed
    assert d["melds"][1]["represents"] == ["8R"]  # 4-7: the high end is open


def test_rook_may_be_laid_off_on_a_set():
    hand0 = ["5R", "5Y", "5G", "9R", "9Y", "9G", "ROOK", "1B", "3Y", "7G", "11B", "13R"]
    env = round1_env(hand0)
    draw_stock(env)
    play(env, "meld set 5 RYG", "meld set 9 RYG")
    assert sorted(legal_of(env, "lay off")) == ["lay off ROOK on 0", "lay off ROOK on 1"]
    play(env, "lay off ROOK on 0")
    assert sorted(desc(env)["melds"][0]["cards"]) == ["5G", "5R", "5Y", "ROOK"]


# ============================================================ Rook swaps
SWAP_HAND0 = ["5R", "5Y", "5G", "9R", "9Y", "9G", "11G", "13G", "14G", "ROOK", "1R", "3Y"]
SWAP_JUNK1 = ["1Y", "3B", "6G", "8R", "10B", "13Y"]


def swap_env(hand1, stock=("7B", "2R", "10Y", "12G", "6R")):
    """Round 1. Seat 0 goes down with 5s and 9s and lays G 11-14 with the Rook as 12G (slot 2),
    then discards 7B; seat 1 draws 2R."""
    env = start(3, 1, 2, [SWAP_HAND0, hand1, None], "14B", list(stock))
    draw_stock(env)
    play(env, "meld set 5 RYG", "meld set 9 RYG", "meld run G 11 14", "discard 7B")
    assert desc(env)["melds"][2]["represents"] == ["12G"]
    draw_stock(env)
    return env


def test_rook_swap_by_a_player_not_down_who_then_goes_down_with_it():
    # seat 1 holds 4s and two 7s: with the Rook, two sets; without, one
    env = swap_env(["12G", "7R", "7Y", "4R", "4Y", "4G"] + SWAP_JUNK1)
    assert not desc(env)["gone_down"][P(1)]
    assert legal_of(env, "meld") == []  # no going down without the Rook
    assert legal_of(env, "swap") == ["swap 12G on 2"]
    play(env, "swap 12G on 2")
    d = desc(env)
    assert d["wilds_owed"] == 1 and "ROOK" in d["hands"][P(1)] and "12G" not in d["hands"][P(1)]
    assert sorted(d["melds"][2]["cards"]) == ["11G", "12G", "13G", "14G"] and d["melds"][2]["represents"] == []
    assert known_held(env, 0, 1) == ["ROOK"]  # the Rook taken back is public
    # no discard until the Rook is played; the going down must use it
    assert legal_of(env, "discard") == []
    assert_illegal(env, "discard 2R")
    assert "meld set 7 RY +1" in legal(env)
    play(env, "meld set 4 RYG")
    assert legal(env) == ["meld set 7 RY +1"]
    play(env, "meld set 7 RY +1")
    d = desc(env)
    assert d["gone_down"][P(1)] and d["wilds_owed"] == 0
    assert legal_of(env, "discard") == discards(SWAP_JUNK1 + ["2R"])


def test_rook_swap_refused_to_a_player_not_down_who_cannot_then_go_down():
    env = swap_env(["12G", "7R", "14R", "4R", "4Y", "4G"] + SWAP_JUNK1)  # one 7: still one set
    assert "ROOK" not in hand(env, 1) and not desc(env)["gone_down"][P(1)]
    assert legal_of(env, "swap") == []
    assert_illegal(env, "swap 12G on 2")


def test_rook_swap_by_a_player_down():
    # seat 0, down since its first turn, draws 12G in its second turn
    env = swap_env(["7R", "7Y", "2Y", "4R", "4B", "4G"] + SWAP_JUNK1)
    play(env, "discard 2R")
    pass_turn(env)  # seat 2: 10Y
    before = hand(env, 0)
    draw_stock(env)
    assert drawn_by(env, 0, before) == ["12G"]
    assert legal_of(env, "swap") == ["swap 12G on 2"]
    play(env, "swap 12G on 2")
    d = desc(env)
    assert d["wilds_owed"] == 1 and sorted(d["hands"][P(0)]) == sorted(["1R", "3Y", "ROOK"])
    # the swapped Rook must be played before a discard: on a set, or back on the run
    assert legal_of(env, "discard") == []
    assert_illegal(env, "discard 1R")
    assert sorted(legal_of(env, "lay off")) == ["lay off ROOK on 0", "lay off ROOK on 1", "lay off ROOK on 2"]
    play(env, "lay off ROOK on 2")
    d = desc(env)
    assert d["wilds_owed"] == 0 and d["melds"][2]["represents"] == ["10G"]
    assert legal(env) == discards(["1R", "3Y"])


def test_any_rook_meets_the_swap_obligation():
    # decision: Rooks are interchangeable, one Rook played per swap. Seat 0 holds a second
    # Rook: after swapping 12G in, one Rook laid off meets the obligation, the other may go.
    hand0 = SWAP_HAND0[:10] + ["ROOK", "3Y"]
    env = start(3, 1, 2, [hand0, None, None], "14B", ["7B", "2R", "10Y", "12G"])
    draw_stock(env)
    play(env, "meld set 5 RYG", "meld set 9 RYG", "meld run G 11 14", "discard 7B")
    pass_turn(env)
    pass_turn(env)
    draw_stock(env)
    assert hand(env, 0).count("ROOK") == 1 and "12G" in hand(env, 0)
    play(env, "swap 12G on 2")
    d = desc(env)
    assert d["wilds_owed"] == 1 and d["hands"][P(0)].count("ROOK") == 2
    assert legal_of(env, "discard") == []
    play(env, "lay off ROOK on 0")
    assert desc(env)["wilds_owed"] == 0
    assert legal_of(env, "discard") == discards(["3Y", "ROOK"])


def down_without_the_swapped_rook():
    """Round 1 (``swap_env``): seat 1, not down, swaps 12G for the Rook of seat 0's run
    (slot 2), then completes the contract without it, 4 RYG (slot 3) and 7 RYG (slot 4),
    and still owes the Rook; it holds 10Y 10B and junk."""
    env = swap_env(["12G", "7R", "7Y", "7G", "4R", "4Y", "4G", "10Y", "10B", "1Y", "3B", "6G"])
    play(env, "swap 12G on 2", "meld set 4 RYG", "meld set 7 RYG")
    d = desc(env)
    assert d["gone_down"][P(1)] and d["phase"] == "play" and d["wilds_owed"] == 1
    assert [m["owner"] for m in d["melds"]] == [P(0)] * 3 + [P(1)] * 2
    return env


def test_rook_swapped_before_going_down_may_not_be_laid_off_on_another_players_meld():
    # it goes into this turn's going-down melds: seat 0's earlier melds are not among them
    env = down_without_the_swapped_rook()
    others = ["lay off ROOK on 0", "lay off ROOK on 1", "lay off ROOK on 2"]
    assert not set(others) & set(legal(env)) and not set(others) & set(mask_texts(env, P(1)))
    for text in others:
        assert_illegal(env, text)
    with pytest.raises(IllegalActionError, match="swapped before going down"):
        play(env, "lay off ROOK on 2")  # the error gives the reason


@pytest.mark.parametrize("use", ["lay off ROOK on 3", "lay off ROOK on 4", "meld set 10 YB +1"])
def test_rook_swapped_before_going_down_is_used_in_the_going_down_melds(use):
    # once the contract is complete: a lay-off on a meld laid this turn, or a further meld
    # of this turn (test_rook_swap_by_a_player_not_down_who_then_goes_down_with_it: a
    # contract meld)
    env = down_without_the_swapped_rook()
    assert legal(env) == ["lay off ROOK on 3", "lay off ROOK on 4", "meld set 10 YB +1"]
    play(env, use)
    assert desc(env)["wilds_owed"] == 0 and "ROOK" not in hand(env, 1)
    assert legal_of(env, "discard") == discards(hand(env, 1))
    play(env, "discard 2R")  # the turn is over
    d = desc(env)
    assert d["current"] == P(2) and d["phase"] == "draw"


def test_a_spare_rook_may_go_on_another_players_meld_the_swapped_one_still_goes_down():
    # decision: Rooks are interchangeable. Seat 1 holds a Rook of its own besides the one it
    # swapped before going down: one may go on seat 0's run, the other then still goes into
    # this turn's going-down melds before a discard.
    env = swap_env(["12G", "7R", "7Y", "7G", "4R", "4Y", "4G", "10Y", "10B", "ROOK", "3B", "6G"])
    play(env, "swap 12G on 2", "meld set 4 RYG", "meld set 7 RYG")
    assert hand(env, 1).count("ROOK") == 2 and desc(env)["wilds_owed"] == 1
    assert {f"lay off ROOK on {slot}" for slot in range(5)} <= set(legal(env))
    play(env, "lay off ROOK on 2")
    assert desc(env)["wilds_owed"] == 1 and hand(env, 1).count("ROOK") == 1
    assert legal_of(env, "lay off") == ["lay off ROOK on 3", "lay off ROOK on 4"]
    assert legal_of(env, "discard") == []
    assert_illegal(env, "lay off ROOK on 0")
    play(env, "lay off ROOK on 3")
    assert desc(env)["wilds_owed"] == 0 and legal_of(env, "discard") == discards(hand(env, 1))


def test_going_down_meld_leaving_a_swapped_rook_only_another_players_meld_not_offered():
    # No dead ends. Round 6 (1 set + 2 runs): seat 0 lays G 11-14 with its Rook as 12G and
    # discards 9G; seat 1, not down, takes the 9G (the discard rule keeps it in hand), swaps
    # 12G for the Rook and lays R 1-4 and Y 1-4. "meld set 7 RYG" would leave the Rook and
    # 9G: the Rook may not go on seat 0's run (there it would stand for 10G, and 9G could
    # follow it), and on seat 1's own melds it leaves 9G, which fits nowhere and may not be
    # discarded. The swap stays offered: a set with the Rook for one 7 keeps that 7 to discard.
    hand0 = ["11G", "13G", "14G", "ROOK", "1B", "2B", "3B", "4B", "5R", "5Y", "5B", "9G"]
    hand1 = ["12G", "1R", "2R", "3R", "4R", "1Y", "2Y", "3Y", "4Y", "7R", "7Y", "7G"]
    env = start(3, 6, 2, [hand0, hand1, None], "14B", ["8Y"])
    draw_stock(env)
    play(env, "meld run G 11 14", "meld run B 1 4", "meld set 5 RYB", "discard 9G")
    assert desc(env)["melds"][0]["represents"] == ["12G"]
    play(env, "draw discard")
    assert "swap 12G on 0" in legal(env)
    play(env, "swap 12G on 0", "meld run R 1 4", "meld run Y 1 4")
    assert legal(env) == ["meld set 7 RG +1", "meld set 7 RY +1", "meld set 7 YG +1"]
    assert_illegal(env, "meld set 7 RYG")
    play(env, "meld set 7 RY +1")
    assert legal(env) == ["discard 7G"]
    play(env, "discard 7G")
    assert desc(env)["current"] == P(2) and hand(env, 1) == ["9G"]


def test_rook_swap_needs_the_exact_card_it_stands_for():
    # the Rook of G 11-14 stands for 12G: 12R, 12B, 10G do not swap it
    env = swap_env(["12R", "12B", "10G", "7R", "7Y", "7G", "4R", "4Y", "4G", "1Y", "3B", "6G"])
    assert legal_of(env, "swap") == []
    for text in ("swap 12R on 2", "swap 12B on 2", "swap 10G on 2"):
        assert_illegal(env, text)


def test_rook_in_a_set_may_never_be_swapped():
    hand0 = ["5R", "5Y", "ROOK", "9R", "9Y", "9G", "1R", "3Y", "7G", "11B", "13R", "2G"]
    hand1 = ["5G", "5B", "7R", "7Y", "7G", "4R", "4Y", "4G", "1Y", "3B", "6G", "8R"]
    env = start(3, 1, 2, [hand0, hand1, None], "14B", ["10Y", "12B"])
    draw_stock(env)
    play(env, "meld set 5 RY +1", "meld set 9 RYG", "discard 10Y")
    assert desc(env)["melds"][0]["represents"] == "5"
    draw_stock(env)
    play(env, "meld set 7 RYG", "meld set 4 RYG")  # seat 1 is down, holds 5G and 5B
    assert legal_of(env, "swap") == []
    for text in ("swap 5G on 0", "swap 5B on 0"):
        assert_illegal(env, text)
    assert "lay off 5G on 0" in legal(env)  # the set takes the 5 as a lay-off only


def test_no_rook_swap_in_the_middle_of_a_going_down():
    # seat 1 can go down without the Rook (4s and 7s) and holds 12G
    env = swap_env(["12G", "7R", "7Y", "7G", "4R", "4Y", "4G"] + SWAP_JUNK1[:5])
    assert "swap 12G on 2" in legal(env)  # the Rook could join this turn's melds
    play(env, "meld set 4 RYG")
    assert legal(env) == ["meld set 7 RYG"]
    assert_illegal(env, "swap 12G on 2")
    play(env, "meld set 7 RYG")
    assert "swap 12G on 2" in legal(env)  # down now


# ============================================================ The discard rule
def test_card_just_taken_from_the_discard_pile_may_not_be_discarded():
    hand0 = JUNK + ["5R", "5Y", "9G", "9B", "12R", "12Y"]
    env = round1_env(hand0, upcard="14B")
    play(env, "draw discard")
    assert desc(env)["taken_from_discard"] == "14B"
    assert legal(env) == discards(hand0)
    assert_illegal(env, "discard 14B")
    # the same face drawn from the stock may be discarded
    env = round1_env(hand0, upcard="2R", stock=["14B"])
    draw_stock(env)
    assert "discard 14B" in legal(env)


def test_card_just_taken_may_be_discarded_when_another_copy_is_held():
    hand0 = JUNK + ["5R", "5Y", "9G", "9B", "12R", "14B"]
    env = round1_env(hand0, upcard="14B")
    play(env, "draw discard")
    assert "discard 14B" in legal(env)
    play(env, "discard 14B")
    assert desc(env)["current"] == P(1) and hand(env, 0).count("14B") == 1


def test_a_meld_using_the_face_just_taken_lifts_the_rule():
    hand0 = ["5R", "5Y", "5G", "9R", "9Y", "9G"] + JUNK
    env = round1_env(hand0, upcard="5G")
    play(env, "draw discard")
    assert desc(env)["taken_from_discard"] == "5G"
    assert obs_part(env, 0, "taken_face")[face_id("5G")] == 1
    play(env, "meld set 5 RYG")  # uses the 5G just taken; the other 5G stays in hand
    assert desc(env)["taken_from_discard"] is None and not obs_part(env, 0, "taken_face").any()
    play(env, "meld set 9 RYG")
    assert "discard 5G" in legal(env)


def test_a_lay_off_using_the_face_just_taken_lifts_the_rule():
    # seat 0 goes down with 5s and 9s, keeping a 5B; seat 2 discards another 5B, which seat 0
    # takes and lays off on its set of 5s: the lay-off uses the card just taken
    hand0 = ["5R", "5Y", "5G", "9R", "9Y", "9G", "5B"] + JUNK[:5]
    env = start(3, 1, 2, [hand0, None, None], "14B", ["8Y", "10G", "5B"])
    draw_stock(env)
    play(env, "meld set 5 RYG", "meld set 9 RYG", "discard 8Y")
    pass_turn(env)
    pass_turn(env)  # seat 2 draws 5B and discards it
    assert desc(env)["discard"][-1] == "5B"
    play(env, "draw discard")
    assert desc(env)["taken_from_discard"] == "5B"
    play(env, "lay off 5B on 0")
    assert desc(env)["taken_from_discard"] is None
    assert "discard 5B" in legal(env)


def test_discard_rule_lasts_only_for_the_turn():
    hand0 = JUNK + ["5R", "5Y", "9G", "9B", "12R", "12Y"]
    env = round1_env(hand0, upcard="14B", stock=["4Y", "8R", "2B"])
    play(env, "draw discard", "discard 1R")
    assert desc(env)["taken_from_discard"] is None
    pass_turn(env)
    pass_turn(env)
    draw_stock(env)
    assert "discard 14B" in legal(env)


# ============================================================ Going out and scoring
GOER = ["5R", "5Y", "5G", "9R", "9Y", "9G", "7R", "7Y", "7G", "11R", "11Y", "11G"]
KEEPER1 = ["ROOK", "14R", "13Y", "12B", "10G", "1R", "2Y", "3G", "4B", "6R", "8Y", "9B"]  # 25 + 40 + 35 = 100
KEEPER2 = ["14G", "13B", "11B", "10R", "2R", "3Y", "4G", "5B", "6Y", "7B", "8G", "1G"]  # 40 + 40 = 80


def going_out_env(draw, scores=None, **config):
    """Round 1: seat 0 holds four sets; the keepers score 100 and 80."""
    return start(3, 1, 2, [GOER, KEEPER1, KEEPER2], "14B", [draw], scores=scores, **config)


def test_scenario_hands_follow_the_penalty_table():
    assert penalty(KEEPER1) == 100 and penalty(KEEPER2) == 80


def assert_round_over_won_by_seat_0(env, scores=(0, 0, 0)):
    d = desc(env)
    assert d["round_penalties"] == [{P(0): 0, P(1): 100, P(2): 80}]
    assert d["scores"] == {P(0): scores[0], P(1): scores[1] + 100, P(2): scores[2] + 80}
    # the next round at once (no last turns), the next dealer
    assert (d["round"], d["dealer"], d["current"], d["phase"], d["turns"]) == (2, 0, P(1), "draw", 0)
    assert d["melds"] == [] and d["hand_sizes"] == {P(i): 12 for i in range(3)}
    assert not any(d["gone_down"].values())
    assert not any(env.terminations.values())


def test_going_out_by_discarding_the_last_card():
    env = going_out_env("13G")
    draw_stock(env)
    play(env, "meld set 5 RYG", "meld set 9 RYG", "meld set 7 RYG", "meld set 11 RYG")
    assert legal(env) == ["discard 13G"] and desc(env)["round"] == 1
    play(env, "discard 13G")
    assert_round_over_won_by_seat_0(env)


def test_going_out_by_melding_the_last_cards():
    env = going_out_env("11B")
    draw_stock(env)
    play(env, "meld set 5 RYG", "meld set 9 RYG", "meld set 7 RYG")
    assert "meld set 11 RYGB" in legal(env)
    play(env, "meld set 11 RYGB")  # the hand is empty: no discard
    assert_round_over_won_by_seat_0(env)


def test_going_out_by_laying_off_the_last_card():
    env = going_out_env("11B")
    draw_stock(env)
    play(env, "meld set 5 RYG", "meld set 9 RYG", "meld set 7 RYG", "meld set 11 RYG")
    assert legal(env) == ["discard 11B", "lay off 11B on 3"]
    play(env, "lay off 11B on 3")
    assert_round_over_won_by_seat_0(env)


def test_scores_accumulate_from_the_starting_scores():
    env = going_out_env("13G", scores=[10, 20, 30])
    draw_stock(env)
    play(env, "meld set 5 RYG", "meld set 9 RYG", "meld set 7 RYG", "meld set 11 RYG", "discard 13G")
    assert_round_over_won_by_seat_0(env, scores=(10, 20, 30))


def test_going_down_with_every_card_goes_out():
    # round 7 (4 sets): 13 cards in four sets, the last one of four: down and out in one turn
    env = start(3, 7, 2, [GOER, KEEPER1, KEEPER2], "14B", ["11B"])
    draw_stock(env)
    play(env, "meld set 5 RYG", "meld set 9 RYG", "meld set 7 RYG")
    assert desc(env)["phase"] == "going_down"
    assert legal(env) == sorted(["meld set 11 RYG", "meld set 11 RYB", "meld set 11 RGB", "meld set 11 YGB",
                                 "meld set 11 RYGB"])
    play(env, "meld set 11 RYGB")
    d = desc(env)
    assert d["round_penalties"] == [{P(0): 0, P(1): 100, P(2): 80}] and d["round"] == 8


def test_a_player_not_down_cannot_go_out_by_discarding():
    # reachable only by manipulation (a hand shrinks only by melds): seat 0, not down, is
    # left with one card after drawing; it may not discard it to go out
    env = going_out_env("13G")
    draw_stock(env)
    raw = env.unwrapped
    snap = raw.get_state()
    s = snap.state
    s.hands[0] = bytearray(57)
    s.hands[0][face_id("13G")] = 1
    s.hand_sizes[0] = 1
    raw.set_state(snap)
    assert not desc(env)["gone_down"][P(0)] and hand(env, 0) == ["13G"]
    assert "discard 13G" not in legal(env)
    assert_illegal(env, "discard 13G")


@pytest.mark.parametrize("mode, expected", [
    ("relative", {P(0): 60 / 100, P(1): (60 - 100) / 100, P(2): (60 - 80) / 100}),
    ("penalty", {P(0): 0.0, P(1): -1.0, P(2): -0.8}),
    ("win", {P(0): 0.0, P(1): 0.0, P(2): 0.0}),  # only at game end
])
def test_the_step_that_ends_the_round_gives_its_rewards(mode, expected):
    env = going_out_env("13G", reward_mode=mode)
    draw_stock(env)
    play(env, "meld set 5 RYG", "meld set 9 RYG", "meld set 7 RYG", "meld set 11 RYG")
    assert all(v == 0 for v in env.rewards.values())
    play(env, "discard 13G")
    assert env.rewards == pytest.approx(expected)


# ============================================================ Round 11: no final discard
R11_GOER = ["1R", "2R", "3R", "4R", "1Y", "2Y", "3Y", "4Y", "7R", "7Y", "7G", "9R", "9Y", "9G"]  # 70
R11_KEEPER1 = ["10R", "11R", "12R", "13R", "14R", "10Y", "11Y", "12Y", "13Y", "14Y", "10G", "11G", "ROOK", "5B"]  # 150
R11_KEEPER2 = ["1G", "2G", "3G", "4G", "5G", "6G", "8G", "1B", "2B", "3B", "4B", "6B", "8B", "14B"]  # 75


def round11_env(draw, scores=None, **config):
    return start(3, 11, 2, [R11_GOER, R11_KEEPER1, R11_KEEPER2], "12B", [draw], scores=scores, **config)


def test_round_11_going_down_leaving_one_card_that_fits_nowhere_not_offered():
    env = round11_env("13B")  # every going down (14+ cards of 15) would leave the 13B alone
    draw_stock(env)
    assert legal_of(env, "meld") == []
    assert legal(env) == discards(R11_GOER + ["13B"])


def test_round_11_last_card_may_not_be_discarded_it_must_be_laid_off():
    env = round11_env("5R")
    draw_stock(env)
    assert "meld run R 1 4" in legal(env) and "meld run R 1 5" in legal(env)
    play(env, "meld run R 1 4", "meld run Y 1 4", "meld set 7 RYG", "meld set 9 RYG")
    assert hand(env, 0) == ["5R"]
    assert legal(env) == ["lay off 5R on 0"]  # no discard of the last card
    assert_illegal(env, "discard 5R")


def round11_buy_env(penalty_card="6R", draw="13B"):
    """Round 11. Seat 1 buys the upcard 5R (and the penalty card), goes down in its turn with
    R 1-4, Y 1-4, 7s and 9s, and keeps the bought 5R, the penalty card and its draw."""
    env = start(3, 11, 2, [R11_KEEPER2, R11_GOER, R11_KEEPER1], "5R", [penalty_card, "10B", draw])
    assert draw_stock(env, buyer=1) == [1]
    play(env, "discard 10B")
    assert draw_stock(env) == [2]
    assert sorted(hand(env, 1)) == sorted(R11_GOER + ["5R", penalty_card, draw])
    play(env, "meld run R 1 4", "meld run Y 1 4", "meld set 7 RYG", "meld set 9 RYG")
    return env


def test_round_11_lay_off_leaving_one_card_that_fits_nowhere_not_offered():
    env = round11_buy_env()
    assert sorted(hand(env, 1)) == ["13B", "5R", "6R"]
    assert legal(env) == sorted(["discard 13B", "discard 5R", "discard 6R", "lay off 5R on 0"])
    play(env, "lay off 5R on 0")
    # laying off the 6R would leave the 13B alone, which may not be discarded
    assert legal(env) == ["discard 13B", "discard 6R"]
    assert_illegal(env, "lay off 6R on 0")
    play(env, "discard 6R")  # one card left, and not the last: the turn ends with it
    d = desc(env)
    assert d["hand_sizes"][P(1)] == 1 and d["current"] == P(2) and d["round"] == 11


def test_round_11_going_out_by_laying_off_ends_the_game():
    env = round11_buy_env(draw="6Y")  # 5R 6R 6Y: 6R fits once 5R is laid off; 6Y does not
    assert sorted(hand(env, 1)) == ["5R", "6R", "6Y"]
    play(env, "lay off 5R on 0")
    assert legal(env) == ["discard 6R", "discard 6Y"]  # laying off 6R would leave 6Y alone
    env = round11_buy_env(penalty_card="6R", draw="5Y")
    play(env, "lay off 5R on 0")
    play(env, "lay off 6R on 0", "lay off 5Y on 1")
    d = desc(env)
    assert d["phase"] == "game_over" and d["round_penalties"][0][P(1)] == 0


# ============================================================ Penalties and game end
def test_penalty_points_one_to_nine_score_5_ten_to_fourteen_10_rook_25():
    hand0 = ["1R", "2Y", "3G", "4B", "5R", "6Y", "7G", "8B", "9R", "10Y", "11G", "ROOK"]  # 45 + 20 + 25
    hand1 = ["10R", "11Y", "12G", "13B", "14R", "12Y", "13G", "14B", "10B", "11R", "ROOK", "ROOK"]  # 100 + 50
    env = start(3, 1, 2, [hand0, hand1, None], "14Y", ["2B"], max_turns_per_round=1)
    hand2 = hand(env, 2)
    assert "ROOK" not in hand2
    pass_turn(env)
    pens = desc(env)["round_penalties"]
    assert pens == [{P(0): 90, P(1): 150, P(2): 5 * sum(int(c[:-1]) <= 9 for c in hand2)
                     + 10 * sum(int(c[:-1]) >= 10 for c in hand2)}]


@pytest.mark.parametrize("scores, winners", [
    ((100, 0, 50), [0]),  # 100, 150, 125
    ((150, 0, 75), [0, 1, 2]),  # 150, 150, 150: ties share the win
    ((200, 0, 10), [2]),  # 200, 150, 85
    ((150, 0, 100), [0, 1]),  # 150, 150, 175
], ids=["seat0_wins", "three_way_tie", "seat2_wins", "two_way_tie"])
def test_game_end_after_round_11_lowest_total_wins(scores, winners):
    env = round11_env("5R", scores=list(scores), reward_mode="win")
    draw_stock(env)
    play(env, "meld run R 1 4", "meld run Y 1 4", "meld set 7 RYG", "meld set 9 RYG", "lay off 5R on 0")
    d = desc(env)
    assert d["round_penalties"] == [{P(0): 0, P(1): 150, P(2): 75}]
    assert d["phase"] == "game_over" and d["round"] == 11
    assert env.unwrapped.engine.winners(env.unwrapped.game_state) == winners
    assert env.rewards == {P(i): 1.0 if i in winners else -1.0 for i in range(3)}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.unwrapped.legal_actions_text() == []
    for agent in env.possible_agents:
        assert not env.observe(agent)["action_mask"].any()


# ============================================================ Stock exhaustion, dead rounds, turn cap
def exhausted_stock_env(seed):
    """Four turns passed (the pile holds 5 cards), then the stock emptied; nobody may buy, so
    that ``draw stock`` draws at once."""
    env = start(3, 1, 2, [None] * 3, "14B", ["2G", "6Y", "8R", "10B"], seed=seed, max_buys_per_round=0)
    for _ in range(4):
        pass_turn(env)
    empty_the_stock(env)
    return env


def test_stock_exhaustion_reshuffles_the_discard_pile_less_its_top():
    env = exhausted_stock_env(seed=1)
    assert desc(env)["discard"] == ["14B", "2G", "6Y", "8R", "10B"]
    d = desc(draw_from_reshuffled_stock(exhausted_stock_env))
    assert d["stock_size"] == 3 and d["round"] == 1


def test_dead_round_when_the_reshuffle_gives_no_cards():
    env = going_out_env("13G", reward_mode="penalty")
    empty_the_stock(env)
    assert desc(env)["discard"] == ["14B"]
    play(env, "draw stock")  # no buy question: the stock could not give both cards
    d = desc(env)
    assert d["round_penalties"] == [{P(0): penalty(GOER), P(1): 100, P(2): 80}]
    assert (d["round"], d["dealer"], d["current"], d["turns"]) == (2, 0, P(1), 0)
    assert env.rewards == pytest.approx({P(0): -penalty(GOER) / 100, P(1): -1.0, P(2): -0.8})


def test_turn_cap_ends_the_round_dead_scoring_every_hand_and_buys_are_not_turns():
    env = start(3, 1, 2, [GOER, KEEPER1, KEEPER2], "14B", ["13G", "2B", "4R"], max_turns_per_round=2)
    assert draw_stock(env) == [1, 2]
    play(env, "discard 13G")
    assert draw_stock(env, buyer=2) == [2]  # seat 2 buys the 13G (and the 2B): not a turn
    d = desc(env)
    assert (d["turns"], d["round"]) == (2, 1)
    play(env, "discard 4R")  # the second turn ends: a dead round, bought cards included
    d = desc(env)
    assert d["round_penalties"] == [{P(0): penalty(GOER), P(1): 100, P(2): 80 + 10 + 5}]
    assert (d["round"], d["turns"]) == (2, 0)
    assert not any(env.truncations.values()) and not any(env.terminations.values())


# ============================================================ Notation
@pytest.mark.parametrize("n, size", [(3, 5515), (4, 6587), (5, 7491)])
def test_action_text_round_trips_for_every_id(n, size):
    raw = toonerville_rook_v0.raw_env(num_players=n)
    assert raw.action_space(P(0)).n == size
    texts = [raw.action_to_text(a) for a in range(size)]
    assert len(set(texts)) == size
    for a, text in enumerate(texts):
        assert raw.text_to_action(text) == a


def test_action_ids_follow_the_documented_layout():
    raw = toonerville_rook_v0.raw_env(num_players=4)
    blocks = {name: (b.start, b.size) for name, b in raw.layout.blocks.items()}
    assert blocks == {
        "buy": (2, 2), "discard": (4, 57), "meld_set": (61, 14 * 189), "meld_run": (2707, 264),
        "lay_off": (2971, 32 * 57), "swap": (4795, 32 * 56),
    }
    assert raw.action_to_text(0) == "draw stock" and raw.action_to_text(1) == "draw discard"
    assert raw.text_to_action("buy") == 2 and raw.text_to_action("pass") == 3
    assert raw.text_to_action("discard 1R") == 4 and raw.text_to_action("discard 14B") == 4 + 55
    assert raw.text_to_action("discard ROOK") == 4 + 56
    assert raw.text_to_action("lay off 7R on 2") == 2971 + 2 * 57 + 6
    assert raw.text_to_action("lay off ROOK on 0") == 2971 + 56
    assert raw.text_to_action("swap 7R on 2") == 4795 + 2 * 56 + 6
    assert toonerville_rook_v0.raw_env(num_players=3).layout.blocks["meld_set"].size == 14 * 177


def test_card_text_round_trips():
    cs = toonerville_rook_v0.raw_env(num_players=3).engine.card_set
    assert [cs.format(f) for f in range(57)] == [f"{k}{c}" for c in COLOURS for k in range(1, 15)] + ["ROOK"]
    for f in range(57):
        assert cs.parse(cs.format(f)) == f == face_id(cs.format(f))
    for variant, face in (("rook", 56), ("Rook", 56), ("5r", 4), (" 14g ", 2 * 14 + 13), ("1b", 42)):
        assert cs.parse(variant) == face
    for bad in ("JK", "0R", "15R", "5X", "R5", "7H", "", "ROOKS"):
        with pytest.raises(ValueError):
            cs.parse(bad)


@pytest.mark.parametrize("variant, canonical", [
    ("Draw Stock", "draw stock"),
    ("DRAW DISCARD", "draw discard"),
    ("BUY", "buy"),
    ("Pass", "pass"),
    ("discard 5r", "discard 5R"),
    ("discard rook", "discard ROOK"),
    ("meld set 5 yrr", "meld set 5 RRY"),
    ("meld set 12 br +2", "meld set 12 RB +2"),
    ("meld set 5 GYR", "meld set 5 RYG"),
    ("meld run g 11 14", "meld run G 11 14"),
    ("  lay   off 7r on 2 ", "lay off 7R on 2"),
    ("lay off rook on 0", "lay off ROOK on 0"),
    ("SWAP 7r ON 2", "swap 7R on 2"),
])
def test_lenient_action_parsing(variant, canonical):
    raw = toonerville_rook_v0.raw_env(num_players=4)
    assert raw.text_to_action(variant) == raw.text_to_action(canonical)
    assert raw.action_to_text(raw.text_to_action(variant)) == canonical


@pytest.mark.parametrize("text", [
    "", "draw", "draw pile", "draw discard 2", "buy 5R", "discard", "discard 15R", "discard 0R", "discard 5X",
    "discard JK", "discard 7H", "go out 5R", "meld set 5", "meld set 5 RY", "meld set 5 RRRR", "meld set 5 RYGBR",
    "meld set 5 +3", "meld set 5 R +3", "meld set 5 RY +0", "meld set 15 RYG", "meld set T RYG",
    "meld run G 3 5", "meld run B 12 1", "meld run B 14 3", "meld run X 3 6", "meld run G 3",
    "lay off 7R", "lay off 7R on 24", "lay off 7R on x", "swap ROOK on 0", "swap 7R on 24",
])
def test_malformed_action_text_raises_value_error_naming_it(text):
    raw = toonerville_rook_v0.raw_env(num_players=3)  # 24 meld slots: 0..23; three copies of a face
    with pytest.raises(ValueError) as info:
        raw.text_to_action(text)
    assert repr(text) in str(info.value)


# ============================================================ Scenario options
@pytest.mark.parametrize("options, message", [
    ({"deck": ROOK_DECK * 2}, "deck"),  # two decks for three players
    ({"deck": ROOK_DECK * 3 + ["ROOK"]}, "ROOK"),
    ({"deck": ROOK_DECK * 3 + ["5R"]}, "5R"),
    ({"deck": ROOK_DECK * 2 + ROOK_DECK[:-1] + ["5R"]}, "deck"),
    ({"deck": ROOK_DECK * 2 + ROOK_DECK[:-1] + ["JK"]}, "JK"),
    ({"round": 0}, "round"),
    ({"round": 12}, "round"),
    ({"dealer": 3}, "dealer"),
    ({"scores": [0, 0]}, "scores"),
    ({"scores": [0, 0, 0, 0]}, "scores"),
])
def test_bad_scenario_options_raise_value_error(options, message):
    env = toonerville_rook_v0.env(num_players=3)
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0, options=options)


def test_scenario_options_round_dealer_scores_honoured():
    env = toonerville_rook_v0.env(num_players=4)
    env.reset(seed=4, options={"round": 10, "dealer": 3, "scores": [10, 20, 30, 40]})
    d = desc(env)
    assert (d["round"], d["dealer"], d["current"]) == (10, 3, P(0))
    assert (d["contract"]["sets"], d["contract"]["runs"]) == (0, 4)
    assert d["hand_sizes"] == {P(i): 16 for i in range(4)}
    assert d["scores"] == {P(0): 10, P(1): 20, P(2): 30, P(3): 40}
    assert d["round_penalties"] == []  # skipped rounds have no entry


@pytest.mark.parametrize("config, word", [
    ({"max_buys_per_round": -1}, "max_buys_per_round"), ({"max_table_melds": 0}, "max_table_melds"),
    ({"max_turns_per_round": 0}, "max_turns_per_round"), ({"reward_mode": "score"}, "reward_mode"),
    ({"num_decks": 2}, "num_decks"),
    ({"max_table_melds": 2**31}, "max_table_melds"), ({"max_buys_per_round": 10**9}, "max_buys_per_round"),
    ({"max_turns_per_round": 1_000_001}, "max_turns_per_round"),
])
def test_bad_configuration_raises_value_error(config, word):
    with pytest.raises(ValueError, match=word):
        toonerville_rook_v0.env(num_players=4, **config)


# ============================================================ Illegal actions and the mask
def test_illegal_action_names_action_and_agent_and_changes_nothing():
    env = round1_env(["5R", "5Y", "5G", "9R", "9Y", "9G"] + JUNK, upcard="14B")
    for attempt in ("discard 5R", "meld set 5 RYG", "buy", "pass", "lay off 5B on 0"):
        assert_illegal(env, attempt)
    play(env, "draw stock")
    for attempt in ("draw stock", "discard 5R", "meld set 5 RYG"):  # the buy question first
        assert_illegal(env, attempt)
    answer_buy_question(env)
    for attempt in ("draw stock", "buy", "pass", "discard 14B", "meld run G 1 4", "swap 5R on 0"):
        assert_illegal(env, attempt)
    assert issubclass(IllegalActionError, ValueError)


def test_action_mask_matches_legal_actions():
    env = swap_env(["12G", "7R", "7Y", "4R", "4Y", "4G"] + SWAP_JUNK1)
    play(env, "swap 12G on 2")
    assert env.unwrapped.game_state.phase == Phase.PLAY
    texts = mask_texts(env, P(1))
    assert texts == legal(env) and texts
    assert mask_texts(env, P(0)) == [] and mask_texts(env, P(2)) == []
