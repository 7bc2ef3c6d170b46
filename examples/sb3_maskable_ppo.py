"""Stable-Baselines3: SB3-contrib's MaskablePPO learns a game against fixed opponents.

    pip install -e ".[train,sb3]"
    python examples/sb3_maskable_ppo.py --smoke                 # under a minute
    python examples/sb3_maskable_ppo.py --steps 100000 --opponents random   # learns to beat random

``rummy_env.wrappers.SingleAgentEnv`` makes one seat of a game a Gymnasium env: the
opponents (here ``--opponents``, default ``greedy``) act inside ``step``, every reward the
seat receives on any seat's step reaches the learner, and ``action_masks()`` is the method
MaskablePPO reads the legal actions from, in any SB3 vector env. The learning seat is drawn
at each reset, so the policy learns every seat. At the end the policy plays
``--eval-games`` games on seeds the training never used, and one ``RESULT {json}`` line
gives the throughput (``env_steps``: decisions of every seat, this project's unit) and the
win rate.
"""

from __future__ import annotations

import argparse
import json
import time

from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env

from rummy_env import GAMES
from rummy_env.wrappers import SingleAgentEnv

EVAL_SEED = 1_000_000  # evaluation deals: seeds far from the training's


def evaluate(model: MaskablePPO, game: str, opponents: str, games: int) -> float:
    """The policy's share of the wins over ``games`` games on unseen seeds (ties shared)."""
    env, wins = SingleAgentEnv(game, opponents=opponents), 0.0
    for index in range(games):
        obs, info = env.reset(seed=EVAL_SEED + index)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, _, done, _, info = env.step(int(action))
        wins += (env.seat in info["winners"]) / len(info["winners"])
    return wins / games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", choices=list(GAMES), default="three_thirteen")
    ap.add_argument("--opponents", default="greedy", help="agent spec of every other seat (default greedy)")
    ap.add_argument("--steps", type=int, default=300_000, help="learner decisions to train for")
    ap.add_argument("--n-envs", type=int, default=8, help="games in SB3's vector env")
    ap.add_argument("--eval-games", type=int, default=200, help="evaluation games (0: none)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--smoke", action="store_true", help="a tiny run: 4,096 steps, 10 evaluation games")
    args = ap.parse_args()
    if args.smoke:
        args.steps, args.eval_games = 4_096, 10

    vec = make_vec_env(SingleAgentEnv, n_envs=args.n_envs, seed=args.seed,
                       env_kwargs={"game": args.game, "opponents": args.opponents})
    model = MaskablePPO("MlpPolicy", vec, n_steps=256, batch_size=512, gamma=0.995, learning_rate=3e-4,
                        ent_coef=0.01, seed=args.seed, verbose=0)
    start = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    seconds = time.perf_counter() - start
    env_steps = int(sum(vec.get_attr("decisions")))
    win_rate = evaluate(model, args.game, args.opponents, args.eval_games) if args.eval_games else None
    print("RESULT " + json.dumps({
        "library": "sb3-contrib", "game": args.game, "opponents": args.opponents, "env_steps": env_steps,
        "learner_steps": int(model.num_timesteps), "seconds": round(seconds, 2),
        "steps_per_second": round(env_steps / seconds, 1), "updates": int(model._n_updates),
        "final_loss": float(model.logger.name_to_value["train/loss"]),
        "eval_games": args.eval_games, "eval_win_rate": win_rate,
        "parity": round(1 / GAMES[args.game].default_players, 4)}))


if __name__ == "__main__":
    main()
