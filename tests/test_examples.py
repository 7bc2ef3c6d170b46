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


def test_every_library_example_is_in_the_table():
    """An example added to examples/ without a row here would never be run."""
    scripts = {path.name for path in (REPO / "examples").glob("*.py") if path.name != "my_agents.py"}
    assert scripts == set(EXAMPLES)


@pytest.mark.slow
@pytest.mark.parametrize("script", list(EXAMPLES))
def test_example_smoke_run_trains_and_reports(script: str):
    module, library = EXAMPLES[script]
    pytest.importorskip(module)
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
