"""Invariants of ``three_thirteen_v0`` checked during random play of 1,005 complete games.

Games, for each of 2, 3 and 4 players: 333 games with ``max_turns_per_round=16`` (37
parametrised chunks of 9 games: many small items, which pytest-xdist spreads evenly) and 2
games with the default cap of 400 turns (long rounds: the stock runs out and the discard
pile is reshuffled, which the test asserts happens). 3 x (333 + 2) = 1,005 games: half the
sweep of the other games in number, since each of these games is eleven rounds long (the
sweep took 10 of CI's 30 minutes at 2,004 games).
The cap of 16 (not 30-40) keeps the suite within its time budget (most of the time is the
env's own step cost: ~330 steps per game at cap 16, ~590 at cap 30); it changes little in
what random play reaches: ~1.2-2.2 go-outs per game at cap 16 vs ~2.0-2.8 at cap 30
(random play rarely melds a large hand, so most rounds end at the cap as dead rounds).

Policy: the agent to act takes a uniformly random ``go out`` action with probability 0.5
when one is legal, otherwise a uniformly random legal action (so going out and the last
turns after it happen; rounds nobody goes out of end at the turn cap as dead rounds).

Checked at EVERY agent step (every iteration of ``agent_iter``, including the final
``step(None)`` of terminated agents) of EVERY game:

(a) card conservation: per face, hands + stock + discard pile + the cards of the table
    melds equal ``rules.deck.face_counts()``; also ``discard_counts`` equals the discard
    pile counted, and the cards publicly ``known`` to be in a seat's hand are in it;
(b) the acting agent's ``action_mask`` is non-empty and, as a set, equals
    ``engine.legal_actions`` (its promised ascending order is tested in
    ``test_api.py::test_legal_actions_ascending``); every other agent's mask is all zeros;
    at game end every mask is all zeros;
(e) ``hand_sizes`` equal the sum of each hand's counts; the ``hand`` part of the acting
    agent's observation equals its hand;
(c) one random masked-out action id (half the time from a block with legal actions now)
    raises ``IllegalActionError`` naming the agent and the action (through the wrapped
    env) and changes nothing: the acting agent's observation and
    mask, and every field of the game state and AEC bookkeeping (hands, stock order,
    discard, known, table, scores, RNG state, agent_selection, rewards, ...) are equal
    before and after;
(d) hidden information: the multiset of cards the acting agent cannot see (the other
    hands, less their publicly known cards, plus the stock) is shuffled across those
    places keeping every hand size and the stock size, through ``get_state`` /
    ``set_state``; the acting agent's observation (bit for bit) and its mask must not
    change; then the original snapshot is restored with ``set_state`` and checked to be
    restored (its observation again; in the games below, every state field).
    Every shuffle is asserted to have moved some card (where any card could move).
    (a), (c) and (d) are the shared checks of ``invariant_checks.py``.

In 2 games in 9 (games 0 and 5 of each chunk, and the first default-cap game of each
player count), (c) and (d) are also checked through JSON: ``describe()`` and every
agent's observation are unchanged by the illegal action, and the agent's
``describe(agent)`` view by the shuffle.

Checked at every step of another 1 game in 9 (game 3 of each chunk: 222 short games,
plus the first default-cap game of each player count): an independent oracle for (b),
from the rules text rather than the engine's go-out search: in the draw phase ``draw stock``, plus
``draw discard`` iff the pile is non-empty; in the discard phase ``discard f`` for each
face held except the face just taken from the pile when it is the only copy, plus
``go out f`` exactly for those faces whose removal leaves a hand of zero best-arrangement
penalty (``engine.hand_penalty``), and no ``go out`` during last turns.

Also, in every game: a step that ends a round gives each agent (mean round penalty -
own)/100 ("relative" rewards, the default), summing to zero, and other steps give 0;
every game scores 11 rounds, scores are the sums of the round penalties, the rewards read
through ``last()`` add up to (mean final score - own)/100, and nothing is truncated.
"""

from __future__ import annotations

import time

import pytest
from invariant_checks import InvariantChecks, sweep

from rummy_env import three_thirteen_v0
from rummy_env.state import Phase

pytestmark = pytest.mark.usefixtures("each_backend_reference_slow")  # the reference's run is slow

NUM_ACTIONS = 106
GO_OUT_BASE = 54
SHORT_CAP = 16
SHORT_CHUNKS = 37  # many small test items, so that pytest-xdist balances them well
SHORT_GAMES_PER_CHUNK = 9
LONG_GAMES = 2
DEEP_GAMES = (0, 5)  # games of a chunk where (c) and (d) also compare describe()
ORACLE_GAMES = (3,)  # games of a chunk with the go-out oracle at every step
PLAYERS = (2, 3, 4)


class Checker(InvariantChecks):
    """Runs games on one env and checks the invariants of the module docstring."""

    def __init__(self, n: int, max_turns: int, seed: int) -> None:
        super().__init__(three_thirteen_v0.env(num_players=n, max_turns_per_round=max_turns), seed)
        assert self.num_actions == NUM_ACTIONS
        self.steps = 0
        self.reshuffles = 0
        self.go_outs = 0
        self.dead_rounds = 0
        self.deep_steps = 0
        self.last_turn_deep_steps = 0

    # ------------------------------------------------------------ invariants
    def oracle_legal(self) -> list[int]:
        """The legal actions from the rules text, independent of the engine's go-out search."""
        st, eng = self.raw.game_state, self.raw.engine
        if st.phase == Phase.DRAW:
            return [0, 1] if st.discard else [0]
        hand = st.hands[st.current]
        blocked = st.taken_face if st.taken_face >= 0 and hand[st.taken_face] == 1 else -1
        faces = [f for f in range(self.num_faces) if hand[f] and f != blocked]
        actions = [2 + f for f in faces]
        if st.went_out < 0:
            seat = st.current
            for f in faces:
                hand[f] -= 1
                try:
                    if eng.hand_penalty(st, seat) == 0:
                        actions.append(GO_OUT_BASE + f)
                finally:
                    hand[f] += 1
        return actions

    def check_oracle(self, legal: list[int]) -> None:
        assert legal == self.oracle_legal(), (self.raw.describe(), legal)

    # ------------------------------------------------------------ play
    def choose(self, legal: list[int]) -> int:
        go_outs = [a for a in legal if a >= GO_OUT_BASE]
        if go_outs and self.rng.random() < 0.5:
            return self.rng.choice(go_outs)
        return self.rng.choice(legal)

    def play_game(self, seed: int, deep: bool, oracle: bool) -> None:
        """One complete game; ``deep`` adds (c) and (d) at every step, ``oracle`` the
        independent legal-action oracle of (b)."""
        env, raw = self.env, self.raw
        env.reset(seed=seed)
        reward_sum = {a: 0.0 for a in raw.possible_agents}
        rounds_seen = 0
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            assert not trunc
            reward_sum[agent] += reward
            self.check_cards()
            legal = self.check_masks(agent, obs, term, oracle)
            if term:
                env.step(None)
                continue
            self.check_hidden(agent, self.check_illegal(agent, legal, thorough=deep))
            st = raw.game_state
            action = self.choose(legal)
            if action == 0 and not st.stock:
                self.reshuffles += 1
            if action >= GO_OUT_BASE:
                self.go_outs += 1
            round_before, penalties_before, went_out_before = st.round, len(st.round_penalties), st.went_out
            env.step(action)
            st = raw.game_state  # read again: on the compiled core it is a copy of the state
            self.steps += 1
            self.deep_steps += deep
            self.last_turn_deep_steps += deep and went_out_before >= 0
            if len(st.round_penalties) > penalties_before:
                rounds_seen += 1
                pens = st.round_penalties[-1]
                mean = sum(pens) / self.n
                for a, pen in zip(raw.possible_agents, pens):
                    assert raw.rewards[a] == pytest.approx((mean - pen) / 100.0)
                assert sum(raw.rewards.values()) == pytest.approx(0.0, abs=1e-9)
                if went_out_before < 0:
                    self.dead_rounds += 1  # nobody went out: the turn cap (or an empty reshuffle)
            else:
                assert st.round == round_before
                assert all(r == 0.0 for r in raw.rewards.values())
        st = raw.game_state
        assert rounds_seen == 11 and len(st.round_penalties) == 11
        assert st.scores == [sum(p[i] for p in st.round_penalties) for i in range(self.n)]
        assert env.agents == []
        total = sum(reward_sum.values())
        assert total == pytest.approx(0.0, abs=1e-6)
        for i, a in enumerate(raw.possible_agents):
            mean_total = sum(st.scores) / self.n
            assert reward_sum[a] == pytest.approx((mean_total - st.scores[i]) / 100.0, abs=1e-6)


def _report(checker: Checker, label: str, games: int, start: float) -> None:
    print(f"{label}: {games} games, {checker.steps} steps ({checker.deep_steps} also through describe()), "
          f"{checker.go_outs} go outs, {checker.last_turn_deep_steps} deep steps in last turns, "
          f"{checker.dead_rounds} dead rounds, {checker.reshuffles} reshuffles, "
          f"{time.perf_counter() - start:.1f}s")


@pytest.mark.parametrize("n, chunk", sweep([(n, k) for k in range(SHORT_CHUNKS) for n in PLAYERS], fast=3))
def test_random_games_short_rounds(n, chunk):
    checker = Checker(n, SHORT_CAP, seed=1000 * n + chunk)
    start = time.perf_counter()
    for g in range(SHORT_GAMES_PER_CHUNK):
        checker.play_game(seed=100_000 * n + chunk * SHORT_GAMES_PER_CHUNK + g,
                          deep=g in DEEP_GAMES, oracle=g in ORACLE_GAMES)
    assert checker.go_outs > 0 and checker.dead_rounds > 0
    assert checker.count["illegal_checks"] == checker.count["hidden_checks"] == checker.steps > 0
    assert checker.count["hidden_changed"] == checker.count["hidden_checks"]  # every shuffle moved some card
    _report(checker, f"n={n} chunk={chunk}", SHORT_GAMES_PER_CHUNK, start)


@pytest.mark.slow
@pytest.mark.parametrize("each_backend_reference_slow", ["native"], indirect=True)  # a long sweep: on the default backend only
@pytest.mark.parametrize("n", PLAYERS)
def test_random_games_default_turn_cap(n):
    checker = Checker(n, 400, seed=7 * n)
    start = time.perf_counter()
    for g in range(LONG_GAMES):  # the first game with every check, the second without the extras
        checker.play_game(seed=900_000 + 10 * n + g, deep=g == 0, oracle=g == 0)
    assert checker.reshuffles > 0, "no stock reshuffle happened: the long games cover nothing extra"
    assert checker.go_outs > 0
    assert checker.count["illegal_checks"] == checker.count["hidden_checks"] == checker.steps > 0
    _report(checker, f"n={n} default cap", LONG_GAMES, start)


@pytest.mark.parametrize("n", PLAYERS)
def test_deep_checks_reach_last_turns(n):
    """(c) and (d) are exercised in the last turns after a go-out too (asserted here, once,
    as a chunk of 9 games is too small to promise it)."""
    checker = Checker(n, SHORT_CAP, seed=5 * n)
    for g in range(40):
        checker.play_game(seed=100_000 * n + g * SHORT_GAMES_PER_CHUNK, deep=True, oracle=False)
        if checker.last_turn_deep_steps >= 2 * n:
            break
    assert checker.last_turn_deep_steps >= 2 * n
