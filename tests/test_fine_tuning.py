"""The trainer's means of improving on a starting policy: starting from a checkpoint, a
value warm-up, a KL penalty towards the starting policy, and an entropy schedule (tiny
in-process runs)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import torch

from rummy_training.checkpoint import CheckpointError, load_checkpoint
from rummy_training.config import ConfigError, load_config
from rummy_training.model import MaskedCategorical
from rummy_training.ppo import Trainer
from test_training import tiny


@pytest.fixture(scope="module")
def start(tmp_path_factory) -> Path:
    """A trained policy to start from: a one-update run's last.pt."""
    run = Trainer(tiny(run_dir=str(tmp_path_factory.mktemp("start")), run_name="s", total_steps=512)).train()
    return run / "last.pt"


def rows(run: Path) -> list[dict[str, str]]:
    with open(run / "metrics.csv") as f:
        return list(csv.DictReader(f))


def test_the_masked_kl_is_over_legal_actions_only():
    mask = torch.tensor([[True, True, False, True]])
    p = MaskedCategorical(torch.tensor([[0.0, 1.0, 50.0, -1.0]]), mask)
    q = MaskedCategorical(torch.tensor([[1.0, 0.0, -50.0, 0.5]]), mask)
    legal = mask[0]
    expected = (p.probs[0][legal] * (p.log_probs[0][legal] - q.log_probs[0][legal])).sum()
    torch.testing.assert_close(p.kl(q)[0], expected)
    assert p.kl(p)[0].item() == pytest.approx(0.0, abs=1e-7)
    assert p.kl(q)[0].item() > 0.05


def test_a_run_starts_from_the_weights_of_its_init_checkpoint(start: Path, tmp_path: Path):
    trainer = Trainer(tiny(run_dir=str(tmp_path), init_checkpoint=str(start)))
    weights = load_checkpoint(start)["weights"]
    for name, value in trainer.network.state_dict().items():
        assert torch.equal(value, weights[name]), name
    assert trainer.counters["init"]["path"] == str(start)


@pytest.mark.parametrize("change, words", [
    (dict(hidden_sizes=(16,)), "hidden_sizes"),
    (dict(features="three_thirteen_penalties"), "features"),
])
def test_an_init_checkpoint_of_another_network_is_refused_with_the_field_named(start, tmp_path, change, words):
    with pytest.raises(CheckpointError, match=f"trained with {words}"):
        Trainer(tiny(run_dir=str(tmp_path), init_checkpoint=str(start), **change))


@pytest.mark.parametrize("fields, words", [
    (dict(kl_coef=0.1), "kl_coef needs a policy"),
    (dict(kl_coef=-1.0, imitation_agent="greedy"), "kl_coef must be at least 0"),
    (dict(ent_coef_final=-0.1), "ent_coef_final must be at least 0"),
    (dict(value_warmup_updates=-1), "value_warmup_updates must be at least 0"),
    (dict(init_checkpoint="x.pt", imitation_agent="expert"), "give one"),
    (dict(start_temperature=2.0), "start_temperature needs a policy"),
    (dict(start_temperature=0.0, imitation_agent="greedy"), "start_temperature must be above 0"),
])
def test_bad_fine_tuning_settings_are_refused(fields, words):
    with pytest.raises(ConfigError, match=words):
        tiny(**fields)


def test_a_start_temperature_flattens_the_policy_and_keeps_its_choices(start: Path, tmp_path: Path):
    trainer = Trainer(tiny(run_dir=str(tmp_path), init_checkpoint=str(start), start_temperature=4.0))
    weights = load_checkpoint(start)["weights"]
    for name, value in trainer.network.state_dict().items():
        expected = weights[name] / 4.0 if name.startswith("policy.") else weights[name]
        torch.testing.assert_close(value, expected, rtol=0, atol=0, msg=name)
        torch.testing.assert_close(trainer.reference.state_dict()[name], value, rtol=0, atol=0, msg=name)
    original = Trainer(tiny(run_dir=str(tmp_path), init_checkpoint=str(start))).network
    observations = torch.randn(64, trainer.sizes[0], generator=torch.Generator().manual_seed(3)) * 3
    masks = torch.rand(64, trainer.sizes[1], generator=torch.Generator().manual_seed(4)) < 0.3
    masks[:, 0] = True
    with torch.no_grad():
        soft, _ = trainer.network(observations, masks)
        sharp, _ = original(observations, masks)
    assert torch.equal(soft.mode(), sharp.mode())
    assert (soft.entropy() >= sharp.entropy() - 1e-6).all() and soft.entropy().mean() > sharp.entropy().mean()


def test_a_start_temperature_after_a_warm_start_keeps_warm_start_pt_as_imitated(tmp_path: Path):
    run = Trainer(tiny(run_dir=str(tmp_path), imitation_agent="greedy", imitation_decisions=300,
                       imitation_epochs=1, start_temperature=2.0, total_steps=512)).train()
    imitated = load_checkpoint(run / "warm_start.pt")["weights"]
    reference = torch.load(run / "last.pt", map_location="cpu", weights_only=True)["reference"]
    for name, value in reference.items():
        expected = imitated[name] / 2.0 if name.startswith("policy.") else imitated[name]
        torch.testing.assert_close(value, expected, rtol=0, atol=0, msg=name)


def test_value_warmup_updates_train_the_value_head_alone(start: Path, tmp_path: Path):
    run = Trainer(tiny(run_dir=str(tmp_path), init_checkpoint=str(start), value_warmup_updates=2,
                       learning_rate=1e-2)).train()
    before, after = load_checkpoint(start)["weights"], load_checkpoint(run / "last.pt")["weights"]
    for name in before:
        if name.startswith("value."):
            assert not torch.equal(before[name], after[name]), name
        else:
            assert torch.equal(before[name], after[name]), name
    assert [r["ent_coef"] for r in rows(run)] == ["0.0", "0.0"]


@pytest.mark.slow
def test_the_kl_penalty_keeps_the_policy_near_the_one_it_started_from(start: Path, tmp_path: Path):
    def moved(kl_coef: float) -> float:
        run = Trainer(tiny(run_dir=str(tmp_path), run_name=f"kl{kl_coef}", init_checkpoint=str(start),
                           learning_rate=3e-3, anneal_lr=False, update_epochs=4, kl_coef=kl_coef,
                           total_steps=2048)).train()
        return float(rows(run)[-1]["kl_reference"])

    free, held = moved(0.0), moved(30.0)
    assert free > 0.0
    assert held < free / 3


def test_the_entropy_weight_follows_its_linear_schedule(tmp_path: Path):
    run = Trainer(tiny(run_dir=str(tmp_path), ent_coef=0.04, ent_coef_final=0.0, total_steps=2048)).train()
    assert [float(r["ent_coef"]) for r in rows(run)] == pytest.approx([0.04, 0.03, 0.02, 0.01])


@pytest.mark.slow
def test_a_fine_tuning_run_resumes_with_its_reference(start: Path, tmp_path: Path):
    fields = dict(run_dir=str(tmp_path), init_checkpoint=str(start), kl_coef=1.0, learning_rate=1e-3,
                  anneal_lr=False, value_warmup_updates=1)
    whole = Trainer(tiny(run_name="whole", total_steps=1536, **fields)).train()
    half = Trainer(tiny(run_name="half", total_steps=1024, **fields)).train()
    Trainer(tiny(run_name="half", total_steps=1536, resume=str(half / "last.pt"), **fields)).train()
    x, y = load_checkpoint(whole / "last.pt"), load_checkpoint(half / "last.pt")
    torch.testing.assert_close(x["reference"], load_checkpoint(start)["weights"], rtol=0, atol=0)
    torch.testing.assert_close(x["reference"], y["reference"], rtol=0, atol=0)
    torch.testing.assert_close(x["weights"], y["weights"], rtol=0, atol=0)
    assert [r["kl_reference"] for r in rows(whole)] == [r["kl_reference"] for r in rows(half)]


def test_keep_every_keeps_the_weights_named_by_their_env_steps(tmp_path: Path):
    run = Trainer(tiny(run_dir=str(tmp_path), keep_every=2, total_steps=2048)).train()
    kept = sorted(p.name for p in (run / "kept").iterdir())
    assert kept == ["000000001024.pt", "000000002048.pt"]
    data = load_checkpoint(run / "kept" / kept[0])
    assert data["counters"]["env_steps"] == 1024 and data["counters"]["updates"] == 2


TRIALS = sorted((Path(__file__).resolve().parent.parent / "configs" / "trials").glob("*.yaml"))


@pytest.mark.parametrize("path", TRIALS, ids=lambda p: p.stem)
def test_each_trial_config_loads_and_names_its_own_run(path: Path):
    config = load_config(path)
    game, trial = path.stem.split("_")[:2]  # tt_t4_kl: tt, t4
    assert config.run_name == f"{game}-{trial}"
    assert path.read_text().startswith(f"# Trial {trial.upper()} ")
