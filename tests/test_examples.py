"""The integration examples (docs/integrations.md) run end to end: each script's ``--smoke``
budget trains a few real updates and ends with a parseable ``RESULT {json}`` line. A script
whose library is not installed is skipped."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

EXAMPLES = {  # script in examples/ -> (the module it needs, the library its RESULT names)
    "sb3_maskable_ppo.py": ("sb3_contrib", "sb3-contrib"),
    "rllib_ppo.py": ("ray.rllib", "rllib"),
    "torchrl_ppo.py": ("torchrl", "torchrl"),
    "tianshou_ppo.py": ("tianshou", "tianshou"),
    "ray_distributed.py": ("ray", "ray"),
}
OWN_RAY_INSTANCE = {"rllib_ppo.py"}  # without --address these start a private Ray instance


def test_every_library_example_is_in_the_table():
    """An example added to examples/ without a row here would never be run."""
    scripts = {path.name for path in (REPO / "examples").glob("*.py") if path.name != "my_agents.py"}
    assert scripts == set(EXAMPLES)


@pytest.fixture
def a_ray_cluster_runs_here():
    """A cluster started on this machine writes its address where Ray's default ``ray.init()``
    finds and joins it; under ``pytest -n 2`` tests/test_distributed.py's cluster runs beside
    the examples, and an example that joined it by accident failed CI."""
    cluster = pytest.importorskip("ray.cluster_utils").Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    yield
    cluster.shutdown()


@pytest.mark.slow
@pytest.mark.parametrize("script", list(EXAMPLES))
def test_example_smoke_run_trains_and_reports(script: str, request: pytest.FixtureRequest):
    module, library = EXAMPLES[script]
    pytest.importorskip(module)
    if script in OWN_RAY_INSTANCE:
        request.getfixturevalue("a_ray_cluster_runs_here")
    run = subprocess.run([sys.executable, str(REPO / "examples" / script), "--smoke"], cwd=REPO,
                         env=dict(os.environ, PYTHONPATH=str(REPO)),  # this checkout's rummy_env
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = [line for line in run.stdout.splitlines() if line.startswith("RESULT ")]
    assert len(lines) == 1, run.stdout[-3000:]
    result = json.loads(lines[0].removeprefix("RESULT "))
    assert result["library"] == library and result["game"] == "three_thirteen"
    assert result["env_steps"] > 0 and result["updates"] >= 1
    assert result["seconds"] > 0 and result["steps_per_second"] > 0
    assert isinstance(result["final_loss"], float) and math.isfinite(result["final_loss"])
