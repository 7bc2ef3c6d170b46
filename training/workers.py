"""Rollout workers: who steps the games while the trainer updates the policy.

Every backend splits ``num_envs`` games over ``num_workers`` collectors, worker ``i``
drawing its deals, seats and actions from its own stream ``(seed, i)``: for a given
``num_workers`` the experience, and so the run, is the same on every backend. Each update
the workers get the current weights, each collects its share of ``steps_per_update`` and
sends back a ``Batch``, concatenated in worker order. Each time the trainer saves last.pt
it asks every worker for its collector's state (``Collector.state``: random streams, games
in progress, pending decisions), and a resumed run starts its workers from those states, so
that it goes on exactly as the run would have.

- ``num_workers: 0``: one collector in the trainer's process, acting with its own network;
- ``backend: process`` (the default): one local process per worker, over pipes;
- ``backend: ray``: one Ray actor per worker, on this machine or on a cluster
  (``ray_address``); see ``ray_workers.py`` and docs/distributed.md.
"""

from __future__ import annotations

import copy
import math
import multiprocessing
from typing import Any, Protocol

import numpy as np
import torch

from .checkpoint import build_network
from .config import TrainConfig, config_from_dict
from .model import PolicyNet
from .rollout import Batch, Collector
from .vector_rollout import LegalBatch, VectorCollector
from .stopping import ctrl_c_blocked


class RolloutWorkers(Protocol):
    def collect(self, network: PolicyNet) -> Batch | LegalBatch:
        """One batch of ``steps_per_update`` steps over all workers, played with ``network``'s weights."""

    def set_pool(self, pool: list[dict[str, torch.Tensor]]) -> None:
        """Replaces every worker's frozen opponents."""

    def states(self) -> list[bytes]:
        """Each worker's collector state, in worker order (between collections)."""

    def close(self, wait: bool = True) -> None:
        """Stops the workers; without ``wait``, at once (a collection in flight is dropped)."""


def start_workers(config: TrainConfig, network: PolicyNet, sizes: tuple[int, int],
                  states: list[bytes] | None = None) -> RolloutWorkers:
    """The rollout workers that ``config`` asks for (``sizes``: observation and action sizes),
    restored from ``states`` (of ``RolloutWorkers.states``) if given."""
    if states is not None and len(states) != max(1, config.num_workers):
        raise ValueError(f"{len(states)} saved rollout states for {config.num_workers} workers")
    if config.num_workers == 0:
        return InProcessWorkers(config, network, states)
    if config.backend == "ray":
        from .ray_workers import RayWorkers  # Ray is an optional extra, imported only when chosen

        return RayWorkers(config, sizes, states)
    return ProcessWorkers(config, sizes, states)


def shares(config: TrainConfig) -> list[int]:
    """Games per worker: ``num_envs`` split as evenly as possible, in worker order."""
    return [len(share) for share in np.array_split(np.arange(config.num_envs), config.num_workers)]


def steps_per_worker(config: TrainConfig) -> int:
    return math.ceil(config.steps_per_update / config.num_workers)


def make_collector(config: TrainConfig, stream: int, num_envs: int, network: Any) -> Collector | VectorCollector:
    """The collector of the config's policy: games on the batched core for 'legal'."""
    kind = VectorCollector if config.policy == "legal" else Collector
    return kind(config, stream, num_envs, network)


def worker_collector(config: dict[str, Any], stream: int, num_envs: int, sizes: tuple[int, int],
                     state: bytes | None = None) -> tuple[PolicyNet, Collector | VectorCollector]:
    """What one worker process or actor runs: its own network copy and collector (restored
    from ``state`` if given)."""
    torch.set_num_threads(1)
    cfg = config_from_dict(config, check=False)  # the trainer has validated it
    network = build_network(cfg, *sizes)
    collector = make_collector(cfg, stream, num_envs, network)
    if state is not None:
        collector.restore(state)
    return network, collector


class InProcessWorkers:
    """One collector in the trainer's process (``num_workers: 0``)."""

    def __init__(self, config: TrainConfig, network: PolicyNet, states: list[bytes] | None = None) -> None:
        self.config = config
        # the collector infers on the CPU: a copy of its own when the trainer's network is elsewhere
        on_cpu = next(network.parameters()).device.type == "cpu"
        self.network = network if on_cpu else copy.deepcopy(network).cpu()
        self.collector = make_collector(config, 0, config.num_envs, self.network)
        if states is not None:
            self.collector.restore(states[0])

    def collect(self, network: PolicyNet) -> Batch:
        if self.network is not network:
            self.network.load_state_dict(network.weights())
        return self.collector.collect(self.config.steps_per_update)

    def set_pool(self, pool: list[dict[str, torch.Tensor]]) -> None:
        self.collector.set_pool(pool)

    def states(self) -> list[bytes]:
        return [self.collector.state()]

    def close(self, wait: bool = True) -> None:
        pass


def _arrays(weights: dict[str, torch.Tensor]) -> dict[str, np.ndarray]:
    """Weights as numpy arrays, which a pipe sends by value. Tensors would go as shared
    memory, their file descriptors handed over by a helper thread of the sender; a worker
    stopped mid-handover made that thread print a traceback on the trainer's stderr."""
    return {name: value.numpy() for name, value in weights.items()}


def _tensors(arrays: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {name: torch.from_numpy(value) for name, value in arrays.items()}


def _process_main(conn: Any, config: dict[str, Any], stream: int, num_envs: int, sizes: tuple[int, int],
                  state: bytes | None) -> None:
    network, collector = worker_collector(config, stream, num_envs, sizes, state)
    try:
        while True:
            command, payload = conn.recv()
            if command == "collect":
                weights, steps = payload
                network.load_state_dict(_tensors(weights))
                conn.send(collector.collect(steps))
            elif command == "pool":
                collector.set_pool([_tensors(weights) for weights in payload])
            elif command == "state":
                conn.send(collector.state())
            else:
                return
    except (EOFError, BrokenPipeError, ConnectionResetError):
        return  # the trainer is gone: nothing left to do, and nobody to tell
    finally:
        conn.close()


class ProcessWorkers:
    """One local process per worker, fed over pipes."""

    def __init__(self, config: TrainConfig, sizes: tuple[int, int], states: list[bytes] | None = None) -> None:
        self.config = config
        self.connections = []
        self.processes = []
        context = multiprocessing.get_context("spawn")  # torch is not fork-safe once its threads run
        for stream, games in enumerate(shares(config)):
            parent, child = context.Pipe()
            state = states[stream] if states is not None else None
            process = context.Process(target=_process_main, args=(child, config.to_dict(), stream, games, sizes, state),
                                      daemon=True)
            with ctrl_c_blocked():
                process.start()
            self.connections.append(parent)
            self.processes.append(process)

    def collect(self, network: PolicyNet) -> Batch:
        weights, steps = _arrays(network.weights()), steps_per_worker(self.config)
        for conn in self.connections:
            conn.send(("collect", (weights, steps)))
        batches = [conn.recv() for conn in self.connections]
        return type(batches[0]).concatenate(batches)

    def set_pool(self, pool: list[dict[str, torch.Tensor]]) -> None:
        for conn in self.connections:
            conn.send(("pool", [_arrays(weights) for weights in pool]))

    def states(self) -> list[bytes]:
        for conn in self.connections:
            conn.send(("state", None))
        return [conn.recv() for conn in self.connections]

    def close(self, wait: bool = True) -> None:
        for conn, process in zip(self.connections, self.processes):
            if wait:
                try:
                    conn.send(("close", None))
                except (BrokenPipeError, ConnectionResetError):
                    pass  # already gone
                process.join(timeout=10)
            if process.is_alive():
                process.terminate()  # SIGTERM's default action: it holds nothing to save
            process.join()
            conn.close()
