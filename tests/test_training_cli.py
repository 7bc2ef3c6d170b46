"""The command lines of the trainer and of shipping, as a user meets them: every user's error
is one line on stderr naming what is wrong, exit code 2, no traceback, and nothing
written; shipping does not overwrite shipped files without --force. The cases run the
commands' ``main`` in this process (a process each would cost seconds of torch imports);
one case of each command runs as a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from rummy_training import ppo, ship
from rummy_training.checkpoint import build_network, save_checkpoint
from rummy_training.config import TrainConfig, load_config

REPO = Path(__file__).resolve().parent.parent
TRAIN = [sys.executable, "-m", "rummy_training.ppo"]
SHIP = [sys.executable, "-m", "rummy_training.ship"]


def tiny_config(**fields) -> TrainConfig:
    config = TrainConfig(**{**dict(num_players=2, hidden_sizes=(16,), num_workers=0), **fields})
    config.validate()
    return config


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a run's last.pt (enough of one to be resumed from as far as checks go),
    a weights-only best.pt and two YAML configs."""
    folder = tmp_path_factory.mktemp("saved")
    config = tiny_config(run_dir=str(folder), run_name="run")
    network = build_network(config, 350, 106)
    (folder / "run").mkdir()
    counters = {"updates": 1, "env_steps": 512, "trained_decisions": 400, "seconds": 1.0}
    optimizer = torch.optim.Adam(network.parameters())
    save_checkpoint(folder / "run" / "last.pt", network, config, counters,
                    extra={"optimizer": optimizer.state_dict(), "pool": [], "history": []})
    save_checkpoint(folder / "run" / "best.pt", network, config, counters, extra={"history": []})
    (folder / "fast.yaml").write_text("game: three_thirteen\nlearning_rate: fast\n")
    (folder / "typo.yaml").write_text("learning_rat: 0.1\n")
    return folder


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def run_main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """Runs a command's ``main`` here as ``python -m`` would, in a folder: (exit code, stdout, stderr)."""
    def run(main, argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
        monkeypatch.chdir(cwd)
        monkeypatch.setattr(sys, "argv", [f"{main.__module__.replace('rummy_training', 'training')}.py"])
        try:
            code = main(argv)
        except SystemExit as exit:
            code = exit.code
        out = capsys.readouterr()
        return subprocess.CompletedProcess(argv, code, out.out, out.err)
    return run


def _files(folder: Path) -> set[Path]:
    return {path for path in folder.rglob("*")}


@pytest.mark.parametrize("args, words", [
    (["--learning-rate", "fast"], ["--learning-rate", "'fast'"]),
    (["--config", "{saved}/fast.yaml"], ["learning_rate must be a number, not 'fast'"]),
    (["--config", "{saved}/typo.yaml"], ["unknown field(s) learning_rat"]),
    (["--config", "{saved}/missing.yaml"], ["cannot read config", "missing.yaml"]),
    (["--bogus", "1"], ["unknown option --bogus"]),
    (["--lr", "0.1"], ["unknown option --lr; did you mean --learning-rate?"]),
    (["--total-step=5"], ["unknown option --total-step; did you mean --total-steps?"]),
    (["--learning-rate", "-1"], ["learning_rate must be positive, not -1.0"]),
    (["--clip-coef", "0"], ["clip_coef must be positive, not 0.0"]),
    (["--num-envs"], ["--num-envs"]),
    (["--eval-opponent", "grredy"], ["eval_opponent", "grredy"]),
    (["--imitation-agent", "grredy"], ["imitation_agent must be one of"]),
    (["--rules", "num_seats", "3"], ["rules:", "num_seats"]),
    (["--hidden-sizes"], ["hidden_sizes must be positive widths"]),
    (["--resume", "{saved}/missing/last.pt"], ["checkpoint", "missing/last.pt does not exist"]),
    (["--resume", "{saved}/run/best.pt"], ["best.pt holds weights only", "resume from a run's last.pt"]),
    (["--resume", "{saved}/run/last.pt", "--game", "contract_rummy"], ["game cannot change when resuming"]),
    (["--resume", "{saved}/run/last.pt", "--seed", "9"], ["seed cannot change when resuming", "total_steps"]),
    (["--resume", "{saved}/run/last.pt", "--run-name", "other"], ["run_name: a resumed run goes on in its own folder"]),
    (["--resume", "{saved}/run/last.pt", "--config", "{saved}/typo.yaml"], ["give no --config"]),
    (["--resume", "{saved}/run/last.pt", "--force"], ["give no --force"]),
    (["--run-dir", "{saved}", "--run-name", "run", "--no-progress"], [
        "{saved}/run already holds a run", "--resume {saved}/run/last.pt", "or start afresh with --force"]),
], ids=["flag type", "yaml type", "yaml key", "no config", "bad option", "abbreviated option", "option's prefix",
        "negative rate", "zero clip", "no value", "eval agent", "imitation agent", "rules", "no widths", "no checkpoint",
        "weights only", "other game", "unsafe change", "other folder", "resume and config", "resume and force",
        "a run there"])
def test_a_users_error_is_one_line_and_exit_2_before_anything_is_written(saved: Path, tmp_path: Path, args, words,
                                                                        run_main):
    args = [arg.format(saved=saved) for arg in args]
    words = [word.format(saved=saved) for word in words]
    before = _files(saved)
    where = [] if "--resume" in args or "--run-dir" in args else ["--run-dir", str(tmp_path / "runs"), "--no-progress"]
    out = run_main(ppo.main, [*where, *args], tmp_path)
    lines = out.stderr.splitlines()
    assert out.returncode == 2 and len(lines) == 1, out.stderr
    assert lines[0].startswith("python -m rummy_training.ppo: error: ") and "Traceback" not in out.stderr
    for word in words:
        assert word in lines[0]
    assert out.stdout == "" and _files(tmp_path) == set() and _files(saved) == before


def test_the_commands_themselves_answer_with_one_line(saved: Path, tmp_path: Path):
    """As processes: no traceback reaches the terminal, whatever the in-process cases show."""
    train = _run([*TRAIN, "--config", f"{saved}/fast.yaml", "--run-dir", str(tmp_path / "runs")], tmp_path)
    run = _shippable(tmp_path)
    shipping = _run([*SHIP, str(run), "--name", "tiny", "--games", "0"], tmp_path)
    for out, prog in ((train, "python -m rummy_training.ppo"), (shipping, "python -m rummy_training.ship")):
        assert out.returncode == 2 and out.stdout == "" and len(out.stderr.splitlines()) == 1, out.stderr
        assert out.stderr.startswith(f"{prog}: error: ")
    assert not (tmp_path / "runs").exists() and not (tmp_path / "checkpoints").exists()


def test_the_help_still_prints_in_full(tmp_path: Path, run_main):
    out = run_main(ppo.main, ["--help"], tmp_path)
    assert out.returncode == 0 and "--learning-rate" in out.stdout and "--imitation-rounds" in out.stdout
    assert "Adam learning rate at the start of training" in out.stdout
    for option in ("--config", "--force", "--resume"):  # the command's own options are listed too
        assert _entry(out.stdout, option), option


def _entry(help_text: str, option: str) -> str:
    """``option``'s entry in ``--help``, its wrapped lines joined (with or without tyro's box)."""
    entries, current = {}, None
    for line in help_text.splitlines():
        words = line.replace("│", " ").split()
        if words and words[0].startswith("-"):
            current = words[0].rstrip(",")
            entries[current] = []
        if current is not None:
            entries[current] += words
    return " ".join(entries.get(option, []))


def _default_shown(help_text: str, option: str) -> str:
    """The ``(default: X)`` that ``--help`` shows for ``option``."""
    return _entry(help_text, option).split("(default: ", 1)[1].split(")", 1)[0]


def test_the_help_shows_the_defaults_of_the_config_given(tmp_path: Path, run_main):
    """The defaults shown are those the run would take: TrainConfig's, or the config file's."""
    plain = run_main(ppo.main, ["--help"], tmp_path).stdout
    config = REPO / "configs" / "three_thirteen.yaml"
    with_config = run_main(ppo.main, ["--config", str(config), "--help"], tmp_path).stdout
    assert _default_shown(plain, "--total-steps") == str(TrainConfig().total_steps)
    assert _default_shown(with_config, "--total-steps") == str(load_config(config).total_steps) != \
        _default_shown(plain, "--total-steps")
    assert _default_shown(with_config, "--imitation-agent") == "expert"
    # a long path may be wrapped across lines of the help text: compare it without the breaks
    assert "".join(_default_shown(with_config, "--config").split()) == "".join(str(config).split())


def _shippable(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    config = tiny_config(num_players=4)
    save_checkpoint(run / "best.pt", build_network(config, 464, 106), config,
                    {"env_steps": 10, "trained_decisions": 8, "updates": 1, "seconds": 1.0},
                    extra={"history": [{"env_steps": 10, "eval_win_rate": 0.3}]})
    return run


@pytest.mark.parametrize("existing", ["tiny.pt", "tiny.md", "tiny.greedy.eval.json", "tiny.expert.eval.json"])
def test_shipping_refuses_to_overwrite_without_force(tmp_path: Path, existing: str, run_main):
    run = _shippable(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / existing).write_text("shipped before")
    result = run_main(ship.main, [str(run), "--name", "tiny", "--out", str(out), "--games", "4", "--workers", "1"],
                      tmp_path)
    lines = result.stderr.splitlines()
    assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr
    assert lines[0].startswith("python -m rummy_training.ship: error: ") and "--force" in lines[0]
    assert existing in lines[0]
    assert [p.name for p in out.iterdir()] == [existing] and (out / existing).read_text() == "shipped before"


@pytest.mark.parametrize("args, words", [
    (["{run}", "--name", "tiny", "--games", "0"], ["--games: must be a positive integer, not '0'"]),
    (["{tmp}/nowhere", "--name", "tiny"], ["nowhere/best.pt does not exist"]),
    (["{run}"], ["--name"]),
    (["{run}", "--name", "a/b"], ["--name must be a file name"]),
])
def test_shipping_errors_are_one_line(tmp_path: Path, args, words, run_main):
    run = _shippable(tmp_path)
    args = [arg.format(run=run, tmp=tmp_path) for arg in args]
    before = _files(tmp_path)
    result = run_main(ship.main, [*args, "--out", str(tmp_path / "out")], tmp_path)
    lines = result.stderr.splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0]
    assert _files(tmp_path) == before


@pytest.mark.parametrize("args, words", [
    (["{shipped}", "--name", "other"], ["--name ship a run", "beside it"]),
    (["{shipped}", "--out", "{tmp}/x", "--checkpoint", "last.pt"], ["--out, --checkpoint ship a run"]),
    (["{tmp}/gone.pt"], ["gone.pt does not exist"]),
    (["{shipped}", "--note", "new"], ["best.greedy.eval.json is a tournament of ['random', 'greedy'", "--force"]),
    (["{shipped}", "--opponents", "expert", "--note", "new"], ["best.expert.eval.json is not a tournament report",
                                                              "--force"]),
])
def test_writing_a_shipped_card_again_errors_are_one_line(tmp_path: Path, args, words, run_main):
    """A stored report that is not this checkpoint's would put another tournament's verdict
    on its card; it is refused before anything (the note in the checkpoint included) is written."""
    from rummy_env.evaluate import evaluate

    shipped = _shippable(tmp_path) / "best.pt"
    other = evaluate("three_thirteen", ["random", "greedy"], games=2, seed=0, players=2,
                     env_kwargs={"max_turns_per_round": 4})
    shipped.with_name("best.greedy.eval.json").write_text(json.dumps(other.to_dict()))
    shipped.with_name("best.expert.eval.json").write_text("{}")
    contents = {path: path.read_bytes() for path in _files(tmp_path) if path.is_file()}
    args = [arg.format(shipped=shipped, tmp=tmp_path) for arg in args]
    result = run_main(ship.main, args, tmp_path)
    lines = result.stderr.splitlines()
    assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for word in words:
        assert word in lines[0]
    assert {path: path.read_bytes() for path in _files(tmp_path) if path.is_file()} == contents
