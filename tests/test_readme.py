"""Every code block of the README runs as written: the set-up commands are the ones CI runs,
the Python blocks run to the end, and each shell block's commands run in order, in a copy
of the folders they name, with a smaller budget appended to the long ones (the last value
of an option wins), so that a training run, shipping and the evaluations finish in
seconds; a server is started, its page fetched, and stopped."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text()
BLOCKS = [(lang, body) for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", README, re.S | re.M)]
SET_UP = ('pip install torch==2.13.0 && pip install -e ".[train,dev]"', "python -m pytest -n 2")

# what each program gets appended: a budget of seconds, and no progress bars
TINY_TRAINING = ["--total-steps", "512", "--steps-per-update", "256", "--num-envs", "2", "--num-workers", "1",
                 "--hidden-sizes", "32", "--minibatch-size", "128", "--eval-every", "1", "--eval-games", "4",
                 "--eval-opponent", "random", "--imitation-decisions", "64", "--imitation-rounds", "1",
                 "--imitation-epochs", "1", "--no-progress"]
SHRINK = {
    ("python", "-m", "rummy_training.ppo"): TINY_TRAINING,
    ("rummy-train",): TINY_TRAINING,
    ("python", "-m", "rummy_training.ship"): ["--games", "4", "--workers", "1"],
    ("rummy-eval",): ["--games", "4", "--workers", "1", "--no-progress"],  # 4 games need no worker processes
    ("python", "benchmarks/learning.py"): ["--steps", "512", "--points", "1", "--eval-games", "4", "--opponents",
                                          "random", "--set", "hidden_sizes=[16]", "num_envs=2", "num_workers=1",
                                          "steps_per_update=256", "minibatch_size=128", "rules={max_turns_per_round: 10}",
                                          "progress=false"],
}


def commands(body: str) -> list[str]:
    """A shell block's commands, comments dropped."""
    lines = [line.split("  #")[0].split(" # ")[0].strip() for line in body.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def shell_blocks() -> list[list[str]]:
    """The shell blocks past the set-up, each as its list of commands."""
    return [cmds for lang, body in BLOCKS if lang in ("bash", "sh")
            if (cmds := commands(body)) and not set(cmds) <= set(SET_UP)]


def test_the_readme_has_the_blocks_this_file_runs():
    assert [lang for lang, _ in BLOCKS].count("python") >= 1
    assert commands(next(body for lang, body in BLOCKS if lang == "bash")) == list(SET_UP)
    assert len(shell_blocks()) >= 3


def test_the_set_up_commands_are_what_ci_runs():
    """CI installs the project as the README says and runs its test command."""
    ci = (REPO / ".ci" / "run").read_text().replace(" --quiet", "").splitlines()
    for command in SET_UP:
        assert command in ci, command


@pytest.mark.parametrize("index", range(sum(lang == "python" for lang, _ in BLOCKS)))
def test_python_blocks_run(index: int):
    body = [body for lang, body in BLOCKS if lang == "python"][index]
    done = subprocess.run([sys.executable, "-c", body], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def _serve(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """A server runs until stopped: started on a free port, its page fetched at the address it
    prints, then stopped."""
    server = subprocess.Popen([*argv, "--port", "0"], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        address = re.search(r"http://\S+/", line)
        assert address, (line, server.stderr.read() if server.poll() is not None else "")
        with urllib.request.urlopen(address.group(0), timeout=30) as answer:
            page = answer.read().decode()
        return subprocess.CompletedProcess(argv, 0 if "rummy-serve" in page else 1, line, "")
    finally:
        server.terminate()
        server.wait(30)


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    argv = shlex.split(command)
    if argv[0] == "rummy-serve":
        return _serve([str(Path(sys.executable).parent / "rummy-serve"), *argv[1:]], cwd)
    for prefix, extra in SHRINK.items():
        if tuple(argv[: len(prefix)]) == prefix:
            argv += extra
    if argv[0] == "python":
        argv[0] = sys.executable
    elif shutil.which(argv[0], path=str(Path(sys.executable).parent)):
        argv[0] = str(Path(sys.executable).parent / argv[0])  # the console scripts of this environment
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(shell_blocks())))
def test_shell_blocks_run(index: int, tmp_path: Path):
    """In a copy of the folders the commands read and write, so that shipping does not
    overwrite the real checkpoints."""
    for folder in ("configs", "checkpoints", "examples", "benchmarks"):
        shutil.copytree(REPO / folder, tmp_path / folder)
    for command in shell_blocks()[index]:
        done = _run(command, tmp_path)
        if command.startswith("python -m rummy_training.ship"):
            # a policy trained for seconds does not beat greedy, and ship says so with exit code 1
            assert done.returncode in (0, 1) and "greedy" in done.stdout, (command, done.stderr)
            name = shlex.split(command)[shlex.split(command).index("--name") + 1]
            assert (tmp_path / "checkpoints" / f"{name}.md").is_file()
        else:
            assert done.returncode == 0, (command, done.stderr[-3000:])
