"""``benchmarks/learning.py``, the from-scratch PPO baseline: every game has a learning config
that is from scratch (no imitation, no starting checkpoint, no expert-advice features); a
tiny run through the command line writes one curve row per kept step and opponent, the
plot and the table, and the same command with a larger budget resumes the run and adds
only the new rows; every user error is one line on stderr, exit code 2, nothing written.
Besides the one real process, the command's ``main`` runs in this process (a process each
would cost seconds of torch imports)."""

from __future__ import annotations

import csv
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from rummy_env import GAMES
from rummy_training.config import load_config
from rummy_training.features import FEATURES

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "benchmarks" / "learning.py"
_spec = importlib.util.spec_from_file_location("learning_benchmark", SCRIPT)
learning = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(learning)

# a table of two, a tiny network, rounds cut at 10 turns: the run and its evaluations take seconds
TINY = ["--points", "2", "--eval-games", "8", "--opponents", "random", "greedy", "--workers", "1",
        "--run-dir", "runs", "--out", "out",
        "--set", "num_players=2", "hidden_sizes=[16]", "num_envs=4", "num_workers=0", "steps_per_update=256",
        "minibatch_size=128", "update_epochs=1", "progress=false", "rules={max_turns_per_round: 10}"]


@pytest.fixture
def run_main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """Runs the benchmark's ``main`` here, in a folder: (exit code, stdout, stderr)."""
    def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
        monkeypatch.chdir(cwd)
        try:
            code = learning.main(argv)
        except SystemExit as exit:
            code = exit.code
        out = capsys.readouterr()
        return subprocess.CompletedProcess(argv, code, out.out, out.err)
    return run


def _files(folder: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def _curve(folder: Path) -> list[dict[str, str]]:
    with open(folder / "out" / "three_thirteen-s1" / "curve.csv", newline="") as f:
        return list(csv.DictReader(f))


# ---------------------------------------------------------------- the configs
def test_every_feature_set_is_classed_fair_or_advice():
    """A new feature set must be classed: fair (from the seat's own observation) or advice."""
    from rummy_training.inputs import LEGAL_FEATURES

    assert set(learning.FAIR_FEATURES) | set(learning.ADVICE_FEATURES) == set(FEATURES) | set(LEGAL_FEATURES)
    assert not set(learning.FAIR_FEATURES) & set(learning.ADVICE_FEATURES)


@pytest.mark.parametrize("game", GAMES)
def test_each_game_has_a_from_scratch_learning_config(game: str):
    config = load_config(REPO / "configs" / "learning" / f"{game}.yaml")
    assert (config.game, config.num_players, config.eval_every) == (game, 4, 0)
    assert config.imitation_agent is None and config.init_checkpoint is None
    assert config.features in learning.FAIR_FEATURES
    assert learning.from_scratch_problem(config) is None
    assert config.self_play > 0 and config.past_play > 0 and config.greedy_play > 0 and config.random_play > 0
    if game == "three_thirteen":
        assert config.total_steps == 50_000_000  # the published budget


# ---------------------------------------------------------------- a tiny run, then its extension
@pytest.mark.slow
def test_a_tiny_run_writes_the_curve_and_resumes_with_only_new_rows(tmp_path: Path, run_main):
    done = subprocess.run([sys.executable, str(SCRIPT), "three_thirteen", "--steps", "1024", *TINY],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    kept = sorted(int(path.stem) for path in (tmp_path / "runs" / "three_thirteen-s1" / "kept").glob("*.pt"))
    assert kept == [512, 1024]  # 4 updates, 2 points: every second update is kept
    rows = _curve(tmp_path)
    assert [(int(r["env_steps"]), r["opponent"]) for r in rows] == [
        (512, "random"), (512, "greedy"), (1024, "random"), (1024, "greedy")]
    assert all(int(r["games"]) == 8 and r["players"] == "2" for r in rows)
    seconds = [float(r["wall_seconds"]) for r in rows[::2]]
    assert 0 < seconds[0] < seconds[1]
    assert (tmp_path / "out" / "three_thirteen-s1" / "learning_curve.png").stat().st_size > 10_000
    assert "| three_thirteen, 2 players | 1 | greedy | 1,024 |" in done.stdout

    first = (tmp_path / "out" / "three_thirteen-s1" / "curve.csv").read_text()
    again = run_main(["three_thirteen", "--steps", "2048", *TINY], tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert (tmp_path / "out" / "three_thirteen-s1" / "curve.csv").read_text().startswith(first)
    rows = _curve(tmp_path)
    assert [int(r["env_steps"]) for r in rows] == [512, 512, 1024, 1024, 1536, 1536, 2048, 2048]
    seconds = [float(r["wall_seconds"]) for r in rows[::2]]
    assert seconds == sorted(seconds) and len(set(seconds)) == 4  # training time goes on across the resume

    table = run_main(["--table", "--out", "out"], tmp_path)
    assert table.returncode == 0 and table.stdout.count("| three_thirteen, 2 players | 1 |") == 2
    assert "| random | 2,048 |" in table.stdout

    before = _files(tmp_path)  # the run now has 2 players: a run of 3 is another one
    refused = run_main(["three_thirteen", *TINY, "--set", "num_players=3"], tmp_path)
    assert refused.returncode == 2 and refused.stdout == "" and len(refused.stderr.splitlines()) == 1
    assert "num_players cannot change when resuming" in refused.stderr and "--seed or --run-dir" in refused.stderr
    assert _files(tmp_path) == before


# ---------------------------------------------------------------- user errors
@pytest.mark.parametrize("args, words", [
    (["poker"], ["unknown game 'poker'", *GAMES]),
    ([], ["give a GAME"]),
    (["three_thirteen", "--steps", "0"], ["--steps", "at least 1", "'0'"]),
    (["three_thirteen", "--eval-games", "-3"], ["--eval-games", "'-3'"]),
    (["three_thirteen", "--seed", "x"], ["--seed", "'x'"]),
    (["three_thirteen", "--opponents", "random", "grredy"], ["--opponents grredy", "unknown agent spec"]),
    (["three_thirteen", "--set", "features=three_thirteen_expert"], ["'three_thirteen_expert'", "advice"]),
    (["contract_rummy", "--set", "features=contract_expert"], ["'contract_expert'", "advice"]),
    (["three_thirteen", "--set", "imitation_agent=expert"], ["imitation_agent", "from scratch"]),
    (["three_thirteen", "--set", "learning_rat=0.1"], ["unknown field(s) learning_rat"]),
    (["three_thirteen", "--set", "learning_rate=fast"], ["learning_rate must be a number, not 'fast'"]),
    (["three_thirteen", "--set", "seed=2"], ["--set seed", "--seed"]),
    (["three_thirteen", "--set", "oops"], ["FIELD=VALUE", "'oops'"]),
    (["three_thirteen", "--out", "a_file/curves"], ["--out", "a_file", "not a folder"]),
    (["--table", "--out", "out"], ["no curves", "out"]),
])
def test_user_errors_are_one_line_and_write_nothing(tmp_path: Path, run_main, args: list[str], words: list[str]):
    (tmp_path / "a_file").write_text("")
    before = _files(tmp_path)
    done = run_main([*args, "--run-dir", "runs"] if args and args[0] != "--table" else args, tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("learning.py: error: ")
    for word in words:
        assert word in done.stderr
    assert _files(tmp_path) == before and sorted(tmp_path.iterdir()) == [tmp_path / "a_file"]
