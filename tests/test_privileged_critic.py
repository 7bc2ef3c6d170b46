"""The privileged critic (training/model.py, ``privileged_critic``): in training the value
also reads the other seats' hands and the stock; the policy never does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import rummy_env
from rummy_training.checkpoint import PolicyAgent, build_network, env_sizes, load_checkpoint
from rummy_training.config import ConfigError
from rummy_training.model import PolicyNet
from rummy_training.ppo import Trainer
from rummy_training.rollout import Collector, privileged_inputs, privileged_size
from test_fine_tuning import rows
from test_training import tiny

GAMES = tuple(rummy_env.GAMES)


@pytest.mark.parametrize("game", GAMES)
def test_the_privileged_inputs_are_the_other_hands_left_first_then_the_stock(game):
    env = tiny(game=game, num_players=3).make_env()
    env.reset(seed=5)
    state, faces = env.game_state, env.observer.num_faces
    assert privileged_size(env) == 3 * faces
    for seat in range(3):
        inputs = privileged_inputs(env, seat)
        assert inputs.shape == (privileged_size(env),) and inputs.dtype == np.float32
        for k, other in enumerate(((seat + 1) % 3, (seat + 2) % 3)):
            assert inputs[k * faces:(k + 1) * faces].tolist() == list(state.hands[other])
        assert inputs[2 * faces:].tolist() == np.bincount(state.stock, minlength=faces).tolist()
        # every card dealt and not turned up lies in a hand or the stock
        own = np.frombuffer(bytes(state.hands[seat]), np.uint8)
        assert inputs.sum() + own.sum() + len(state.discard) == len(env.rules.deck.cards())


@pytest.mark.parametrize("game", GAMES)
def test_the_stock_order_rows_are_the_cards_drawn_next_in_draw_order(game):
    """With ``privileged_stock_order`` the critic's last rows name the next cards out of the
    stock: the k cards that leave it reach the hands (a draw, or a buy's penalty card), and the
    rows after them move up."""
    env = tiny(game=game, num_players=3).make_env()
    env.reset(seed=3)
    faces, order = env.observer.num_faces, 4
    assert privileged_size(env, order) == (3 + order) * faces
    draw_stock = env.layout.parse("draw stock")

    def all_hands() -> np.ndarray:
        return np.frombuffer(b"".join(env.game_state.hands), np.uint8).reshape(3, faces).astype(int).sum(axis=0)

    taken = 0
    while taken < 8:
        seat = env.game_state.current
        before = privileged_inputs(env, seat, order)
        upcoming = before[3 * faces:].reshape(order, faces).astype(int)
        assert np.array_equal(before[:3 * faces], privileged_inputs(env, seat))
        assert upcoming.sum(axis=1).tolist() == [1] * order
        mask = env.observe(env.agent_selection)["action_mask"]
        stock, hands = len(env.game_state.stock), all_hands()
        env.step(draw_stock if mask[draw_stock] else int(np.flatnonzero(mask)[0]))
        k = stock - len(env.game_state.stock)
        if k:
            assert 0 < k < order
            assert (all_hands() - hands - upcoming[:k].sum(axis=0) >= 0).all()  # those k faces reached hands
            after = privileged_inputs(env, env.game_state.current, order)[3 * faces:].reshape(order, faces)
            assert np.array_equal(after[:order - k], upcoming[k:])
            taken += k
    snapshot = env.get_state()
    snapshot.state.stock = snapshot.state.stock[-2:]  # past the stock's end: rows of zeros
    env.set_state(snapshot)
    short = privileged_inputs(env, 0, order)[3 * faces:].reshape(order, faces)
    assert short.sum(axis=1).tolist() == [1, 1, 0, 0]


def test_the_policy_ignores_the_privileged_inputs_and_the_critic_reads_them():
    torch.manual_seed(0)
    net = PolicyNet(12, 5, (16,), privileged_size=6)
    observation, mask = torch.randn(4, 12), torch.ones(4, 5, dtype=torch.bool)
    a, b = torch.randn(4, 6), torch.randn(4, 6)
    (pa, va), (pb, vb) = net(observation, mask, privileged=a), net(observation, mask, privileged=b)
    torch.testing.assert_close(pa.logits, pb.logits, rtol=0, atol=0)
    torch.testing.assert_close(pa.logits, net.distribution(observation, mask).logits, rtol=0, atol=0)
    assert not torch.allclose(va, vb)
    for privileged in (None, torch.randn(4, 5)):
        with pytest.raises(ValueError, match="privileged inputs of size 6"):
            net(observation, mask, privileged=privileged)
    with pytest.raises(ValueError, match="without a privileged critic"):
        PolicyNet(12, 5, (16,))(observation, mask, privileged=a)


def test_each_trained_decision_keeps_the_privileged_inputs_of_its_own_moment():
    config = tiny(num_players=3, privileged_critic=True)
    env = config.make_env()
    network = build_network(config, *env_sizes(config))
    batch = Collector(config, 0, 3, network).collect(300)
    assert len(batch.privileged) == len(batch.observations) > 50
    faces = env.observer.num_faces
    for observation, privileged in zip(batch.observations, batch.privileged):
        view = env.observer.decode(observation[:env.observer.size])
        others = privileged[:2 * faces].reshape(2, faces).sum(axis=1)
        assert others.tolist() == view.hand_sizes[1:]
        assert privileged[2 * faces:].sum() == view.stock_size


@pytest.mark.slow
def test_a_privileged_run_starts_from_a_checkpoint_without_one_and_plays_the_same(tmp_path: Path):
    start = Trainer(tiny(run_dir=str(tmp_path), run_name="s", total_steps=512)).train() / "last.pt"
    run = Trainer(tiny(run_dir=str(tmp_path), run_name="p", init_checkpoint=str(start), privileged_critic=True,
                       value_warmup_updates=2, learning_rate=1e-2)).train()
    before, after = load_checkpoint(start)["weights"], load_checkpoint(run / "last.pt")["weights"]
    assert not any(name.startswith("value.") for name in after)
    for name in before:
        if not name.startswith("value."):
            assert torch.equal(before[name], after[name]), name  # the warm-up trains the critic alone
    assert any(name.startswith("critic.") for name in after)
    assert all(float(r["explained_variance"]) == float(r["explained_variance"]) for r in rows(run))
    agent = PolicyAgent(run / "last.pt")  # plays without the privileged inputs
    assert agent.network.critic is not None
    back = Trainer(tiny(run_dir=str(tmp_path), run_name="b", init_checkpoint=str(run / "last.pt")))
    assert not any(name.startswith("critic.") for name in back.network.state_dict())


def test_a_privileged_run_trains_its_critic_and_its_policy(tmp_path: Path):
    run = Trainer(tiny(run_dir=str(tmp_path), privileged_critic=True, learning_rate=1e-2)).train()
    first = Trainer(tiny(run_dir=str(tmp_path), run_name="untrained", privileged_critic=True)).network.state_dict()
    trained = load_checkpoint(run / "last.pt")["weights"]
    for name in ("trunk.0.weight", "policy.weight", "critic.0.weight", "critic.2.weight"):
        assert not torch.equal(first[name], trained[name]), name


@pytest.mark.parametrize("changes", [{"privileged_stock_order": 4}, {"privileged_stock_order": -1, "privileged_critic": True}])
def test_a_stock_order_needs_the_privileged_critic_and_cannot_be_negative(changes):
    with pytest.raises(ConfigError, match="privileged_stock_order must be 0, or positive with privileged_critic"):
        tiny(**changes)


def test_a_privileged_critic_cannot_start_from_an_imitation():
    with pytest.raises(ConfigError, match="privileged_critic cannot start from imitation_agent"):
        tiny(privileged_critic=True, imitation_agent="greedy")
