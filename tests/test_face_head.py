"""The face head (training/model.py): each action about a face reads the inputs about that
face, with weights shared by every face; it starts at zero and can be added to a trained
network."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import rummy_env
from rummy_training.checkpoint import CheckpointError, build_network, env_sizes, load_checkpoint, network_of
from rummy_training.features import FACE_ACTIONS, FEATURES
from rummy_training.ppo import Trainer
from test_training import tiny

GAMES = tuple(rummy_env.GAMES)
FEATURE_SETS = [(game, name) for game in GAMES for name, cls in FEATURES.items()
                if cls.unfit_for(rummy_env.GAMES[game].rules()) is None]


def decisions(env, count: int, seed: int):
    """``count`` decisions of a game played at random: (observation, mask)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    seen = []
    while len(seen) < count:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.reset(seed=int(rng.integers(1 << 30)))
            continue
        obs = env.observe(agent)
        seen.append((obs["observation"], obs["action_mask"].astype(bool)))
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


@pytest.mark.parametrize("game, features", FEATURE_SETS)
def test_each_face_action_reads_the_hand_count_and_the_features_of_its_own_face(game, features):
    config = tiny(game=game, num_players=4 if game != "three_thirteen" else 2, features=features, face_head=True)
    env = config.make_env()
    head = build_network(config, *env_sizes(config)).face_head
    layout = env.layout
    kinds = [layout.kinds[a] for a in head.actions.tolist()]
    assert set(kinds) == {k for k in layout.kinds if k in FACE_ACTIONS}
    assert len(kinds) == sum(k in FACE_ACTIONS for k in layout.kinds)
    blocks = FEATURES[features].face_blocks(env.rules)
    for row, action in enumerate(head.actions.tolist()):
        arg = layout.args[action]
        face = arg if isinstance(arg, int) else arg[0]
        index = head.index[row].tolist()
        assert index[0] == env.observer.offsets["hand"].start + face
        feature_index = index[len(index) - len(blocks):]
        assert feature_index == [env.observer.size + at + face for at in blocks]
        assert FACE_ACTIONS[int(head.kinds[row])] == layout.kinds[action]


def test_the_hand_channel_scores_each_discard_by_the_count_of_its_face():
    """Weights that read the hand channel alone make each discard's logit its face's count:
    the head's output lands on the action of the face it read."""
    config = tiny(face_head=True)
    env = config.make_env()
    network = build_network(config, *env_sizes(config))
    with torch.no_grad():
        network.policy.weight.zero_()
        network.policy.bias.zero_()
        network.face_head.weights.bias.zero_()
        network.face_head.weights.bias[0] = 1.0  # kind 0 (discard), channel 0 (the hand)
    discard = env.layout.blocks["discard"]
    for observation, mask in decisions(env, 30, seed=5):
        logits = network(torch.from_numpy(observation).unsqueeze(0), torch.from_numpy(mask).unsqueeze(0))[0].logits
        hand = env.observer.decode(observation).counts("hand")
        raw = torch.where(torch.from_numpy(mask), logits[0], torch.zeros(()))  # masked: the large negative
        for face in range(env.observer.num_faces):
            action = discard.start + face
            if mask[action]:
                assert raw[action].item() == pytest.approx(hand[face])
        assert all(raw[a].item() == 0 for a in np.flatnonzero(mask) if not discard.start <= a < discard.stop)


def test_the_head_starts_at_zero_so_a_network_without_it_starts_the_same_policy(tmp_path: Path):
    start = Trainer(tiny(run_dir=str(tmp_path / "a"), run_name="s", total_steps=512)).train() / "last.pt"
    plain = network_of(load_checkpoint(start))
    trainer = Trainer(tiny(run_dir=str(tmp_path / "b"), init_checkpoint=str(start), face_head=True))
    env = trainer.config.make_env()
    for observation, mask in decisions(env, 20, seed=9):
        o, m = torch.from_numpy(observation).unsqueeze(0), torch.from_numpy(mask).unsqueeze(0)
        torch.testing.assert_close(trainer.network(o, m)[0].log_probs, plain(o, m)[0].log_probs)
    # the other way round (a face head the network has no place for) is refused
    with_head = Trainer(tiny(run_dir=str(tmp_path / "c"), run_name="h", total_steps=512, face_head=True)).train()
    with pytest.raises(CheckpointError, match="face head"):
        Trainer(tiny(run_dir=str(tmp_path / "d"), init_checkpoint=str(with_head / "last.pt")))


def test_a_face_head_run_trains_the_head_and_its_checkpoint_plays_the_same_network(tmp_path: Path):
    run = Trainer(tiny(run_dir=str(tmp_path), run_name="f", face_head=True)).train()
    data = load_checkpoint(run / "last.pt")
    assert data["config"]["face_head"] is True
    assert data["weights"]["face_head.weights.weight"].abs().sum() > 0  # PPO moved it off zero
    network = network_of(data)
    assert torch.equal(network.face_head.weights.weight, data["weights"]["face_head.weights.weight"])


def test_soften_divides_the_face_head_too():
    config = tiny(face_head=True)
    network = build_network(config, *env_sizes(config))
    with torch.no_grad():
        network.face_head.weights.weight.normal_()
        network.face_head.weights.bias.normal_()
    env = config.make_env()
    discard = env.layout.blocks["discard"]
    observation, mask = next((o, m) for o, m in decisions(env, 10, seed=2) if m[discard.start:discard.stop].any())
    o, m = torch.from_numpy(observation).unsqueeze(0), torch.from_numpy(mask).unsqueeze(0)
    before = network(o, m)[0].logits
    network.soften(4.0)
    after = network(o, m)[0].logits
    legal = m[0]
    torch.testing.assert_close(after[0][legal], before[0][legal] / 4)
