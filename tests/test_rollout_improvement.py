"""``benchmarks/rollout_improvement.py``: a deal sampled for one seat changes only what that
seat cannot see, in every game; the probe is reproducible from its seed and its gains
come only from decisions where the rollout policy changes ``expert``'s choice (by at least
the minimum gap); a bad option
is one line on stderr, exit code 2, before any work."""

from __future__ import annotations

import importlib.util
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from rummy_env import GAMES
from rummy_env.state import GameState

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "rollout_improvement.py"
_spec = importlib.util.spec_from_file_location("rollout_improvement", SCRIPT)
rollout_improvement = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rollout_improvement)


def _hidden_cards(state: GameState, seat: int) -> Counter:
    cards = Counter(state.stock)
    for other, hand in enumerate(state.hands):
        if other != seat:
            cards.update({face: held - known for face, (held, known) in enumerate(zip(hand, state.known[other]))})
    return +cards


def _mid_round(game: str, decisions: int) -> tuple[rollout_improvement.Rollouts, GameState]:
    """A game of four ``expert``s after ``decisions`` decisions, so that cards have been
    drawn, taken from the pile and (in the contract games) laid down."""
    rollouts = rollout_improvement.Rollouts(game, seed=3)
    engine, state = rollouts.engine, rollouts.engine.new_game(11)
    players = rollouts.experts()
    for _ in range(decisions):
        engine.apply(state, int(players[engine.to_act(state)].act(rollouts.decision(state))))
    return rollouts, state


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("decisions", [0, 60])
def test_a_sampled_deal_changes_only_what_the_seat_cannot_see(game: str, decisions: int) -> None:
    rollouts, state = _mid_round(game, decisions)
    before = state.clone()
    rng = random.Random(5)
    for seat in range(rollout_improvement.PLAYERS):
        seen = rollouts.observer.encode(state, seat)
        deals = [rollout_improvement.determinize(state, seat, rng) for _ in range(4)]
        for deal in deals:
            assert np.array_equal(rollouts.observer.encode(deal, seat), seen)
            assert _hidden_cards(deal, seat) == _hidden_cards(state, seat)
            assert [sum(hand) for hand in deal.hands] == [sum(hand) for hand in state.hands]
            assert deal.hands[seat] == state.hands[seat] and deal.known == state.known
            for other, hand in enumerate(deal.hands):
                assert all(held >= known for held, known in zip(hand, deal.known[other]))
        assert any(deal.stock != state.stock or deal.hands != state.hands for deal in deals)
    assert state.hands == before.hands and state.stock == before.stock  # the real game untouched


@pytest.mark.slow  # the probe itself runs in the fast suite in the next test
def test_the_probe_is_reproducible_and_gains_only_where_it_disagrees() -> None:
    first = rollout_improvement.probe("three_thirteen", games=1, share=0.03, samples=2, check_samples=2, seed=4)
    again = rollout_improvement.probe("three_thirteen", games=1, share=0.03, samples=2, check_samples=2, seed=4)
    assert first["probes"] == again["probes"] and first["probed"] == len(first["probes"]) > 1
    assert all(probe["gain"] == 0 for probe in first["probes"] if not probe["deviates"])
    assert all(probe["deviates"] == (probe["expert"] != probe["rollout"]) for probe in first["probes"])
    assert sum(probe["deviates"] for probe in first["probes"]) == first["deviated"] > 0
    low, high = first["gain_interval"]
    assert low <= first["mean_gain"] <= high


def test_a_minimum_gap_keeps_expert_where_the_rollouts_prefer_another_action_by_less() -> None:
    kept = rollout_improvement.probe("three_thirteen", games=1, share=0.03, samples=2, check_samples=2, seed=4,
                                     min_gap=3.0)
    assert any(probe["expert"] != probe["rollout"] and not probe["deviates"] for probe in kept["probes"])
    assert all(probe["deviates"] == (probe["expert"] != probe["rollout"] and probe["choosing_gap"] >= 3.0)
               for probe in kept["probes"])
    assert all(probe["gain"] == 0 for probe in kept["probes"] if not probe["deviates"])


@pytest.mark.parametrize("argv, message", [
    (["three_thirteen", "--share", "0"], "--share: expected a share above 0 and at most 1, not '0'"),
    (["three_thirteen", "--games", "0"], "--games: expected an integer of at least 1, not '0'"),
    (["three_thirteen", "--check-samples", "1"], "--check-samples: expected an integer of at least 2, not '1'"),
    (["three_thirteen", "--phases", "bidding"], "--phases: invalid choice: 'bidding'"),
    (["three_thirteen", "--min-gap", "-1"], "--min-gap: expected a number of at least 0, not -1.0"),
    (["three_thirteen", "--json", "{missing}/out.json"], "which does not exist"),
])
def test_its_command_line_errors_are_one_line(argv: list[str], message: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture) -> None:
    argv = [arg.format(missing=tmp_path / "missing") for arg in argv]
    with pytest.raises(SystemExit) as stop:
        rollout_improvement.main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and message in err
    assert list(tmp_path.iterdir()) == []
