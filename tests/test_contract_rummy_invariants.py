"""Invariants of ``contract_rummy_v0`` checked during random play of 2,048 complete games.

Games (every one complete: 7 deals, each played to its end):
- 2,000 games with ``max_turns_per_round=4`` (``SHORT_CAP``), in parametrised chunks of 8
  (many small items, which pytest-xdist spreads evenly): 600 for 3 players (75 chunks), 600
  for 4 (75), 400 for 5 (50), 400 for 8 (50). The cap counts every player's turns, so a deal
  is 4 turns, ~8.5 steps, ~60 steps a game (every deal ends at the cap, as a dead round).
  The checks below cost ~5-8 times the env's own step (mostly the hidden-card check, which
  recomputes the mask of a re-dealt state, and the copies made by get_state / set_state),
  so this cap is what fits the time budget: ~180 CPU-seconds for these games. Random play
  still goes down in the first turns (~1.5 goings down a game), draws deep and lays off.
- 40 games with 6 turns per player a deal (``MID_CAP``: 18 / 24 / 30 / 40 turns for 3 / 4 /
  5 / 8 players), 5 chunks of 2 per player count: the later turns of a deal, lay-offs by
  players down since earlier turns, joker swaps, goings out, reshuffles.
- 4 games (one per player count; up to ``MAX_LONG_GAMES`` if needed) with the default cap
  of 400 turns: long deals, where the stock runs out and the discard pile is reshuffled,
  players go out by discarding and by melding or laying off their last card, jokers are
  swapped, and deal 7 is gone out of (down = out). Games are added until each of those was
  seen, and the test asserts them.
- 4 games (one per player count, 3n turns a deal) in
  ``test_checks_leave_no_trace_and_games_are_deterministic`` (below).

Policy (biased, so that the contract mechanics happen): when a meld, lay-off, swap or deep
draw is legal, the agent takes a uniformly random one of those with probability 0.9 (so a
going down, once started, is completed; the env guarantees that every offered meld can
be). Else, with probability 0.8, a "keep what fits" move: take the top discard if it pairs
with the hand toward the deal's contract (same rank for sets, same suit within two ranks for
runs) and the agent is not down, else draw from the stock; discard the card that fits the
hand least (never a joker). Else a uniformly random legal action. The policy has its own
RNG, apart from the checks' RNG. Across the suite this reaches ~3,900 goings down, ~2,300
lay-offs, ~2,200 deep draws, ~60 joker swaps, ~40 goings out (by the last discard and by the
last meld or lay-off), 6 deal-7 outs and ~900 reshuffles of the discard pile.
The tests assert goings down in every 4-turn chunk; goings down, deep draws and lay-offs
in every 6-turn chunk; and reshuffles, swaps, goings out both ways and a deal-7 out in the
long games of every player count.

Runtime: the two Contract Rummy test files take ~2 minutes under ``pytest -n 2`` here
(~4 CPU-minutes; this file ~3.7 of them).

Checked at EVERY agent step (every iteration of ``agent_iter``, including the final
``step(None)`` of terminated agents) of EVERY game:

(a) card conservation: per face, hands + stock + discard pile + the cards of the table
    melds equal ``rules.deck.face_counts()``; ``discard_counts`` equals the pile counted;
    the cards publicly ``known`` to be in a hand are in it; ``hand_sizes`` equal the hands'
    counts; every table meld is valid (``engine.solver.is_valid``) and its ``cards`` are its
    naturals plus one joker per wild. Also the turn's bookkeeping: in the draw phase no
    obligation is open; the face just taken, and a deep-drawn face still to place, are in
    hand; ``wilds_owed`` jokers are in hand; each seat that is down owns exactly the deal's
    contract melds (a going down in progress, the part already laid; anyone else none);
    nobody is ever down in deal 7 (down = out); melds only grow between steps of a deal (a
    swap replaces one joker of a run by a natural; jokers in sets stay); a completed going
    down has no two runs of one suit that join up.
(b) the acting agent's ``action_mask`` is non-empty and, as a set, equals
    ``engine.legal_actions`` (ascending order is tested in ``test_contract_rummy_api.py``);
    every other agent's mask is all zeros; at game end every mask is all zeros; the ``hand``
    part of the agent's observation is its hand. Plus an oracle from the rules text: the
    kinds of action each phase offers (draws only in the draw phase, ``draw stock`` always,
    ``draw discard`` iff the pile is not empty, ``draw discard N`` for N = 2..min(20, pile);
    only contract melds of the kinds still due while going down; no melds once down, no
    lay-offs or swaps before, swaps only for a player down in an earlier turn and for a run
    joker that stands for that card); the discards exactly (every face held but the face
    just taken when it is the only copy, and none while a deep-drawn card or a swapped joker
    is owed); lay-offs exactly for a player down with nothing owed (every card that fits a
    meld by the rules text, except one that would leave a lone card that may not be
    discarded); and in deal 7, every offered going-down meld leaves a hand that makes the
    rest of the contract with every card (``engine.solver.can_partition``).
(c) one random masked-out action id (half the time from a block with legal actions now,
    the nearest misses) raises ``IllegalActionError`` naming the agent and the action
    (through the wrapped env) and changes nothing: every field of the game state (hands,
    stock order, discard pile, known cards, table, scores, obligations, RNG state, ...), the
    AEC bookkeeping (agent_selection, rewards, cumulative rewards, terminations, ...) and
    the agent's observation and mask, observed afresh, are equal before and after;
(d) hidden information: the multiset of cards the acting agent cannot see (the other hands,
    less their publicly known cards, plus the stock) is shuffled across those places keeping
    every hand size and the stock size, through ``get_state`` / ``set_state``; the agent's
    observation (bit for bit) and mask must not change; then the snapshot is restored. Every
    shuffle that can move a card is asserted to have moved one.

In 1 game in 8 (game 0 of each 4-turn chunk; the first game of each 6-turn chunk and of
each long test; the determinism games), (c) also compares ``describe()`` and every agent's
observation, and (d) the agent's ``describe(agent)`` view and every state field after the
restore.

(e) no dead ends: after every step the agent to act has a legal action (part of (b)); and
    in 1 game in 8 (game 4 of each 4-turn chunk; the second game of each 6-turn chunk;
    the determinism games), at every step every offered action is applied to a copy of the state
    (``GameState.clone``): it is accepted, the copy satisfies (a), and if the same player's
    turn goes on, that player has a legal action.
(f) rewards: a step that ends a deal gives each agent (mean deal penalty - own)/100 (the
    default "relative" rewards), summing to zero, and every other step gives 0; the only
    penalty of 0 is the player who went out, with the step that emptied its hand; every game
    scores 7 deals, scores are the sums of the deal penalties, the rewards read through
    ``last()`` add up to (mean final score - own)/100, and nothing is truncated.

Finally, ``test_checks_leave_no_trace_and_games_are_deterministic`` plays one game per
player count with every check (and the extras above), then twice bare with the same seeds:
the three trajectories (actions, observation digests, deal penalties, final
``describe()``) are identical, so the checks' illegal actions and set_state round trips
leave no trace and games are deterministic.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections import Counter

import numpy as np
import pytest
from invariant_checks import InvariantChecks, sweep

from rummy_env import contract_rummy_v0
from rummy_env.actions import ActionKind
from rummy_env.state import GameState, Phase

pytestmark = pytest.mark.usefixtures("each_backend_reference_slow")  # the reference's run is slow

PLAYERS = (3, 4, 5, 8)
JOKER = 52
NUM_RANKS = 13
ACE_HIGH = 13  # run position of the ace above the king

SHORT_CAP = 4
SHORT_CHUNKS = {3: 75, 4: 75, 5: 50, 8: 50}
GAMES_PER_CHUNK = 8
DEEP_GAMES = (0,)  # games of a chunk where (c) and (d) also compare describe()
LOOKAHEAD_GAMES = (4,)  # games of a chunk where (e) applies every offered action
MID_CAP = {3: 18, 4: 24, 5: 30, 8: 40}
MID_CHUNKS = 5
MID_GAMES_PER_CHUNK = 2
MAX_LONG_GAMES = 4

P_SPECIAL = 0.9  # chance of taking a meld / lay-off / swap / deep draw when one is legal
P_HEURISTIC = 0.8  # chance of a "keep what fits" draw or discard, else uniform

SPECIAL_KINDS = frozenset({ActionKind.DEEP_DRAW, ActionKind.MELD_SET, ActionKind.MELD_RUN,
                           ActionKind.LAY_OFF, ActionKind.SWAP})


def _fits(meld, face: int) -> bool:
    """Whether ``face`` may be laid off on ``meld`` (docs/rules/contract_rummy.md#laying-off),
    from the rules text: a set takes a natural of its rank and a new suit, or a joker, up to
    4 cards; a run takes the card (or a joker) just beyond either end, one ace at most, no
    wrapping."""
    size = len(meld.naturals) + meld.wilds
    if meld.kind == "set":
        if size >= 4:
            return False
        if face == JOKER:
            return True
        return face % NUM_RANKS == meld.rank and all(f // NUM_RANKS != face // NUM_RANKS for f in meld.naturals)
    ends = []
    if meld.high < ACE_HIGH and not (meld.low == 0 and meld.high + 1 == ACE_HIGH):
        ends.append(meld.high + 1)
    if meld.low > 0 and not (meld.low - 1 == 0 and meld.high == ACE_HIGH):
        ends.append(meld.low - 1)
    if face == JOKER:
        return bool(ends)
    return face // NUM_RANKS == meld.suit and any(q % NUM_RANKS == face % NUM_RANKS for q in ends)


class Checker(InvariantChecks):
    """Runs games on one env and checks the invariants of the module docstring."""

    def __init__(self, n: int, max_turns: int, seed: int) -> None:
        super().__init__(contract_rummy_v0.env(num_players=n, max_turns_per_round=max_turns), seed)
        self.policy_rng = random.Random(seed + 7_000_001)  # the policy's own, so checks leave no trace
        self.kinds = self.layout.kinds
        self.args = self.layout.args
        assert self.num_faces == 53
        self.discard_start = self.layout.start("discard")
        self.prev_table: tuple = ()
        self.prev_round = -1

    # ------------------------------------------------------------ (a)
    def check_table_meld(self, slot: int, tm) -> None:
        """Every table meld valid and made of exactly its cards."""
        meld = tm.meld
        assert self.engine.solver.is_valid(meld), f"invalid meld on the table at slot {slot}: {meld}"
        assert sorted(tm.cards) == sorted(meld.naturals + (JOKER,) * meld.wilds), (
            f"slot {slot}: cards {tm.cards} are not the meld's naturals and jokers {meld}")
        assert 0 <= tm.owner < self.n

    def check_structure(self) -> None:
        """Cheap consistency of the turn's bookkeeping with the rules (part of (a))."""
        st = self.raw.game_state
        if st.phase == Phase.GAME_OVER:
            return
        p, hand = st.current, st.hands[st.current]
        spec = self.raw.rules.rounds[st.round]
        if st.phase == Phase.DRAW:
            assert st.taken_face < 0 and st.must_place < 0 and st.wilds_owed == 0
            assert st.contract_left == (0, 0)
        if st.taken_face >= 0:
            assert hand[st.taken_face] >= 1, "the face just taken is no longer in hand"
        if st.must_place >= 0:
            assert hand[st.must_place] >= 1, "a deep-drawn face must be placed but is not in hand"
        assert 0 <= st.wilds_owed <= hand[JOKER]
        if st.phase == Phase.GOING_DOWN:
            assert st.down_turn[p] < 0 and st.contract_left != (0, 0)
        if spec.down_means_out:  # deal 7: down = out, so nobody is ever down with cards
            assert all(t < 0 for t in st.down_turn)
        # Exactly the contract: a seat's melds are those of its (completed or running) going down.
        sets, runs = spec.contract
        owned = [[0, 0] for _ in range(self.n)]
        for tm in st.table:
            owned[tm.owner][tm.meld.kind == "run"] += 1
        for seat in range(self.n):
            if st.down_turn[seat] >= 0:
                assert owned[seat] == [sets, runs], (seat, owned[seat], spec.contract)
            elif seat == p and st.phase == Phase.GOING_DOWN:
                left_sets, left_runs = st.contract_left
                assert owned[seat] == [sets - left_sets, runs - left_runs]
            else:
                assert owned[seat] == [0, 0], f"seat {seat} owns melds without going down"
        # Melds only grow (a swap replaces a joker of a run by a natural); jokers in sets stay.
        if st.round == self.prev_round:
            prev = self.prev_table
            assert len(st.table) >= len(prev)
            for old, new in zip(prev, st.table):
                assert new.owner == old.owner and new.meld.kind == old.meld.kind
                if old.meld.kind == "set":
                    assert new.meld.rank == old.meld.rank and new.meld.wilds >= old.meld.wilds
                else:
                    assert new.meld.suit == old.meld.suit
                    assert new.meld.low <= old.meld.low and new.meld.high >= old.meld.high
                gone = Counter(old.cards) - Counter(new.cards)
                assert not gone or (old.meld.kind == "run" and gone == Counter({JOKER: 1})), (old, new)
        self.prev_table = tuple(st.table)
        self.prev_round = st.round

    # ------------------------------------------------------------ (b)
    def check_oracle(self, legal: list[int]) -> None:
        """What the rules text fixes about the mask, independently of the engine's search:
        which kinds of action each phase offers, the exact draws and discards, and the
        exact lay-offs of a player down with no obligation."""
        st, kinds, args = self.raw.game_state, self.kinds, self.args
        p, hand = st.current, st.hands[st.current]
        by_kind: dict[ActionKind, list] = {}
        for a in legal:
            by_kind.setdefault(kinds[a], []).append(args[a])
        down = st.down_turn[p] >= 0
        spec = self.raw.rules.rounds[st.round]
        if st.phase == Phase.DRAW:
            assert set(by_kind) <= {ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD, ActionKind.DEEP_DRAW}
            assert ActionKind.DRAW_STOCK in by_kind
            assert (ActionKind.DRAW_DISCARD in by_kind) == bool(st.discard)
            assert all(2 <= d <= min(20, len(st.discard)) for d in by_kind.get(ActionKind.DEEP_DRAW, ()))
            return
        assert not {ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD, ActionKind.DEEP_DRAW} & set(by_kind)
        if spec.down_means_out and not down:
            self.check_deal7_melds(legal)
        if st.phase == Phase.GOING_DOWN:
            assert set(by_kind) <= {ActionKind.MELD_SET, ActionKind.MELD_RUN}
            sets, runs = st.contract_left
            assert sets or ActionKind.MELD_SET not in by_kind
            assert runs or ActionKind.MELD_RUN not in by_kind
            return
        # play phase
        if down:  # no new melds after going down
            assert not {ActionKind.MELD_SET, ActionKind.MELD_RUN} & set(by_kind)
        else:
            assert not {ActionKind.LAY_OFF, ActionKind.SWAP} & set(by_kind)
        if spec.down_means_out or not (down and st.down_turn[p] < st.turns):
            assert ActionKind.SWAP not in by_kind, "a swap by a player not down in an earlier turn"
        discards = sorted(by_kind.get(ActionKind.DISCARD, ()))
        if st.must_place >= 0 or st.wilds_owed:
            assert not discards, "a discard offered while an obligation is open"
        else:
            t = st.taken_face
            expected = [f for f in range(self.num_faces) if hand[f] and not (f == t and hand[f] == 1)]
            assert discards == expected, (discards, expected)
        lay_offs = set(by_kind.get(ActionKind.LAY_OFF, ()))
        fitting = {(f, slot) for slot, tm in enumerate(st.table) for f in range(self.num_faces)
                   if hand[f] and _fits(tm.meld, f)} if down else set()
        assert lay_offs <= fitting, f"lay-offs that do not fit: {lay_offs - fitting}"
        if down and st.must_place < 0 and st.wilds_owed == 0:
            size = st.hand_sizes[p]
            for f, slot in fitting - lay_offs:
                # only a lay-off leaving a lone card that may not be discarded can be refused
                rest = [g for g in range(self.num_faces) if hand[g] - (g == f)]
                assert size == 2 and rest == [st.taken_face], (
                    f"lay off {f} on {slot} fits but is not offered")
        for f, slot in by_kind.get(ActionKind.SWAP, ()):
            meld = st.table[slot].meld
            assert meld.kind == "run" and meld.wilds and hand[f]
            assert any(meld.suit * NUM_RANKS + q % NUM_RANKS == f for q in meld.wild_positions(NUM_RANKS))

    def deal7_bad_offers(self, legal: list[int]) -> list[int]:
        """Deal 7 (down means out), a player not down: the offered going-down melds after
        which the rest of the hand cannot make the rest of the contract with every card."""
        st, engine = self.raw.game_state, self.engine
        p = st.current
        bad = []
        for action in legal:
            if self.kinds[action] not in (ActionKind.MELD_SET, ActionKind.MELD_RUN):
                continue
            after = st.clone()
            self.count["deal7_melds_checked"] += 1
            if engine.apply(after, action) is not None:
                continue  # the round ended: the meld emptied the hand
            naturals, wilds = engine.ctx.split_wilds(after, after.hands[p])
            if after.down_turn[p] >= 0 or not engine.solver.can_partition(naturals, wilds, *after.contract_left):
                bad.append(action)
        return bad

    def check_deal7_melds(self, legal: list[int]) -> None:
        """docs/rules/contract_rummy.md#deal-7: going down must use every card, so a
        going-down meld is offered only if the rest of the hand can make the rest of the
        contract exactly (regression: ``test_deal7_going_down_must_use_every_card``)."""
        bad = self.deal7_bad_offers(legal)
        assert not bad, f"deal 7 going-down melds that cannot use every card: {[self.layout.text(a) for a in bad]}"

    # ------------------------------------------------------------ (e)
    def check_lookahead(self, legal: list[int]) -> None:
        """(e): every offered action, applied to a copy of the state, is accepted and leaves
        a consistent state; if the same player's turn goes on, it has a legal action."""
        st, engine = self.raw.game_state, self.engine
        for action in legal:
            after = st.clone()
            engine.apply(after, action)
            self.check_cards(after)
            if after.phase != Phase.GAME_OVER and after.current == st.current and after.phase != Phase.DRAW:
                assert engine.legal_actions(after), (
                    f"{self.layout.text(action)} leads to a dead end: {self.raw.describe()}")
            self.count["lookahead_actions"] += 1

    # ------------------------------------------------------------ play
    def keep_score(self, st: GameState, hand, face: int) -> float:
        """How much a card helps the hand toward the deal's contract (higher: keep)."""
        if face == JOKER:
            return 100.0
        sets, runs = self.raw.rules.rounds[st.round].contract
        rank, suit = face % NUM_RANKS, face // NUM_RANKS
        score = 0.0
        if sets:
            score = float(sum(1 for s in range(4) if s != suit and hand[s * NUM_RANKS + rank]))
        if runs:
            near = 0.0
            for pos in ((0, ACE_HIGH) if rank == 0 else (rank,)):
                for d in (-2, -1, 1, 2):
                    q = pos + d
                    if 0 <= q <= ACE_HIGH and q % NUM_RANKS != rank and hand[suit * NUM_RANKS + q % NUM_RANKS]:
                        near += 1.0 if abs(d) == 1 else 0.6
            score = max(score, near)
        return score

    def choose(self, legal: list[int]) -> int:
        rng, kinds = self.policy_rng, self.kinds
        st = self.raw.game_state
        special = [a for a in legal if kinds[a] in SPECIAL_KINDS]
        if special and rng.random() < P_SPECIAL:
            return rng.choice(special)
        if rng.random() < P_HEURISTIC:
            hand = st.hands[st.current]
            if st.phase == Phase.DRAW:
                if ActionKind.DRAW_DISCARD in (kinds[a] for a in legal) and st.down_turn[st.current] < 0:
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

    def play_game(self, seed: int, deep: bool = False, lookahead: bool = False, checks: bool = True) -> list:
        """One complete game, with every check of the module docstring at every step;
        ``deep`` adds ``describe()`` to (c) and (d), ``lookahead`` adds (e); ``checks=False``
        only plays. Returns the trajectory: every action with a digest of the observation it
        was chosen from, every deal's penalties and rewards, and the final ``describe()``."""
        env, raw, count = self.env, self.raw, self.count
        env.reset(seed=seed)
        self.prev_table, self.prev_round = (), -1
        reward_sum = {a: 0.0 for a in raw.possible_agents}
        rounds_seen = 0
        trajectory = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            assert not trunc and not any(raw.truncations.values())
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
            count[kind.name] += 1
            count["steps"] += 1
            count["deep_steps"] += deep
            if kind == ActionKind.DRAW_STOCK and not st.stock:
                count["reshuffles"] += 1
            seat, round_before, rounds_before = st.current, st.round, len(st.round_penalties)
            was_down = st.down_turn[seat] >= 0
            trajectory.append((action, hashlib.blake2b(obs["observation"].tobytes(), digest_size=8).digest()))
            env.step(action)
            st = raw.game_state  # a copy on the compiled table: read it again after the step
            if len(st.round_penalties) > rounds_before:  # (f)
                rounds_seen += 1
                pens = st.round_penalties[-1]
                trajectory.append((tuple(pens), dict(raw.rewards)))
                mean = sum(pens) / self.n
                for a, pen in zip(raw.possible_agents, pens):
                    assert raw.rewards[a] == pytest.approx((mean - pen) / 100.0)
                assert sum(raw.rewards.values()) == pytest.approx(0.0, abs=1e-9)
                outs = [p for p, pen in enumerate(pens) if pen == 0]
                if outs:  # only an empty hand scores 0: every card scores at least 2
                    assert outs == [seat], (outs, seat)
                    count["outs"] += 1
                    count["outs_by_discard" if kind == ActionKind.DISCARD else "outs_by_meld_or_lay_off"] += 1
                    if not was_down:
                        count["downs"] += 1
                        count["down_and_out"] += 1
                    if round_before == 6:  # deal 7: down and out with the last contract run
                        assert kind == ActionKind.MELD_RUN and not was_down
                        count["deal7_outs"] += 1
                else:
                    count["dead_rounds"] += 1
            else:
                assert st.round == round_before
                assert all(r == 0.0 for r in raw.rewards.values())
                if checks and not was_down and st.down_turn[seat] >= 0:
                    count["downs"] += 1
                    self.check_runs_apart(seat)
        st = raw.game_state
        assert rounds_seen == 7 and len(st.round_penalties) == 7
        assert st.scores == [sum(p[i] for p in st.round_penalties) for i in range(self.n)]
        assert env.agents == []
        assert sum(reward_sum.values()) == pytest.approx(0.0, abs=1e-6)
        mean_total = sum(st.scores) / self.n
        for i, a in enumerate(raw.possible_agents):
            assert reward_sum[a] == pytest.approx((mean_total - st.scores[i]) / 100.0, abs=1e-6)
        count["games"] += 1
        trajectory.append(raw.describe())
        return trajectory

    def check_runs_apart(self, seat: int) -> None:
        """A going down just completed: its runs of one suit do not join up."""
        runs = [tm.meld for tm in self.raw.game_state.table if tm.owner == seat and tm.meld.kind == "run"]
        for i, a in enumerate(runs):
            for b in runs[i + 1:]:
                if a.suit == b.suit:
                    assert a.high + 1 != b.low and b.high + 1 != a.low, f"adjacent runs {a} and {b}"


def _report(checker: Checker, label: str, start: float) -> None:
    c = checker.count
    keys = ("games", "steps", "downs", "LAY_OFF", "SWAP", "DEEP_DRAW", "outs", "deal7_outs", "dead_rounds",
            "reshuffles", "lookahead_actions", "deal7_melds_checked")
    print(f"{label}: " + ", ".join(f"{k} {c[k]}" for k in keys) + f", {time.perf_counter() - start:.1f}s")


def _assert_every_step_checked(checker: Checker) -> None:
    c = checker.count
    assert c["illegal_checks"] == c["hidden_checks"] == c["steps"] > 0
    assert c["hidden_changed"] == c["hidden_checks"], "a hidden-card shuffle moved no card"


@pytest.mark.parametrize("n, chunk", sweep([(n, c) for c in range(max(SHORT_CHUNKS.values())) for n in PLAYERS
                                            if c < SHORT_CHUNKS[n]], fast=4))
def test_random_games_short_rounds(n, chunk):
    checker = Checker(n, SHORT_CAP, seed=1000 * n + chunk)
    start = time.perf_counter()
    for g in range(GAMES_PER_CHUNK):
        checker.play_game(seed=100_000 * n + chunk * GAMES_PER_CHUNK + g,
                          deep=g in DEEP_GAMES, lookahead=g in LOOKAHEAD_GAMES)
    _assert_every_step_checked(checker)
    c = checker.count
    assert c["games"] == GAMES_PER_CHUNK and c["downs"] > 0
    _report(checker, f"n={n} cap {SHORT_CAP} chunk {chunk}", start)


@pytest.mark.parametrize("n, chunk", sweep([(n, c) for c in range(MID_CHUNKS) for n in PLAYERS], fast=4))
def test_random_games_longer_rounds(n, chunk):
    checker = Checker(n, MID_CAP[n], seed=2000 * n + chunk)
    start = time.perf_counter()
    for g in range(MID_GAMES_PER_CHUNK):
        checker.play_game(seed=200_000 * n + chunk * MID_GAMES_PER_CHUNK + g, deep=g == 0, lookahead=g == 1)
    _assert_every_step_checked(checker)
    c = checker.count
    assert c["downs"] > 0 and c["DEEP_DRAW"] > 0 and c["LAY_OFF"] > 0
    _report(checker, f"n={n} cap {MID_CAP[n]} chunk {chunk}", start)


@pytest.mark.slow
@pytest.mark.parametrize("each_backend_reference_slow", ["native"], indirect=True)  # a long sweep: on the default backend only
@pytest.mark.parametrize("n", PLAYERS)
def test_random_games_default_turn_cap(n):
    """Long rounds: the stock runs out and the discard pile is reshuffled, players go out
    (in deal 7 too) and swap jokers; games are added until each of those was seen."""
    checker = Checker(n, 400, seed=7 * n)
    start = time.perf_counter()
    c = checker.count
    wanted = ("reshuffles", "SWAP", "outs_by_discard", "outs_by_meld_or_lay_off", "deal7_outs")
    for g in range(MAX_LONG_GAMES):
        checker.play_game(seed=900_001 + 10 * n + g, deep=g == 0)
        if all(c[k] for k in wanted):
            break
    _assert_every_step_checked(checker)
    assert c["reshuffles"] > 0, "no stock reshuffle happened: the long games cover nothing extra"
    assert all(c[k] > 0 for k in wanted), {k: c[k] for k in wanted}
    _report(checker, f"n={n} default cap", start)


@pytest.mark.parametrize("n", PLAYERS)
def test_checks_leave_no_trace_and_games_are_deterministic(n):
    """A game played with every check (illegal actions, hidden-card shuffles through
    set_state, look-ahead on copies) follows exactly the trajectory of the same game played
    bare, and two bare plays agree: same seed and policy RNG, same actions, observations
    (bit for bit), round penalties, rewards and final ``describe()``."""
    runs = []
    for checks in (True, False, False):
        checker = Checker(n, 3 * n, seed=31 * n)
        runs.append(checker.play_game(seed=4242 + n, deep=True, lookahead=True, checks=checks))
    assert runs[0] == runs[1] == runs[2]
    assert len(runs[0]) > 100
    assert runs[0][-1]["round_penalties"] and len(runs[0][-1]["round_penalties"]) == 7


def deal7_repro():
    """Deal 7, 3 players: player_0 holds 3C 4C 5C 6C 9D TD JD AS 2S 3S 4S 5S and draws 7C,
    so its 13 cards make exactly C 3-7, D 9-J and S A-5. Returns the env after it has
    laid C 3-7 and D 9-J."""
    every = [r + s for s in "CDHS" for r in "A23456789TJQK"] + ["JK"]
    at = {3 * i: c for i, c in enumerate("3C 4C 5C 6C 9D TD JD AS 2S 3S 4S 5S".split())}
    at[37] = "7C"  # dealer player_2: player_0 gets cards 0, 3, ..., 33; 36 is the upcard
    rest = [c for c in every if c not in at.values()]
    env = contract_rummy_v0.env(num_players=3)
    env.reset(seed=0, options={"round": 7, "dealer": 2, "deck": [at[i] if i in at else rest.pop(0) for i in range(53)]})
    for text in ("draw stock", "meld run C 3 7", "meld run D 9 J"):
        env.step(env.unwrapped.text_to_action(text))
    return env


def test_deal7_going_down_must_use_every_card():
    """Regression (fixed in b418bfe; these random games caught it too): in deal 7 the engine
    offered going-down melds that left cards in hand (its no-dead-end search let a player who
    was down lay off, and then discard, in deal 7): after C 3-7 and D 9-J it offered S A-3,
    S A-4, S 2-4, S 2-5 and S 3-5 besides S A-5, and after S 3-5 the player was down holding
    AS 2S and could 'discard AS', ending its turn down with 2S in hand."""
    env = deal7_repro()
    raw = env.unwrapped
    assert raw.legal_actions_text() == ["meld run S A 5"]
    env.step(raw.text_to_action("meld run S A 5"))  # down and out: the game (from deal 7) ends
    st = raw.game_state
    assert st.phase == Phase.GAME_OVER and st.round_penalties[-1][0] == 0
