"""Invariants of ``toonerville_rook_v0`` checked during random play of 2,004 complete games.

Games (every one complete: 11 rounds, each played to its end), for 3, 4 and 5 players:
- 1,980 games with small turn caps, in parametrised chunks of 30 (22 chunks per player
  count: many small items, which pytest-xdist spreads evenly): chunk k plays with
  ``max_turns_per_round`` = ``SHORT_CAPS[k % 3]`` = 2, 2, 1 (1,350 games at 2 turns a
  round, ~63 steps a game with the buy questions; 630 at 1 turn, ~32 steps), and chunks
  k % 5 == 4 with ``max_buys_per_round=1``. The cap counts every player's turns, so most
  rounds end at the cap as dead rounds; the first turns of a round already go down (12+
  cards of 3-5 Rook decks often hold the contract), meld further and lay off in the same
  turn, and ask many buy questions. The checks cost ~4 times the env's own play (mostly
  the shared checks: the hidden-card shuffle re-deals and re-observes, the illegal-action
  check fingerprints the state), so these caps are what fit the time budget; the 1-turn
  games (a third) buy the budget for the rest.
- 18 games with 3 turns per player a round (``MID_TURNS_PER_PLAYER``: 9 / 12 / 15 turns),
  6 per player count: lay-offs on other players' melds, swaps, the odd going out.
- 3 games with the default cap of 400 turns (one per player count; games are added, up to
  ``MAX_LONG_GAMES``, until each mechanic below was seen; ``LONG_SEED`` picks first games
  that see them all): rounds played to their end. The first game's policy hoards until
  the stock has run out once (buys a quarter of the cards offered, never melds), so the
  discard pile is reshuffled into the stock (also in a buy question); players go out by
  discarding, by melding and by laying off their last card, players not yet down swap a
  Rook and go down with it, players down swap, and round 11 is gone out of by melding.
- 3 games in ``test_checks_leave_no_trace_and_games_are_deterministic`` (below).

Policy (biased, so that the mechanics happen; its own RNG, apart from the checks' RNGs):
asked to buy, the agent buys with probability ``P_BUY`` = 0.3; a legal swap is taken with
probability ``P_SWAP`` = 0.8; else a meld or a lay-off with probability ``P_SPECIAL`` = 0.9
(so a going down, once started, is completed: the env offers no meld that cannot be);
else, with probability ``P_HEURISTIC`` = 0.8, a "keep what fits" move: take the top
discard if it pairs with the hand toward the round's contract and the agent is not down,
else draw from the stock; discard the card that fits the hand least (never a Rook); else a
uniformly random legal action.

Measured on this machine: the file takes 50-57 s wall and 98-114 CPU-seconds under
``pytest -n 2`` (idle machine; ~95 CPU-seconds in one process), the short games ~80 % of
it. In the 2,001 games of the three random-games tests: 121,075 agent steps checked,
33,888 of them buy questions (28 %: every check below runs for the agent asked to buy as
for the turn owner); 10,029 purchases (3,569 penalty-card exchanges); 1,303 goings down,
215 further melds after going down, 1,026 lay-offs (39 Rooks, 21 of them on sets), 59
swaps (31 by players not yet down), 36 goings out (24 by a discard, 5 by a meld, 7 by a
lay-off; 3 in round 11), 21,975 dead rounds, 4 reshuffles (2 in a buy question); 17,529
masks compared with the oracle (3,467 buy questions, 1,526 goings down, 81 masks with
swaps, 210 with lay-offs, 4,327 in round 11; none over its node budget; 69 of its pruned
searches cross-checked against the plain search), 26,631 actions looked ahead.

Checked at EVERY agent step (every iteration of ``agent_iter``, the final ``step(None)`` of
terminated agents included), for the turn owner's decisions and the buy questions alike:

(a) card conservation (``check_cards``): per face, hands + stock + discard pile + table
    melds equal the game's cards; ``discard_counts``, ``hand_sizes``; the cards publicly
    ``known`` to be in a hand are in it. Every table meld is valid for Rook
    (``engine.solver.is_valid``, and from the rules text: a set is 3+ cards of one number,
    a run 4+ places of one colour inside 1..14 with one natural per number and a Rook for
    every other place; a natural in each; the oracle re-reads the melds from
    ``describe()`` and checks them too); its ``cards`` are its naturals plus one Rook per
    wild. Melds only grow between steps of a round (a swap replaces one Rook of a run by a
    natural; Rooks in sets stay). The bookkeeping: in the draw phase and a buy question no
    obligation is open; the face just taken is in hand; ``wilds_owed`` Rooks are in hand,
    ``wilds_to_meld`` of them swapped before going down (all of them while not down); a
    seat not down owns no meld, one going down owns exactly the contract melds laid so
    far, one down at least the contract's sets and runs; a new round starts with nothing
    bought or melded, and buys per seat only grow within a round. The buy question, from
    the rules text: the seat asked is neither the turn owner nor the discarder of the top
    card, has buys left, the stock (reshuffled if needed, after the bought card has left
    the pile) can give both cards, and it is the first such seat after the turn owner (or
    after the seat that just passed); when none is left the turn owner draws at once. A
    purchase gives the buyer exactly the top card and one more card (``known`` grows by the
    bought card only) and one buy; then the turn owner draws one card, with no discard-rule
    face. In round 11 no discard empties a hand (the round is gone out of only by a meld or
    a lay-off).
(b) the acting agent's mask is non-empty, equals ``engine.legal_actions``, every other
    agent's mask is all zeros (``check_masks``); and from the rules text, at every step:
    the draw phase offers exactly ``draw stock``, and ``draw discard`` iff the pile is not
    empty; a buy question exactly ``buy`` and ``pass``; the play phase no draw; a going
    down only the melds of the kinds still due; a player not down no lay-off; the discards
    exactly (every face held but the face just taken when it is the only copy; none while a
    Rook is owed, during a going down, or of the last card in round 11); lay-offs only of
    cards that fit (a natural of a set's number, a Rook on a set, a run's next card, a Rook
    on a run with an open end), and for a player down with no Rook owed every card that
    fits but one that would leave a lone card that may not be discarded; no Rook on another
    player's meld while every Rook held is owed to this turn's going-down melds (swapped
    before going down); swaps only of the exact card a run's Rook stands for, never in a
    going down.
    On a random sample of the steps (``ORACLE_RATE`` = 10 %, and every play step where the
    hand holds a card a Rook of a run stands for, of a going down, or of round 11) the
    whole mask is compared with the independent oracle of ``rook_oracle.py`` (rules text
    only, its own card and meld model, a brute-force no-dead-ends search with memoisation
    and a node budget: a state over budget is skipped and counted); its prunes are
    cross-checked against its plain search on 5 % of the states where they apply.
(c) one random masked-out action id raises ``IllegalActionError`` naming the agent and the
    action and changes nothing (``check_illegal``);
(d) hidden information (``check_hidden``): the cards the acting agent (the turn owner or
    the seat asked to buy) cannot see are shuffled among the other hands (less their known
    cards) and the stock; its observation and mask do not change. Besides, after a
    purchase (every one in the games with the extras below, 30 % of them elsewhere), the
    buyer's penalty card is exchanged for a stock card of another face (``set_state``) and
    no other seat's observation may change: the penalty card shows in no other view.
In 1 game in 30 (game 0 of each chunk; the first mid game; the determinism games), (c) and
(d) also compare ``describe()`` and every agent's observation, and (d) ``describe(agent)``.
(e) in 1 game in 30 (game 1 of each chunk; the second mid game; the determinism games), at
    every step every offered action is applied to a copy of the state: it is accepted, the
    copy satisfies (a), and if the same player's turn goes on, it has a legal action.
(f) rewards: a step that ends a round gives each agent (mean round penalty - own)/100,
    summing to zero, and every other step gives 0; the round's penalties are the rules'
    card values (1..9: 5, 10..14: 10, Rook: 25) of the hands left, recomputed from the
    hands before the step and the action; only the seat that went out scores 0; every game
    scores 11 rounds, scores are the sums, the rewards add up, nothing is truncated.

Env bugs this suite found (the oracle disagreed with the mask in long games), fixed in
d6c429b; regression tests at the end of this file (against the engine before the fix they
fail, and so does ``test_random_games_default_turn_cap[4]``, on bug 2):
1. A swap offered to a player down with no obligation and 2 cards in hand was not checked
   for a dead end (the engine's quick path counted a swap as leaving 2 cards): after it the
   Rook must be played, which leaves 1 card, which may not be discarded in round 11, nor
   in any round if it is the card just taken from the pile; if it fits no meld, the mask
   was empty (a dead end).
2. A player not yet down was refused a swap when going down needs the Rooks of two (or
   more) swaps: the engine's search required the contract from the hand after one swap,
   ignoring the Rook that a further swap brings.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections import Counter

import numpy as np
import pytest
from invariant_checks import InvariantChecks, sweep
from rook_oracle import OracleBudgetExceeded, RookOracle, oracle_legal_texts, situation
from scenario import arrange_deck, legal, play, reset_to, toonerville_rook_cards

from rummy_env import toonerville_rook_v0
from rummy_env.actions import ActionKind
from rummy_env.state import GameState, Phase

pytestmark = pytest.mark.usefixtures("each_backend_reference_slow")  # the reference's run is slow

PLAYERS = (3, 4, 5)
ROOK = 56
NUM = 14  # numbers per colour (ranks 0..13 in the engine's faces)
# by rank index; a Rook scores 25 (docs/rules/toonerville_rook.md#penalty-values)
PENALTY = [5] * 9 + [10] * 5

SHORT_CAPS = (2, 2, 1)  # chunk k plays with SHORT_CAPS[k % 3] turns a round
SHORT_CHUNKS = {3: 22, 4: 22, 5: 22}
GAMES_PER_CHUNK = 30
CAPPED_BUYS_EVERY = 5  # chunks k with k % 5 == 4 play with max_buys_per_round=1
MID_TURNS_PER_PLAYER = 3
MID_CHUNKS = 1
MID_GAMES_PER_CHUNK = 6
MAX_LONG_GAMES = 4
LONG_SEED = {3: 3, 4: 1, 5: 1}  # first games that reach every mechanic asserted (one game each)

ORACLE_RATE = 0.1  # share of the other steps checked against the oracle
PENALTY_CHECK_RATE = 0.3  # share of the purchases whose penalty card is exchanged (all in deep games)
ORACLE_BUDGET = 20_000
PRUNE_CROSS_CHECK = 0.05  # share of the oracle's due-going-down states also searched plainly

P_BUY = 0.3
P_HOARD_BUY = 0.25
P_SWAP = 0.8
P_SPECIAL = 0.9
P_HEURISTIC = 0.8

MELD_KINDS = frozenset({ActionKind.MELD_SET, ActionKind.MELD_RUN})
SPECIAL_KINDS = MELD_KINDS | {ActionKind.LAY_OFF}
DRAW_KINDS = frozenset({ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD})
BUY_KINDS = frozenset({ActionKind.BUY, ActionKind.PASS})


def fits(meld, face: int) -> bool:
    """Whether ``face`` may be laid off on ``meld`` (docs/rules/toonerville_rook.md#laying-off):
    a set takes any natural of its number and a Rook (no maximum); a run the natural of its
    colour just beyond an end inside 1..14, or a Rook while an end is open."""
    if meld.kind == "set":
        return face == ROOK or face % NUM == meld.rank
    if face == ROOK:
        return meld.low > 0 or meld.high < NUM - 1
    return face // NUM == meld.suit and face % NUM in (meld.low - 1, meld.high + 1)


def hand_penalty(hand) -> int:
    return sum(k * (25 if f == ROOK else PENALTY[f % NUM]) for f, k in enumerate(hand) if k)


_ENVS: dict[tuple, object] = {}


class Checker(InvariantChecks):
    """Runs games on one env and checks the invariants of the module docstring."""

    def __init__(self, n: int, max_turns: int, seed: int, max_buys: int | None = None,
                 oracle_rate: float = ORACLE_RATE, fresh_env: bool = False) -> None:
        config = (n, max_turns, max_buys)
        env = _ENVS.get(config)
        if env is None or fresh_env:  # building an env costs ~0.1 s: the chunks of a worker share one
            env = toonerville_rook_v0.env(num_players=n, max_turns_per_round=max_turns, max_buys_per_round=max_buys)
            if not fresh_env:
                _ENVS[config] = env
        super().__init__(env, seed)
        self.policy_rng = random.Random(seed + 7_000_001)  # the policy's own, so checks leave no trace
        self.sample_rng = random.Random(seed + 9_000_011)  # which steps the oracle checks
        self.kinds, self.args = self.layout.kinds, self.layout.args
        self.texts = self.layout.texts
        self.discard_start = self.layout.start("discard")
        self.max_buys = max_buys
        self.oracle_rate = oracle_rate
        assert self.num_faces == 57
        self.prev_table: tuple = ()
        self.prev_round = -1
        self.prev_buys: list[int] = []
        self.melds_checked: dict[int, object] = {}
        self.hoard = False  # the hoarding policy until the first reshuffle (``choose_hoarding``)

    # ------------------------------------------------------------ (a)
    def check_table_meld(self, slot: int, tm) -> None:
        """Every table meld valid for Rook and made of exactly its cards. A ``TableMeld`` is
        immutable: each object is checked once (kept, so that its id is not reused)."""
        if self.melds_checked.get(id(tm)) is tm:
            return
        if len(self.melds_checked) > 4096:
            self.melds_checked.clear()
        self.melds_checked[id(tm)] = tm
        meld = tm.meld
        assert self.engine.solver.is_valid(meld), f"invalid meld on the table at slot {slot}: {meld}"
        assert sorted(tm.cards) == sorted(meld.naturals + (ROOK,) * meld.wilds), (
            f"slot {slot}: cards {tm.cards} are not the meld's naturals and Rooks {meld}")
        assert 0 <= tm.owner < self.n and meld.naturals and ROOK not in meld.naturals
        if meld.kind == "set":
            assert meld.size >= 3 and all(f % NUM == meld.rank for f in meld.naturals), (slot, meld)
        else:
            numbers = sorted(f % NUM for f in meld.naturals)
            assert all(f // NUM == meld.suit for f in meld.naturals), (slot, meld)
            assert 0 <= meld.low and meld.high < NUM and meld.high - meld.low + 1 == meld.size >= 4, (slot, meld)
            assert len(set(numbers)) == len(numbers) and meld.low <= numbers[0] and numbers[-1] <= meld.high

    def next_asked(self, st: GameState, after: int) -> int:
        """From the rules text: the seat to ask next about the top discard after ``after``
        (in seat order, up to the turn owner), or -1. Not the discarder of the top card,
        not a seat at ``max_buys_per_round``, and only while the stock, reshuffled if need
        be after the bought card has left the pile, can give the penalty card and the draw."""
        if not st.discard:
            return -1
        stock, pile_after_buy = len(st.stock), len(st.discard) - 1
        if stock == 0:
            enough = pile_after_buy - 1 >= 2  # the reshuffle keeps the pile's top card
        else:
            enough = stock >= 2 or pile_after_buy - 1 >= 1
        if not enough:
            return -1
        discarder = st.discard_seats[-1]
        seat = (after + 1) % self.n
        while seat != st.current:
            if seat != discarder and (self.max_buys is None or st.buys[seat] < self.max_buys):
                return seat
            seat = (seat + 1) % self.n
        return -1

    def check_structure(self) -> None:
        """Cheap consistency of the turn's bookkeeping with the rules (part of (a))."""
        st = self.raw.game_state
        if st.phase == Phase.GAME_OVER:
            return
        n = self.n
        p, hand = st.current, st.hands[st.current]
        sets, runs = self.raw.rules.rounds[st.round].contract
        if st.phase in (Phase.DRAW, Phase.BUY):
            assert st.taken_face < 0 and st.wilds_owed == 0 and st.contract_left == (0, 0)
        if st.phase == Phase.BUY:
            q = st.asked
            assert 0 <= q < n and q != p and st.discard and q != st.discard_seats[-1]
            assert self.max_buys is None or st.buys[q] < self.max_buys
        else:
            assert st.asked == -1
        if st.taken_face >= 0:
            assert hand[st.taken_face] >= 1, "the face just taken is no longer in hand"
        assert st.must_place < 0
        assert 0 <= st.wilds_owed <= hand[ROOK]
        # of the Rooks owed, those swapped before going down: all of them while not down
        assert 0 <= st.wilds_to_meld <= st.wilds_owed
        assert st.down_turn[p] >= 0 or st.wilds_to_meld == st.wilds_owed
        if st.phase == Phase.GOING_DOWN:
            assert st.down_turn[p] < 0 and st.contract_left != (0, 0)
        # A seat's melds: none before going down, the contract's laid so far while going
        # down, at least the contract once down (further melds of any kind may follow).
        owned = [[0, 0] for _ in range(n)]
        for tm in st.table:
            owned[tm.owner][tm.meld.kind == "run"] += 1
        for seat in range(n):
            if st.down_turn[seat] >= 0:
                assert owned[seat][0] >= sets and owned[seat][1] >= runs, (seat, owned[seat])
            elif seat == p and st.phase == Phase.GOING_DOWN:
                left_sets, left_runs = st.contract_left
                assert owned[seat] == [sets - left_sets, runs - left_runs]
            else:
                assert owned[seat] == [0, 0], f"seat {seat} owns melds without going down"
        if st.round == self.prev_round:
            # melds only grow (a swap replaces a Rook of a run by a natural); Rooks in sets stay
            prev = self.prev_table
            assert len(st.table) >= len(prev)
            for old, new in zip(prev, st.table):
                if old is new:
                    continue
                assert new.owner == old.owner and new.meld.kind == old.meld.kind
                if old.meld.kind == "set":
                    assert new.meld.rank == old.meld.rank and new.meld.wilds >= old.meld.wilds
                else:
                    assert new.meld.suit == old.meld.suit
                    assert new.meld.low <= old.meld.low and new.meld.high >= old.meld.high
                gone = Counter(old.cards) - Counter(new.cards)
                assert not gone or (old.meld.kind == "run" and gone == Counter({ROOK: 1})), (old, new)
            assert all(b >= a for a, b in zip(self.prev_buys, st.buys)), "buys went down within a round"
        else:  # a new round: dealt, nothing bought or melded yet
            assert st.buys == [0] * n and st.turns == 0 and st.phase == Phase.DRAW and not st.table
        self.prev_table = tuple(st.table)
        self.prev_round = st.round
        self.prev_buys = list(st.buys)

    # ------------------------------------------------------------ (b)
    def check_oracle(self, legal: list[int]) -> None:
        st, kinds, args = self.raw.game_state, self.kinds, self.args
        p, hand = st.current, st.hands[st.current]
        by_kind: dict[ActionKind, list] = {}
        for a in legal:
            by_kind.setdefault(kinds[a], []).append(args[a])
        present = set(by_kind)
        down = st.down_turn[p] >= 0
        last_round = st.round == self.raw.rules.num_rounds - 1
        if st.phase == Phase.BUY:
            assert legal == [self.layout.buy, self.layout.buy + 1]
            self.count["buy_questions_checked"] += 1
        elif st.phase == Phase.DRAW:
            assert legal == ([0, 1] if st.discard else [0]), legal
        else:
            assert not (present & (DRAW_KINDS | BUY_KINDS))
            if st.phase == Phase.GOING_DOWN:
                assert present <= MELD_KINDS
                sets, runs = st.contract_left
                assert sets or ActionKind.MELD_SET not in present
                assert runs or ActionKind.MELD_RUN not in present
            if not down:
                assert ActionKind.LAY_OFF not in present
            discards = sorted(by_kind.get(ActionKind.DISCARD, ()))
            size = st.hand_sizes[p]
            if st.phase == Phase.GOING_DOWN or st.wilds_owed or (last_round and size == 1):
                assert not discards, "a discard offered while it may not end the turn"
            else:
                t = st.taken_face
                assert discards == [f for f in range(self.num_faces) if hand[f] and not (f == t and hand[f] == 1)]
            lay_offs = set(by_kind.get(ActionKind.LAY_OFF, ()))
            fitting = {(f, slot) for slot, tm in enumerate(st.table) for f in range(self.num_faces)
                       if hand[f] and fits(tm.meld, f)} if down and st.phase == Phase.PLAY else set()
            assert lay_offs <= fitting, f"lay-offs that do not fit: {lay_offs - fitting}"
            if hand[ROOK] <= st.wilds_to_meld:  # no Rook to spare from this turn's going-down melds
                assert not any(f == ROOK and st.table[slot].owner != p for f, slot in lay_offs), lay_offs
            if down and st.phase == Phase.PLAY and not st.wilds_owed:
                for f, slot in fitting - lay_offs:
                    # only a lay-off leaving a lone card that may not be discarded may be refused
                    rest = [g for g in range(self.num_faces) if hand[g] - (g == f)]
                    assert size == 2 and (last_round or rest == [st.taken_face]), (
                        f"lay off {f} on {slot} fits but is not offered")
            swaps = by_kind.get(ActionKind.SWAP, ())
            assert not swaps or st.phase == Phase.PLAY
            for f, slot in swaps:
                meld = st.table[slot].meld
                assert meld.kind == "run" and meld.wilds and hand[f] and f // NUM == meld.suit
                assert f % NUM in meld.wild_positions(NUM)
        # the full oracle, on a sample of steps and on every step with the rarer mechanics
        wanted = (st.phase == Phase.GOING_DOWN or (last_round and st.phase == Phase.PLAY)
                  or (st.phase == Phase.PLAY and self.swap_in_reach(st, hand))
                  or self.sample_rng.random() < self.oracle_rate)
        if wanted:
            self.compare_with_oracle(legal, present)

    @staticmethod
    def swap_in_reach(st: GameState, hand) -> bool:
        """Whether the hand holds a card that a Rook in a run on the table stands for (a
        swap the rules allow, offered or not)."""
        return any(tm.meld.kind == "run" and tm.meld.wilds and any(
            hand[tm.meld.suit * NUM + q] for q in tm.meld.wild_positions(NUM)) for tm in st.table)

    def compare_with_oracle(self, legal: list[int], present: set) -> None:
        raw, c = self.raw, self.count
        sit = situation(raw)
        oracle = RookOracle(sit.config, ORACLE_BUDGET)
        try:
            expected = oracle.legal(sit)
        except OracleBudgetExceeded:
            c["oracle_over_budget"] += 1
            return
        c["oracle_checks"] += 1
        c[f"oracle_checks_{sit.phase}"] += 1
        for kind in present:
            c[f"oracle_checks_with_{kind.name}"] += 1
        if sit.config.last_round and sit.phase != "buy":
            c["oracle_checks_round_11"] += 1
        got = {self.texts[a] for a in legal}
        if got != expected:
            self.explain_mismatch(sit, got, expected)
        if sit.turn is not None and sit.phase != "draw" and not sit.turn.down and (
                sit.turn.going_down or sit.turn.owed) and self.sample_rng.random() < PRUNE_CROSS_CHECK:
            # the oracle's prunes against its plain search
            try:
                plain = RookOracle(sit.config, ORACLE_BUDGET, prunes=False).legal(sit)
            except OracleBudgetExceeded:
                return
            assert plain == expected, f"oracle prunes unsound: {sorted(plain ^ expected)}"
            c["oracle_prunes_cross_checked"] += 1

    def explain_mismatch(self, sit, got: set, expected: set) -> None:
        raw = self.raw
        d = raw.describe()
        raise AssertionError(
            f"mask != oracle: env only {sorted(got - expected)}, oracle only {sorted(expected - got)}\n"
            f"{raw.render_text()}\ntaken {d['taken_from_discard']} owed {d['wilds_owed']} "
            f"left {d['contract_left']}")

    # ------------------------------------------------------------ (e)
    def check_lookahead(self, legal: list[int]) -> None:
        st, engine = self.raw.game_state, self.engine
        for action in legal:
            after = st.clone()
            engine.apply(after, action)
            self.check_cards(after)
            if after.phase in (Phase.PLAY, Phase.GOING_DOWN) and after.current == st.current:
                assert engine.legal_actions(after), (
                    f"{self.texts[action]} leads to a dead end:\n{self.raw.render_text()}")
            self.count["lookahead_actions"] += 1

    # ------------------------------------------------------------ (d) the penalty card
    def check_penalty_card_hidden(self, buyer: int, penalty: int) -> None:
        """After a purchase: exchange the buyer's penalty card for a stock card of another
        face; no other seat's observation may change."""
        raw = self.raw
        original = raw.get_state()
        st = original.state
        others = [q for q in range(self.n) if q != buyer]
        before = {q: self.env.observe(raw.possible_agents[q])["observation"].copy() for q in others}
        swap_in = next((k for k in range(len(st.stock) - 1, -1, -1) if st.stock[k] != penalty), None)
        if swap_in is None or st.hands[buyer][penalty] == st.known[buyer][penalty]:
            return
        changed = st.clone()
        face = changed.stock[swap_in]
        changed.stock[swap_in] = penalty
        changed.hands[buyer][penalty] -= 1
        changed.hands[buyer][face] += 1
        changed.legal_cache = None
        raw.set_state(dataclasses.replace(original, state=changed))
        try:
            self.check_cards()
            for q in others:
                ob = self.env.observe(raw.possible_agents[q])["observation"]
                assert np.array_equal(ob, before[q]), f"seat {q}'s observation shows seat {buyer}'s penalty card"
        finally:
            raw.set_state(original)
        self.count["penalty_card_checks"] += 1

    # ------------------------------------------------------------ play
    def keep_score(self, st: GameState, hand, face: int) -> float:
        """How much a card helps the hand toward the round's contract (higher: keep)."""
        if face == ROOK:
            return 100.0
        sets, runs = self.raw.rules.rounds[st.round].contract
        number, colour = face % NUM, face // NUM
        score = 0.0
        if sets:
            score = float(sum(hand[c * NUM + number] for c in range(4)) - 1)
        if runs:
            near = sum((1.0 if abs(d) == 1 else 0.6) for d in (-2, -1, 1, 2)
                       if 0 <= number + d < NUM and hand[colour * NUM + number + d])
            score = max(score, near)
        return score

    def choose(self, legal: list[int]) -> int:
        rng, kinds = self.policy_rng, self.kinds
        st = self.raw.game_state
        if self.hoard and not self.count["reshuffles"]:
            return self.choose_hoarding(legal)
        if st.phase == Phase.BUY:
            return legal[0] if rng.random() < P_BUY else legal[1]
        swaps = [a for a in legal if kinds[a] == ActionKind.SWAP]
        if swaps and rng.random() < P_SWAP:
            return rng.choice(swaps)
        special = [a for a in legal if kinds[a] in SPECIAL_KINDS]
        if special and rng.random() < P_SPECIAL:
            return rng.choice(special)
        if rng.random() < P_HEURISTIC:
            hand = st.hands[st.current]
            if st.phase == Phase.DRAW:
                if len(legal) > 1 and st.down_turn[st.current] < 0:
                    top = st.discard[-1]
                    hand_with = bytearray(hand)
                    hand_with[top] += 1
                    if self.keep_score(st, hand_with, top) >= 1:
                        return 1
                return 0
            discards = [a for a in legal if kinds[a] == ActionKind.DISCARD]
            if discards:
                start = self.discard_start
                return min((self.keep_score(st, hand, a - start), rng.random(), a) for a in discards)[2]
        return rng.choice(legal)

    def choose_hoarding(self, legal: list[int]) -> int:
        """Until the stock has run out once: buy a quarter of the cards offered (the stock
        empties sooner, and the pile still grows), draw from the stock, meld nothing,
        discard the card that fits the hand least."""
        st = self.raw.game_state
        if st.phase == Phase.BUY:
            return legal[0] if self.policy_rng.random() < P_HOARD_BUY else legal[1]
        if st.phase == Phase.DRAW:
            return 0
        hand, start = st.hands[st.current], self.discard_start
        discards = [a for a in legal if self.kinds[a] == ActionKind.DISCARD]
        if not discards:  # a going down in progress (not started by this policy)
            return self.policy_rng.choice(legal)
        return min((self.keep_score(st, hand, a - start), self.policy_rng.random(), a) for a in discards)[2]

    def play_game(self, seed: int, deep: bool = False, lookahead: bool = False, checks: bool = True) -> list:
        """One complete game with every check of the module docstring at every step;
        ``deep`` adds ``describe()`` to (c) and (d), ``lookahead`` adds (e); ``checks=False``
        only plays. Returns the trajectory (actions, round penalties, final describe())."""
        env, raw, count = self.env, self.raw, self.count
        env.reset(seed=seed)
        self.prev_table, self.prev_round, self.prev_buys = (), -1, []
        reward_sum = {a: 0.0 for a in raw.possible_agents}
        rounds_seen = 0
        trajectory = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            assert not trunc
            reward_sum[agent] += reward
            if checks:
                self.check_cards()
                self.check_structure()
                legal = self.check_masks(agent, obs, term)
            else:
                legal = np.flatnonzero(obs["action_mask"]).tolist()
            if term:
                env.step(None)
                continue
            if checks:
                self.check_hidden(agent, self.check_illegal(agent, legal, thorough=deep))
                if lookahead:
                    self.check_lookahead(legal)
            st = raw.game_state
            action = self.choose(legal)
            kind = self.kinds[action]
            trajectory.append(action)
            seat, asked, round_before, rounds_before = st.current, st.asked, st.round, len(st.round_penalties)
            was_down = st.down_turn[seat] >= 0
            actor = asked if st.phase == Phase.BUY else seat
            count["steps"] += 1
            count[kind.name] += 1
            if st.phase == Phase.BUY:
                count["buy_question_steps"] += 1
            if kind == ActionKind.SWAP:
                count["swaps_by_players_down" if was_down else "swaps_by_players_not_down"] += 1
            if kind == ActionKind.LAY_OFF and self.args[action][0] == ROOK:
                count["rooks_laid_off"] += 1
                count["rooks_laid_off_on_sets"] += st.table[self.args[action][1]].meld.kind == "set"
            if kind in MELD_KINDS and was_down:
                count["melds_after_down"] += 1
            expect_asked = -1
            if kind in (ActionKind.DRAW_STOCK, ActionKind.PASS):
                expect_asked = self.next_asked(st, seat if kind == ActionKind.DRAW_STOCK else asked)
            hands_before = [bytes(h) for h in st.hands]
            sizes_before = list(st.hand_sizes)
            known_before = bytes(st.known[actor])
            pile_before = len(st.discard)
            top = st.discard[-1] if st.discard else -1
            buys_before = list(st.buys)
            env.step(action)
            st = raw.game_state
            same_round = len(st.round_penalties) == rounds_before
            if same_round and kind in (ActionKind.DRAW_STOCK, ActionKind.PASS, ActionKind.BUY) \
                    and len(st.discard) < pile_before - (kind == ActionKind.BUY):  # more left the pile
                count["reshuffles"] += 1
                count["reshuffles_for_a_buy"] += kind == ActionKind.BUY
            if kind in (ActionKind.DRAW_STOCK, ActionKind.PASS) and same_round:
                if expect_asked >= 0:  # the question goes on, to the first seat that may buy
                    assert st.phase == Phase.BUY and st.asked == expect_asked, (st.phase, st.asked, expect_asked)
                else:  # nobody left to ask: the turn owner has drawn
                    assert st.phase == Phase.PLAY and st.current == seat
                    assert st.hand_sizes == [k + (q == seat) for q, k in enumerate(sizes_before)]
            if kind == ActionKind.BUY:
                assert same_round and st.phase == Phase.PLAY and st.current == seat and st.taken_face < 0
                assert st.buys == [b + (q == asked) for q, b in enumerate(buys_before)]
                gained = Counter({f: k for f, k in enumerate(st.hands[asked]) if k}) - Counter(
                    {f: k for f, k in enumerate(hands_before[asked]) if k})
                assert sum(gained.values()) == 2 and gained[top] >= 1, (gained, top)
                gained[top] -= 1
                (penalty,) = list(gained.elements())
                known = bytearray(known_before)
                known[top] += 1
                assert st.known[asked] == known, "the buyer's known cards are not its old ones and the card bought"
                assert st.hand_sizes[seat] == sizes_before[seat] + 1
                count["buys"] += 1
                if checks and (deep or lookahead or self.sample_rng.random() < PENALTY_CHECK_RATE):
                    self.check_penalty_card_hidden(asked, penalty)
            if same_round:
                assert all(r == 0.0 for r in raw.rewards.values())
                if round_before == self.raw.rules.num_rounds - 1 and kind == ActionKind.DISCARD:
                    assert st.hand_sizes[seat] >= 1, "a discard emptied a hand in round 11"
                if not was_down and st.down_turn[seat] >= 0:
                    count["downs"] += 1
                continue
            # (f) the step ended a round
            assert kind not in (ActionKind.BUY, ActionKind.PASS, ActionKind.SWAP), kind
            rounds_seen += 1
            pens = st.round_penalties[-1]
            trajectory.append(tuple(pens))
            hands = [bytearray(h) for h in hands_before]
            if kind == ActionKind.DISCARD:
                hands[seat][self.args[action]] -= 1
            elif kind in SPECIAL_KINDS:  # a meld or lay-off that emptied the hand
                arg = self.args[action]
                used = (1 if kind == ActionKind.LAY_OFF else len(arg.naturals) + arg.wilds
                        if kind == ActionKind.MELD_SET else arg.high - arg.low + 1)
                assert sizes_before[seat] == used, "a round ended on a meld or lay-off that left cards"
                hands[seat] = bytearray(len(hands[seat]))
            assert pens == [hand_penalty(h) for h in hands], (pens, kind)
            mean = sum(pens) / self.n
            for a, pen in zip(raw.possible_agents, pens):
                assert raw.rewards[a] == pytest.approx((mean - pen) / 100.0)
            assert sum(raw.rewards.values()) == pytest.approx(0.0, abs=1e-9)
            outs = [q for q, pen in enumerate(pens) if pen == 0]
            if outs:
                assert outs == [seat] and not any(hands[seat])
                count["outs"] += 1
                how = {ActionKind.DISCARD: "discard", ActionKind.LAY_OFF: "lay_off"}.get(kind, "meld")
                count[f"outs_by_{how}"] += 1
                if not was_down:
                    count["downs"] += 1
                    count["down_and_out"] += 1
                if round_before == self.raw.rules.num_rounds - 1:
                    assert kind in SPECIAL_KINDS, "round 11 gone out of by a discard"
                    count["round11_outs"] += 1
            else:
                count["dead_rounds"] += 1
                count["dead_rounds_stock_exhausted"] += kind == ActionKind.DRAW_STOCK
        st = raw.game_state
        assert rounds_seen == 11 and len(st.round_penalties) == 11
        assert st.scores == [sum(p[i] for p in st.round_penalties) for i in range(self.n)]
        assert env.agents == []
        mean_total = sum(st.scores) / self.n
        for i, a in enumerate(raw.possible_agents):
            assert reward_sum[a] == pytest.approx((mean_total - st.scores[i]) / 100.0, abs=1e-6)
        count["games"] += 1
        trajectory.append(raw.describe())
        return trajectory


REPORT_KEYS = (
    "games", "steps", "buy_question_steps", "buys", "downs", "melds_after_down", "LAY_OFF", "rooks_laid_off",
    "rooks_laid_off_on_sets", "swaps_by_players_down", "swaps_by_players_not_down", "outs_by_discard",
    "outs_by_meld", "outs_by_lay_off", "round11_outs", "dead_rounds", "dead_rounds_stock_exhausted",
    "reshuffles", "reshuffles_for_a_buy", "penalty_card_checks", "oracle_checks", "oracle_checks_buy",
    "oracle_checks_going_down", "oracle_checks_with_SWAP", "oracle_checks_with_LAY_OFF", "oracle_checks_round_11",
    "oracle_over_budget", "oracle_prunes_cross_checked", "lookahead_actions",
)


def _report(checker: Checker, label: str, start: float) -> None:
    c = checker.count
    print(f"{label}: " + ", ".join(f"{k} {c[k]}" for k in REPORT_KEYS) + f", {time.perf_counter() - start:.1f}s")


def _assert_every_step_checked(checker: Checker) -> None:
    c = checker.count
    assert c["illegal_checks"] == c["hidden_checks"] == c["steps"] > 0
    assert c["hidden_changed"] == c["hidden_checks"], "a hidden-card shuffle moved no card"


@pytest.mark.parametrize("n, chunk", sweep([(n, k) for k in range(max(SHORT_CHUNKS.values())) for n in PLAYERS
                                            if k < SHORT_CHUNKS[n]], fast=3))
def test_random_games_short_rounds(n, chunk):
    max_buys = 1 if chunk % CAPPED_BUYS_EVERY == CAPPED_BUYS_EVERY - 1 else None
    cap = SHORT_CAPS[chunk % len(SHORT_CAPS)]
    checker = Checker(n, cap, seed=1000 * n + chunk, max_buys=max_buys)
    start = time.perf_counter()
    for g in range(GAMES_PER_CHUNK):
        checker.play_game(seed=100_000 * n + chunk * GAMES_PER_CHUNK + g, deep=g == 0, lookahead=g == 1)
    _assert_every_step_checked(checker)
    c = checker.count
    assert c["games"] == GAMES_PER_CHUNK
    assert c["downs"] > 0 and c["buys"] > 0 and c["buy_question_steps"] > c["steps"] // 6
    assert c["penalty_card_checks"] > 0 and c["lookahead_actions"] > 0
    assert c["oracle_checks_buy"] > 0 and c["oracle_checks_going_down"] > 0 and c["oracle_checks_round_11"] > 0
    _report(checker, f"n={n} cap {cap} chunk {chunk} buys<={max_buys}", start)


@pytest.mark.parametrize("n, chunk", sweep([(n, k) for n in PLAYERS for k in range(MID_CHUNKS)], fast=2))
def test_random_games_longer_rounds(n, chunk):
    checker = Checker(n, MID_TURNS_PER_PLAYER * n, seed=2000 * n + chunk)
    start = time.perf_counter()
    for g in range(MID_GAMES_PER_CHUNK):
        checker.play_game(seed=200_000 * n + chunk * MID_GAMES_PER_CHUNK + g, deep=g == 0, lookahead=g == 1)
    _assert_every_step_checked(checker)
    c = checker.count
    assert c["downs"] > 0 and c["LAY_OFF"] > 0 and c["melds_after_down"] > 0
    assert c["oracle_checks_going_down"] > 0 and c["oracle_checks_with_LAY_OFF"] > 0
    _report(checker, f"n={n} cap {MID_TURNS_PER_PLAYER * n} chunk {chunk}", start)


@pytest.mark.slow
@pytest.mark.parametrize("each_backend_reference_slow", ["native"], indirect=True)  # a long sweep: on the default backend only
@pytest.mark.parametrize("n", PLAYERS)
def test_random_games_default_turn_cap(n):
    """Rounds played to their end: reshuffles, goings out every way, swaps by players not
    yet down, round 11 outs; games are added until each of those was seen."""
    first = LONG_SEED[n]
    checker = Checker(n, 400, seed=7 * n + first)
    start = time.perf_counter()
    c = checker.count
    wanted = ("reshuffles", "outs_by_discard", "outs_by_meld", "outs_by_lay_off", "round11_outs",
              "swaps_by_players_not_down", "swaps_by_players_down", "oracle_checks_with_SWAP")
    for g in range(first, first + MAX_LONG_GAMES):
        checker.hoard = g == first  # the first game hoards until the stock runs out once
        checker.play_game(seed=900_001 + 10 * n + g)
        if all(c[k] for k in wanted):
            break
    _assert_every_step_checked(checker)
    assert all(c[k] > 0 for k in wanted), {k: c[k] for k in wanted}
    _report(checker, f"n={n} default cap", start)


@pytest.mark.parametrize("n", PLAYERS)
def test_checks_leave_no_trace_and_games_are_deterministic(n):
    """A game played with every check (illegal actions, hidden-card shuffles and penalty-card
    exchanges through set_state, look-ahead on copies) follows exactly the trajectory of the
    same game played bare, and two bare plays agree."""
    runs = []
    for checks in (True, False, False):
        checker = Checker(n, 2 * n, seed=31 * n, fresh_env=True)
        runs.append(checker.play_game(seed=4242 + n, deep=True, lookahead=True, checks=checks))
    assert runs[0] == runs[1] == runs[2]
    assert len(runs[0][-1]["round_penalties"]) == 11


# ---------------------------------------------------------------------------- env bugs found (fixed)
FILL = [f"{k % 14 + 1}{'RYGB'[(k + k // 14) % 4]}" for k in range(56)]  # no two alike in 14 in a row


def _scenario(round_no: int, hands, upcard: str, stock):
    env = toonerville_rook_v0.env(num_players=3)
    deck = arrange_deck(toonerville_rook_cards(3), 3, 2, hands, upcard, stock, fill_order=FILL * 3 + ["ROOK"] * 3)
    return reset_to(env, deck, 2, round_no)


def _offered_actions_that_are_dead_ends(env) -> list[str]:
    """The offered actions after which the env offers nothing
    (docs/rules/README.md#no-dead-ends)."""
    raw = env.unwrapped
    dead = []
    for a in raw.engine.legal_actions(raw.game_state):
        after = raw.game_state.clone()
        raw.engine.apply(after, a)
        if after.phase in (Phase.PLAY, Phase.GOING_DOWN) and not raw.engine.legal_actions(after):
            dead.append(raw.action_to_text(a))
    return dead


def round11_dead_end_scenario():
    hand1 = ["1R", "2R", "3R", "4R", "3Y", "4Y", "5Y", "6Y", "12G", "12G", "12B", "13G", "13G", "13B"]
    env = _scenario(11, [None, hand1, None], "ROOK", ["7Y", "9R", "7B"])
    play(env, "draw stock", "buy", "discard 9R", "draw stock", "pass", "meld run R 1 4", "meld run Y 3 6",
         "meld set 12 GGB", "meld set 13 GGB", "lay off ROOK on 1")
    return env


def taken_card_dead_end_scenario():
    hand0 = ["2Y", "2G", "2B", "3Y", "3G", "3B", "1R", "2R", "3R", "4R", "ROOK", "5R"]
    hand1 = ["6Y", "7G", "8B", "9R", "10Y", "11G", "12B", "13R", "14Y", "6G", "7B", "8R"]
    hand2 = ["9G", "10B", "11R", "13Y", "14G", "6B", "7R", "8Y", "9B", "10R", "11Y", "13G"]
    env = _scenario(1, [hand0, hand1, hand2], "14B", ["9Y", "1B", "12Y"])
    play(env, "draw stock", "pass", "pass", "meld set 2 YGB", "meld set 3 YGB", "meld run R 1 4",
         "lay off ROOK on 2", "discard 9Y",
         "draw stock", "pass", "discard 1B",
         "draw stock", "pass", "discard 12Y",
         "draw discard")
    return env


def two_swaps_scenario():
    hand0 = ["1R", "2R", "3R", "1Y", "2Y", "3Y", "ROOK", "ROOK", "8G", "11B", "12R", "14Y"]
    hand1 = ["4R", "4Y", "1G", "2G", "3G", "1B", "2B", "3B", "7R", "10Y", "13G", "9B"]
    env = _scenario(3, [hand0, hand1, None], "5B", ["6G", "10G"])
    play(env, "draw stock", "pass", "pass", "meld run R 1 4", "meld run Y 1 4", "discard 6G",
         "draw stock", "pass")
    return env


def test_regression_round11_swap_leaving_a_lone_card_is_not_offered():
    """Regression (bug found by these random games, fixed in d6c429b): round 11, 3 players,
    dealer 2. Seat 1 buys the upcard (a Rook) in seat 0's turn, draws 7B, goes down with
    R 1-4, Y 3-6, 12 GGB, 13 GGB, lays the Rook off on Y 3-6 (it stands for 7Y) and holds
    7Y 7B. The env offered ``swap 7Y on 1``, after which the Rook must be played and 7B,
    fitting nowhere, can neither be laid off nor (round 11) discarded: an empty mask, a
    dead end (its quick path counted the swap as leaving 2 cards)."""
    env = round11_dead_end_scenario()
    assert legal(env) == ["discard 7B", "discard 7Y"]
    assert set(legal(env)) == oracle_legal_texts(env.unwrapped)
    assert _offered_actions_that_are_dead_ends(env) == []


def test_regression_swap_leaving_only_the_card_just_taken_is_not_offered():
    """Regression (bug 1 in any round, fixed in d6c429b): round 1, 3 players, dealer 2.
    Seat 0 goes down (2 YGB, 3 YGB), melds R 1-4, lays a Rook off on it (standing for 5R)
    and keeps 5R. Two turns later it takes 12Y from the pile: the env offered ``swap 5R on
    2``, after which the Rook must be played and 12Y, the card just taken and fitting
    nowhere, may not be discarded: a dead end."""
    env = taken_card_dead_end_scenario()
    assert env.unwrapped.describe()["hands"]["player_0"] == ["5R", "12Y"]
    assert legal(env) == ["discard 5R"]
    assert set(legal(env)) == oracle_legal_texts(env.unwrapped)
    assert _offered_actions_that_are_dead_ends(env) == []


def test_regression_swaps_needing_a_second_swap_offered_to_player_not_down():
    """Regression (bug found by these random games, fixed in d6c429b): round 3 (2 runs), 3
    players, dealer 2. Seat 0 goes down with R 1-4 and Y 1-4, a Rook in each (standing for
    4R and 4Y). Seat 1 holds 4R 4Y 1G 2G 3G 1B 2B 3B: swapping both Rooks out it can lay
    G 1-4 and B 1-4 (a Rook in each) and discard, a legal turn
    (docs/rules/toonerville_rook.md#wild-swaps: any player may swap on their turn; the Rook
    goes into this turn's going-down melds). The
    env offered neither swap (its search required the contract from the hand after one
    swap, ignoring the Rook a further swap brings)."""
    env = two_swaps_scenario()
    assert {"swap 4R on 0", "swap 4Y on 1"} <= set(legal(env))
    assert set(legal(env)) == oracle_legal_texts(env.unwrapped)
    play(env, "swap 4R on 0")
    assert "swap 4Y on 1" in legal(env) and not any(t.startswith("discard") for t in legal(env))
    play(env, "swap 4Y on 1", "meld run G 1 4", "meld run B 1 4", "discard 10G")
    d = env.unwrapped.describe()
    assert d["gone_down"]["player_1"] and d["current"] == "player_2" and d["wilds_owed"] == 0


def test_swap_uses_the_card_just_taken_first():
    """The env and the oracle agree on a point the source rules leave to analogy: a swap,
    like a meld or a lay-off, uses the card just taken from the pile first
    (docs/rules/toonerville_rook.md#discard-rule). Round 1, 3 players, dealer 2: seat 0 goes
    down, melds R 1-4 and lays a Rook off on it (standing for 5R), keeping 5R; two turns
    later it takes a second 5R from the pile, swaps one 5R for the Rook, lays the Rook off,
    and may go out by discarding the other 5R."""
    hand0 = ["2Y", "2G", "2B", "3Y", "3G", "3B", "1R", "2R", "3R", "4R", "ROOK", "5R"]
    hand2 = ["5R", "9R", "10B", "11R", "13Y", "14G", "6B", "7R", "8Y", "9B", "10R", "11Y"]
    env = _scenario(1, [hand0, None, hand2], "14B", ["9G", "12Y", "13B"])
    play(env, "draw stock", "pass", "pass", "meld set 2 YGB", "meld set 3 YGB", "meld run R 1 4",
         "lay off ROOK on 2", "discard 9G",
         "draw stock", "pass", "discard 12Y",
         "draw stock", "pass", "discard 5R",
         "draw discard")
    raw = env.unwrapped
    assert raw.describe()["hands"]["player_0"] == ["5R", "5R"] and raw.describe()["taken_from_discard"] == "5R"
    assert legal(env) == ["discard 5R", "swap 5R on 2"] and set(legal(env)) == oracle_legal_texts(raw)
    play(env, "swap 5R on 2", "lay off ROOK on 0")
    assert raw.describe()["taken_from_discard"] is None
    assert legal(env) == ["discard 5R"] and set(legal(env)) == oracle_legal_texts(raw)
    play(env, "discard 5R")  # out: round 2 is dealt, seat 0 scored 0
    assert raw.describe()["round"] == 2 and raw.game_state.round_penalties[-1][0] == 0


def _agree_along(env, texts) -> None:
    """Env and oracle agree before each action of ``texts`` and after the last."""
    for text in texts:
        assert set(legal(env)) == oracle_legal_texts(env.unwrapped), text
        play(env, text)
    assert set(legal(env)) == oracle_legal_texts(env.unwrapped)


def test_oracle_agrees_on_rooks_swapped_before_going_down():
    """A Rook swapped by a player not yet down goes into this turn's going-down melds, never
    on another player's meld (docs/rules/toonerville_rook.md#wild-swaps); the scenarios of
    test_toonerville_rook_rules.py. Round 1: seat 1 swaps 12G out of seat 0's G 11-14 and
    goes down without the Rook, which may then go only on its own sets or in a further meld.
    Round 6: seat 1 holds the 9G it took; the going-down meld that would leave the Rook and
    9G is not offered (the Rook could only make 9G fit on seat 0's run)."""
    hand0 = ["5R", "5Y", "5G", "9R", "9Y", "9G", "11G", "13G", "14G", "ROOK", "1R", "3Y"]
    hand1 = ["12G", "7R", "7Y", "7G", "4R", "4Y", "4G", "10Y", "10B", "1Y", "3B", "6G"]
    env = _scenario(1, [hand0, hand1, None], "14B", ["7B", "2R"])
    _agree_along(env, ["draw stock", "pass", "pass", "meld set 5 RYG", "meld set 9 RYG", "meld run G 11 14",
                       "discard 7B", "draw stock", "pass", "swap 12G on 2", "meld set 4 RYG", "meld set 7 RYG",
                       "lay off ROOK on 3", "discard 2R"])
    hand0 = ["11G", "13G", "14G", "ROOK", "1B", "2B", "3B", "4B", "5R", "5Y", "5B", "9G"]
    hand1 = ["12G", "1R", "2R", "3R", "4R", "1Y", "2Y", "3Y", "4Y", "7R", "7Y", "7G"]
    env = _scenario(6, [hand0, hand1, None], "14B", ["8Y"])
    _agree_along(env, ["draw stock", "pass", "pass", "meld run G 11 14", "meld run B 1 4", "meld set 5 RYB",
                       "discard 9G", "draw discard", "swap 12G on 0", "meld run R 1 4", "meld run Y 1 4",
                       "meld set 7 RY +1", "discard 7G"])


def test_oracle_run_bound_is_exact():
    """The oracle's prune for runs (``window_rooks``: the fewest Rooks that j windows of 4
    numbers need) against brute force over every multiset of windows."""
    from itertools import combinations_with_replacement

    from rook_oracle import window_rooks
    rng = random.Random(5)
    for _ in range(60):
        row = tuple(rng.choice((0, 0, 0, 1, 1, 2, 3)) for _ in range(NUM))
        j = rng.randint(1, 4)
        best = min(
            sum(max(0, sum(s <= q < s + 4 for s in starts) - row[q]) for q in range(NUM))
            for starts in combinations_with_replacement(range(NUM - 3), j))
        assert window_rooks(row, j) == best, (row, j)

