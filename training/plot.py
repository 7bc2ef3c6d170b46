"""The learning curve of a run, as a PNG: win rate against the evaluation opponent (with
its 95% interval and the parity line) and penalty per round, over environment steps. The
legends sit below the axes, off the curves. TensorBoard gets the same figures
(``runlog.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import matplotlib

matplotlib.use("Agg")  # files only: training machines have no screen
import matplotlib.pyplot as plt  # noqa: E402

from .config import TrainConfig  # noqa: E402

BELOW = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.15), "ncol": 3, "frameon": False}
"""Where each legend goes: centred under its axes' label, in one row."""


def plot_learning_curve(history: Sequence[dict[str, Any]], config: TrainConfig, path: str | Path) -> None:
    """Draws the evaluations of ``history`` (rows with env_steps and eval_* values) to ``path``."""
    steps = [row["env_steps"] for row in history]
    figure, (wins, penalty) = plt.subplots(1, 2, figsize=(11, 4))
    wins.plot(steps, [row["eval_win_rate"] for row in history], marker="o", label="policy")
    low = [row["eval_win_low"] if row["eval_win_low"] is not None else row["eval_win_rate"] for row in history]
    high = [row["eval_win_high"] if row["eval_win_high"] is not None else row["eval_win_rate"] for row in history]
    wins.fill_between(steps, low, high, alpha=0.25, label="95% interval")
    wins.axhline(1.0 / config.num_players, color="grey", linestyle="--", label="parity")
    wins.set(xlabel="environment steps", ylabel=f"win rate vs {config.eval_opponent}", ylim=(0, 1))
    wins.legend(**BELOW)
    penalty.plot(steps, [row["eval_penalty_per_round"] for row in history], marker="o", label="policy")
    penalty.plot(steps, [row.get("eval_opponent_penalty_per_round") for row in history], linestyle="--",
                 color="grey", label=config.eval_opponent)
    penalty.set(xlabel="environment steps", ylabel="mean penalty per round")
    penalty.legend(**BELOW)
    figure.suptitle(f"{config.game}, {config.num_players} players: policy vs {config.eval_opponent} "
                    f"in the other seats")
    figure.tight_layout()
    figure.savefig(path, dpi=100, bbox_inches="tight")  # the box takes in the legends below the axes
    plt.close(figure)
