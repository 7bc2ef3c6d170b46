"""``ClosingThreeThirteen`` (``closer``): ``expert`` weighing every discard and counting a
kept hand's chance to go out on the next draw (rummy_env/agents/three_thirteen_closer.py)."""

from __future__ import annotations

import pytest

from rummy_env import three_thirteen_v0
from rummy_env.agents.base import Decision, SeatInfo, play_game
from rummy_env.agents.three_thirteen_closer import ClosingThreeThirteen
from rummy_env.agents.three_thirteen_heuristics import Advice, ExpertThreeThirteen


class _Enough(Exception):
    pass


class _NoBonus(ClosingThreeThirteen):
    out_bonus = 0.0


def _exact_p_out(agent: ClosingThreeThirteen, hand: list[int], unseen) -> float:
    """The share of the unseen cards that, drawn, let ``hand`` go out: every face tried."""
    counts, _, total = unseen
    return sum(copies for face, copies in enumerate(counts) if copies and agent._hands.after_draw(hand, face) == 0) / total


def _decisions(seed: int, *kinds: type[ClosingThreeThirteen]):
    """Every decision of a game of four ``closer`` players, before it is played: per
    decision, one agent of each of ``kinds`` started for that seat (the same ones all game),
    and the decision."""
    env = three_thirteen_v0.env(num_players=4)
    env.reset(seed=seed)
    raw = env.unwrapped
    players, advisors = {}, {}
    for name in raw.possible_agents:
        players[name] = ClosingThreeThirteen()
        advisors[name] = [kind() for kind in kinds]
        for agent in [players[name], *advisors[name]]:
            agent.start_game(SeatInfo.of(env, name), seed)
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        decision = Decision(obs["observation"], obs["action_mask"], dict)
        yield advisors[name], decision
        env.step(players[name].act(decision))


def test_plays_complete_games_and_the_same_game_from_the_same_seed():
    env = three_thirteen_v0.env(num_players=4)
    runs = [play_game(env, [ClosingThreeThirteen(), ExpertThreeThirteen(), ClosingThreeThirteen(),
                            ExpertThreeThirteen()], seed=5) for _ in range(2)]
    assert len(runs[0].round_penalties) == 11
    assert runs[0] == runs[1] and runs[0].decisions == runs[1].decisions


def test_the_chance_to_go_out_is_exact_without_wilds_and_never_overcounted():
    class Checked(ClosingThreeThirteen):
        def _p_out(self, hand, unseen):
            self._p_out_cache.pop(bytes(hand), None)  # against this decision's unseen cards
            got = super()._p_out(hand, unseen)
            penalty, loose = self._arrangement(hand)[:2]
            if penalty and unseen[2]:
                exact = _exact_p_out(self, hand, unseen)
                wild = any(hand[f] for f in self._hands.wild_faces)
                checks.append((got, exact, wild, len(loose) <= self.max_loose))
                if sum(few_loose for *_, few_loose in checks) == 150:
                    raise _Enough
            return got

    checks: list[tuple[float, float, bool, bool]] = []
    with pytest.raises(_Enough):
        for seed in range(10):
            play_game(three_thirteen_v0.env(num_players=4), [Checked() for _ in range(4)], seed=seed)
    counted = [(got, exact) for got, exact, wild, few_loose in checks if few_loose]
    assert sum(exact > 0 for _, exact in counted) > 20 and any(wild for *_, wild, _ in checks)
    assert all(got == pytest.approx(exact) for got, exact, wild, few_loose in checks if few_loose and not wild)
    assert all(got <= exact + 1e-12 for got, exact in counted)
    # with more loose cards than max_loose it is taken as 0
    assert all(got == 0 for got, _, _, few_loose in checks if not few_loose)


@pytest.fixture(scope="module")
def advised() -> list[tuple[Decision, ClosingThreeThirteen, Advice, Advice]]:
    """One game of four ``closer`` players: per decision, the seat's closer advisor and its
    advice, and the advice of one without the bonus (``_NoBonus``), each agent seeing the
    seat's decisions in order as a player does."""
    out = []
    for (closer, plain), decision in _decisions(0, ClosingThreeThirteen, _NoBonus):
        out.append((decision, closer, closer.advise(decision), plain.advise(decision)))
    return out


def test_it_decides_otherwise_than_without_the_bonus_only_to_keep_a_likelier_out(advised):
    # At every discard where the bonus changes the choice, the closer's kept hand may go
    # out on more of the unseen cards than the kept hand chosen without it.
    changed = 0
    for decision, closer, advice, without in advised:
        if advice.action == without.action or not 2 <= advice.action < 54:
            continue
        changed += 1
        seen = closer._read(decision.observation)
        unseen = closer._unseen(seen)
        kept = [list(seen.hand) for _ in range(2)]
        kept[0][advice.action - 2] -= 1
        kept[1][without.action - 2] -= 1
        assert _exact_p_out(closer, kept[0], unseen) > _exact_p_out(closer, kept[1], unseen)
    assert changed >= 3


def test_on_the_last_turn_only_the_penalty_counts_as_without_the_bonus(advised):
    last_turns = 0
    for decision, _, advice, without in advised:
        if advice.last_turn:
            last_turns += 1
            # the same choice; the scores may differ a little, each agent keeping Q as first
            # asked, from arrangements its own queries cached
            assert advice.action == without.action and advice.take == without.take
    assert last_turns >= 20


def test_it_weighs_every_legal_discard(advised):
    discards = 0
    for decision, _, advice, _ in advised:
        if advice.discards:
            discards += 1
            legal = {int(a) - 2 for a in decision.legal_actions if 2 <= a < 54}
            assert set(advice.discards) == legal
    assert discards > 100
