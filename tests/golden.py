"""Golden trajectories: digests of whole seeded games, for every game and player count,
taken before the engine was split into rule components (issue 21) and checked after every
change since. A digest covers every step of the game: the acting seat, its observation, its
action mask, every seat's reward, and the action taken.

The seats are played by a fixed mix of policies so that the games reach every decision the
baselines reach and the odd ones that only random play finds: seat ``s`` of game ``seed`` is
``POLICIES[(seed + s) % 3]``. The random seats never take a deep draw: random play's deep
draws can grow a hand until one mask takes minutes (docs/rules/contract_rummy.md#deep-draws). Run this file to print fresh digests (only ever when behaviour
is meant to change, with the reason in the commit)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

import rummy_env
from rummy_env.agents import Decision, RandomAgent, SeatInfo, make_agent

POLICIES = ("expert", "greedy", "random")
GAMES_PER_COUNT = 100
# every player count each game allows (written out: the pins must not follow a code change)
PLAYER_COUNTS = {"three_thirteen": range(2, 5), "contract_rummy": range(3, 9), "toonerville_rook": range(3, 6)}
PATH = Path(__file__).parent / "data" / "golden_trajectories.json"


def game_digest(game: str, num_players: int, seed: int, max_steps: int = 20_000, backend: str | None = None) -> str:
    """Digest of one whole game from ``reset(seed=seed)`` (or its first ``max_steps`` steps),
    played on ``backend`` (the env's default: the compiled core)."""
    env = getattr(rummy_env, f"{game}_v0").env(num_players=num_players, backend=backend)
    env.reset(seed=seed)
    raw = env.unwrapped
    agents = [make_agent(POLICIES[(seed + s) % len(POLICIES)]) for s in range(num_players)]
    for s, agent in enumerate(agents):
        agent.start_game(SeatInfo.of(env, raw.possible_agents[s]), seed * 7919 + s)
    h = hashlib.sha256()
    for step, name in enumerate(env.agent_iter(max_iter=max_steps)):
        obs, _, term, trunc, _ = env.last()
        h.update(name.encode())
        h.update(obs["observation"].tobytes())
        h.update(obs["action_mask"].tobytes())
        h.update(repr(sorted(raw.rewards.items())).encode())
        if term or trunc:
            env.step(None)
            continue
        seat = raw.possible_agents.index(name)
        mask = obs["action_mask"]
        if isinstance(agents[seat], RandomAgent) and "deep_draw" in raw.layout.blocks:
            deep = raw.layout.blocks["deep_draw"]
            mask = mask.copy()
            mask[deep.start:deep.stop] = 0
        action = agents[seat].act(Decision(obs["observation"], mask, lambda n=name: raw.describe(n)))
        h.update(np.int64(action).tobytes())
        env.step(action)
    h.update(np.array(raw.game_state.scores, dtype=np.int64).tobytes())
    return h.hexdigest()[:16]


def _digests(key: str, games: int) -> list[str]:
    game, n = key.split("/")
    return [game_digest(game, int(n), seed) for seed in range(games)]


def main() -> None:
    from multiprocessing import Pool
    games = int(sys.argv[1]) if len(sys.argv) > 1 else GAMES_PER_COUNT
    keys = [f"{g}/{n}" for g, counts in PLAYER_COUNTS.items() for n in counts]
    with Pool() as pool:
        digests = pool.starmap(_digests, [(k, games) for k in keys])
    PATH.write_text(json.dumps(dict(zip(keys, digests)), indent=0) + "\n")


if __name__ == "__main__":
    main()
