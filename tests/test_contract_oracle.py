"""The Contract Rummy action mask against an independent oracle (``tests/contract_oracle.py``).

The oracle is written from the rules pages (docs/rules/README.md,
docs/rules/contract_rummy.md) alone and reads only the env's state; it decides "no dead
ends" by brute force. Here:

- random games (3, 4, 5 and 8 players, short rounds, random starting deal), played by a
  policy that prefers deep draws, melds, swaps and lay-offs whenever they are legal: at
  every step the env's legal action texts must equal the oracle's. Within a turn the
  oracle also follows the turn in its own representation from the turn's start (its own
  hand, table, discard-rule face, deep-draw obligation and owed jokers) and checks that the
  env's state agrees after each action, so the env's bookkeeping is checked as well;
- most games start on a stacked deck (``stacked_deck``: most seats hold nearly their
  contract, with jokers, and the missing cards and the naturals the jokers stand for come
  soon), at a random deal, and last two deals; two items use other configurations (two
  decks and two jokers for 4 players, few meld slots, shallow deep draws);
- counts of the mechanics reached (going down, lay-offs, swaps, deep draws offered and
  refused, deal 7 melds, ...), asserted per test item; the deal 7 shortcut of the oracle
  is cross-checked against its plain search on a few states per item;
- hand-built scenarios (``reset(options={"deck", "dealer", "round"})``) for tricky cases,
  and regression tests for the env bug the oracle found.
"""

from __future__ import annotations

import random
import time
from collections import Counter

import pytest
from contract_oracle import (
    ContractOracle,
    OracleBudgetExceeded,
    Situation,
    follow,
    situation,
)
from scenario import arrange_deck
from scenario import contract_rummy_cards as game_cards

from rummy_env import contract_rummy_v0

RANKS = "A23456789TJQK"
SUITS = "CDHS"


# ---------------------------------------------------------------------------- checking one state
def mismatch_message(raw, env_set: set, oracle_set: set, note: str = "") -> str:
    d = raw.describe()
    agent = d["current"]
    lines = [
        f"Contract Rummy mask != oracle {note}",
        raw.render_text(),
        f"hand of {agent}: {' '.join(d['hands'][agent]) if agent else '-'}",
        "table: " + "; ".join(f"{m['slot']}:{m['kind']}:{' '.join(m['cards'])}" for m in d["melds"]),
        f"pile top (top last): {' '.join(d['discard'][-6:])}",
        (f"taken {d['taken_from_discard']} must {d['must_place']} owed {d['wilds_owed']} "
         f"left {d['contract_left']} down_turn {raw.game_state.down_turn} turns {d['turns']}"),
        f"env only:    {sorted(env_set - oracle_set)}",
        f"oracle only: {sorted(oracle_set - env_set)}",
    ]
    return "\n".join(lines)


def state_message(raw, mine, theirs) -> str:
    return (f"the env's turn state differs from the oracle's own following of the turn\n"
            f"{raw.render_text()}\noracle: {mine}\nenv:    {theirs}")


class Checker:
    """Compares the env's mask with the oracle at every step, following each turn."""

    def __init__(self, env, node_budget: int = 200_000) -> None:
        self.env = env
        self.raw = env.unwrapped
        self.node_budget = node_budget
        self.tracked = None  # the oracle's own turn state within a turn
        self.stats = Counter()

    def reset_tracking(self) -> None:
        self.tracked = None

    def check(self) -> tuple[set, Situation]:
        """Assert mask == oracle for the player to act; returns the legal texts."""
        raw = self.raw
        sit = situation(raw)
        if sit.phase in ("play", "going_down") and self.tracked is not None:
            if self.tracked != sit.turn:
                raise AssertionError(state_message(raw, self.tracked, sit.turn))
            sit = Situation(sit.phase, sit.config, sit.pile, self.tracked)
        elif sit.phase in ("play", "going_down"):
            self.stats["untracked_play_states"] += 1
        env_set = set(raw.legal_actions_text())
        oracle = ContractOracle(sit.config, self.node_budget)
        try:
            oracle_set = oracle.legal(sit)
        except OracleBudgetExceeded:
            self.stats["oracle_budget_exceeded"] += 1
            return env_set, sit
        self.stats["states_checked"] += 1
        if sit.config.down_means_out and self.stats["deal7_cross_checked"] < 8:
            # the deal 7 shortcut of the oracle's search against the plain search
            try:
                plain = ContractOracle(sit.config, 5_000, shortcuts=False).legal(sit)
            except OracleBudgetExceeded:
                self.stats["deal7_cross_check_too_big"] += 1
            else:
                assert plain == oracle_set, mismatch_message(raw, plain, oracle_set, "(oracle without shortcuts)")
                self.stats["deal7_cross_checked"] += 1
        if env_set != oracle_set:
            raise AssertionError(mismatch_message(raw, env_set, oracle_set))
        self.count(sit, env_set)
        return env_set, sit

    def count(self, sit: Situation, legal: set) -> None:
        s = self.stats
        kinds = Counter(t.split()[0] if not t.startswith("draw discard ") else "deep" for t in legal)
        if sit.phase == "draw":
            deep_possible = min(sit.config.max_deep_draw, len(sit.pile))
            offered = kinds["deep"]
            s["deep_offered"] += offered > 0
            s["deep_refused"] += offered < deep_possible - 1
            s["deep_offered_to_down_player"] += offered > 0 and sit.turn.down
        else:
            s["layoff_offered"] += kinds["lay"] > 0
            s["swap_offered"] += kinds["swap"] > 0
            s["meld_offered"] += kinds["meld"] > 0
            s["deal7_meld_offered"] += kinds["meld"] > 0 and sit.config.down_means_out
            s["discard_blocked_by_taken_rule"] += (
                sit.turn.taken is not None and not sit.turn.going_down and sit.turn.must is None
                and sit.turn.owed == 0 and f"discard {sit.turn.taken}" not in legal)
            s["obligation_pending"] += sit.turn.must is not None or sit.turn.owed > 0
            s["too_few_slots_to_go_down"] += (not sit.turn.down and sit.phase == "play"
                                              and len(sit.turn.table) + sum(sit.config.contract) > sit.config.max_slots)

    def step(self, text: str, sit: Situation) -> None:
        """Play ``text`` and follow it in the oracle's representation."""
        raw = self.raw
        agent = raw.possible_agents[raw.game_state.current]
        d_before = raw.describe(agent)
        seat = raw.possible_agents.index(agent)
        round_before = raw.game_state.round
        kind = "deep" if text.startswith("draw discard ") else text.split()[0]
        self.stats[f"took_{kind}"] += 1
        self.env.step(raw.text_to_action(text))
        d = raw.describe(agent)
        if raw.game_state.round != round_before or d["phase"] == "game_over":
            self.stats["rounds_ended"] += 1
            self.stats["went_out"] += raw.game_state.round_penalties[-1][seat] == 0
            self.stats["went_down"] += kind == "meld" and not sit.turn.down  # deal 7, or going out
            self.tracked = None
            return
        if not sit.turn.down and raw.game_state.down_turn[seat] >= 0:
            self.stats["went_down"] += 1
        drawn = None
        if text == "draw stock":
            diff = Counter(d["hands"][agent]) - Counter(d_before["hands"][agent])
            assert sum(diff.values()) == 1, diff
            drawn = next(iter(diff))
        new = follow(ContractOracle(sit.config, self.node_budget), sit, text, drawn)
        self.tracked = new if d["current"] == agent and d["phase"] != "draw" else None


def choose(rng: random.Random, legal: set) -> str:
    """A policy that plays the rare mechanics whenever they are offered."""
    by: dict[str, list[str]] = {}
    for t in sorted(legal):
        k = "deep" if t.startswith("draw discard ") else t.split()[0]
        by.setdefault(k, []).append(t)
    if "draw discard" in legal:
        by["top"] = ["draw discard"]
    for k, p in (("deep", 0.6), ("meld", 0.95), ("swap", 0.8), ("lay", 0.9), ("top", 0.4)):
        if k in by and rng.random() < p:
            return rng.choice(by[k])
    if "discard" in by and rng.random() < 0.8:
        return rng.choice(by["discard"])
    return rng.choice(sorted(legal))


# ---------------------------------------------------------------------------- decks
CONTRACTS = {1: (10, 2, 0), 2: (10, 1, 1), 3: (10, 0, 2), 4: (10, 3, 0), 5: (12, 2, 1), 6: (12, 1, 2), 7: (12, 0, 3)}


def build_deck(num_players, dealer, hands, upcard, stock=(), num_decks=None, num_jokers=None) -> list[str]:
    """The exact deck order dealing ``hands`` (by seat), then ``upcard``, then ``stock``."""
    return arrange_deck(game_cards(num_players, num_decks, num_jokers), num_players, dealer, hands, upcard, stock)


def _take(pool: Counter, card: str) -> bool:
    if pool[card] > 0:
        pool[card] -= 1
        return True
    return False


def near_contract_hand(rng: random.Random, pool: Counter, round_no: int, fill) -> tuple[list[str], list[str], list[str]]:
    """A hand holding most of the deal's contract (jokers now and then), and the cards
    missing from it, and the naturals its jokers stand for (to swap); all out of ``pool``."""
    size, sets, runs = CONTRACTS[round_no]
    melded: list[str] = []
    swappable: list[str] = []
    for _ in range(sets):
        rank = rng.choice(RANKS)
        suits = [s for s in SUITS if pool[rank + s] > 0]
        rng.shuffle(suits)
        want = rng.choice([3, 3, 4])
        for s in suits[:want]:
            melded.append(rank + s)
            pool[rank + s] -= 1
        if len(suits) < want and _take(pool, "JK"):
            melded.append("JK")
    used_spans: list[tuple[str, int, int]] = []
    lengths = [4, 4, 5] if round_no == 7 else [rng.choice([3, 3, 4, 5]) for _ in range(runs)]
    for length in lengths[:runs]:
        for _ in range(20):
            suit = rng.choice(SUITS)
            low = rng.randint(0, 14 - length)
            high = low + length - 1
            if not any(s == suit and lo - 1 <= high and low <= h + 1 for s, lo, h in used_spans):
                break
        used_spans.append((suit, low, high))
        joker_at = rng.randint(low, high) if rng.random() < 0.6 else -1
        for p in range(low, high + 1):
            card = RANKS[p % 13] + suit
            if p != joker_at and _take(pool, card):
                melded.append(card)
            elif _take(pool, "JK"):
                melded.append("JK")
                if _take(pool, card):
                    swappable.append(card)
    rng.shuffle(melded)
    missing = [melded.pop() for _ in range(min(len(melded), 1 if round_no == 7 else rng.choice([1, 1, 2])))]
    hand = melded[:size]
    missing += melded[size:]
    while len(hand) < size:
        hand.append(fill())
    return hand, missing, swappable


def stacked_deck(rng: random.Random, n: int, round_no: int, dealer: int, num_decks=None, num_jokers=None) -> list[str]:
    """A deck where most seats hold nearly the contract and their missing cards are the
    upcard (the first player's) and the first stock cards, in turn order, followed by the
    naturals their jokers stand for (so going down, lay-offs, swaps and deep draws come
    often); the rest is shuffled."""
    pool = Counter(game_cards(n, num_decks, num_jokers))
    hands: list[list[str]] = [[] for _ in range(n)]
    missing: list[str] = []
    swappable: list[tuple[int, str]] = []
    size = CONTRACTS[round_no][0]

    def fill() -> str:
        """A random card for a hand: from the pool, else one set aside for the stock top."""
        if sum(pool.values()):
            card = rng.choice(sorted(c for c, k in pool.items() if k > 0))
            pool[card] -= 1
            return card
        return swappable.pop()[1] if swappable else missing.pop()

    for j in range(n):
        seat = (dealer + 1 + j) % n
        if j == 0 or rng.random() < 0.6:
            hands[seat], miss, swap = near_contract_hand(rng, pool, round_no, fill)
            missing += miss
            swappable += [(seat, c) for c in swap]
        else:
            hands[seat] = [fill() for _ in range(size)]
    # most naturals that jokers stand for go to another player's hand (to swap later)
    later = []
    for owner, card in swappable:
        others = [q for q in range(n) if q != owner]
        if rng.random() < 0.7:
            q = rng.choice(others)
            k = rng.randrange(size)
            pool[hands[q][k]] += 1
            hands[q][k] = card
        else:
            later.append(card)
    swappable = later
    rest = [c for c, k in sorted(pool.items()) for _ in range(k)]  # the missing cards are out
    rng.shuffle(rest)
    top = missing + swappable + rest
    return build_deck(n, dealer, hands, top[0], top[1:], num_decks, num_jokers)


def play_games(n: int, seeds, max_turns: int, deals: int = 7, **config) -> Counter:
    """Play one game per seed (from a random deal, most often on a stacked deck, for at most
    ``deals`` deals), checking every step."""
    env = contract_rummy_v0.env(num_players=n, max_turns_per_round=max_turns, **config)
    checker = Checker(env)
    for seed in seeds:
        rng = random.Random(seed * 7919 + n)
        round_no = rng.choice([1, 2, 3, 4, 5, 6, 7, 7, 7])
        options = {"round": round_no}
        if rng.random() < 0.8:
            options["dealer"] = dealer = rng.randrange(n)
            options["deck"] = stacked_deck(rng, n, round_no, dealer, config.get("num_decks"), config.get("num_jokers"))
        env.reset(seed=seed, options=options)
        checker.reset_tracking()
        checker.stats["games"] += 1
        raw = env.unwrapped
        for agent in env.agent_iter():
            _, _, term, trunc, _ = env.last(observe=False)
            if term or trunc:
                env.step(None)
                continue
            if raw.game_state.round >= round_no - 1 + deals:
                break
            legal, sit = checker.check()
            checker.step(choose(rng, legal), sit)
    return checker.stats


# ---------------------------------------------------------------------------- random games
MECHANICS = ("went_down", "layoff_offered", "swap_offered", "deep_offered", "deep_refused",
             "deal7_meld_offered", "took_swap", "took_lay", "deep_offered_to_down_player",
             "discard_blocked_by_taken_rule", "obligation_pending", "deal7_cross_checked")
GAMES = {3: 45, 4: 45, 5: 36, 8: 18}


@pytest.mark.parametrize("chunk", [0, pytest.param(1, marks=pytest.mark.slow)])
@pytest.mark.parametrize("n", [3, 4, 5, 8])
def test_mask_equals_oracle_in_random_games(n, chunk):
    start = time.perf_counter()
    games = GAMES[n]
    first = 1000 * n + chunk * games
    stats = play_games(n, range(first, first + games), max_turns=4 * n + 8, deals=2)
    print(f"{n} players chunk {chunk}: {dict(stats)} in {time.perf_counter() - start:.1f}s")
    assert stats["oracle_budget_exceeded"] == 0
    missing = [m for m in MECHANICS if stats[m] == 0]
    assert not missing, f"mechanics not reached: {missing} ({dict(stats)})"


@pytest.mark.parametrize(
    "n,config",
    [
        (4, {"num_decks": 2, "num_jokers": 2, "max_deep_draw": 6, "max_table_melds": 5}),
        (3, {"max_table_melds": 3, "max_deep_draw": 3}),
    ],
)
def test_mask_equals_oracle_other_configurations(n, config):
    start = time.perf_counter()
    stats = play_games(n, range(5000, 5030), max_turns=4 * n + 8, deals=2, **config)
    print(f"{n} players {config}: {dict(stats)} in {time.perf_counter() - start:.1f}s")
    assert stats["oracle_budget_exceeded"] == 0
    wanted = ("went_down", "layoff_offered", "deep_offered", "deep_refused")
    if config["max_table_melds"] < 2 * n:
        wanted += ("too_few_slots_to_go_down",)
    missing = [m for m in wanted if stats[m] == 0]
    assert not missing, f"mechanics not reached: {missing} ({dict(stats)})"


# ---------------------------------------------------------------------------- scenarios
def start(n: int, round_no: int, dealer: int, hands, upcard: str, stock=(), **config):
    env = contract_rummy_v0.env(num_players=n, **config)
    deck = build_deck(n, dealer, [h.split() if isinstance(h, str) else h for h in hands], upcard,
                      list(stock), config.get("num_decks"), config.get("num_jokers"))
    env.reset(seed=0, options={"deck": deck, "dealer": dealer, "round": round_no})
    return env


def checked(env) -> set:
    """The legal texts, after asserting that the env and the oracle agree on them."""
    raw = env.unwrapped
    sit = situation(raw)
    env_set = set(raw.legal_actions_text())
    oracle_set = ContractOracle(sit.config).legal(sit)
    assert env_set == oracle_set, mismatch_message(raw, env_set, oracle_set)
    return env_set


def play(env, *texts: str) -> set:
    """Play ``texts`` one by one, checking mask == oracle before each and after the last."""
    for text in texts:
        legal = checked(env)
        assert text in legal, f"{text!r} is not legal; legal: {sorted(legal)}\n{env.unwrapped.render_text()}"
        env.step(env.unwrapped.text_to_action(text))
    return checked(env)


def others_draw_and_discard(env, stock_cards) -> None:
    """Each of the next players draws from the stock and discards the card drawn."""
    for card in stock_cards:
        play(env, "draw stock", f"discard {card}")


def test_scenario_deal7_three_runs_must_use_every_card():
    hands = ["AC 2C 3C 4C 6D 7D 8D 9D TS JS QS KS", "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", "5C 7C 9C JC KC 2S 3S 4S 5S 7S 8S 9S"]
    # the upcard AS completes three runs with every card: going down is offered, but only
    # with melds that leave the rest meldable using every card
    env = start(3, 7, 2, hands, "AS")
    legal = play(env, "draw discard")
    assert {"meld run C A 4", "meld run D 6 9", "meld run S T A"} <= legal
    assert not {"meld run C A 3", "meld run C 2 4", "meld run S T K", "meld run S J A"} & legal
    legal = play(env, "meld run S T A", "meld run C A 4")
    assert legal == {"meld run D 6 9"}
    play(env, "meld run D 6 9")
    assert env.unwrapped.game_state.round == 0 or env.unwrapped.describe()["phase"] == "game_over"
    # the upcard JD leaves a card over whatever the runs: no going down at all
    env = start(3, 7, 2, hands, "JD")
    legal = play(env, "draw discard")
    assert not any(t.startswith("meld") for t in legal)
    # the stock card KD (same): no meld either
    env = start(3, 7, 2, hands, "JD", ["KD"])
    legal = play(env, "draw stock")
    assert not any(t.startswith("meld") for t in legal)


def test_scenario_deal7_runs_that_would_join_up():
    # 2S..KS and AS: thirteen spades make one run, never three apart: no going down
    hands = ["2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS", "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC"]
    env = start(3, 7, 2, hands, "AS")
    legal = play(env, "draw discard")
    assert not any(t.startswith("meld") for t in legal), sorted(legal)


def _swap_scenario(room: bool):
    """Five players (two decks, two jokers), deal 2 (1 set + 1 run). Seat 0 deep-draws the
    whole pile in its third turn and goes down with 9C 9D 9S (+ 9H unless ``room``) and the
    hearts A..K with a joker for 7H; in its fourth turn it draws 7H."""
    pile_cards = ["TH", "JH", "QH", "JK", "9S", "9H" if not room else "4C", "2C", "3C", "5C", "8C"]
    later = ["4S", "6S", "7S", "8S", "7H"]
    hands = ["AH 2H 3H 4H 5H 6H 8H 9H 9C 9D"] + [
        "2D 3D 4D 5D 6D 7D 8D TD JD QD", "2D 3D 4D 5D 6D 7D 8D TD JD QD",
        "KC KC QC QC JC JC TC TC AS AS", "KS KS QS QS JS JS TS TS 3S 3S"]
    env = start(5, 2, 4, hands, "KH", pile_cards + later)
    for turn in range(2):
        play(env, "draw stock", f"discard {pile_cards[5 * turn]}")
        others_draw_and_discard(env, pile_cards[5 * turn + 1:5 * turn + 5])
    legal = play(env, "draw discard 11")
    assert env.unwrapped.describe()["must_place"] == "KH"
    sets = "meld set 9 CDS" if room else "meld set 9 CDHS"
    assert sets in legal
    play(env, sets, "meld run H A K", "discard 8C")
    others_draw_and_discard(env, later[:4])
    return env, play(env, "draw stock")


def test_scenario_swapped_joker_with_no_room_is_not_offered():
    env, legal = _swap_scenario(room=False)
    d = env.unwrapped.describe()
    assert [m["cards"] for m in d["melds"]][1].count("JK") == 1
    # the set is full (4) and the run is full (13 cards): the joker could go nowhere
    assert "swap 7H on 1" not in legal
    assert legal == {"discard 2C", "discard 3C", "discard 5C", "discard 7H"}


def test_scenario_swapped_joker_with_room_must_be_laid_off():
    env, legal = _swap_scenario(room=True)
    assert "swap 7H on 1" in legal
    legal = play(env, "swap 7H on 1")
    assert legal == {"lay off JK on 0"}  # no discard until the joker is laid off
    legal = play(env, "lay off JK on 0")
    assert "discard 2C" in legal


def test_scenario_deep_draw_chain():
    # deal 2 (1 set + 1 run): seat 0 goes down with 7C 7D 7S and 5H 6H 7H, keeping 8H
    def game(keep: str):
        hands = [f"7C 7D 7S 5H 6H 7H {keep} 2C 4D QS", "2D 3D 5D 6D 8D 9D TD JD QD KD", "AC 3C 5C 6C 8C 9C TC JC QC AD"]
        env = start(3, 2, 2, hands, "4S", ["KC", "9H", "3S"])
        play(env, "draw stock", "meld set 7 CDS", "meld run H 5 7", "discard KC")
        others_draw_and_discard(env, ["9H", "3S"])
        return env, checked(env)

    env, legal = game("8H")
    # 9H (second from the top) fits only once 8H extends the run: offered
    assert "draw discard 2" in legal
    assert "draw discard 3" not in legal and "draw discard 4" not in legal  # KC, 4S fit nowhere
    legal = play(env, "draw discard 2")
    assert legal == {"lay off 8H on 1"}
    legal = play(env, "lay off 8H on 1", "lay off 9H on 1")
    assert "discard 3S" in legal
    env, legal = game("KH")
    assert "draw discard 2" not in legal


def test_scenario_discard_rule_leaves_only_the_taken_card():
    # deal 5 (2 sets + 1 run); seat 0 takes KD from the pile, which fits nowhere
    hands = ["7C 7D 7H 7S 9C 9D 9H 9S 2H 3H 4H 5H", "AC 2C 3C 4C 5C 6C 8C TC JC QC KC AD",
             "2D 3D 4D 5D 6D 8D TD JD QD AS 2S 3S"]
    env = start(3, 5, 2, hands, "KD")
    legal = play(env, "draw discard")
    assert "discard KD" not in legal
    legal = play(env, "meld set 7 CDHS", "meld set 9 CDHS")
    # the whole run would leave only KD, which may not be discarded: not offered
    assert "meld run H 2 5" not in legal
    assert {"meld run H 2 4", "meld run H 3 5"} <= legal
    legal = play(env, "meld run H 2 4")
    # laying off 5H would leave KD alone as well
    assert legal == {"discard 5H"}


def test_scenario_deep_drawn_card_only_swapped_in_is_not_placed():
    # deal 3 (2 runs): seat 0 is down with AC..5C and 9H JK JH QH (the joker is TH) and
    # keeps 7C; TH lies second from the top of the pile, under 8C. Swapping TH in for the
    # joker, then laying off the joker (6C), 7C and 8C on the clubs would empty the hand,
    # but a swap does not put the deep-drawn card on the table
    # (docs/rules/contract_rummy.md#deep-draws), and TH fits nowhere else: the deep draw
    # is not offered.
    hands = ["AC 2C 3C 4C 5C 9H JK JH QH 7C", "2D 3D 4D 5D 6D 8D 9D TD JD QD", "2S 3S 4S 5S 6S 7S 8S 9S TS JS"]
    env = start(3, 3, 2, hands, "AD", ["KD", "TH", "8C"])
    play(env, "draw stock", "meld run C A 5", "meld run H 9 Q", "discard KD")
    others_draw_and_discard(env, ["TH", "8C"])
    legal = checked(env)
    assert "draw discard" in legal and "draw discard 2" not in legal


def test_scenario_deep_drawn_joker_and_swapped_joker():
    # five players (two jokers), deal 2: seat 0 is down with 7C 7D 7S and 5H JK 7H 8H (the
    # joker is 6H); the pile holds a joker fourth from the top, under 6H. The deep-drawn 6H
    # could only be swapped in (no placement): "draw discard 3" is not offered.
    hands = ["7C 7D 7S 5H JK 7H 8H 2C 3D 4S", "2D 4D 5D 6D 8D 9D TD JD KD AD", "2D 4D 5D 6D 8D 9D TD JD KD AD",
             "KC 8C QC 9C JC JC TC TC AS AS", "KS KS QS QS JS JS TS TS 3S 3S"]
    env = start(5, 2, 4, hands, "5C", ["KC", "JK", "6H", "QD", "QC"])
    play(env, "draw stock", "meld set 7 CDS", "meld run H 5 8", "discard KC")
    others_draw_and_discard(env, ["JK", "6H", "QD", "QC"])
    legal = checked(env)
    assert "draw discard 4" in legal and "draw discard 3" not in legal
    legal = play(env, "draw discard 4", "swap 6H on 1")
    assert legal == {"lay off JK on 0", "lay off JK on 1"}
    # Two obligations on jokers (the deep-drawn face JK, one joker per swap): each takes
    # its own joker (docs/rules/contract_rummy.md#obligations), so after one lay-off the
    # other must follow.
    legal = play(env, "lay off JK on 0")
    assert legal == {"lay off JK on 1"}
    legal = play(env, "lay off JK on 1")
    assert "discard 2C" in legal and "discard JK" not in legal


# ---------------------------------------------------------------------------- env bugs found
def test_regression_deal7_last_run_must_use_every_card():
    """Found by the oracle at 8156cfe (fixed in b418bfe): in deal 7 the env offered a last
    run that left cards in hand when they could then be laid off (and offered discards
    after it); docs/rules/contract_rummy.md#deal-7: the three runs use every card, no
    laying off in deal 7."""
    hands = ["5C KC 4D 6D 8D AH JH 2S 3S 4S 8S JS", "4H 5H 6H 7H JD QD KD 6C 7C 8C 9C TC",
             "AC 3C 4C AD 2D 3H 8H 9H KH 7S QS KS"]
    env = start(3, 7, 0, hands, "JK")
    legal = play(env, "draw discard", "meld run H 4 7", "meld run D J K")
    # the clubs 6..T and the joker must all go in the last run
    assert legal == {"meld run C 5 T", "meld run C 6 J"}, sorted(legal)


def test_regression_deal7_runs_kept_apart_with_every_card():
    """The same bug at the first meld (8156cfe): 'meld run D 6 T' was offered since
    2D..5D could follow as '2 4' plus a lay-off of 5D; with every card used, 2D..5D would
    join 6..T."""
    hands = ["2C 3C 4C QC KC TD AH 6H AS 2S 9S KS", "4C 5C 6C 7C 2D 3D 4D 5D 8D 9D TD JK",
             "3C 5C JC 7D KD 2H 3H 7H QH KH 8S 9S", "9C KC AD 4D JD 4H 4H 8H TH QH 3S JS",
             "6C 9C JC QC 3D 6D 6D AS TS JS QS KS"]
    env = start(5, 7, 0, hands, "JK")
    legal = play(env, "draw discard")
    assert "meld run D 6 T" not in legal and "meld run D 2 4" not in legal
    assert {"meld run D 2 5", "meld run C 4 7"} <= legal
