"""Rollout workers as Ray actors (``backend: ray``), on this machine or on a Ray cluster.

Each actor runs the same collector as a worker process (``workers.worker_collector``), with
the same random stream, so a run gives the same experience on either backend. Each update
the trainer puts the weights in Ray's object store once; every actor fetches them, collects
its share and returns its ``Batch`` through the object store; for last.pt each returns its
collector's state, and a resumed run's actors start from those. Actors are spread over the
cluster's nodes (``SPREAD``) and each reserves ``ray_worker_cpus`` CPUs.

With ``ray_address`` unset the trainer starts a private Ray instance on this machine, sized
for the workers, and stops it at the end, even while another Ray cluster runs here (unless
``RAY_ADDRESS`` names a cluster: Ray then joins it, as it always does); with an address
(``auto``, ``HOST:6379`` or ``ray://HOST:10001``) it joins that cluster and leaves it running. Every node must have
this project installed (docs/distributed.md).
"""

from __future__ import annotations

import logging
import os
import socket
from typing import Any

import ray
import torch

from .config import ConfigError, TrainConfig
from .model import PolicyNet
from .rollout import Batch
from .workers import shares, steps_per_worker, worker_collector

PLACEMENT_TIMEOUT = 120.0
"""Seconds to wait for the cluster to place every actor before giving up with an error."""


def _check_reachable(address: str | None) -> None:
    """A ``HOST:PORT`` that refuses connections is an error now (Ray would retry for minutes)."""
    if address is None or address == "auto" or "://" in address:
        return
    host, _, port = address.rpartition(":")
    if not port.isdigit():
        raise ConfigError(f"ray_address must be 'auto', HOST:PORT or ray://HOST:PORT, not {address!r}")
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=10).close()
    except OSError as err:
        raise ConfigError(f"ray_address {address!r}: no Ray cluster answers there ({err.strerror or err})") from None


class _Collector:
    """The actor: one worker's network copy and collector."""

    def __init__(self, config: dict[str, Any], stream: int, num_envs: int, sizes: tuple[int, int],
                 state: bytes | None) -> None:
        self.network, self.collector = worker_collector(config, stream, num_envs, sizes, state)
        context = ray.get_runtime_context()
        self.collector.node = f"{ray.util.get_node_ip_address()}/{context.get_node_id()[:8]}"

    def node(self) -> str:
        return self.collector.node

    def collect(self, weights: dict[str, torch.Tensor], steps: int) -> Batch:
        self.network.load_state_dict(weights)
        return self.collector.collect(steps)

    def set_pool(self, pool: list[dict[str, torch.Tensor]]) -> None:
        self.collector.set_pool(pool)

    def state(self) -> bytes:
        return self.collector.state()


class RayWorkers:
    """``num_workers`` Ray actors, each with its share of the games."""

    def __init__(self, config: TrainConfig, sizes: tuple[int, int], states: list[bytes] | None = None) -> None:
        self.config = config
        self.owns_ray = not ray.is_initialized()
        if self.owns_ray:
            # a private instance is "local": with no address Ray joins whatever cluster last
            # started on this machine
            private = config.ray_address is None and not os.environ.get("RAY_ADDRESS")
            options: dict[str, Any] = {"address": "local" if private else config.ray_address,
                                       "include_dashboard": False, "logging_level": logging.WARNING}
            if private:  # room for every worker, even past the cores
                options["num_cpus"] = max(os.cpu_count() or 1, config.num_workers * config.ray_worker_cpus)
            _check_reachable(config.ray_address)
            try:
                ray.init(**options)
            except ConnectionError as err:
                raise ConfigError(f"ray_address {config.ray_address!r}: cannot connect to a Ray cluster ({err})") from None
        largest = max((node["Resources"].get("CPU", 0.0) for node in ray.nodes() if node["Alive"]), default=0.0)
        if largest < config.ray_worker_cpus:
            self._stop_ray()
            raise ConfigError(f"ray_worker_cpus is {config.ray_worker_cpus:g} but the largest node of the Ray cluster "
                              f"has {largest:g} CPUs: no node can host a rollout worker")
        actor = ray.remote(num_cpus=config.ray_worker_cpus)(_Collector)
        self.actors = [actor.options(scheduling_strategy="SPREAD").remote(
            config.to_dict(), stream, games, sizes, states[stream] if states is not None else None)
            for stream, games in enumerate(shares(config))]
        self.nodes = self._wait_placed()

    def _wait_placed(self) -> list[str]:
        pending = [a.node.remote() for a in self.actors]
        ready, missing = ray.wait(pending, num_returns=len(pending), timeout=PLACEMENT_TIMEOUT)
        if missing:
            self.close()
            raise ConfigError(f"Ray placed {len(ready)} of {len(pending)} rollout workers within "
                               f"{PLACEMENT_TIMEOUT:.0f} s: the cluster has {ray.cluster_resources().get('CPU', 0):g} "
                               f"CPUs; lower num_workers or ray_worker_cpus, or add nodes")
        return ray.get(pending)

    def collect(self, network: PolicyNet) -> Batch:
        weights = ray.put(network.weights())
        steps = steps_per_worker(self.config)
        batches = ray.get([a.collect.remote(weights, steps) for a in self.actors])
        return type(batches[0]).concatenate(batches)

    def set_pool(self, pool: list[dict[str, torch.Tensor]]) -> None:
        pool_ref = ray.put(pool)
        ray.get([a.set_pool.remote(pool_ref) for a in self.actors])

    def states(self) -> list[bytes]:
        return ray.get([a.state.remote() for a in self.actors])

    def close(self, wait: bool = True) -> None:
        for actor in self.actors:
            ray.kill(actor)
        self.actors = []
        self._stop_ray()

    def _stop_ray(self) -> None:
        if self.owns_ray:
            ray.shutdown()
