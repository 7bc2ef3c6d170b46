"""Masked-PPO self-play training of one game.

    python -m rummy_training.ppo --config configs/three_thirteen.yaml          # or: rummy-train ...
    python -m rummy_training.ppo --config configs/three_thirteen.yaml --total-steps 200000 --seed 2

Every field of ``TrainConfig`` (``training/config.py``) can be overridden on the command
line (``--help`` lists them). The loop: rollout workers play ``num_envs`` games side by
side with the current weights (one batched forward pass per step, see ``rollout.py``; with
``policy: legal``, on the batched core, ``vector_rollout.py``), then the trainer runs the
config's learner (``LEARNERS``: the PPO update below, or Deep Monte-Carlo, ``dmc.py``) on the
decisions of the seats it trains, on ``device``. Every
``snapshot_every`` updates the policy joins the pool of frozen opponents; every
``eval_every`` updates it plays ``eval_games`` against ``eval_opponent`` with the
evaluation harness (``rummy_env.evaluate``, seats rotated), and the best result is kept.

A run folder (``<run_dir>/<run_name>``, printed when the run starts) holds one run: a new
run is refused in a folder that holds one (``run_folder.py``), unless ``--force`` deletes it.
It holds:

- ``last.pt``, saved before anything else, after the start (warm start and its evaluation)
  and after every update: everything the run needs to go on (``--resume`` continues from
  it), ``latest.pt`` (the weights last evaluated),
  ``best.pt`` (the best evaluation's weights) and, after a warm start, ``warm_start.pt``
  (its weights: an ``init_checkpoint`` for other runs); with ``keep_every``, ``kept/`` holds
  the weights every so many updates, named by their env steps;
- ``pool.pt`` (the snapshot pool) and ``config.yaml`` (the full config);
- ``metrics.csv`` (one row per update) and ``tensorboard/`` (the same, and the learning
  curve's charts; ``runlog.py``);
- ``workers.csv`` (per update and rollout worker: the node it ran on, its steps and seconds);
- ``learning_curve.png``: win rate against the evaluation opponent and penalty per round
  over environment steps;
- while the warm start runs, ``warm_start/``: its progress (``warm_start.py``).

A run is reproducible from its config and seed, for a given ``num_workers`` (each worker
has its own random stream), whether the workers are local processes or Ray actors
(``backend``, ``workers.py``). Ctrl-C or SIGTERM stops it in any phase (``stopping.py``):
its last.pt is then the last whole update's, or the run's start while the warm start keeps
its own progress (the decisions recorded, the epochs fitted), and the command says how to
resume. A resumed run goes on exactly as the run would have without the stop: the same
warm start, weights, optimiser, learning rate schedule, pool, counters, history, the
trainer's random generator and every rollout worker's state (random streams, games in
progress, each trained seat's pending decision).
Progress bars on stderr (``progress``) show the warm start and the updates.
"""

from __future__ import annotations

import copy
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch
import yaml
from tqdm import tqdm

from rummy_env.cli import fail
from rummy_env.evaluate import evaluate

from .checkpoint import (CheckpointError, Network, build_network, check_fits, env_sizes, load_checkpoint,
                         load_resumable, load_start, save_checkpoint)
from .cli import command_name, parse_args
from .config import ConfigError, TrainConfig, config_from_dict, refuse_changes
from .dmc import dmc_update
from .plot import plot_learning_curve
from .rollout import Batch
from .vector_rollout import LegalBatch
from . import run_folder
from .runlog import RunLog
from .stopping import Stopped, deferred_signals, stop_on_signals
from .warm_start import WarmStart
from .workers import RolloutWorkers, start_workers

EVAL_BLOCKS_PER_WORKER = 4
"""An evaluation spreads over processes only when each gets this many blocks of games:
starting one (torch, the checkpoint) takes seconds, more than a few games take."""

# ---------------------------------------------------------------------- the PPO update
def _training_tensors(batch: Batch | LegalBatch, network: Network, device: torch.device) -> dict[str, torch.Tensor]:
    """The batch's arrays as tensors on ``device``: what the network reads, and PPO's columns."""
    arrays = {"actions": batch.actions, "old_log_probs": batch.log_probs, "old_values": batch.values,
              "advantages": batch.advantages, "returns": batch.returns}
    if isinstance(batch, LegalBatch):
        arrays.update(states=batch.states, legal=batch.legal, widths=(batch.legal >= 0).sum(1))
    else:
        arrays.update(observations=batch.observations, masks=batch.masks)
        if network.critic is not None:
            arrays["privileged"] = batch.privileged
    return {name: torch.from_numpy(np.asarray(value)).to(device) for name, value in arrays.items()}


def _policy_inputs(tensors: dict[str, torch.Tensor], rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The network's inputs of ``rows``: (observations, masks), or for a legal-action policy
    (states, legal lists cut to the rows' longest)."""
    if "legal" in tensors:
        width = int(tensors["widths"][rows].max())
        return tensors["states"][rows], tensors["legal"][rows, :width]
    return tensors["observations"][rows], tensors["masks"][rows]


def ppo_update(network: Network, optimizer: torch.optim.Optimizer, batch: Batch | LegalBatch, config: TrainConfig,
               generator: torch.Generator, ent_coef: float | None = None, reference: Network | None = None,
               value_only: bool = False) -> dict[str, float]:
    """The clipped PPO update over ``batch``, with the masks (or legal lists) stored at collection time.

    ``ent_coef`` is this update's entropy weight (default ``config.ent_coef``). With a
    ``reference`` policy, ``kl_reference`` reports KL(policy || reference) over the legal
    actions, and ``config.kl_coef`` weighs it as a penalty. ``value_only`` trains the value
    head alone (its trunk input detached): the policy stays exactly as it is. The update
    runs where the network's weights are."""
    ent_coef = config.ent_coef if ent_coef is None else ent_coef
    tensors = _training_tensors(batch, network, next(network.parameters()).device)
    privileged = tensors.get("privileged")
    actions, old_log_probs, old_values = tensors["actions"], tensors["old_log_probs"], tensors["old_values"]
    advantages, returns = tensors["advantages"], tensors["returns"]
    size = len(actions)
    totals = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clip_fraction": 0.0}
    if reference is not None:
        totals["kl_reference"] = 0.0
    minibatches = 0
    for _ in range(config.update_epochs):
        order = torch.randperm(size, generator=generator)
        epoch_kl = []
        for start in range(0, size, config.minibatch_size):
            rows = order[start:start + config.minibatch_size]
            rows = rows.to(actions.device)
            inputs = _policy_inputs(tensors, rows)
            extra = {} if privileged is None else {"privileged": privileged[rows]}
            distribution, values = network(*inputs, detach_value=value_only, **extra)
            log_probs = distribution.log_prob(actions[rows])
            log_ratio = log_probs - old_log_probs[rows]
            ratio = log_ratio.exp()
            adv = advantages[rows]
            if config.norm_adv and len(rows) > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - config.clip_coef, 1 + config.clip_coef)).mean()
            if config.clip_value:
                clipped = old_values[rows] + (values - old_values[rows]).clamp(-config.clip_coef, config.clip_coef)
                value_loss = 0.5 * torch.max((values - returns[rows]) ** 2, (clipped - returns[rows]) ** 2).mean()
            else:
                value_loss = 0.5 * ((values - returns[rows]) ** 2).mean()
            entropy = distribution.entropy().mean()
            if value_only:
                loss = config.vf_coef * value_loss
            else:
                loss = policy_loss - ent_coef * entropy + config.vf_coef * value_loss
            kl_reference = None
            if reference is not None:
                with torch.no_grad():
                    reference_distribution = reference.distribution(*inputs)
                kl_reference = distribution.kl(reference_distribution).mean()
                if config.kl_coef and not value_only:
                    loss = loss + config.kl_coef * kl_reference
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(network.parameters(), config.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean().item()
                clip_fraction = ((ratio - 1).abs() > config.clip_coef).float().mean().item()
            epoch_kl.append(approx_kl)
            for name, value in (("policy_loss", policy_loss.item()), ("value_loss", value_loss.item()),
                                ("entropy", entropy.item()), ("approx_kl", approx_kl),
                                ("clip_fraction", clip_fraction)):
                totals[name] += value
            if kl_reference is not None:
                totals["kl_reference"] += kl_reference.item()
            minibatches += 1
        if config.target_kl is not None and np.mean(epoch_kl) > config.target_kl:
            break
    stats = {name: value / max(minibatches, 1) for name, value in totals.items()}
    variance = float(np.var(batch.returns))
    stats["explained_variance"] = (float(1 - np.var(batch.returns - batch.values) / variance)
                                   if variance > 0 else float("nan"))
    return stats


LEARNERS = {"ppo": ppo_update, "dmc": dmc_update}
"""Each ``algorithm``'s update of the network from one collection, called by ``Trainer``:
``(network, optimizer, batch, config, generator, **extras) -> stats``."""


# ---------------------------------------------------------------------- the trainer
class Trainer:
    """One training run: its network, optimiser, pool, counters, logs and checkpoints."""

    def __init__(self, config: TrainConfig, force: bool = False) -> None:
        """Builds the run (resuming it if ``config.resume``); writes nothing until ``train``.
        A new run's folder must hold no run (``run_folder.RunFolderTaken``), unless ``force``:
        ``train`` then deletes that run's files first."""
        self.config = config
        self.force = force
        torch.set_num_threads(config.torch_threads)  # before any op: results depend on the thread count
        torch.manual_seed(config.seed)
        self.sizes = env_sizes(config)
        self.device = torch.device(config.torch_device())
        self.network = build_network(config, *self.sizes).to(self.device)
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=config.learning_rate, eps=1e-5)
        self.generator = torch.Generator().manual_seed(config.seed * 1_000_003)
        self.counters: dict[str, Any] = {"updates": 0, "env_steps": 0, "trained_decisions": 0, "seconds": 0.0}
        self.pool: list[dict[str, torch.Tensor]] = []
        self.history: list[dict[str, Any]] = []
        self.best_win_rate = -1.0
        self.reference: Network | None = None
        """The policy as PPO started (after the warm start or from init_checkpoint): the
        KL penalty's reference and the measure of how far PPO has moved."""
        self.rollout_states: list[bytes] | None = None
        self.saved: tuple[int, int] | None = None
        """The update and env steps that the run's last.pt holds, once it has one."""
        self.phase = "starting"
        """What the run is doing: starting, warm start, evaluating its start or training (for
        the report of a stop)."""
        self.warm_start: WarmStart | None = None
        self.run_dir = Path(config.run_dir) / (config.run_name or f"{config.game}-s{config.seed}")
        if config.resume:
            self._resume(config.resume)
        else:
            run_folder.claim(self.run_dir, force)
            if config.init_checkpoint:
                self._start_from(config.init_checkpoint)

    def _start_from(self, path: str) -> None:
        data = load_checkpoint(path, self.config.game, *self.sizes)
        saved = data["config"]
        for name in ("features", "hidden_sizes", "num_players"):
            if name in saved and _same(saved[name]) != _same(getattr(self.config, name)):
                raise CheckpointError(f"init_checkpoint {path} was trained with {name} {saved[name]!r}, "
                                      f"not {getattr(self.config, name)!r}: set the same to start from it")
        load_start(self.network, data["weights"], path)
        self.network.soften(self.config.start_temperature)
        self.counters["init"] = {"path": str(path), "counters": data["counters"]}
        self.reference = self._frozen_copy()

    def _frozen_copy(self) -> Network:
        return copy.deepcopy(self.network).eval().requires_grad_(False)  # no draw from torch's global generator

    def _resume(self, path: str) -> None:
        data = load_resumable(path)
        check_fits(data, path, self.config.game, *self.sizes)
        refuse_changes(config_from_dict(data["config"], check=False), self.config, path)
        self.run_dir = Path(path).parent  # the run goes on in its own folder, wherever it now lies
        self.network.load_state_dict(data["weights"])
        self.optimizer.load_state_dict(data["optimizer"])
        self.counters = dict(data["counters"])
        self.pool = list(data["pool"])
        self.history = list(data["history"])
        self.best_win_rate = max((row["eval_win_rate"] for row in self.history), default=-1.0)
        if "generator" in data:
            self.generator.set_state(data["generator"])
            self.rollout_states = list(data["rollout"])
        else:  # a last.pt from before these were saved: its games in progress start afresh
            self.generator.manual_seed(self.config.seed * 1_000_003 + self.counters["updates"])
        if "reference" in data:
            self.reference = self._frozen_copy()
            self.reference.load_state_dict(data["reference"])
        self.saved = (self.counters["updates"], self.counters["env_steps"])

    def train(self) -> Path:
        """Trains until ``total_steps``; returns the run folder. A signal (``stopping.py``)
        raises ``Stopped`` out of it, with the run's last.pt the last whole update's (or the
        run's start, while the warm start saves its own progress)."""
        config = self.config
        print(f"run folder: {self.run_dir}", flush=True)
        if self.force and self.saved is None:
            run_folder.clear(self.run_dir)
        workers = start_workers(config, self.network, self.sizes, self.rollout_states)
        log = bar = None
        finished = False
        try:
            self.run_dir.mkdir(parents=True, exist_ok=True)
            # the logs of a start that was stopped before it ended are all dropped: it starts again
            resumed_at = None if self.saved is None else self.saved if self._started() else (-1, -1)
            if self.saved is None:
                self._save_last(workers)  # from here on every stop resumes with --resume last.pt
            (self.run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
            log = RunLog(self.run_dir, config, resumed_at)
            if not self._started():
                self._start(log, workers)
            self.phase = "training"
            if self.pool:
                workers.set_pool(self.pool)
            bar = tqdm(total=config.total_steps, initial=min(self.counters["env_steps"], config.total_steps),
                       unit="step", unit_scale=True, disable=not config.progress, file=sys.stderr, desc=config.game)
            while self.counters["env_steps"] < config.total_steps:
                self._update(workers, log, bar)
            finished = True
        finally:
            workers.close(wait=finished)  # a stopped run's collections in flight are not needed: last.pt has its state
            if bar is not None:
                bar.close()
            if log is not None:
                log.close()
        torch.save(self.pool, self.run_dir / "pool.pt")  # also when no snapshot was taken yet
        return self.run_dir

    def _started(self) -> bool:
        """Whether the run's start (its warm start and the evaluation of the policy PPO starts
        from) is done; a last.pt from before this was recorded tells by what it holds."""
        return self.counters.get("started", self.counters["updates"] > 0 or "imitation" in self.counters)

    def _start(self, log: RunLog, workers: RolloutWorkers) -> None:
        """The warm start (or what is left of it) and the evaluation of the policy that PPO
        starts from, logged as update 0; then last.pt, and the warm start's progress goes."""
        config = self.config
        row = None
        if config.imitation_agent:
            self.phase = "warm start"
            self.warm_start = WarmStart(self.run_dir / run_folder.WARM_START, config, self.network, self.generator)
            self.counters["imitation"] = self.warm_start.run()
            self._save("warm_start.pt")  # a start for other runs (init_checkpoint), as imitated
            self.network.soften(config.start_temperature)
            self.reference = self._frozen_copy()
            for index, summary in enumerate(self.counters["imitation"]["rounds"]):
                if "policy_agreement" in summary:
                    log.scalar("imitation_policy_agreement", summary["policy_agreement"], index)
            stats = {k: v for k, v in self.counters["imitation"].items() if k not in ("rounds", "seconds")}
            row = {"update": 0, "env_steps": 0, "trained_decisions": 0, "seconds": 0.0, **stats}
        elif config.init_checkpoint and config.eval_every:
            row = {"update": 0, "env_steps": 0, "trained_decisions": 0, "seconds": 0.0}
        if row is not None:
            if config.eval_every:
                self.phase = "evaluating its start"
                row.update(self.evaluate())
            log.row(row)
            log.flush()
        self.counters["started"] = True
        self._save_last(workers)
        shutil.rmtree(self.run_dir / run_folder.WARM_START, ignore_errors=True)

    def _update(self, workers: RolloutWorkers, log: RunLog, bar: tqdm) -> None:
        """One collection and PPO update, its logs, evaluation and snapshot, and last.pt."""
        config = self.config
        start = time.perf_counter()
        learning_rate = config.learning_rate * (
            1.0 - self.counters["env_steps"] / config.total_steps if config.anneal_lr else 1.0)
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate
        ent_coef = config.ent_coef
        if config.ent_coef_final is not None:
            done = min(1.0, self.counters["env_steps"] / config.total_steps)
            ent_coef += (config.ent_coef_final - config.ent_coef) * done
        value_only = self.counters["updates"] < config.value_warmup_updates
        batch = workers.collect(self.network)
        collected = time.perf_counter()
        learner = LEARNERS[config.algorithm]
        stats = (learner(self.network, self.optimizer, batch, config, self.generator, ent_coef=ent_coef,
                         reference=self.reference, value_only=value_only) if len(batch.actions) else {})
        seconds = time.perf_counter() - start
        timings = {"collect_seconds": collected - start, "update_seconds": seconds - (collected - start),
                   **{f"collect_{part}_seconds": value for part, value in getattr(batch, "timings", {}).items()}}
        self.counters["updates"] += 1
        self.counters["env_steps"] += batch.env_steps
        self.counters["trained_decisions"] += len(batch.actions)
        self.counters["seconds"] += seconds
        updates = self.counters["updates"]
        if config.keep_every and updates % config.keep_every == 0:
            (self.run_dir / "kept").mkdir(exist_ok=True)
            self._save(f"kept/{self.counters['env_steps']:012d}.pt")
        if updates % config.snapshot_every == 0:
            self.pool = self.pool + [self.network.weights()]
            self.pool = self.pool[-config.pool_size:]
            workers.set_pool(self.pool)
            torch.save(self.pool, self.run_dir / "pool.pt")
        row = {"update": updates, "env_steps": self.counters["env_steps"],
               "trained_decisions": self.counters["trained_decisions"],
               "seconds": round(self.counters["seconds"], 3), "steps_per_second": batch.env_steps / seconds,
               "learning_rate": learning_rate, "ent_coef": 0.0 if value_only else ent_coef, **stats,
               "train_games": len(batch.games), **timings}
        if batch.games:
            row["train_win_rate"] = float(np.mean([g["win"] for g in batch.games]))
            if "penalty_per_round" in batch.games[0]:  # the batched core reports final scores only
                row["train_penalty_per_round"] = float(np.mean([g["penalty_per_round"] for g in batch.games]))
        last_update = self.counters["env_steps"] >= config.total_steps
        bar.update(min(batch.env_steps, config.total_steps - bar.n))
        if config.eval_every and (updates % config.eval_every == 0 or last_update):
            bar.set_description_str(f"{config.game}: evaluating")
            row.update(self.evaluate())
            bar.set_description_str(config.game)
        log.row(row)
        log.worker_rows(updates, batch.workers)
        log.flush()
        bar.set_postfix(update=updates, sps=f"{row['steps_per_second']:,.0f}",
                        win=f"{self.history[-1]['eval_win_rate']:.3f}" if self.history else "-")
        self._save_last(workers)

    def _save_last(self, workers: RolloutWorkers) -> None:
        """last.pt: everything the run needs to go on exactly from here."""
        states = workers.states()
        with deferred_signals():  # a signal now waits until last.pt and self.saved agree
            extra = {"optimizer": self.optimizer.state_dict(), "pool": self.pool, "history": self.history,
                     "generator": self.generator.get_state(), "rollout": states}
            if self.reference is not None:
                extra["reference"] = self.reference.weights()
            self._save("last.pt", extra=extra)
            self.saved = (self.counters["updates"], self.counters["env_steps"])

    def _save(self, name: str, extra: dict[str, Any] | None = None) -> Path:
        path = self.run_dir / name
        save_checkpoint(path, self.network, self.config, self.counters, extra)
        return path

    def evaluate(self) -> dict[str, float]:
        """Plays ``eval_games`` against ``eval_opponent`` in local processes (as many as the
        rollout workers, at most one per core here: Ray's workers may be elsewhere; and only
        as many as get ``EVAL_BLOCKS_PER_WORKER`` blocks of games each, since a process takes
        seconds to start; the report does not depend on the count); keeps ``best.pt``;
        redraws the curve."""
        config = self.config
        latest = self._save("latest.pt", extra={"history": self.history})
        blocks = -(-config.eval_games // config.num_players)
        workers = min(max(1, config.num_workers), os.cpu_count() or 1, max(1, blocks // EVAL_BLOCKS_PER_WORKER))
        report = evaluate(config.game, [str(latest)] + [config.eval_opponent] * (config.num_players - 1),
                          games=config.eval_games, seed=config.eval_seed, env_kwargs=config.env_kwargs(),
                          workers=workers)
        ours, theirs = report.agents[0], report.agents[1]
        result = {"env_steps": self.counters["env_steps"], "eval_win_rate": ours.win_rate.mean,
                  "eval_win_low": ours.win_rate.low, "eval_win_high": ours.win_rate.high,
                  "eval_penalty_per_round": ours.penalty_per_round.mean,
                  "eval_final_score": ours.final_score.mean, "eval_opponent_final_score": theirs.final_score.mean,
                  "eval_opponent_penalty_per_round": theirs.penalty_per_round.mean}
        self.history.append(result)
        if result["eval_win_rate"] > self.best_win_rate:
            self.best_win_rate = result["eval_win_rate"]
            self._save("best.pt", extra={"history": self.history})  # its history includes this evaluation
        plot_learning_curve(self.history, config, self.run_dir / "learning_curve.png")
        return {k: v for k, v in result.items() if k != "env_steps"}



def _same(value: Any) -> Any:
    """A config value as compared across checkpoints (YAML lists, config tuples)."""
    return tuple(value) if isinstance(value, (list, tuple)) else value


def stop_report(trainer: Trainer | None, prog: str) -> str:
    """What a stopped run has saved, and the command that goes on from there."""
    if trainer is None or trainer.saved is None:
        return "stopped before the run started; nothing was saved"
    resume = f"resume with: {prog} --resume {trainer.run_dir / 'last.pt'}"
    if trainer.phase == "warm start" and trainer.warm_start is not None:
        return f"stopped in the warm start ({trainer.warm_start.where()}; its progress is saved); {resume}"
    if trainer.phase == "evaluating its start":
        return f"stopped while evaluating the policy PPO starts from; {resume}"
    update, steps = trainer.saved
    return f"stopped at update {update} (env steps {steps:,}); {resume}"


def main(argv: Sequence[str] | None = None) -> int:
    """``rummy-train``: 0 when the run is done, 2 for a user's error (one line on stderr),
    128 + the signal (130, 143) when Ctrl-C or SIGTERM stopped it (one line saying how to
    resume)."""
    prog = command_name()
    trainer = None
    with stop_on_signals():
        try:
            try:
                command = parse_args(argv, prog)
                trainer = Trainer(command.config, force=command.force)
                run_dir = trainer.train()
            except (ConfigError, CheckpointError) as err:
                fail(prog, str(err))
        except Stopped as stop:
            print(f"{prog}: {stop_report(trainer, prog)}", file=sys.stderr)
            return stop.exit_code
    print(f"run folder: {run_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
