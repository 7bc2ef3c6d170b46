"""``LastDealContract``: Contract Rummy's ``expert`` shedding its lowest cards in the last
deal (rummy_env/agents/contract_last_deal.py)."""

from __future__ import annotations

import pytest

from rummy_env import contract_rummy_quick_v0, contract_rummy_v0
from rummy_env.actions import ActionKind
from rummy_env.agents.base import Episode, play_game
from rummy_env.agents.contract_expert import ExpertContract
from rummy_env.agents.contract_last_deal import LastDealContract, LastDealOddsContract


def _shadowed(game, seed: int, classes: tuple[type[ExpertContract], ...]):
    """A game of four players of ``classes[0]`` (the teacher), each shadowed by one of each of
    the other ``classes``, which see the same decisions: per decision, whether it is in the
    last deal, the choices in the order of ``classes``, the teacher (whose layout and deck read
    the choices) and its decision."""
    env = game.env(num_players=4)
    episode = Episode(env)
    episode.reset(seed)
    players = [[kind() for kind in classes] for _ in episode.names]
    for info, group in zip(episode.seat_infos, players):
        for agent in group:
            agent.start_game(info, seed)
    raw = env.unwrapped
    while not episode.over:
        decision = episode.decision()
        group = players[episode.seat]
        choices = [agent.act(decision) for agent in group]
        yield raw.game_state.round == raw.rules.num_rounds - 1, choices, group[0], decision
        episode.step(choices[0])


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
        # the quick variant: its last deal, too, goes down with every card
        for last_deal, (chosen, plain), teacher, _ in _shadowed(contract_rummy_quick_v0, seed,
                                                                (LastDealContract, ExpertContract)):
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


@pytest.mark.slow  # 14 s: the late case comes up in about one game in two
def test_odds_plays_as_expert_far_behind_for_points_late_and_far_and_as_last_deal_otherwise():
    """In the last deal: entering it 100 points or more behind the best total, its choices
    are ``expert``'s; from turn 40 with a hand 3 or more cards short of going out, an
    ``expert`` playing for points'; otherwise ``last_deal``'s. Each case is met where the
    choices it tells apart differ."""
    told_apart = {"behind": 0, "late": 0, "otherwise": 0}
    for seed in range(6):
        for in_last_deal, choices, teacher, decision in _shadowed(
                contract_rummy_v0, seed, (LastDealOddsContract, ExpertContract, LastDealContract, _PointsNow)):
            chosen, plain, last_deal, points = choices
            if not in_last_deal:
                assert chosen == plain == last_deal  # before the last deal, all but _PointsNow play as expert
                continue
            s = teacher.situation(decision)
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
