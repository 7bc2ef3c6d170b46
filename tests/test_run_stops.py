"""Runs never lose work and never overwrite one another: a run stopped in any phase (the warm
start's recording and fitting, DAgger's rounds, the evaluation of its start, PPO) resumes
where it stopped and ends as the run that never stopped; a new run is refused in a folder
that holds one, unless forced, which deletes that run's files and nothing else."""

from __future__ import annotations

import csv
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from rummy_training import imitation
from rummy_training import ppo as ppo_module
from rummy_training.checkpoint import CheckpointError, load_checkpoint
from rummy_training.cli import resume_config
from rummy_training.config import TrainConfig
from rummy_training.imitation import RecordingParts, play_demonstrations
from rummy_training.ppo import Trainer
from rummy_training.run_folder import RUN_FILES, WARM_START, RunFolderTaken
from rummy_training.stopping import Stopped
from rummy_training.warm_start import WarmStart

from test_training import _assert_same_state, _metrics, tiny

REPO = Path(__file__).resolve().parent.parent


def warm_started(**fields) -> TrainConfig:
    """A tiny run with a DAgger warm start of two rounds and an evaluation of its start."""
    return tiny(**{**dict(imitation_agent="greedy", imitation_decisions=300, imitation_rounds=2, imitation_epochs=3,
                          rules={"max_turns_per_round": 6}, eval_every=2, eval_games=2, total_steps=1536,
                          snapshot_every=1, past_play=0.3, random_play=0.2, seed=3), **fields})


def test_a_recording_stream_stopped_and_started_again_records_the_same_decisions(tmp_path: Path, monkeypatch):
    """Parts are saved at game ends (every game here); a stream started again reads them and
    goes on from the last part's random state: the same decisions as a stream never stopped."""
    monkeypatch.setattr(imitation, "PART_SECONDS", 0.0)
    config = warm_started().to_dict()
    whole = play_demonstrations(config, 0, 600)
    save = RecordingParts.save

    def stop_after_two(self, *args):
        if len(self.paths()) == 2:
            raise Stopped(signal.SIGINT)
        save(self, *args)

    monkeypatch.setattr(RecordingParts, "save", stop_after_two)
    with pytest.raises(Stopped):
        play_demonstrations(config, 0, 600, folder=tmp_path)
    monkeypatch.undo()
    monkeypatch.setattr(imitation, "PART_SECONDS", 0.0)
    assert len(RecordingParts(tmp_path, 0).paths()) == 2
    counted = []
    resumed = play_demonstrations(config, 0, 600, after_game=counted.append, folder=tmp_path)
    for name in ("observations", "masks", "actions", "returns", "played"):
        assert np.array_equal(getattr(whole, name), getattr(resumed, name)), name
    assert counted[0] == sum(len(part) for part in RecordingParts(tmp_path, 0).load()[0][:2])  # read back first
    assert sum(counted) == len(resumed) >= 600 and len(RecordingParts(tmp_path, 0).paths()) > 2


STOPS = [
    ("recording", "round 1 of 2, recording decisions"),
    ("fitting", "round 1 of 2, fitting, 2 of 3 epochs done"),
    ("dagger recording", "round 2 of 2, recording decisions"),
    ("dagger fitting", "round 2 of 2, fitting, 1 of 3 epochs done"),
    ("evaluating", "stopped while evaluating the policy PPO starts from"),
    ("training", "stopped at update 1 (env steps 512)"),  # update 2's row logged, its last.pt not written
]


def _stop_in(phase: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Makes the next run raise ``Stopped`` once, in ``phase`` (after the progress it saves there)."""
    save_part, fitted, save_last = RecordingParts.save, WarmStart._fitted, Trainer._save_last

    def part(self, *args):
        save_part(self, *args)
        dagger = not self.prefix.startswith("stream-000")
        if dagger == (phase == "dagger recording"):
            raise Stopped(signal.SIGINT)

    def epoch(self, epochs, *args):
        fitted(self, epochs, *args)
        if (self.state["round"], epochs) == ((0, 2) if phase == "fitting" else (1, 1)):
            raise Stopped(signal.SIGTERM)

    def evaluating(self):
        raise Stopped(signal.SIGINT)

    def update(self, workers):
        if self.counters["updates"] == 2:
            raise Stopped(signal.SIGINT)
        save_last(self, workers)

    patch = {"recording": (RecordingParts, "save", part), "dagger recording": (RecordingParts, "save", part),
             "fitting": (WarmStart, "_fitted", epoch), "dagger fitting": (WarmStart, "_fitted", epoch),
             "evaluating": (Trainer, "evaluate", evaluating), "training": (Trainer, "_save_last", update)}[phase]
    monkeypatch.setattr(*patch)


def test_a_run_stopped_in_each_phase_in_turn_resumes_to_the_run_that_never_stopped(tmp_path: Path, monkeypatch):
    """One run stopped once in every phase, and resumed each time from its last.pt alone (in
    PPO after an update's row was logged but before its last.pt: the row is dropped and the
    update done again, its games in progress, pool snapshots, past and random seats with it):
    its logs, weights, optimiser, pool, history, generator and rollout states end as those of
    the run that never stopped; each stop says where it was and how to go on."""
    monkeypatch.setattr(imitation, "PART_SECONDS", 0.0)
    whole = Trainer(warm_started(run_dir=str(tmp_path), run_name="whole")).train()
    trainer = Trainer(warm_started(run_dir=str(tmp_path), run_name="stopped"))
    last = tmp_path / "stopped" / "last.pt"
    for phase, where in STOPS:
        with monkeypatch.context() as patched:
            _stop_in(phase, patched)
            with pytest.raises(Stopped):
                trainer.train()
        report = ppo_module.stop_report(trainer, "rummy-train")
        assert where in report and report.endswith(f"resume with: rummy-train --resume {last}"), (phase, report)
        assert (tmp_path / "stopped" / WARM_START).exists() == (phase != "training"), phase
        trainer = Trainer(resume_config(str(last)))
    trainer.train()
    rows = _metrics(whole)
    assert [row["update"] for row in rows] == ["0", "1", "2", "3"] and rows[0]["imitation_agreement"] and \
        rows[0]["eval_win_rate"] and sum(int(row["train_games"]) for row in rows[1:]) > 0
    assert _metrics(tmp_path / "stopped") == rows
    _assert_same_state(whole, tmp_path / "stopped")
    imitated = [load_checkpoint(run / "warm_start.pt") for run in (whole, tmp_path / "stopped")]
    assert all((imitated[0]["weights"][k] == imitated[1]["weights"][k]).all() for k in imitated[0]["weights"])
    assert not (tmp_path / "stopped" / WARM_START).exists()  # the warm start's progress goes once it is done


def test_a_damaged_warm_start_progress_is_an_error_that_names_it(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(imitation, "PART_SECONDS", 0.0)
    trainer = Trainer(warm_started(run_dir=str(tmp_path), run_name="r"))
    with monkeypatch.context() as patched:
        _stop_in("recording", patched)
        with pytest.raises(Stopped):
            trainer.train()
    state = tmp_path / "r" / WARM_START / "state.pt"
    state.write_text("not a state")
    with pytest.raises(CheckpointError, match=f"the warm start's progress {state} cannot be read .* --force"):
        Trainer(resume_config(str(tmp_path / "r" / "last.pt"))).train()
    state.unlink()
    for part in RecordingParts(tmp_path / "r" / WARM_START, 0).paths():
        part.unlink()
    torch.save({"round": 1, "recorded": False, "epochs": 0, "optimizer": None, "stats": None, "rounds": [],
                "seconds": 0.0, "network": trainer.network.weights(), "generator": trainer.generator.get_state()},
               state)
    with pytest.raises(CheckpointError, match="round 1 was recorded, but its decisions are no longer whole"):
        Trainer(resume_config(str(tmp_path / "r" / "last.pt"))).train()


def test_a_new_run_in_a_folder_that_holds_one_is_refused_and_touches_nothing(tmp_path: Path):
    config = tiny(run_dir=str(tmp_path), run_name="r", total_steps=512)
    run = Trainer(config).train()
    before = {path: path.stat().st_mtime_ns for path in run.rglob("*")}
    with pytest.raises(RunFolderTaken) as info:
        Trainer(config)
    assert str(info.value) == (f"{run} already holds a run: go on with it with --resume {run / 'last.pt'}, "
                               "or start afresh with --force (deletes that run)")
    assert {path: path.stat().st_mtime_ns for path in run.rglob("*")} == before


def test_force_deletes_the_runs_files_and_nothing_else(tmp_path: Path):
    config = tiny(run_dir=str(tmp_path), run_name="r", total_steps=1024, keep_every=1)
    run = Trainer(config).train()
    (run / "notes.txt").write_text("mine")
    (run / "kept" / "000000000512.pt").touch()
    Trainer(tiny(run_dir=str(tmp_path), run_name="r", total_steps=512, keep_every=0), force=True).train()
    assert (run / "notes.txt").read_text() == "mine" and not (run / "kept").exists()
    assert load_checkpoint(run / "last.pt")["counters"]["updates"] == 1 and len(_metrics(run)) == 1
    assert {path.name for path in run.iterdir()} <= {*RUN_FILES, "notes.txt"}


def test_the_main_command_run_twice_is_refused_the_second_time(tmp_path: Path, monkeypatch, capsys):
    """As a user meets it (the command's main, in this process): the same command again in the
    same default folder is one line and exit code 2; with --force it runs."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["rummy-train"])
    command = ["--num-players", "2", "--total-steps", "512", "--steps-per-update", "512", "--num-envs", "2",
               "--num-workers", "0", "--hidden-sizes", "16", "--eval-every", "0", "--no-progress"]
    assert ppo_module.main(command) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as again:
        ppo_module.main(command)
    run = Path("runs") / "three_thirteen-s1"
    assert again.value.code == 2 and capsys.readouterr().err == (
        f"rummy-train: error: {run} already holds a run: go on with it with --resume {run / 'last.pt'}, "
        "or start afresh with --force (deletes that run)\n")
    assert ppo_module.main([*command, "--force"]) == 0


@pytest.mark.slow
def test_ctrl_c_in_the_warm_start_of_the_command_resumes_as_if_it_had_not_stopped(tmp_path: Path):
    """Two recording worker processes: SIGINT once a part is saved, then --resume alone."""
    command = [sys.executable, "-m", "rummy_training.ppo", "--num-players", "2", "--total-steps", "1024",
               "--steps-per-update", "512", "--num-envs", "4", "--num-workers", "2", "--hidden-sizes", "32",
               "--minibatch-size", "256", "--rules", "max_turns_per_round", "8", "--eval-every", "1",
               "--eval-games", "4", "--eval-opponent", "random", "--imitation-agent", "greedy",
               "--imitation-decisions", "60000", "--imitation-epochs", "2", "--run-dir", str(tmp_path),
               "--no-progress"]
    subprocess.run([*command, "--run-name", "whole"], check=True, cwd=tmp_path, capture_output=True, timeout=900)
    run = subprocess.Popen([*command, "--run-name", "stopped"], cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    progress = tmp_path / "stopped" / WARM_START
    deadline = time.monotonic() + 300
    while not list(progress.glob("stream-*-part-*.npz")) and time.monotonic() < deadline:
        time.sleep(0.1)
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 128 + signal.SIGINT and len(err.splitlines()) == 1, err
    assert "stopped in the warm start (round 1 of 1, recording decisions; its progress is saved)" in err
    resumed = subprocess.run([sys.executable, "-m", "rummy_training.ppo", "--resume",
                              str(tmp_path / "stopped" / "last.pt")], cwd=tmp_path, capture_output=True, text=True,
                             timeout=900)
    assert resumed.returncode == 0, resumed.stderr
    assert _metrics(tmp_path / "stopped") == _metrics(tmp_path / "whole")
    _assert_same_state(tmp_path / "whole", tmp_path / "stopped")
    with open(tmp_path / "stopped" / "metrics.csv") as f:
        assert [row["update"] for row in csv.DictReader(f)] == ["0", "1", "2"]
