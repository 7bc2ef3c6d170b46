"""Behaviour pinned before the engine's redesign (issue 21): whole seeded games, every step
(observation, mask, rewards, action), for every game and player count (see golden.py)."""

from __future__ import annotations

import json

import pytest

from golden import PATH, PLAYER_COUNTS, game_digest

PINNED = json.loads(PATH.read_text())
FAST_GAMES = 1
KEYS = [(game, n) for game, counts in PLAYER_COUNTS.items() for n in counts]


@pytest.mark.parametrize("game, n", KEYS)
def test_first_games_are_the_pinned_ones(game, n):
    assert [game_digest(game, n, seed) for seed in range(FAST_GAMES)] == PINNED[f"{game}/{n}"][:FAST_GAMES]


QUARTERS = range(4)  # each count's games in four test items, which pytest-xdist spreads evenly


@pytest.mark.slow
@pytest.mark.parametrize("quarter", QUARTERS)
@pytest.mark.parametrize("game, n", KEYS)
def test_every_pinned_game_is_played_the_same(game, n, quarter):
    pinned = PINNED[f"{game}/{n}"]
    assert len(pinned) >= 100
    seeds = range(len(pinned))[quarter::len(QUARTERS)]
    assert [game_digest(game, n, seed) for seed in seeds] == [pinned[seed] for seed in seeds]
