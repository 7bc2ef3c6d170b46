"""The PPO trainer: the masked distribution, per-seat GAE and credit, checkpoints, the
config, reproducibility and resuming (in process, tiny budgets), and one end-to-end smoke
run per game through the command line."""

from __future__ import annotations

import ast
import csv
import inspect
import json
import shutil
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np
import pytest
import torch

import rummy_env
from rummy_env.agents import RandomAgent, make_agent, play_game
from rummy_env.agents.contract_expert import ExpertContract
from rummy_env.agents.contract_last_deal import LastDealContract, LastDealOddsContract
from rummy_env.agents.three_thirteen_closer import ClosingThreeThirteen
from rummy_env.agents.three_thirteen_heuristics import ExpertThreeThirteen
from rummy_training import config as config_module
from rummy_training.checkpoint import (CheckpointError, PolicyAgent, build_network, check_fits, env_sizes,
                                       load_checkpoint, save_checkpoint)
from rummy_training.cli import parse_args
from rummy_training.config import ConfigError, TrainConfig, config_from_dict, load_config
from rummy_training.model import MASKED_LOGIT, MaskedCategorical, PolicyNet
from rummy_training import ppo as ppo_module
from rummy_training.cli import resume_config
from rummy_training.ppo import Trainer
from rummy_training.stopping import Stopped
from rummy_training.features import (ContractExpert, ContractLastDeal, ContractLastDealOdds, ContractPlan,
                                     ThreeThirteenCloser, ThreeThirteenExpert, ThreeThirteenPenalties)
from rummy_training.imitation import imitate, play_demonstrations
from rummy_training.rollout import Collector
from rummy_training.trajectories import SeatTrajectories, seat_gae, seat_returns
from rummy_training.workers import shares
from rummy_training.runlog import TIMING_FIELDS

REPO = Path(__file__).resolve().parent.parent
GAMES = tuple(rummy_env.GAMES)
CONTRACT_GAMES = tuple(name for name, spec in rummy_env.GAMES.items() if spec.rules().contract_play is not None)
# the first contract game in the README's test command, the others (seconds each) in the slow suite
CONTRACT_GAME_PARAMS = [CONTRACT_GAMES[0], *(pytest.param(g, marks=pytest.mark.slow) for g in CONTRACT_GAMES[1:])]


def installed_only() -> dict[str, str]:
    """The environment for a command run outside the checkout: it finds the installed packages
    only, so that the training/ folder cannot stand in for the installed rummy_training."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}


def tiny(**fields) -> TrainConfig:
    """A config that trains a few seconds in this process."""
    base = dict(game="three_thirteen", num_players=2, total_steps=1024, steps_per_update=512, num_envs=4,
                num_workers=0, hidden_sizes=(32,), minibatch_size=128, update_epochs=2, eval_every=0,
                progress=False)
    base.update(fields)
    config = TrainConfig(**base)
    config.validate()
    return config


# ---------------------------------------------------------------- the masked distribution
def test_masked_actions_get_no_probability_and_the_entropy_is_over_legal_actions_only():
    logits = torch.tensor([[2.0, -1.0, 0.5, 3.0], [0.0, 0.0, 0.0, 0.0]])
    mask = torch.tensor([[True, False, True, False], [False, False, False, True]])
    dist = MaskedCategorical(logits, mask)
    assert dist.probs[0, 1] == 0 and dist.probs[0, 3] == 0 and torch.all(dist.probs[1, :3] == 0)
    legal = torch.softmax(torch.tensor([2.0, 0.5]), dim=0)
    assert torch.allclose(dist.probs[0, [0, 2]], legal)
    assert torch.isclose(dist.entropy()[0], -(legal * legal.log()).sum())
    assert dist.entropy()[1] == 0  # one legal action: no uncertainty, whatever the other logits
    assert torch.equal(dist.mode(), torch.tensor([0, 3]))
    samples = torch.stack([dist.sample(torch.Generator().manual_seed(s)) for s in range(200)])
    assert set(samples[:, 0].tolist()) == {0, 2} and set(samples[:, 1].tolist()) == {3}
    assert torch.isclose(dist.log_prob(torch.tensor([2, 3])), torch.tensor([legal[1].log(), 0.0])).all()


def test_masking_uses_a_finite_logit_so_a_row_without_legal_actions_gives_no_nan():
    assert MASKED_LOGIT > -float("inf")
    dist = MaskedCategorical(torch.randn(1, 5), torch.zeros(1, 5, dtype=torch.bool))
    assert torch.isfinite(dist.log_probs).all() and torch.isfinite(dist.entropy()).all()


def test_the_network_never_samples_a_masked_action():
    net = PolicyNet(10, 6, (16,))
    mask = torch.tensor([[False, True, False, False, True, False]] * 64)
    dist, values = net(torch.randn(64, 10), mask)
    assert mask.gather(1, dist.sample(torch.Generator().manual_seed(0)).unsqueeze(1)).all()
    assert values.shape == (64,)


# ---------------------------------------------------------------- per-seat GAE and credit
def test_seat_gae_on_a_hand_made_trajectory():
    # gamma 0.9, lambda 0.5; the game ends after decision 2 (done), then a new game's decision
    # 3, bootstrapped from the next value 1.0
    rewards = np.array([0.0, 1.0, -1.0, 0.5], np.float32)
    values = np.array([0.2, 0.4, 0.1, 0.3], np.float32)
    dones = np.array([False, False, True, False])
    adv = seat_gae(rewards, values, dones, next_value=1.0, gamma=0.9, lam=0.5)
    d3 = 0.5 + 0.9 * 1.0 - 0.3                     # 1.1
    d2 = -1.0 - 0.1                                 # done: no bootstrap, no carry
    d1 = 1.0 + 0.9 * 0.1 - 0.4                      # 0.69
    d0 = 0.0 + 0.9 * 0.4 - 0.2                      # 0.16
    a2 = d2
    a1 = d1 + 0.45 * a2
    a0 = d0 + 0.45 * a1
    assert np.allclose(adv, [a0, a1, a2, d3], atol=1e-6)



def test_seat_trajectories_credit_each_reward_to_its_seats_last_decision():
    """Rewards of a step go to each seat's last recorded decision, whoever acted; a seat with
    nothing recorded gets nothing; a split keeps each seat's last decision open; the game's end
    marks each last decision done; the returns are per seat."""
    class Recorded:
        def __init__(self, value):
            self.value, self.reward, self.done = value, 0.0, False

    trajectories = SeatTrajectories(3)
    a, b, c = Recorded(0.1), Recorded(0.2), Recorded(0.3)
    trajectories.record(0, a)
    trajectories.credit([1.0, 5.0, 0.0])  # seat 1 has no decision yet: its 5.0 is lost
    trajectories.record(1, b)
    trajectories.credit([2.0, -1.0, 0.0])  # a round ends on seat 1's step: seat 0 is paid too
    trajectories.record(0, c)
    trajectories.credit([0.5, 0.25, 0.0])
    assert (a.reward, b.reward, c.reward) == (3.0, -0.75, 0.5)
    assert trajectories.split_ready() == [([a], 0.3)] and trajectories.segments == [[c], [b], []]
    assert trajectories.end_game() == [[c], [b]] and c.done and b.done and not a.done
    assert seat_returns([1.0, 0.0, 2.0], 0.5) == [1.5, 1.0, 2.0]

def test_each_seat_is_credited_its_own_round_rewards_over_its_own_decisions(monkeypatch):
    """With every seat trained, gamma = lambda = 1: a seat's first return in a finished game
    is the sum of its relative round rewards, (table mean - own score) / 100."""
    config = tiny(num_envs=1, self_play=1.0, past_play=0.0, greedy_play=0.0, gamma=1.0, gae_lambda=1.0,
                  rules={"max_turns_per_round": 12})  # short rounds: a whole game in one collection
    finished: list[tuple[list, np.ndarray]] = []
    scores: list[list[int]] = []
    original_finish, original_end = Collector._finish, Collector._end_game

    def finish(self, steps, next_value):
        if steps[-1].done:
            finished.append((list(steps), None))
        original_finish(self, steps, next_value)

    def end_game(self, table):
        scores.append(list(table.env.game_state.scores))
        original_end(self, table)

    monkeypatch.setattr(Collector, "_finish", finish)
    monkeypatch.setattr(Collector, "_end_game", end_game)
    collector = Collector(config, 0, 1, build_network(config, 350, 106))
    collector.collect(3000)  # one collection: the first game's trajectories are not split
    mean = sum(scores[0]) / 2
    assert len(finished) == 2 * len(scores)  # one trajectory end per seat and game
    for seat, (steps, _) in enumerate(finished[:2]):
        assert sum(s.reward for s in steps) == pytest.approx((mean - scores[0][seat]) / 100, abs=1e-9)
        assert steps[-1].done and not any(s.done for s in steps[:-1])


# ---------------------------------------------------------------- checkpoints
@pytest.fixture
def three_thirteen_checkpoint(tmp_path: Path) -> Path:
    config = tiny(num_players=4)
    path = tmp_path / "tt4.pt"
    save_checkpoint(path, build_network(config, 464, 106), config, {"updates": 0})
    return path


def test_a_checkpoint_holds_what_it_needs_to_be_played_and_checked(three_thirteen_checkpoint: Path):
    data = load_checkpoint(three_thirteen_checkpoint)
    assert data["game"] == "three_thirteen" and data["observation_size"] == 464 and data["action_size"] == 106
    assert data["rules_config"]["num_players"] == 4 and data["package_version"] == rummy_env.__version__
    assert config_from_dict(data["config"]).hidden_sizes == (32,)


@pytest.mark.parametrize("kwargs, words", [
    ({"game": "contract_rummy"}, ["trained on three_thirteen, not contract_rummy"]),
    ({"observation_size": 407}, ["observation_size 464", "has 407", "num_players': 4"]),
    ({"action_size": 100}, ["action_size 106", "has 100"]),
])
def test_loading_refuses_a_checkpoint_of_another_game_or_size(three_thirteen_checkpoint, kwargs, words):
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(three_thirteen_checkpoint, **kwargs)
    for word in words:
        assert word in str(info.value)


def test_a_checkpoint_agent_refuses_a_table_it_was_not_trained_for(three_thirteen_checkpoint):
    env = rummy_env.three_thirteen_v0.env(num_players=3)
    with pytest.raises(CheckpointError, match="observation_size 464, but this three_thirteen table has 407"):
        play_game(env, [PolicyAgent(three_thirteen_checkpoint), RandomAgent(), RandomAgent()], seed=1)
    env = rummy_env.contract_rummy_v0.env()
    with pytest.raises(CheckpointError, match="trained on three_thirteen, not contract_rummy"):
        play_game(env, [make_agent(str(three_thirteen_checkpoint))] + [RandomAgent()] * 3, seed=1)


def test_unreadable_files_are_clear_checkpoint_errors(tmp_path: Path):
    with pytest.raises(CheckpointError, match="does not exist"):
        load_checkpoint(tmp_path / "missing.pt")
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="cannot be read"):
        load_checkpoint(tmp_path / "junk.pt")
    torch.save({"weights": {}}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="not a rummy_env PPO checkpoint"):
        load_checkpoint(tmp_path / "other.pt")
    with pytest.raises(ValueError):
        check_fits(load_checkpoint(_saved(tmp_path)), "x.pt", game="toonerville_rook")


def _saved(tmp_path: Path) -> Path:
    config = tiny()
    path = tmp_path / "tt2.pt"
    save_checkpoint(path, build_network(config, 350, 106), config, {})
    return path


# ---------------------------------------------------------------- the config
def test_every_config_field_has_a_docstring():
    tree = ast.parse(inspect.getsource(TrainConfig))
    body = tree.body[0].body
    documented = {stmt.target.id for stmt, after in zip(body, body[1:])
                  if isinstance(stmt, ast.AnnAssign) and isinstance(after, ast.Expr)
                  and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)}
    fields = {f.name for f in config_module.dataclasses.fields(TrainConfig)}
    assert fields - documented == set()


@pytest.mark.parametrize("game", GAMES)
def test_each_game_has_a_default_config_that_loads(game):
    config = load_config(REPO / "configs" / f"{game}.yaml")
    assert config.game == game and config.num_players == 4


def test_the_command_line_overrides_the_config_file():
    config = parse_args(["--config", str(REPO / "configs" / "three_thirteen.yaml"), "--total-steps", "1000",
                         "--hidden-sizes", "64", "64", "--greedy-play", "1.5", "--rules", "max_turns_per_round", "50"]).config
    assert (config.total_steps, config.hidden_sizes, config.greedy_play) == (1000, (64, 64), 1.5)
    assert config.env_kwargs()["max_turns_per_round"] == 50 and config.game == "three_thirteen"


@pytest.mark.parametrize("data, words", [
    ({"game": "poker"}, ["game must be one of", "'poker'"]),
    ({"num_envs": 0}, ["num_envs must be a positive integer"]),
    ({"num_envs": 2, "num_workers": 3}, ["num_envs (2) must be at least num_workers (3)"]),
    ({"gamma": 1.5}, ["gamma must lie in [0, 1]"]),
    ({"self_play": 0, "past_play": 0, "greedy_play": 0}, ["are all 0", "at least one seat weight must be positive"]),
    ({"greedy_play": -0.5}, ["greedy_play must be at least 0, not -0.5"]),
    ({"learning_rate": -1}, ["learning_rate must be positive, not -1"]),
    ({"imitation_learning_rate": 0}, ["imitation_learning_rate must be positive, not 0"]),
    ({"clip_coef": 0}, ["clip_coef must be positive, not 0"]),
    ({"keep_every": -1}, ["keep_every must be at least 0, not -1"]),
    ({"learning_rat": 0.1}, ["unknown field(s) learning_rat (did you mean learning_rate?)"]),
    ({"reward_mode": "money"}, ["reward_mode must be one of"]),
    ({"eval_opponent": "grredy"}, ["eval_opponent: unknown agent spec 'grredy'"]),
    ({"imitation_opponent": "grredy"}, ["imitation_opponent must be one of random, greedy, expert", "'grredy'"]),
    ({"imitation_agent": "runs/t/warm_start.pt"}, ["imitation_agent must be one of", "agent spec", "(a checkpoint)"]),
    ({"imitation_agent": "nosuch:Thing"}, ["imitation_agent must be one of", "cannot import 'nosuch'"]),
    ({"imitation_rounds": 0}, ["imitation_rounds must be a positive integer"]),
    ({"backend": "cloud"}, ["backend must be one of process, ray", "'cloud'"]),
    ({"backend": "ray", "num_workers": 0}, ["backend 'ray' needs num_workers of at least 1"]),
    ({"backend": "ray", "ray_worker_cpus": 0}, ["ray_worker_cpus must be positive"]),
])
def test_bad_configs_are_refused_with_the_field_named(data, words):
    with pytest.raises(ConfigError) as info:
        config_from_dict(data)
    for word in words:
        assert word in str(info.value)


def test_the_ray_backend_without_ray_installed_is_refused_saying_so(monkeypatch):
    """The same with and without the [ray] extra: the find is faked absent."""
    real_find_spec = config_module.importlib.util.find_spec
    monkeypatch.setattr(config_module.importlib.util, "find_spec",
                        lambda name, *args: None if name == "ray" else real_find_spec(name, *args))
    with pytest.raises(ConfigError, match=r"backend 'ray' needs Ray: pip install -e \"\.\[train,ray\]\""):
        config_from_dict({"backend": "ray"})
    with pytest.raises(ConfigError, match="needs num_workers of at least 1"):  # a bad value is named first
        config_from_dict({"backend": "ray", "num_workers": 0})


def test_an_agent_class_may_be_imitated():
    spec = "rummy_env.agents.three_thirteen_closer:ClosingThreeThirteen"
    config = config_from_dict({"game": "three_thirteen", "imitation_agent": spec, "imitation_opponent": spec})
    assert config.imitation_agent == config.imitation_opponent == spec


def test_a_config_file_that_is_not_a_mapping_or_not_yaml_is_refused(tmp_path: Path):
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="must be a mapping"):
        load_config(tmp_path / "list.yaml")
    (tmp_path / "bad.yaml").write_text("game: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(tmp_path / "bad.yaml")
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / "missing.yaml")


# ---------------------------------------------------------------- reproducibility and resuming
def _weights(path: Path) -> dict[str, torch.Tensor]:
    return load_checkpoint(path)["weights"]


def test_a_run_is_reproducible_from_its_seed(tmp_path: Path):
    runs = [Trainer(tiny(run_dir=str(tmp_path), run_name=name, seed=seed)).train()
            for name, seed in (("a", 5), ("b", 5), ("c", 6))]
    a, b, c = (_weights(run / "last.pt") for run in runs)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not all(torch.equal(a[k], c[k]) for k in a)
    assert (runs[0] / "metrics.csv").read_text().count("\n") == 3  # header and two updates




@pytest.mark.slow
def test_a_run_with_rollout_workers_is_reproducible_in_fresh_processes(tmp_path: Path):
    """Two command-line runs with the same config and seed, two rollout worker processes
    each and the imitation warm start: the same losses, evaluations and weights."""

    def run(name: str, seed: int) -> Path:
        cmd = [sys.executable, "-m", "rummy_training.ppo", "--config", str(REPO / "configs" / "three_thirteen.yaml"),
               "--num-players", "2", "--seed", str(seed), "--total-steps", "1536", "--steps-per-update", "512",
               "--num-envs", "4", "--num-workers", "2", "--hidden-sizes", "32", "--minibatch-size", "256",
               "--eval-every", "1", "--eval-games", "4", "--eval-opponent", "random",
               "--imitation-decisions", "256", "--imitation-epochs", "1",
               "--run-dir", str(tmp_path), "--run-name", name, "--no-progress"]
        subprocess.run(cmd, check=True, cwd=REPO, capture_output=True, timeout=600)
        return tmp_path / name

    def metrics(run: Path) -> list[dict[str, str]]:
        with open(run / "metrics.csv") as f:
            return [{k: v for k, v in row.items() if k not in TIMING_FIELDS} for row in csv.DictReader(f)]

    a, b, c = run("a", 3), run("b", 3), run("c", 4)
    rows = metrics(a)
    assert len(rows) == 4 and rows[-1]["policy_loss"] and rows[-1]["eval_win_rate"]  # warm start and 3 updates
    assert rows == metrics(b) != metrics(c)
    wa, wb, wc = (_weights(run / "last.pt") for run in (a, b, c))
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    assert not all(torch.equal(wa[k], wc[k]) for k in wa)


@pytest.mark.slow
def test_an_evaluation_with_the_same_seed_gives_the_same_report_in_fresh_processes(tmp_path: Path):
    """``rummy-eval`` of a checkpoint against the baselines, with worker processes: the same
    JSON report twice, apart from how it ran (timings, workers)."""

    def report(name: str, seed: int) -> dict:
        out = tmp_path / f"{name}.json"
        cmd = [sys.executable, "-m", "rummy_env.evaluate", "--game", "three_thirteen", "--agents",
               str(REPO / "checkpoints" / "three_thirteen.pt"), "expert", "greedy", "random", "--games", "8",
               "--seed", str(seed), "--workers", "2", "--json", str(out), "--no-progress"]
        subprocess.run(cmd, check=True, cwd=REPO, capture_output=True, timeout=600)
        data = json.loads(out.read_text())
        assert data["execution"]["workers"] == 2
        return {k: v for k, v in data.items() if k != "execution"}

    first, second, other = report("a", 5), report("b", 5), report("c", 6)
    assert first == second
    assert first["games"] != other["games"]


def test_a_run_resumes_from_its_last_checkpoint(tmp_path: Path):
    first = Trainer(tiny(run_dir=str(tmp_path), run_name="r", snapshot_every=1)).train()
    resumed = tiny(run_dir=str(tmp_path), run_name="r", snapshot_every=1, total_steps=1536,
                   resume=str(first / "last.pt"))
    Trainer(resumed).train()
    data = load_checkpoint(first / "last.pt")
    assert data["counters"]["updates"] == 3 and data["counters"]["env_steps"] == 1536
    assert len(data["pool"]) == 3
    assert (first / "metrics.csv").read_text().count("\n") == 4  # header and three updates
    with pytest.raises(CheckpointError, match="trained on three_thirteen, not contract_rummy"):
        Trainer(tiny(game="contract_rummy", num_players=4, run_dir=str(tmp_path), resume=str(first / "last.pt")))


def _metrics(run: Path) -> list[dict[str, str]]:
    """A run's metrics rows, without the columns that time it."""
    with open(run / "metrics.csv") as f:
        return [{k: v for k, v in row.items() if k not in TIMING_FIELDS} for row in csv.DictReader(f)]


def _assert_same_state(a: Path, b: Path) -> None:
    """Two runs' last.pt hold the same weights, optimiser, pool, counters (but time),
    history and trainer generator, bit for bit, and rollout states that play on alike."""
    x, y = load_checkpoint(a / "last.pt"), load_checkpoint(b / "last.pt")
    for name in ("weights", "optimizer", "pool", "history", "generator"):
        torch.testing.assert_close(x[name], y[name], rtol=0, atol=0, msg=name)

    def untimed(counters: dict) -> dict:
        return {k: untimed(v) if isinstance(v, dict) else v for k, v in counters.items() if k != "seconds"}

    assert untimed(x["counters"]) == untimed(y["counters"])
    config = config_from_dict(x["config"])
    games = shares(config) if config.num_workers else [config.num_envs]
    assert len(x["rollout"]) == len(y["rollout"]) == len(games)
    for stream, share in enumerate(games):
        batches = []
        for data in (x, y):
            network = build_network(config, data["observation_size"], data["action_size"])
            network.load_state_dict(data["weights"])
            collector = Collector(config, stream, share, network)
            collector.set_pool(data["pool"])
            collector.restore(data["rollout"][stream])
            batches.append(collector.collect(2048))
        for name in ("observations", "masks", "actions", "log_probs", "advantages"):
            assert np.array_equal(getattr(batches[0], name), getattr(batches[1], name)), name
        assert batches[0].games == batches[1].games and batches[0].games


def stop_before_saving_update(monkeypatch, update: int) -> None:
    """Makes a run stop (SIGTERM) after ``update``'s collection, update and logged row,
    before its last.pt."""
    save_last = Trainer._save_last

    def stop(self, workers):
        if self.counters["updates"] == update:
            raise Stopped(signal.SIGTERM)
        save_last(self, workers)

    monkeypatch.setattr(Trainer, "_save_last", stop)


@pytest.mark.slow  # test_run_stops.py stops a run in PPO so too, among the other phases, in the fast suite
def test_a_stopped_and_resumed_run_equals_one_that_never_stopped(tmp_path: Path, monkeypatch):
    """A stop after the third update's collection, update and logged row, before its last.pt:
    the run resumes from update 2 (dropping row 3), with its games in progress, and ends as
    the run that never stopped (pool snapshots, past and random seats on)."""
    fields = dict(run_dir=str(tmp_path), total_steps=2560, snapshot_every=2, past_play=0.3, random_play=0.2, seed=4,
                  num_envs=2, rules={"max_turns_per_round": 8})  # games end in every update
    whole = Trainer(tiny(run_name="whole", **fields)).train()
    stop_before_saving_update(monkeypatch, 3)
    stopped = Trainer(tiny(run_name="stopped", **fields))
    with pytest.raises(Stopped):
        stopped.train()
    assert stopped.saved == (2, 1024) and len(_metrics(stopped.run_dir)) == 3  # rows of updates 1 to 3
    assert "stopped at update 2 (env steps 1,024); resume with: rummy-train --resume" in \
        ppo_module.stop_report(stopped, "rummy-train")
    monkeypatch.undo()
    resumed = Trainer(resume_config(str(tmp_path / "stopped" / "last.pt")))
    assert resumed.run_dir == stopped.run_dir and resumed.rollout_states is not None
    resumed.train()
    rows = _metrics(whole)
    assert rows == _metrics(stopped.run_dir) and len(rows) == 5 and all(int(row["train_games"]) for row in rows)
    _assert_same_state(whole, stopped.run_dir)


def test_tensorboard_holds_the_learning_curve_in_one_chart(tmp_path: Path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.plugins.custom_scalar import layout_pb2

    run = Trainer(tiny(run_dir=str(tmp_path), run_name="tb", eval_every=2, eval_games=2)).train()
    events = EventAccumulator(str(run / "tensorboard"))
    events.Reload()
    curve = {f"learning_curve/{tag}" for tag in ("win_rate", "win_rate_low", "win_rate_high", "parity",
                                                 "penalty_per_round", "opponent_penalty_per_round")}
    assert curve <= set(events.Tags()["scalars"]) and "policy_loss" in events.Tags()["scalars"]
    assert [e.step for e in events.Scalars("learning_curve/parity")] == [1024]
    assert events.Scalars("learning_curve/parity")[0].value == 0.5
    layout = layout_pb2.Layout()
    layout.ParseFromString(events.Tensors("custom_scalars__config__")[0].tensor_proto.string_val[0])
    charts = {chart.title: chart for category in layout.category for chart in category.chart}
    win = next(chart for title, chart in charts.items() if "parity" in title)
    assert list(win.multiline.tag) == [f"^learning_curve/{t}$" for t in ("win_rate", "win_rate_low", "win_rate_high",
                                                                          "parity")]


@pytest.mark.slow
def test_a_run_terminated_through_the_command_line_resumes_as_if_it_had_not_stopped(tmp_path: Path):
    """Two rollout worker processes, the warm start and an evaluation every update: SIGTERM
    once update 3 is logged, then --resume alone; the metrics (but timings), the weights and
    the rest of last.pt equal those of the run that was not stopped."""
    cmd = [sys.executable, "-m", "rummy_training.ppo", "--num-players", "2", "--total-steps", "3072",
           "--steps-per-update", "512", "--num-envs", "4", "--num-workers", "2", "--hidden-sizes", "32",
           "--minibatch-size", "256", "--snapshot-every", "2", "--past-play", "0.3", "--random-play", "0.2",
           "--rules", "max_turns_per_round", "8", "--eval-every", "1", "--eval-games", "4",
           "--eval-opponent", "random", "--imitation-agent", "greedy", "--imitation-decisions", "256",
           "--imitation-epochs", "1", "--run-dir", str(tmp_path), "--no-progress"]
    subprocess.run([*cmd, "--run-name", "whole"], check=True, cwd=tmp_path, capture_output=True, timeout=600)
    run = subprocess.Popen([*cmd, "--run-name", "stopped"], cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    metrics = tmp_path / "stopped" / "metrics.csv"
    deadline = time.monotonic() + 300
    while (not metrics.exists() or metrics.read_text().count("\n") < 5) and time.monotonic() < deadline:
        time.sleep(0.05)  # the header and the rows of updates 0 to 3
    run.terminate()
    out, err = run.communicate(timeout=60)
    assert run.returncode == 128 + signal.SIGTERM, err
    assert len(err.splitlines()) == 1, err  # one line, whatever the moment the signal came
    line = err.strip()
    assert line.startswith("python -m rummy_training.ppo: stopped at update ") and "Traceback" not in err
    stopped_at = int(line.split("stopped at update ")[1].split()[0])
    assert 2 <= stopped_at < 6  # 2: row 3 logged, its last.pt not yet written (the resumed run drops the row)
    assert line.endswith(f"resume with: python -m rummy_training.ppo --resume {tmp_path / 'stopped' / 'last.pt'}")
    resumed = subprocess.run([sys.executable, "-m", "rummy_training.ppo", "--resume",
                              str(tmp_path / "stopped" / "last.pt")], cwd=tmp_path, capture_output=True, text=True,
                             timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    rows = _metrics(tmp_path / "whole")
    assert [row["update"] for row in rows] == ["0", "1", "2", "3", "4", "5", "6"]
    assert all(row["eval_win_rate"] for row in rows) and sum(int(row["train_games"]) for row in rows[1:]) >= 3
    assert _metrics(tmp_path / "stopped") == rows
    _assert_same_state(tmp_path / "whole", tmp_path / "stopped")


# ---------------------------------------------------------------- end to end, per game
def test_the_trainer_is_installed_as_rummy_training_with_its_command(tmp_path: Path):
    """Outside the checkout: both commands of the README start, and the folder's name is no package."""
    commands = {"rummy-train": [str(Path(sys.executable).with_name("rummy-train"))],
                "python -m rummy_training.ppo": [sys.executable, "-m", "rummy_training.ppo"]}
    for prog, command in commands.items():
        out = subprocess.run([*command, "--help"], cwd=tmp_path, env=installed_only(), capture_output=True,
                             text=True, check=True, timeout=120)
        assert out.stdout.startswith(f"usage: {prog} [-h]"), out.stdout[:200]
    probe = subprocess.run([sys.executable, "-c", "import training"], cwd=tmp_path, env=installed_only(),
                           capture_output=True, text=True, timeout=60)
    assert "No module named 'training'" in probe.stderr


@pytest.mark.parametrize("game", [GAMES[0], *(pytest.param(g, marks=pytest.mark.slow) for g in GAMES[1:])])
def test_training_smoke_run_through_the_command_line(game: str, tmp_path: Path):
    cmd = [sys.executable, "-m", "rummy_training.ppo", "--config", str(REPO / "configs" / f"{game}.yaml"),
           "--total-steps", "512", "--steps-per-update", "512", "--num-envs", "2", "--num-workers", "1",
           "--hidden-sizes", "32", "--minibatch-size", "256", "--eval-every", "1", "--eval-games", "4",
           "--eval-opponent", "random", "--imitation-decisions", "64", "--imitation-epochs", "1",
           "--rules", "max_turns_per_round", "8", "--run-dir", str(tmp_path), "--run-name", "smoke", "--no-progress"]
    subprocess.run(cmd, check=True, cwd=tmp_path, env=installed_only(), timeout=600)
    run = tmp_path / "smoke"
    for name in ("last.pt", "best.pt", "latest.pt", "pool.pt", "config.yaml", "metrics.csv", "learning_curve.png"):
        assert (run / name).is_file(), name
    assert any((run / "tensorboard").iterdir())
    with open(run / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    # the warm start (update 0) and an update, each evaluated
    assert [row["update"] for row in rows] == ["0", "1"] and all(row["eval_win_rate"] for row in rows)
    best = load_checkpoint(run / "best.pt")
    assert best["history"][-1]["env_steps"] == best["counters"]["env_steps"]  # it knows its own evaluation
    env = rummy_env.GAMES[game].env(max_turns_per_round=8)
    result = play_game(env, [make_agent(str(run / "best.pt"))] + [RandomAgent() for _ in range(3)], seed=3)
    assert result.decisions[0] > 0 and len(result.scores) == 4


# ---------------------------------------------------------------- the imitation warm start
def _replay_first_game(config: TrainConfig, specs: list[str], on_decision) -> rummy_env.env.RummyEnv:
    """Replays the first game of ``play_demonstrations(config, 0, ...)`` (a 2-player
    Three-Thirteen table capped at 12 turns a round) with agents of ``specs`` on the same
    random streams; ``on_decision(seat, observation, agent's action)`` returns the action
    to play. Returns the raw env at the end of the game."""
    rng = np.random.default_rng([config.seed, 10_000])
    env = rummy_env.three_thirteen_v0.env(num_players=2, max_turns_per_round=12)
    deal = int(rng.integers(2**31 - 1))
    agents = [make_agent(spec) for spec in specs]
    seeds = [int(rng.integers(2**31 - 1)) for _ in agents]
    env.reset(seed=deal)
    raw = env.unwrapped
    for seat, agent in enumerate(agents):
        agent.start_game(rummy_env.agents.SeatInfo.of(raw, raw.possible_agents[seat]), seeds[seat])
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = raw._seat[name]
        action = agents[seat].act(rummy_env.agents.Decision(obs["observation"], obs["action_mask"],
                                                            lambda name=name: raw.describe(name)))
        env.step(on_decision(seat, obs, action))
    return raw


@pytest.mark.parametrize("opponent", [None, "random"])
def test_demonstrations_credit_each_seat_its_own_discounted_return(opponent: str | None):
    """gamma = 1: a seat's return at its first decision of the game is its total relative
    reward, (table mean - own final score) / 100; checked by replaying the same game. With
    an opponent, the first game records seat 0 only, and the opponent plays seat 1."""
    config = tiny(imitation_agent="greedy", imitation_opponent=opponent, gamma=1.0, rules={"max_turns_per_round": 12})
    demos = play_demonstrations(config.to_dict(), 0, decisions=1)  # whole games: exactly one here
    recorded = {0} if opponent else {0, 1}
    first_decision = {}
    k = 0

    def check(seat: int, obs: dict, action: int) -> int:
        nonlocal k
        if seat in recorded:
            first_decision.setdefault(seat, k)
            assert action == demos.actions[k]
            k += 1
        return action

    raw = _replay_first_game(config, ["greedy", opponent or "greedy"], check)
    assert k == len(demos.actions) and set(first_decision) == recorded
    scores = raw.game_state.scores
    for seat, index in first_decision.items():
        assert demos.returns[index] == pytest.approx((sum(scores) / 2 - scores[seat]) / 100, abs=1e-5)


def test_a_dagger_round_plays_the_network_and_labels_with_the_baseline():
    """With weights, the network plays the recorded seat (its most probable action) and the
    baseline, shown every decision, only labels it: replayed with the same streams, the
    baseline's choices are the labels and the network's the actions played."""
    config = tiny(imitation_agent="greedy", imitation_opponent="random", rules={"max_turns_per_round": 12})
    torch.manual_seed(0)
    network = build_network(config, 350, 106).eval()
    demos = play_demonstrations(config.to_dict(), 0, decisions=1, weights=network.state_dict())
    k = 0

    def check(seat: int, obs: dict, action: int) -> int:
        nonlocal k
        if seat == 0:
            assert action == demos.actions[k]
            with torch.no_grad():
                dist, _ = network(torch.from_numpy(obs["observation"]).unsqueeze(0),
                                  torch.from_numpy(obs["action_mask"].astype(bool)).unsqueeze(0))
            action = int(dist.mode()[0])
            assert action == demos.played[k] and obs["action_mask"][action]
            k += 1
        return action

    _replay_first_game(config, ["greedy", "random"], check)
    assert k == len(demos.actions)
    assert (demos.played != demos.actions).any()  # an untrained network does not play like greedy


@pytest.mark.slow
def test_dagger_rounds_refit_on_every_round_and_log_the_networks_agreement(tmp_path: Path):
    config = tiny(imitation_agent="greedy", imitation_decisions=300, imitation_rounds=3, imitation_epochs=1,
                  run_dir=str(tmp_path), run_name="dagger", total_steps=512)
    run = Trainer(config).train()
    rounds = load_checkpoint(run / "last.pt")["counters"]["imitation"]["rounds"]
    assert len(rounds) == 3 and "policy_agreement" not in rounds[0]
    assert rounds[0]["decisions"] < rounds[1]["decisions"] < rounds[2]["decisions"]
    assert all(0.0 <= r["policy_agreement"] <= 1.0 for r in rounds[1:])


def test_imitation_makes_the_policy_play_like_the_baseline():
    config = tiny(imitation_agent="greedy", imitation_epochs=40, hidden_sizes=(128,), minibatch_size=256,
                  rules={"max_turns_per_round": 12})
    demos = play_demonstrations(config.to_dict(), 0, decisions=2000)
    torch.manual_seed(0)
    network = build_network(config, 350, 106)

    def agreement() -> float:
        with torch.no_grad():
            dist, _ = network(torch.from_numpy(demos.observations), torch.from_numpy(demos.masks))
        return (dist.mode().numpy() == demos.actions).mean()

    before = agreement()
    stats = imitate(network, demos, config, torch.Generator().manual_seed(0))
    assert agreement() > before + 0.3 and stats["imitation_agreement"] > 0.75


# ---------------------------------------------------------------- features
def test_three_thirteen_penalty_features_say_what_the_greedy_baseline_sees():
    """Greedy takes the top discard exactly when the feature says taking it saves penalty,
    and discards a card whose saving is the largest among the legal discards."""
    env = rummy_env.three_thirteen_v0.env(num_players=3)
    env.reset(seed=4)
    raw = env.unwrapped
    seats = {name: rummy_env.agents.SeatInfo.of(raw, name) for name in raw.possible_agents}
    features = ThreeThirteenPenalties(seats["player_0"])
    greedy = {name: make_agent("greedy") for name in raw.possible_agents}
    for name, agent in greedy.items():
        agent.start_game(seats[name], 0)
    rng = np.random.default_rng(0)
    draws = discards = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        observation, mask = obs["observation"], obs["action_mask"]
        given = features(observation, mask)
        extra = given[len(observation):]
        assert np.array_equal(given[:len(observation)], observation) and len(extra) == 54
        choice = greedy[name].act(rummy_env.agents.Decision(observation, mask, lambda: {}))
        legal = np.flatnonzero(mask)
        if mask[1]:
            assert (choice == 1) == (extra[53] > 0)
            draws += 1
        elif not mask[54:].any():
            savings = {a - 2: extra[a - 2] for a in legal}
            assert savings[choice - 2] == max(savings.values())
            discards += 1
        env.step(int(legal[rng.integers(len(legal))]))
    assert draws > 100 and discards > 100


def _contract_game(game: str, deal: int, agent: Callable[[], rummy_env.agents.Agent], explore: float,
                   limit: int):
    """A game of ``game`` (deal seed ``deal``) with ``agent()`` in every seat, each step the
    agent's choice or, with probability ``explore``, a random legal action. Returns the raw
    env, player_0's seat view and the decisions, as (observation, mask, the agent's choice),
    for at most ``limit`` steps."""
    env = rummy_env.GAMES[game].env()
    env.reset(seed=deal)
    raw = env.unwrapped
    seats = {name: rummy_env.agents.SeatInfo.of(raw, name) for name in raw.possible_agents}
    agents = {name: agent() for name in raw.possible_agents}
    for name, seated in agents.items():
        seated.start_game(seats[name], 0)

    def decisions():
        rng = np.random.default_rng(deal)
        for step, name in enumerate(env.agent_iter()):
            obs, _, term, trunc, _ = env.last()
            if term or trunc or step > limit:
                return
            observation, mask = obs["observation"], obs["action_mask"]
            choice = agents[name].act(rummy_env.agents.Decision(observation, mask, lambda: {}))
            yield observation, mask, choice
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.integers(len(legal))]) if rng.random() < explore else choice)

    return raw, seats["player_0"], decisions()


@pytest.mark.parametrize("game", CONTRACT_GAME_PARAMS)
def test_contract_plan_features_say_what_the_greedy_baseline_sees(game: str):
    """The kind flags are the mask's; greedy, not down, takes a top discard that makes the
    contract, discards a card whose loss costs the least deficiency, and buys only a card
    that completes a meld."""
    from rummy_env.actions import ActionKind

    raw, seat, decisions = _contract_game(game, 5, lambda: make_agent("greedy"), explore=0.5, limit=6000)
    features = ContractPlan(seat)
    kinds = np.array(raw.layout.kinds)
    loss_at = ContractPlan.kinds + ContractPlan.scalars
    counted = dict(takes=0, discards=0, buys=0)
    for observation, mask, choice in decisions:
        given = features(observation, mask)
        extra = given[len(observation):]
        assert np.array_equal(given[:len(observation)], observation) and len(extra) == features.size
        assert np.array_equal(extra[:len(ActionKind)], [mask[kinds == k].any() for k in ActionKind])
        legal = np.flatnonzero(mask)
        down = extra[len(ActionKind) + 4]
        makes, completes = extra[len(ActionKind) + 7], extra[len(ActionKind) + 8]
        if mask[1] and not down and makes:
            assert choice == 1
            counted["takes"] += 1
        if kinds[choice] == ActionKind.BUY:
            assert completes
            counted["buys"] += 1
        only_discards = all(kinds[a] == ActionKind.DISCARD for a in legal)
        if only_discards and len(legal) > 1 and not down:
            loss = {a: extra[loss_at + raw.layout.args[a]] for a in legal}
            assert loss[choice] == min(loss.values())
            counted["discards"] += 1
    assert counted["takes"] > 0 and counted["discards"] > 100
    assert counted["buys"] > 0 or not raw.rules.contract_play.buying


class _ExpertWithoutMemory(ExpertContract):
    """``expert`` reading each decision afresh, as the ``contract_expert`` features do."""

    remember = ExpertContract.read_afresh


@pytest.mark.parametrize("game", CONTRACT_GAME_PARAMS)
def test_contract_expert_features_say_what_the_expert_would_do(game: str):
    """They start with the contract_plan numbers; their draw flags name the draw expert (read
    without memory) makes, the buy flag its answer, and the discard preferences rank its
    discard first (1) and the rest below it, on positions reached by expert and random play."""
    from rummy_env.actions import ActionKind

    raw, seat, decisions = _contract_game(game, 8, _ExpertWithoutMemory, explore=0.3, limit=5000)
    features, plan = ContractExpert(seat), ContractPlan(seat)
    F = raw.layout.card_set.num_faces
    assert features.size == plan.size + ContractExpert.expert_scalars + 3 * F
    kinds = np.array(raw.layout.kinds)
    counted = dict(draws=0, takes=0, discards=0, buys=0)
    for observation, mask, choice in decisions:
        given = features(observation, mask)
        extra = given[len(observation) + plan.size:]
        assert np.array_equal(given[:len(observation) + plan.size], plan(observation, mask))
        draw_flags, buy_flag, preference = extra[5:9], extra[9], extra[10:10 + F]
        if kinds[choice] in (ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD, ActionKind.DEEP_DRAW):
            assert draw_flags[int(kinds[choice])] == 1 and draw_flags[:3].sum() == 1
            counted["draws"] += 1
            counted["takes"] += kinds[choice] != ActionKind.DRAW_STOCK
        else:
            assert not draw_flags.any()
        if kinds[choice] in (ActionKind.BUY, ActionKind.PASS):
            assert buy_flag == (kinds[choice] == ActionKind.BUY)
            counted["buys"] += kinds[choice] == ActionKind.BUY
        offered = [raw.layout.args[a] for a in np.flatnonzero(mask) if kinds[a] == ActionKind.DISCARD]
        if offered:
            ranked = sorted(preference[offered], reverse=True)
            assert np.allclose(ranked, [1 / (1 + r) for r in range(len(offered))])
            assert np.count_nonzero(preference) == len(offered)
        if kinds[choice] == ActionKind.DISCARD:
            assert preference[raw.layout.args[choice]] == 1
            counted["discards"] += 1
    assert counted["draws"] > 100 and counted["takes"] > 0 and counted["discards"] > 100
    assert counted["buys"] > 0 or not raw.rules.contract_play.buying


@pytest.mark.parametrize("teacher_class, features_class", [(LastDealContract, ContractLastDeal),
                                                            (LastDealOddsContract, ContractLastDealOdds)])
def test_last_deal_teachers_features_pass_their_discards_where_they_differ_from_experts(teacher_class,
                                                                                       features_class):
    """The same numbers as contract_expert, from the teacher's reading (LastDealContract's, or
    LastDealOddsContract's): its discard ranks first at every discard; in the last deal, where
    it sheds another card than expert would, so do the features (the quick variant reaches its
    last deal within a test's time)."""
    from rummy_env.actions import ActionKind

    without_memory = type("WithoutMemory", (teacher_class,), {"remember": ExpertContract.read_afresh})
    raw, seat, decisions = _contract_game("contract_rummy_quick", 4, without_memory, explore=0.1, limit=20000)
    teacher, expert, plan = features_class(seat), ContractExpert(seat), ContractPlan(seat)
    assert teacher.size == expert.size
    F = raw.layout.card_set.num_faces
    kinds = np.array(raw.layout.kinds)
    discards = differ = 0
    for observation, mask, choice in decisions:
        if kinds[choice] != ActionKind.DISCARD:
            continue
        at = len(observation) + plan.size + ContractExpert.expert_scalars  # the discard preferences
        given, plain = teacher(observation, mask)[at:at + F], expert(observation, mask)[at:at + F]
        assert given[raw.layout.args[choice]] == 1
        discards += 1
        differ += int(np.argmax(given) != np.argmax(plain))
    assert discards > 100 and differ > 0


def test_features_of_another_game_are_refused():
    with pytest.raises(ConfigError, match="'three_thirteen_penalties' are for games without contracts, not contract_rummy"):
        config_from_dict({"game": "contract_rummy", "features": "three_thirteen_penalties"})
    with pytest.raises(ConfigError, match="'contract_plan' are for games with contracts, not three_thirteen"):
        config_from_dict({"game": "three_thirteen", "features": "contract_plan"})
    with pytest.raises(ConfigError, match="'contract_expert' are for games with contracts, not three_thirteen"):
        config_from_dict({"game": "three_thirteen", "features": "contract_expert"})
    with pytest.raises(ConfigError, match="'three_thirteen_expert' are for games without contracts, not contract_rummy"):
        config_from_dict({"game": "contract_rummy", "features": "three_thirteen_expert"})
    with pytest.raises(ConfigError, match="features must be one of none, three_thirteen_penalties, "
                                          "three_thirteen_expert, three_thirteen_closer, contract_plan, contract_expert, "
                                          "contract_last_deal, contract_last_deal_odds, not 'magic'"):
        config_from_dict({"features": "magic"})


def test_a_checkpoint_trained_with_features_computes_them_at_play_time(tmp_path: Path):
    config = tiny(num_players=4, features="three_thirteen_penalties")
    path = tmp_path / "features.pt"
    save_checkpoint(path, build_network(config, 464, 106), config, {})
    assert load_checkpoint(path)["observation_size"] == 464  # the env's size; the network adds 54
    env = rummy_env.three_thirteen_v0.env(num_players=4, max_turns_per_round=20)
    result = play_game(env, [make_agent(str(path))] + [RandomAgent() for _ in range(3)], seed=2)
    assert result.decisions[0] > 0


# ---------------------------------------------------------------- shipping
def test_the_acceptance_test_and_model_card_of_a_shipped_checkpoint():
    from rummy_env.evaluate import evaluate
    from rummy_training.ship import beats, model_card

    report = evaluate("three_thirteen", ["random", "greedy", "greedy", "greedy"], games=8, seed=1,
                      env_kwargs={"max_turns_per_round": 20})
    ok, words = beats(report)
    assert not ok and "against parity 0.250" in words
    config = tiny(num_players=4)
    data = {"game": "three_thirteen", "observation_size": 464, "action_size": 106, "package_version": "0",
            "rules_config": config.env_kwargs(), "config": config.to_dict(), "history": [{}],
            "counters": {"env_steps": 10, "trained_decisions": 8, "updates": 1, "seconds": 36.0},
            "note": "stopped by hand", "weights": {"w": torch.zeros(2, dtype=torch.float16), "n": torch.zeros(1, dtype=torch.long)}}
    card = model_card("tt", data, {"greedy": report, "expert": report})
    for text in ("# `tt.pt`", "10 environment steps", "**Does not beat greedy**", "**Does not beat expert**",
                 "- stopped by hand", "game: three_thirteen", "weights stored as float16;",
                 "rummy-eval --game three_thirteen --agents random greedy greedy greedy --games 8 --seed 1 --workers 1"):
        assert text in card
    data["counters"]["init"] = {"path": "checkpoints/tt.pt", "counters": dict(data["counters"], env_steps=7200)}
    assert "Started from the weights of `checkpoints/tt.pt` (7,200 PPO steps" in model_card("tt", data, {"greedy": report})
    assert "0.02 hours in all" in model_card("tt", data, {"greedy": report})
    data["weights"]["w"] = torch.zeros(2)  # shipped before shipping halved the weights
    assert "weights stored as float32;" in model_card("tt", data, {"greedy": report})
    assert "policy for three_thirteen" in model_card("tt", data, {"greedy": report}).split("\n")[0]
    # a warm start (warm_start.pt), saved before any evaluation or PPO step
    del data["history"]
    data["counters"]["env_steps"] = 0
    card = model_card("tt", data, {"greedy": report})
    assert card.startswith("# `tt.pt`: imitation (no PPO steps) policy") and "Kept as the best" not in card


def test_shipping_stores_half_precision_weights_and_evaluates_that_file(tmp_path: Path):
    from rummy_training import ship

    config = tiny(num_players=4)
    run = tmp_path / "run"
    run.mkdir()
    network = build_network(config, 464, 106)
    counters = {"env_steps": 10, "trained_decisions": 8, "updates": 1, "seconds": 1.0}
    save_checkpoint(run / "best.pt", network, config, counters, extra={"history": [{"env_steps": 10, "eval_win_rate": 0.3}]})
    code = ship.main([str(run), "--name", "tiny", "--games", "4", "--workers", "1", "--out", str(tmp_path),
                      "--opponents", "random", "greedy"])
    shipped = load_checkpoint(tmp_path / "tiny.pt")
    assert all(w.dtype == torch.float16 for w in shipped["weights"].values())
    assert code == 1  # an untrained network beats neither
    assert (tmp_path / "tiny.md").is_file()
    for opponent in ("random", "greedy"):
        assert json.loads((tmp_path / f"tiny.{opponent}.eval.json").read_text())["settings"]["agents"][1] == opponent
    agent = PolicyAgent(tmp_path / "tiny.pt")  # loads into float32 parameters
    assert all(p.dtype == torch.float32 for p in agent.network.parameters())
    for name, weights in network.state_dict().items():
        assert torch.allclose(agent.network.state_dict()[name], weights, atol=1e-3)


def test_a_shipped_checkpoint_gains_an_opponent_with_its_run_gone(tmp_path: Path):
    """Given the shipped file, ship plays only the tournament it has no report of, keeps the
    stored ones (and the note) and writes the card again from all of them."""
    from rummy_training import ship

    config = tiny(num_players=4)
    run = tmp_path / "run"
    run.mkdir()
    counters = {"env_steps": 10, "trained_decisions": 8, "updates": 1, "seconds": 1.0}
    save_checkpoint(run / "best.pt", build_network(config, 464, 106), config, counters,
                    extra={"history": [{"env_steps": 10, "eval_win_rate": 0.3}]})
    ship.main([str(run), "--name", "tiny", "--games", "4", "--workers", "1", "--out", str(tmp_path),
               "--opponents", "greedy", "--note", "stopped by hand"])
    shutil.rmtree(run)
    greedy_report = (tmp_path / "tiny.greedy.eval.json").read_text()
    weights = load_checkpoint(tmp_path / "tiny.pt")["weights"]
    code = ship.main([str(tmp_path / "tiny.pt"), "--games", "8", "--workers", "1", "--opponents", "greedy", "random"])
    assert code == 1
    assert (tmp_path / "tiny.greedy.eval.json").read_text() == greedy_report  # not played again
    played = json.loads((tmp_path / "tiny.random.eval.json").read_text())
    assert played["settings"]["agents"][1:] == ["random"] * 3 and len(played["games"]) == 8
    card = (tmp_path / "tiny.md").read_text()
    assert "- stopped by hand" in card
    assert card.index("Against `greedy`") < card.index("Against `random`")
    assert f"--agents {tmp_path / 'tiny.pt'} greedy greedy greedy --games 4 " in card
    assert f"--agents {tmp_path / 'tiny.pt'} random random random --games 8 " in card
    shipped = load_checkpoint(tmp_path / "tiny.pt")
    assert all(torch.equal(shipped["weights"][k], w) for k, w in weights.items())
    # a note given now replaces the stored one, for this card and the next
    ship.main([str(tmp_path / "tiny.pt"), "--opponents", "random", "--note", "the second note"])
    ship.main([str(tmp_path / "tiny.pt"), "--opponents", "random"])
    card = (tmp_path / "tiny.md").read_text()
    assert "- the second note" in card and "stopped by hand" not in card and "Against `greedy`" not in card


SHIPPED = sorted((REPO / "checkpoints").glob("*.pt")) + sorted((REPO / "checkpoints").glob("scratch/*.pt"))
"""The shipped checkpoints: each game's, and the from-scratch ones in checkpoints/scratch."""


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(REPO / "checkpoints")))
def test_each_shipped_checkpoint_plays_its_game_and_was_shown_to_beat_greedy(path: Path):
    data = load_checkpoint(path)
    assert path.stat().st_size < 4_000_000  # "a few MB at most"
    players = data["config"]["num_players"]
    env = rummy_env.GAMES[data["game"]].env(**data["rules_config"])
    result = play_game(env, [make_agent(str(path))] + [make_agent("greedy") for _ in range(players - 1)], seed=0)
    assert result.decisions[0] > 0
    assert "**Beats greedy**" in path.with_suffix(".md").read_text()
    report = json.loads(path.with_name(f"{path.stem}.greedy.eval.json").read_text())
    assert len(report["games"]) >= 2000 and report["settings"]["agents"][1:] == ["greedy"] * (players - 1)


@pytest.mark.parametrize("report_path", [report for path in SHIPPED for report in sorted(path.parent.glob(f"{path.stem}.*.eval.json"))],
                         ids=lambda p: str(p.relative_to(REPO / "checkpoints")))
def test_each_shipped_verdict_is_the_one_its_report_supports(report_path: Path):
    """A model card's "Beats X" stands on its report: 2,000 games or more of the checkpoint
    against X in every other seat, on deals the training never selected on, the win rate's
    95% interval above parity and a lower mean final score than X's."""
    stem, opponent = report_path.name.removesuffix(".eval.json").rsplit(".", 1)
    checkpoint = report_path.with_name(f"{stem}.pt")
    config = load_checkpoint(checkpoint)["config"]
    report = json.loads(report_path.read_text())
    settings, (ours, theirs) = report["settings"], report["agents"]
    assert settings["agents"] == [str(checkpoint.relative_to(REPO))] + [opponent] * (config["num_players"] - 1)
    assert len(report["games"]) >= 2000 and settings["seed"] != config["eval_seed"]
    supported = (ours["win_rate"]["ci95_low"] > report["summary"]["parity"]
                 and ours["final_score"]["mean"] < theirs["final_score"]["mean"])
    card = checkpoint.with_suffix(".md").read_text()
    assert f"**{'Beats' if supported else 'Does not beat'} {opponent}**" in card


@pytest.mark.slow
def test_a_terminated_run_stops_its_worker_processes(tmp_path: Path):
    cmd = [sys.executable, "-m", "rummy_training.ppo", "--num-players", "2", "--total-steps", "100000000",
           "--steps-per-update", "256", "--num-envs", "2", "--num-workers", "2", "--hidden-sizes", "16",
           "--eval-every", "0", "--run-dir", str(tmp_path), "--run-name", "stop", "--no-progress"]
    run = subprocess.Popen(cmd, cwd=tmp_path, env=installed_only())
    metrics = tmp_path / "stop" / "metrics.csv"
    deadline = time.monotonic() + 120
    while (not metrics.exists() or metrics.read_text().count("\n") < 2) and time.monotonic() < deadline:
        time.sleep(0.2)
    children = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _parent(p) == run.pid]
    assert len(children) >= 2  # the two rollout workers (and the resource tracker)
    run.terminate()
    assert run.wait(timeout=30) == 128 + signal.SIGTERM
    deadline = time.monotonic() + 10
    while any(p.exists() for p in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(p.exists() and _parent(p) != 0 for p in children)


def _parent(proc: Path) -> int:
    try:
        return int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _forgetful(heuristic: type[ExpertThreeThirteen]) -> ExpertThreeThirteen:
    """The heuristic reading every decision afresh, as its features do."""
    class Forgetful(heuristic):
        def act(self, decision):
            self.forget_round()
            return super().act(decision)
    return Forgetful()


@pytest.mark.parametrize("features_class, heuristic", [(ThreeThirteenExpert, ExpertThreeThirteen),
                                                        (ThreeThirteenCloser, ClosingThreeThirteen)])
def test_three_thirteen_advice_features_say_what_their_heuristic_would_do(features_class, heuristic):
    """They start with the penalty features; the draw flag is the heuristic's draw, the
    discard preferences rank its discard first (1) and the rest it weighed below, with their
    score margins (0 for its own), on positions reached by its and random play."""
    env = rummy_env.three_thirteen_v0.env(num_players=4)
    env.reset(seed=9)
    raw = env.unwrapped
    seats = {name: rummy_env.agents.SeatInfo.of(raw, name) for name in raw.possible_agents}
    features = {name: features_class(seats[name]) for name in raw.possible_agents}
    penalties = ThreeThirteenPenalties(seats["player_0"])
    experts = {name: _forgetful(heuristic) for name in raw.possible_agents}
    for name, agent in experts.items():
        agent.start_game(seats[name], 0)
    rng = np.random.default_rng(1)
    counted = dict(draws=0, takes=0, discards=0, outs=0)
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        observation, mask = obs["observation"], obs["action_mask"]
        given = features[name](observation, mask)
        assert np.array_equal(given[:len(observation) + 54], penalties(observation, mask))
        extra = given[len(observation) + 54:]
        preference, margin, (beta, _, takes, _) = extra[:52], extra[52:104], extra[104:]
        choice = experts[name].act(rummy_env.agents.Decision(observation, mask, dict))
        assert 0 < beta <= 1
        if mask[0]:
            assert takes == (choice == 1) and not preference.any()
            counted["draws"] += 1
            counted["takes"] += choice == 1
        else:
            assert preference[(choice - 2) % 52] == 1 and margin[(choice - 2) % 52] == 0
            weighed = np.flatnonzero(preference)
            assert np.allclose(sorted(preference[weighed], reverse=True), [1 / (1 + r) for r in range(len(weighed))])
            assert all(mask[2 + f] for f in weighed) or choice >= 54
            counted["outs" if choice >= 54 else "discards"] += 1
        explore = rng.random() < 0.3
        legal = np.flatnonzero(mask)
        env.step(int(legal[rng.integers(len(legal))]) if explore else choice)
    assert counted["draws"] > 100 and counted["takes"] > 10 and counted["discards"] > 100 and counted["outs"] > 0


def test_rollout_workers_get_weights_by_value_not_as_shared_memory():
    """A tensor sent down a pipe goes as shared memory whose descriptor a helper thread of the
    trainer hands over; a worker stopped mid-handover made that thread print a traceback."""
    from multiprocessing.reduction import ForkingPickler

    from rummy_training.rollout import Batch
    from rummy_training.workers import ProcessWorkers

    class Pipe:
        def __init__(self) -> None:
            self.sent: list[object] = []

        def send(self, message: object) -> None:
            self.sent.append(message)

        def recv(self) -> Batch:
            return Batch(*(np.zeros(0) for _ in range(8)), env_steps=0)

    config = tiny(num_workers=2)
    workers = ProcessWorkers.__new__(ProcessWorkers)
    workers.config, workers.connections = config, [Pipe(), Pipe()]
    network = build_network(config, *env_sizes(config))
    workers.collect(network)
    workers.set_pool([network.weights()])
    assert b"rebuild_storage" in bytes(ForkingPickler.dumps(network.weights()))  # what a tensor would send
    for pipe in workers.connections:
        assert len(pipe.sent) == 2
        for message in pipe.sent:
            assert b"rebuild_storage" not in bytes(ForkingPickler.dumps(message))
