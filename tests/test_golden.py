"""Behaviour pinned before the engine's redesign (issue 21): whole seeded games, every step
(observation, mask, rewards, action), for every game and player count (see golden.py)."""

from __future__ import annotations

import json

import pytest

from golden import PATH, PLAYER_COUNTS, game_digest

PINNED = json.loads(PATH.read_text())
FAST_GAMES = 1
KEYS = [(game, n, backend) for game, counts in PLAYER_COUNTS.items() for n in counts for backend in ("native", "python")]
"""Every game and player count, on the compiled core and on the reference engine (both must
play every pinned game as pinned)."""


@pytest.mark.parametrize("game, n, backend", KEYS)
def test_first_games_are_the_pinned_ones(game, n, backend):
    digests = [game_digest(game, n, seed, backend=backend) for seed in range(FAST_GAMES)]
    assert digests == PINNED[f"{game}/{n}"][:FAST_GAMES]


QUARTERS = range(4)  # each count's games in four test items, which pytest-xdist spreads evenly


@pytest.mark.slow
@pytest.mark.parametrize("quarter", QUARTERS)
@pytest.mark.parametrize("game, n", [(game, n) for game, counts in PLAYER_COUNTS.items() for n in counts])
def test_every_pinned_game_is_played_the_same(game, n, quarter):
    """On the default backend, the compiled core, whose every pinned game must be the
    reference's (the pins were taken on the reference engine)."""
    pinned = PINNED[f"{game}/{n}"]
    assert len(pinned) >= 100
    seeds = range(len(pinned))[quarter::len(QUARTERS)]
    assert [game_digest(game, n, seed) for seed in seeds] == [pinned[seed] for seed in seeds]
