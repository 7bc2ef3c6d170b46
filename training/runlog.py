"""A run's logs: ``metrics.csv`` (a row per update), ``workers.csv`` (a row per update and
rollout worker) and ``tensorboard/``.

TensorBoard gets every number of a metrics row as a scalar over environment steps, under
the column's name, except the evaluation's: those go under ``learning_curve/`` as the PNG
draws them (``win_rate`` with ``win_rate_low`` and ``win_rate_high``, its 95% interval,
and ``parity``; ``penalty_per_round`` and ``opponent_penalty_per_round``), and a custom
scalars layout (TensorBoard's CUSTOM SCALARS tab) puts the win rate, its interval and
parity in one chart and the two penalties in another.

A resumed run appends to the files of the run it continues, dropping first any row of an
update after the one its last.pt holds (written by an update that was stopped before its
last.pt), and TensorBoard hides those updates' events (``purge_step``). A run resumed before
its start was done (``resumed_at`` (-1, -1)) drops every row and event: its start logs again.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any, Iterable

from .config import TrainConfig

CSV_FIELDS = ("update", "env_steps", "trained_decisions", "seconds", "steps_per_second", "learning_rate",
              "ent_coef", "policy_loss", "value_loss", "entropy", "approx_kl", "kl_reference", "clip_fraction",
              "explained_variance",
              "train_games", "train_win_rate", "train_penalty_per_round", "imitation_agreement",
              "imitation_value_loss",
              "eval_win_rate", "eval_win_low", "eval_win_high", "eval_penalty_per_round", "eval_final_score",
              "eval_opponent_final_score", "eval_opponent_penalty_per_round",
              # where an update's time went (the collection's parts: policy 'legal' only)
              "collect_seconds", "update_seconds", "collect_core_seconds", "collect_features_seconds",
              "collect_forward_seconds", "collect_bookkeeping_seconds")
TIMING_FIELDS = ("seconds", "steps_per_second", "collect_seconds", "update_seconds", "collect_core_seconds",
                 "collect_features_seconds", "collect_forward_seconds", "collect_bookkeeping_seconds")
"""The metrics columns that time the run: the only ones that differ between identical runs."""
WORKER_FIELDS = ("update", "worker", "node", "env_steps", "seconds")
CURVE = "learning_curve/"
CURVE_TAGS = {"eval_win_rate": "win_rate", "eval_win_low": "win_rate_low", "eval_win_high": "win_rate_high",
              "eval_penalty_per_round": "penalty_per_round",
              "eval_opponent_penalty_per_round": "opponent_penalty_per_round"}
"""The metrics columns that the learning curve draws, to their TensorBoard tags under ``CURVE``."""


def curve_layout(config: TrainConfig) -> dict[str, Any]:
    """The custom scalars layout of the learning curve's two charts."""
    tags = [f"^{CURVE}{tag}$" for tag in ("win_rate", "win_rate_low", "win_rate_high", "parity")]
    return {"learning curve": {
        f"win rate vs {config.eval_opponent} (95% interval, parity)": ["Multiline", tags],
        f"win rate vs {config.eval_opponent}, its interval as a band": [
            "Margin", [f"{CURVE}win_rate", f"{CURVE}win_rate_low", f"{CURVE}win_rate_high"]],
        "penalty per round (policy, opponent)": [
            "Multiline", [f"^{CURVE}penalty_per_round$", f"^{CURVE}opponent_penalty_per_round$"]],
    }}


class RunLog:
    """The run folder's logs, opened for a run that starts (``resumed_at`` None) or one that
    goes on after the update and env steps ``resumed_at`` gives."""

    def __init__(self, run_dir: Path, config: TrainConfig, resumed_at: tuple[int, int] | None) -> None:
        from torch.utils.tensorboard import SummaryWriter  # tensorboard is slow to import

        self.parity = 1.0 / config.num_players
        metrics, workers = run_dir / "metrics.csv", run_dir / "workers.csv"
        if resumed_at is not None:
            for path in (metrics, workers):
                _drop_rows_after(path, resumed_at[0])
        purge = None if resumed_at is None else resumed_at[1] + 1
        self.writer = SummaryWriter(str(run_dir / "tensorboard"), purge_step=purge)
        self.writer.add_custom_scalars(curve_layout(config))
        self._files = []
        self.metrics = self._open(metrics, CSV_FIELDS)
        self.workers = self._open(workers, WORKER_FIELDS)

    def _open(self, path: Path, fields: tuple[str, ...]) -> csv.DictWriter:
        append = path.exists() and path.stat().st_size > 0
        file = path.open("a" if append else "w", newline="")
        self._files.append(file)
        rows = csv.DictWriter(file, fieldnames=fields)
        if not append:
            rows.writeheader()
        return rows

    def row(self, row: dict[str, Any]) -> None:
        """One update's metrics (and evaluation, if it had one)."""
        self.metrics.writerow({k: row.get(k, "") for k in CSV_FIELDS})
        step = row["env_steps"]
        for key, value in row.items():
            if key in ("update", "env_steps") or key in CURVE_TAGS:
                continue
            self.scalar(key, value, step)
        if "eval_win_rate" in row:
            mean = row["eval_win_rate"]
            for key, tag in CURVE_TAGS.items():  # no interval (a single block): the mean, as the PNG draws it
                value = row.get(key)
                self.scalar(CURVE + tag, mean if value is None and key.startswith("eval_win_") else value, step)
            self.scalar(CURVE + "parity", self.parity, step)

    def scalar(self, tag: str, value: Any, step: int) -> None:
        if isinstance(value, (int, float)) and math.isfinite(value):
            self.writer.add_scalar(tag, value, step)

    def worker_rows(self, update: int, reports: Iterable[dict[str, Any]]) -> None:
        self.workers.writerows({"update": update, **report} for report in reports)

    def flush(self) -> None:
        for file in self._files:
            file.flush()
        self.writer.flush()

    def close(self) -> None:
        for file in self._files:
            file.close()
        self.writer.close()


def _drop_rows_after(path: Path, update: int) -> None:
    if not path.exists():
        return
    with path.open(newline="") as file:
        reader = csv.DictReader(file)
        rows = list(reader)
    kept = [row for row in rows if int(row["update"]) <= update]
    if len(kept) < len(rows):
        with path.open("w", newline="") as file:
            writer = csv.DictWriter(file, fieldnames=reader.fieldnames)
            writer.writeheader()
            writer.writerows(kept)
