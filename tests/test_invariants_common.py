"""Invariants that every registered game keeps during random play, written once over the
registry (``rummy_env.GAMES``): a game added there is checked with no edit here. Each
game's own suite (``test_<game>_invariants.py``, ``test_invariants.py`` for Three-Thirteen)
adds the checks of its rules and an independent oracle of its masks.

At every step: (a) card conservation; (b) the mask of the agent to act is non-empty and is
the engine's legal list, every other agent's mask is all zeros; (c) a masked-out action is
refused with an error naming the agent and the action, and changes nothing; (d) the agent's
observation and mask ignore the cards it cannot see. At some steps (e) every offered action
leads to a state where the next agent has a legal action (no dead ends), or ends the game.
"""

from __future__ import annotations

import numpy as np
import pytest
from invariant_checks import InvariantChecks, sweep
from test_env_common import EVERY_COUNT, GAMES

pytestmark = pytest.mark.usefixtures("each_backend_reference_slow")  # the reference's run is slow

GAMES_PER_COUNT = 4
"""Random games per game and player count: the first in the default run, the rest slow."""
LOOKAHEAD_EVERY = 25
"""Steps between the (e) checks, which apply every offered action."""
TURN_CAP = 30
"""Turns per round: rounds end by the cap as well as by going out, so that whole games fit."""


def check_no_dead_end_after_any_action(checks: InvariantChecks, legal: list[int]) -> None:
    raw = checks.raw
    snapshot = raw.get_state()
    for action in legal:
        raw.step(action)
        if raw.agents:
            after = raw.observe(raw.agent_selection)["action_mask"]
            assert after.any() or raw.terminations[raw.agent_selection], (
                f"{raw.action_to_text(action)} left {raw.agent_selection} with no legal action")
        raw.set_state(snapshot)
        checks.count["lookahead_actions"] += 1


@pytest.mark.parametrize("game, n, index", sweep(
    [(game, n, i) for i in range(GAMES_PER_COUNT) for game, n in EVERY_COUNT], fast=len(EVERY_COUNT)))
def test_random_play_keeps_the_shared_invariants(game: str, n: int, index: int):
    env = GAMES[game].module.env(num_players=n, max_turns_per_round=TURN_CAP)
    seed = 1000 * n + index
    checks = InvariantChecks(env, seed)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for step, agent in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        checks.check_cards()
        legal = checks.check_masks(agent, obs, term or trunc, oracle=False)
        if term or trunc:
            env.step(None)
            continue
        thorough = step % 10 == 0
        described = checks.check_illegal(agent, legal, thorough)
        checks.check_hidden(agent, described)
        if step % LOOKAHEAD_EVERY == 0:
            check_no_dead_end_after_any_action(checks, legal)
        env.step(int(rng.choice(legal)))
    assert env.unwrapped.game_state.round + 1 == env.unwrapped.rules.num_rounds  # the whole game
    assert checks.count["illegal_checks"] > 20 and checks.count["hidden_checks"] > 20
    assert checks.count["lookahead_actions"] > 0
