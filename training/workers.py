"""Rollout workers: who steps the games while the trainer updates the policy.

Every backend splits ``num_envs`` games over ``num_workers`` collectors, worker ``i``
drawing its deals, seats and actions from its own stream ``(seed, i)``: for a given
``num_workers`` the experience, and so the run, is the same on every backend. Each update
the workers get the current weights, each collects its share of ``steps_per_update`` and
sends back a ``Batch``, concatenated in worker order.

- ``num_workers: 0``: one collector in the trainer's process, acting with its own network;
- ``backend: process`` (the default): one local process per worker, over pipes;
- ``backend: ray``: one Ray actor per worker, on this machine or on a cluster
  (``ray_address``); see ``ray_workers.py`` and docs/distributed.md.
"""

from __future__ import annotations

import math
import multiprocessing
from typing import Any, Protocol

import numpy as np
import torch

from .checkpoint import build_network
from .config import TrainConfig, config_from_dict
from .model import PolicyNet
from .rollout import Batch, Collector

class RolloutWorkers(Protocol):
    def collect(self, network: PolicyNet) -> Batch:
        """One batch of ``steps_per_update`` steps over all workers, played with ``network``'s weights."""

    def set_pool(self, pool: list[dict[str, torch.Tensor]]) -> None:
        """Replaces every worker's frozen opponents."""

    def close(self) -> None:
        """Stops the workers."""


def start_workers(config: TrainConfig, network: PolicyNet, sizes: tuple[int, int]) -> RolloutWorkers:
    """The rollout workers that ``config`` asks for (``sizes``: observation and action sizes)."""
    if config.num_workers == 0:
        return InProcessWorkers(config, network)
    if config.backend == "ray":
        from .ray_workers import RayWorkers  # Ray is an optional extra, imported only when chosen

        return RayWorkers(config, sizes)
    return ProcessWorkers(config, sizes)


def shares(config: TrainConfig) -> list[int]:
    """Games per worker: ``num_envs`` split as evenly as possible, in worker order."""
    return [len(share) for share in np.array_split(np.arange(config.num_envs), config.num_workers)]


def steps_per_worker(config: TrainConfig) -> int:
    return math.ceil(config.steps_per_update / config.num_workers)


def worker_collector(config: dict[str, Any], stream: int, num_envs: int, sizes: tuple[int, int]
                     ) -> tuple[PolicyNet, Collector]:
    """What one worker process or actor runs: its own network copy and collector."""
    torch.set_num_threads(1)
    cfg = config_from_dict(config)
    network = build_network(cfg, *sizes)
    return network, Collector(cfg, stream, num_envs, network)


class InProcessWorkers:
    """One collector in the trainer's process (``num_workers: 0``)."""

    def __init__(self, config: TrainConfig, network: PolicyNet) -> None:
        self.config = config
        self.collector = Collector(config, 0, config.num_envs, network)

    def collect(self, network: PolicyNet) -> Batch:
        return self.collector.collect(self.config.steps_per_update)

    def set_pool(self, pool: list[dict[str, torch.Tensor]]) -> None:
        self.collector.set_pool(pool)

    def close(self) -> None:
        pass


def _process_main(conn: Any, config: dict[str, Any], stream: int, num_envs: int, sizes: tuple[int, int]) -> None:
    network, collector = worker_collector(config, stream, num_envs, sizes)
    while True:
        command, payload = conn.recv()
        if command == "collect":
            weights, steps = payload
            network.load_state_dict(weights)
            conn.send(collector.collect(steps))
        elif command == "pool":
            collector.set_pool(payload)
        else:
            conn.close()
            return


class ProcessWorkers:
    """One local process per worker, fed over pipes."""

    def __init__(self, config: TrainConfig, sizes: tuple[int, int]) -> None:
        self.config = config
        self.connections = []
        self.processes = []
        context = multiprocessing.get_context("spawn")  # torch is not fork-safe once its threads run
        for stream, games in enumerate(shares(config)):
            parent, child = context.Pipe()
            process = context.Process(target=_process_main, args=(child, config.to_dict(), stream, games, sizes),
                                      daemon=True)
            process.start()
            self.connections.append(parent)
            self.processes.append(process)

    def collect(self, network: PolicyNet) -> Batch:
        weights, steps = network.weights(), steps_per_worker(self.config)
        for conn in self.connections:
            conn.send(("collect", (weights, steps)))
        return Batch.concatenate([conn.recv() for conn in self.connections])

    def set_pool(self, pool: list[dict[str, torch.Tensor]]) -> None:
        for conn in self.connections:
            conn.send(("pool", pool))

    def close(self) -> None:
        for conn in self.connections:
            conn.send(("close", None))
        for process in self.processes:
            process.join(timeout=10)
