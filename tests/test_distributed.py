"""Rollout workers as Ray actors on a local two-node Ray cluster (``ray.cluster_utils.Cluster``):
the real command line joins the cluster, its workers run on both nodes, the run equals the
same run with local worker processes, and its checkpoint plays."""

from __future__ import annotations

import csv
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import rummy_env
from rummy_env.agents import RandomAgent, make_agent, play_game
from rummy_training.runlog import TIMING_FIELDS

pytestmark = pytest.mark.slow
cluster_utils = pytest.importorskip("ray.cluster_utils", reason="the [ray] extra is not installed")

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def two_nodes():
    """A head node and a second node of one CPU each: two workers of one CPU each must use both."""
    cluster = cluster_utils.Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    yield cluster
    cluster.shutdown()


def _train(tmp_path: Path, name: str, *options: str) -> Path:
    cmd = [sys.executable, "-m", "rummy_training.ppo", "--config", str(REPO / "configs" / "three_thirteen.yaml"),
           "--num-players", "2", "--seed", "5", "--total-steps", "1536", "--steps-per-update", "512",
           "--num-envs", "4", "--num-workers", "2", "--hidden-sizes", "32", "--minibatch-size", "256",
           "--snapshot-every", "1", "--past-play", "0.5", "--eval-every", "3", "--eval-games", "4",
           "--eval-opponent", "random", "--imitation-decisions", "256", "--imitation-epochs", "1",
           "--run-dir", str(tmp_path), "--run-name", name, "--no-progress", *options]
    subprocess.run(cmd, check=True, cwd=tmp_path, timeout=600)
    return tmp_path / name


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path) as f:
        return list(csv.DictReader(f))


def test_a_run_on_a_two_node_ray_cluster_uses_both_nodes_and_equals_a_local_run(two_nodes, tmp_path: Path):
    on_ray = _train(tmp_path, "ray", "--backend", "ray", "--ray-address", two_nodes.address)
    local = _train(tmp_path, "local", "--backend", "process")

    # every update, each worker played its share on a node of its own: both of the cluster's
    node_ids = {node.node_id[:8] for node in two_nodes.list_all_nodes()}
    reports = _rows(on_ray / "workers.csv")
    assert [(r["update"], r["worker"]) for r in reports] == [(str(u), str(w)) for u in (1, 2, 3) for w in (0, 1)]
    assert all(int(r["env_steps"]) >= 256 for r in reports)
    nodes = {r["worker"]: r["node"].split("/")[1] for r in reports}
    assert set(nodes.values()) == node_ids and len(node_ids) == 2
    assert {r["node"] for r in _rows(local / "workers.csv")} != {r["node"] for r in reports}

    # the same experience as local worker processes: the same losses, evaluations and weights
    def metrics(run: Path) -> list[dict[str, str]]:
        return [{k: v for k, v in row.items() if k not in TIMING_FIELDS} for row in _rows(run / "metrics.csv")]

    assert metrics(on_ray) == metrics(local) and metrics(on_ray)[-1]["eval_win_rate"]
    ray_weights = torch.load(on_ray / "last.pt", weights_only=False)["weights"]
    local_weights = torch.load(local / "last.pt", weights_only=False)["weights"]
    assert all(torch.equal(ray_weights[k], local_weights[k]) for k in local_weights)

    # the checkpoint loads and plays
    env = rummy_env.GAMES["three_thirteen"].env(num_players=2)
    result = play_game(env, [make_agent(str(on_ray / "best.pt")), RandomAgent()], seed=11)
    assert result.decisions[0] > 0


def test_an_address_where_no_cluster_answers_is_a_clear_error_at_once(tmp_path: Path):
    with socket.socket() as closed:  # a free port, closed again: nothing listens there
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    cmd = [sys.executable, "-m", "rummy_training.ppo", "--backend", "ray", "--ray-address", f"127.0.0.1:{port}",
           "--num-envs", "2", "--num-workers", "1", "--imitation-agent", "None", "--run-dir", str(tmp_path),
           "--no-progress"]
    out = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert f"ray_address '127.0.0.1:{port}': no Ray cluster answers there" in out.stderr


def test_a_cluster_too_small_for_the_workers_is_a_clear_error(two_nodes, tmp_path: Path):
    cmd = [sys.executable, "-m", "rummy_training.ppo", "--config", str(REPO / "configs" / "three_thirteen.yaml"),
           "--num-envs", "4", "--num-workers", "2", "--ray-worker-cpus", "4", "--backend", "ray",
           "--ray-address", two_nodes.address, "--imitation-agent", "None", "--run-dir", str(tmp_path),
           "--no-progress"]
    out = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert out.returncode != 0
    assert "ray_worker_cpus is 4 but the largest node of the Ray cluster has 1 CPUs" in out.stderr


def test_with_no_address_a_run_starts_its_own_ray_even_while_a_cluster_runs_here(two_nodes, tmp_path: Path):
    """Ray's own default joins the cluster that last started on this machine (its address file
    in /tmp/ray), and refuses the private instance's CPU count; unset ``ray_address`` means a
    private instance."""
    if os.environ.get("RAY_ADDRESS"):
        pytest.skip("RAY_ADDRESS names a cluster, which an unset ray_address joins")
    run = _train(tmp_path, "private", "--backend", "ray", "--total-steps", "512")
    cluster_nodes = {node.node_id[:8] for node in two_nodes.list_all_nodes()}
    run_nodes = {r["node"].split("/")[1] for r in _rows(run / "workers.csv")}
    assert len(run_nodes) == 1 and not run_nodes & cluster_nodes
