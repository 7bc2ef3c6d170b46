"""API behaviour that every game shares, run for each game: PettingZoo's ``api_test`` as
it is (pinned: the envs reject its dummy reset option), calls out of order, and stepping
after the game ends. Each game's own API suite holds what differs between games."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from rummy_env import IllegalActionError, contract_rummy_v0, three_thirteen_v0
from rummy_env.engine import Phase

# Every game module, with the player counts it supports.
GAMES = {
    "three_thirteen": (three_thirteen_v0, (2, 3, 4)),
    "contract_rummy": (contract_rummy_v0, (3, 4, 5, 8)),
}
EVERY_COUNT = [(name, n) for name, (_, counts) in GAMES.items() for n in counts]


def smallest(game: str):
    """The game's module and its smallest player count."""
    module, counts = GAMES[game]
    return module, counts[0]


@pytest.mark.xfail(strict=True, raises=ValueError, reason=(
    "By design: api_test begins with env.reset(seed=0, options={'options': 1}) to probe the "
    "signature, and unknown reset options are rejected with a clear ValueError (RULES.md, "
    "scenario set-up); each game's API suite runs the rest of api_test through DropApiTestOption"))
@pytest.mark.parametrize("game, n", EVERY_COUNT)
def test_pettingzoo_api_test_unmodified(game, n):
    api_test(GAMES[game][0].env(num_players=n), num_cycles=10)


@pytest.mark.parametrize("game", GAMES)
def test_calls_before_reset_raise(game):
    module, n = smallest(game)
    env = module.env(num_players=n)
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    with pytest.raises(AttributeError, match="reset"):
        env.last()
    with pytest.raises(AssertionError, match="reset"):
        env.observe("player_0")
    with pytest.raises(AttributeError):
        _ = env.agent_selection
    with pytest.raises(AssertionError, match="reset"):
        env.render()
    with pytest.raises(AssertionError, match="reset"):
        list(env.agent_iter())


@pytest.mark.parametrize("game", GAMES)
def test_raw_env_calls_before_reset_raise(game):
    module, n = smallest(game)
    raw = module.raw_env(num_players=n)
    with pytest.raises(RuntimeError, match="reset"):
        raw.step(0)
    with pytest.raises(AttributeError):
        raw.last()
    with pytest.raises(RuntimeError, match="reset"):
        raw.observe("player_0")
    for call in (raw.describe, raw.get_state, raw.legal_actions_text):
        with pytest.raises(RuntimeError, match="reset"):
            call()


@pytest.mark.parametrize("game", GAMES)
def test_step_after_termination(game):
    module, n = smallest(game)
    env = module.env(num_players=n, max_turns_per_round=1)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            assert not obs["action_mask"].any()
            with pytest.raises(ValueError):
                env.step(0)  # a dead agent's only valid action is None
            env.step(None)
        else:
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.agents == []
    raw = env.unwrapped
    assert raw.legal_actions_text() == [] and raw.game_state.phase == Phase.GAME_OVER
    with pytest.raises(IllegalActionError, match="game is over"):
        raw.engine.apply(raw.game_state, 0)
