"""``LastDealContract``: Contract Rummy's ``expert`` shedding its lowest cards in the last
deal (rummy_env/agents/contract_last_deal.py)."""

from __future__ import annotations

import pytest

from rummy_env import contract_rummy_quick_v0, contract_rummy_v0
from rummy_env.actions import ActionKind
from rummy_env.agents.base import Episode, play_game
from rummy_env.agents.contract_heuristics import ExpertContract
from rummy_env.agents.contract_last_deal import LastDealContract, LastDealOddsContract


def _compared(seed: int):
    """A game of the quick variant (its last deal goes down with every card) of four
    ``LastDealContract`` players, each shadowed by an ``expert`` that sees the same decisions:
    per decision, whether it is in the last deal, the two choices, and the teacher (whose
    layout and deck read the choices)."""
    env = contract_rummy_quick_v0.env(num_players=4)
    episode = Episode(env)
    episode.reset(seed)
    players = [(LastDealContract(), ExpertContract()) for _ in episode.names]
    for info, pair in zip(episode.seat_infos, players):
        for agent in pair:
            agent.start_game(info, seed)
    raw = env.unwrapped
    while not episode.over:
        decision = episode.decision()
        last_deal = raw.game_state.round == raw.rules.num_rounds - 1
        teacher, plain = players[episode.seat]
        chosen = teacher.act(decision)
        yield last_deal, chosen, plain.act(decision), teacher
        episode.step(chosen)


def test_plays_complete_games_and_the_same_game_from_the_same_seed():
    env = contract_rummy_quick_v0.env(num_players=4)
    runs = [play_game(env, [LastDealContract(), ExpertContract(), LastDealContract(), ExpertContract()], seed=3)
            for _ in range(2)]
    assert len(runs[0].round_penalties) == 4
    assert runs[0] == runs[1] and runs[0].decisions == runs[1].decisions


def test_it_plays_as_expert_before_the_last_deal_and_sheds_lower_cards_in_it():
    """Before the last deal every choice is ``expert``'s. In it, wherever the discards differ,
    the teacher's card is worth fewer penalty points than ``expert``'s (with the same cost
    otherwise, a point kept weighs -0.03 for it and 0.06 for ``expert``)."""
    before = differ = 0
    for seed in range(4):
        for last_deal, chosen, plain, teacher in _compared(seed):
            if not last_deal:
                assert chosen == plain
                before += 1
            elif chosen != plain:
                layout, values = teacher.layout, teacher.deck.values
                assert layout.kinds[chosen] == layout.kinds[plain] == ActionKind.DISCARD
                assert values[layout.args[chosen]] < values[layout.args[plain]]
                differ += 1
    assert before > 1000 and differ >= 5


class _PointsNow(ExpertContract):
    """``expert`` playing for points at every decision."""

    def plays_for_points(self, s) -> bool:
        return True


def _shadowed(game, seed: int):
    """A game of four ``LastDealOddsContract`` players, each shadowed by ``expert``,
    ``last_deal`` and ``expert`` always playing for points, which see the same decisions: per
    decision of the last deal, the teacher's situation and the four choices."""
    env = game.env(num_players=4)
    episode = Episode(env)
    episode.reset(seed)
    players = [(LastDealOddsContract(), ExpertContract(), LastDealContract(), _PointsNow()) for _ in episode.names]
    for info, group in zip(episode.seat_infos, players):
        for agent in group:
            agent.start_game(info, seed)
    raw = env.unwrapped
    while not episode.over:
        decision = episode.decision()
        teacher = players[episode.seat][0]
        choices = [agent.act(decision) for agent in players[episode.seat]]
        if raw.game_state.round == raw.rules.num_rounds - 1:
            yield teacher.situation(decision), choices, teacher
        else:
            assert len(set(choices[:3])) == 1  # before the last deal all but _PointsNow play as expert
        episode.step(choices[0])


@pytest.mark.slow  # 14 s: the late case comes up in about one game in two
def test_odds_plays_as_expert_far_behind_for_points_late_and_far_and_as_last_deal_otherwise():
    """In the last deal: entering it 100 points or more behind the best total, its choices
    are ``expert``'s; from turn 40 with a hand 3 or more cards short of going out, an
    ``expert`` playing for points'; otherwise ``last_deal``'s. Each case is met where the
    choices it tells apart differ."""
    told_apart = {"behind": 0, "late": 0, "otherwise": 0}
    for seed in range(6):
        for s, (chosen, plain, last_deal, points), teacher in _shadowed(contract_rummy_v0, seed):
            late_and_far = s.turns >= teacher.LATE_TURNS and teacher.report(s).deficiency >= teacher.FAR
            if late_and_far:
                case, expected, other = "late", points, last_deal
            elif s.scores[0] - min(s.scores[1:]) >= teacher.HOPELESS:
                case, expected, other = "behind", plain, last_deal
            else:
                case, expected, other = "otherwise", last_deal, points
            assert chosen == expected, case
            told_apart[case] += expected != other
    assert min(told_apart.values()) >= 3, told_apart
