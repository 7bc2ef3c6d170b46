"""The contract games' ``greedy`` and ``expert`` agents
(``rummy_env/agents/contract_heuristics.py``, ``contract_expert.py``): complete games of every registered contract
game at every tested player count without an illegal action (``play_game`` raises on one),
determinism, and named scenarios of key behaviours, built as the rule tests build theirs
(docs/rules/README.md#scenario-set-up)."""

from __future__ import annotations

import pytest
from scenario import arrange_deck, contract_rummy_cards, decide, play, reset_to, toonerville_rook_cards
from test_env_common import GAMES as ALL_GAMES

import rummy_env
from rummy_env import contract_rummy_v0, toonerville_rook_v0
from rummy_env.agents import RandomAgent, make_agent, play_game
from rummy_env.agents.contract_expert import ExpertAdvice, ExpertContract
from rummy_env.agents.contract_heuristics import ContractAdvice, GreedyContract

AGENTS = {"greedy": GreedyContract, "expert": ExpertContract}
# every registered game with contracts, at the player counts the common tests use
GAMES = {name: (game.module, game.player_counts) for name, game in ALL_GAMES.items()
         if rummy_env.GAMES[name].rules().contract_play is not None}
EVERY_COUNT = [(game, n) for game, (_, counts) in GAMES.items() for n in counts]


@pytest.mark.parametrize("game, n", EVERY_COUNT)
def test_agents_play_complete_games_without_illegal_actions(game, n):
    module, _ = GAMES[game]
    env = module.env(num_players=n, max_turns_per_round=6 * n)
    lineup = [ExpertContract, GreedyContract, RandomAgent] * 3
    result = play_game(env, [cls() for cls in lineup[:n]], seed=n)
    assert len(result.round_penalties) == env.unwrapped.rules.num_rounds
    assert min(result.decisions) > 0


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("name", sorted(AGENTS))
def test_same_seed_same_game(game, name):
    module, _ = GAMES[game]
    env = module.env(num_players=4, max_turns_per_round=40)
    runs = [play_game(env, [AGENTS[name](), GreedyContract(), AGENTS[name](), RandomAgent()], seed=5)
            for _ in range(2)]
    assert runs[0] == runs[1]


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("name", sorted(AGENTS))
def test_each_baseline_beats_random_players(game, name):
    """A strength floor on a few full games: the baseline in seat 0 against three random
    players finishes every game with the lowest score (they rarely go out at all)."""
    module, _ = GAMES[game]
    env = module.env(num_players=4)
    for seed in range(2):
        result = play_game(env, [make_agent(name), RandomAgent(), RandomAgent(), RandomAgent()], seed=seed)
        assert result.winners == [0], result.scores



@pytest.mark.parametrize("game, name", [
    ("contract_rummy", "expert"), ("toonerville_rook", "greedy"),
    *(pytest.param(game, name, marks=pytest.mark.slow) for game in sorted(GAMES) for name in sorted(AGENTS)
      if (game, name) not in (("contract_rummy", "expert"), ("toonerville_rook", "greedy")))])
def test_advice_changes_nothing_the_agent_does(game, name):
    """``advise()`` reads a decision from itself alone: it equals the advice of an agent
    that has seen nothing else, and an agent asked for it before every action plays the
    same game as one never asked (expert's memory of the round is untouched)."""
    module, _ = GAMES[game]
    env = module.env(num_players=4, max_turns_per_round=40)
    asked = []

    class Advised(AGENTS[name]):
        def act(self, decision):
            advice = self.advise(decision)
            fresh = AGENTS[name]()
            fresh.start_game(self.seat_info, None)
            assert fresh.advise(decision) == advice
            asked.append(advice)
            return super().act(decision)

    plain = play_game(env, [AGENTS[name](), GreedyContract(), AGENTS[name](), RandomAgent()], seed=5)
    advised = play_game(env, [Advised(), GreedyContract(), Advised(), RandomAgent()], seed=5)
    assert plain == advised and len(asked) > 100
    assert all(isinstance(advice, ExpertAdvice if name == "expert" else ContractAdvice) for advice in asked)

# ------------------------------------------------------------------ Toonerville Rook
def rook_env(hands, upcard, stock=(), round_no=1, dealer=2):
    env = toonerville_rook_v0.env(num_players=3)
    deck = arrange_deck(toonerville_rook_cards(3), 3, dealer, hands, upcard, stock)
    return reset_to(env, deck, dealer, round_no)


ROOK_HAND = ["5R", "5Y", "5G", "9R", "9Y", "9G", "2B", "4B", "7G", "11Y", "13R", "14B"]
LOOSE_HAND = ["1R", "3Y", "5G", "7B", "9R", "11Y", "13G", "2B", "4R", "6Y", "8G", "10B"]


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_rook_goes_down_when_the_contract_is_in_hand(name):
    """Round 1 (two sets): seat 0 holds three 5s and three 9s; after drawing it starts
    going down, and then lays the second set."""
    env = rook_env([ROOK_HAND, None, None], upcard="12G", stock=["6B"])
    play(env, "draw stock", "pass", "pass")  # the others decline the upcard
    first = decide(env, AGENTS[name])
    assert first.startswith("meld set 5") or first.startswith("meld set 9"), first
    play(env, first)
    assert decide(env, AGENTS[name]).startswith("meld set"), "the going down is completed"


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_rook_takes_a_discard_that_completes_a_set(name):
    """Holding two 5s and two 9s toward two sets, the top discard 5B makes a set."""
    hand = ["5R", "5Y", "9R", "9Y", "1B", "3G", "7B", "11R", "13Y", "2G", "12B", "14G"]
    env = rook_env([hand, None, None], upcard="5B")
    assert decide(env, AGENTS[name]) == "draw discard"


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_rook_buys_a_card_that_completes_a_set_and_passes_on_a_useless_one(name):
    """Seat 1 may buy seat 0's declined upcard: it buys 5B, which makes its third 5, and
    passes on 13G, which fits nothing it holds."""
    hand = ["5R", "5Y", "9R", "9Y", "1B", "3G", "7B", "11R", "2Y", "2G", "12B", "14G"]
    for upcard, answer in (("5B", "buy"), ("13G", "pass")):
        env = rook_env([LOOSE_HAND, hand, None], upcard=upcard, dealer=2)
        play(env, "draw stock")
        assert env.agent_selection == "player_1"
        assert decide(env, AGENTS[name]) == answer, upcard


# ------------------------------------------------------------------ Contract Rummy
def cr_env(hands, upcard, stock=(), round_no=1, dealer=3, scores=None, **rules):
    env = contract_rummy_v0.env(num_players=4, **rules)
    deck = arrange_deck(contract_rummy_cards(4), 4, dealer, hands, upcard, stock)
    return reset_to(env, deck, dealer, round_no, scores=scores)


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_contract_rummy_goes_down_with_its_biggest_melds_then_sheds_its_highest_card(name):
    """Deal 1 (two sets): seat 0 holds four 7s and three kings; it goes down with both
    sets, the 7S in its set of 7s (going down uses as many cards as it can), and then
    discards 9S, the highest of the loose cards 2C 4D 3H 9S."""
    hand = ["7C", "7D", "7H", "KC", "KD", "KH", "7S", "2C", "4D", "9S"]
    env = cr_env([hand, None, None, None], upcard="JS", stock=["3H"])
    play(env, "draw stock")
    moves = []
    for _ in range(2):
        moves.append(decide(env, AGENTS[name]))
        play(env, moves[-1])
    assert sorted(moves) == ["meld set 7 CDHS", "meld set K CDH"]
    assert decide(env, AGENTS[name]) == "discard 9S"


def test_contract_rummy_expert_on_its_last_turn_keeps_the_fewest_points():
    """Deal 1, the turn cap (4 turns, 4 players) ends the round before seat 0 plays again:
    the hand is scored as it stands. With the cap far off the expert draws from the stock
    (2H brings no set nearer) and keeps its pairs; on its last turn it takes 2H, below its
    aces, and sheds an ace, the most points, though the aces are a pair."""
    hand = ["AS", "AH", "7C", "7D", "2D", "3C", "4H", "5S", "9C", "JD"]
    env = cr_env([hand, None, None, None], upcard="2H", stock=["8S"])
    assert decide(env, ExpertContract) == "draw stock"
    play(env, "draw stock")
    assert decide(env, ExpertContract) not in ("discard AS", "discard AH", "discard 7C", "discard 7D")
    env = cr_env([hand, None, None, None], upcard="2H", stock=["8S"], max_turns_per_round=4)
    assert decide(env, ExpertContract) == "draw discard"
    play(env, "draw discard")
    assert decide(env, ExpertContract) == "discard AH"


def test_contract_rummy_expert_protects_a_big_lead_in_the_last_deal():
    """Deal 7, seat 0 leads every other total by 50: whoever goes out gains this hand's points
    on it, so it takes 3D, below its ace, and sheds the ace. Without the lead it draws from
    the stock (3D brings no run nearer)."""
    hand = ["2C", "3C", "4C", "5C", "9D", "TD", "JD", "4H", "5H", "6H", "AS", "KS"]
    level = cr_env([hand, None, None, None], upcard="3D", stock=["8S"], round_no=7, scores=[100, 100, 100, 100])
    assert decide(level, ExpertContract) == "draw stock"
    ahead = cr_env([hand, None, None, None], upcard="3D", stock=["8S"], round_no=7, scores=[100, 150, 160, 170])
    assert decide(ahead, ExpertContract) == "draw discard"
    play(ahead, "draw discard")
    assert decide(ahead, ExpertContract) == "discard AS"
