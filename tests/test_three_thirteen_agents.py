"""Three-Thirteen's ``greedy`` and ``expert`` agents: complete games at every player count
without an illegal action (``play_game`` raises on one), determinism, and a named scenario
for each key behaviour of the heuristics (``rummy_env/agents/three_thirteen_heuristics.py``
says what they do), built as the rule tests build theirs
(docs/rules/README.md#scenario-set-up)."""

from __future__ import annotations

import pytest
from scenario import arrange_deck, decide, desc, play, reset_to

from rummy_env import three_thirteen_v0
from rummy_env.agents.base import RandomAgent, SeatInfo, play_game
from rummy_env.agents.three_thirteen_heuristics import ExpertThreeThirteen, GreedyThreeThirteen

ONE_DECK = [r + s for s in "CDHS" for r in "A23456789TJQK"]
AGENTS = {"greedy": GreedyThreeThirteen, "expert": ExpertThreeThirteen}


def start(num_players, round_no, hands, upcard, stock=(), dealer=0):
    """A wrapped env reset to the scenario: ``hands`` by seat (``None``: filled with unused
    cards), then the upcard, then the first stock cards."""
    env = three_thirteen_v0.env(num_players=num_players)
    cards = ONE_DECK * (1 if num_players == 2 else 2)
    deck = arrange_deck(cards, num_players, dealer, hands, upcard, stock, hand_size=round_no + 2)
    return reset_to(env, deck, dealer, round_no)


# ============================================================ complete games
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_agents_play_complete_games_without_illegal_actions(num_players):
    env = three_thirteen_v0.env(num_players=num_players)
    lineup = [ExpertThreeThirteen, GreedyThreeThirteen, RandomAgent, ExpertThreeThirteen][:num_players]
    for seed in range(2):
        result = play_game(env, [cls() for cls in lineup], seed=seed)
        assert len(result.round_penalties) == 11
        assert desc(env)["phase"] == "game_over"
    for cls in (GreedyThreeThirteen, ExpertThreeThirteen):
        result = play_game(env, [cls() for _ in range(num_players)], seed=7)
        assert len(result.round_penalties) == 11


@pytest.mark.parametrize("name", AGENTS)
def test_same_seed_same_game(name):
    env = three_thirteen_v0.env(num_players=3)
    runs = [play_game(env, [AGENTS[name](), GreedyThreeThirteen(), AGENTS[name]()], seed=11) for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0].decisions == runs[1].decisions


def test_greedy_beats_random_players():
    env = three_thirteen_v0.env(num_players=4)
    result = play_game(env, [GreedyThreeThirteen(), RandomAgent(), RandomAgent(), RandomAgent()], seed=3)
    assert result.winners == [0]


def test_agents_refuse_games_with_contracts():
    from rummy_env import contract_rummy_v0
    env = contract_rummy_v0.env(num_players=3)
    env.reset(seed=0)
    for cls in AGENTS.values():
        with pytest.raises(ValueError, match="plays games without contracts, not contract_rummy"):
            cls().start_game(SeatInfo.of(env, "player_0"), 0)


# ============================================================ going out
@pytest.mark.parametrize("name", AGENTS)
def test_goes_out_as_soon_as_it_can(name):
    # Round 2 (wild 4s): 5H 6H 7H and the drawn 8H make a run, the KS goes.
    env = start(2, 2, [None, ["5H", "6H", "7H", "KS"]], upcard="QD", stock=["8H"])
    assert decide(env, AGENTS[name]) == "draw stock"  # the QD helps nothing
    play(env, "draw stock")
    assert decide(env, AGENTS[name]) == "go out KS"


@pytest.mark.parametrize("name", AGENTS)
def test_goes_out_with_a_natural_rather_than_a_wild(name):
    # Round 2 (wild 4s): 7H 7S 7D 4C 4D is a set of five, so any card may be the discard
    # that goes out, a wild too.
    env = start(2, 2, [None, ["7H", "7S", "7D", "4C"]], upcard="QD", stock=["4D"])
    play(env, "draw stock")
    outs = sorted(t for t in env.unwrapped.legal_actions_text() if t.startswith("go out"))
    assert outs == ["go out 4C", "go out 4D", "go out 7D", "go out 7H", "go out 7S"]
    assert decide(env, AGENTS[name]) in {"go out 7D", "go out 7H", "go out 7S"}


# ============================================================ the draw
@pytest.mark.parametrize("name", AGENTS)
def test_takes_the_discard_that_completes_a_meld(name):
    env = start(2, 2, [None, ["5H", "6H", "9C", "KS"]], upcard="7H")
    assert decide(env, AGENTS[name]) == "draw discard"


@pytest.mark.parametrize("name", AGENTS)
def test_ignores_a_discard_that_helps_nothing(name):
    # The QD melds with nothing and is no lower than the KS it could replace.
    env = start(2, 2, [None, ["5H", "6H", "9C", "KS"]], upcard="QD")
    assert decide(env, AGENTS[name]) == "draw stock"


def test_greedy_takes_a_low_discard_to_replace_a_high_card():
    # The AD melds with nothing but lowers the penalty: AD in, KS out.
    env = start(2, 2, [None, ["5H", "6H", "9C", "KS"]], upcard="AD")
    assert decide(env, GreedyThreeThirteen) == "draw discard"


# ============================================================ the discard
# Round 8 (wild 10s, worth 10): with the KH drawn, eleven cards of which no two can share
# a meld, even with the wild TC (penalty 70). Every 10-point card's discard leaves 60.
NO_MELD = ["TC", "AC", "4C", "7C", "JC", "2D", "5D", "8D", "QD", "3H"]


def test_greedy_discards_the_highest_card_and_never_a_wild_that_is_as_good():
    env = start(2, 8, [None, NO_MELD], upcard="9S", stock=["KH"])
    play(env, "draw stock")
    assert env.unwrapped.engine.hand_penalty(env.unwrapped.game_state, 1) == 70
    # TC, JC, QD and KH all leave 60: not the wild, the highest face among the others
    assert decide(env, GreedyThreeThirteen) == "discard KH"


def test_expert_keeps_the_wild():
    env = start(2, 8, [None, NO_MELD], upcard="9S", stock=["KH"])
    play(env, "draw stock")
    assert decide(env, ExpertThreeThirteen) in {"discard JC", "discard QD", "discard KH"}


def test_greedy_breaks_a_pair_for_the_lower_penalty_and_expert_keeps_it():
    # Round 4 (wild 6s): 2C-5C is a run; 8S 8D 7H are loose. Discarding an 8 leaves 15,
    # the 7H leaves 16, but the pair of 8s has live draws (six 8s and eight wilds).
    env = start(2, 4, [None, ["2C", "3C", "4C", "5C", "8S", "8D"]], upcard="KS", stock=["7H"])
    play(env, "draw stock")
    assert decide(env, GreedyThreeThirteen) == "discard 8S"
    assert decide(env, ExpertThreeThirteen) == "discard 7H"


def test_expert_minimises_its_penalty_on_the_last_turn():
    # Seat 1 goes out at once; seat 0's last turn keeps the lowest penalty, not the pair.
    env = start(2, 4, [["2C", "3C", "4C", "5C", "8S", "8D"], ["9H", "9S", "9D", "JH", "JS", "JD"]],
                upcard="KS", stock=["QS", "7H"], dealer=0)
    play(env, "draw stock", "go out QS")
    assert desc(env)["current"] == "player_0"
    play(env, "draw stock")
    assert decide(env, ExpertThreeThirteen) in {"discard 8S", "discard 8D"}


def test_expert_avoids_the_rank_the_next_player_took():
    # Round 2 (wild 4s). Seat 1 takes the upcard QH; seat 0 then holds 5H 6H 7H and two
    # loose 10-point cards, QC and KS, alike in every other way (on a tie the expert lets
    # the lower face go, the QC): it lets the KS go, not a queen for seat 1's pair.
    env = start(2, 2, [["5H", "6H", "QC", "KS"], ["QD", "2S", "8C", "9D"]], upcard="QH", stock=["7H"])
    play(env, "draw discard", "discard 2S", "draw stock")
    assert decide(env, ExpertThreeThirteen) == "discard KS"
