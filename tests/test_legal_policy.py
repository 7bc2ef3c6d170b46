"""The legal-action policy (``policy: legal``): the game-input description, the scoring
network's exact masking, collection on the batched core (per-seat credit, saving and
restoring), the config's checks, checkpoints and the trainer, in tiny budgets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import rummy_env
from rummy_env import vector
from rummy_env.actions import ActionKind
from rummy_env.evaluate import evaluate
from rummy_training import inputs as inputs_module
from rummy_training.checkpoint import PolicyAgent, build_network, env_sizes, load_checkpoint, network_of
from rummy_training.config import ConfigError, TrainConfig
from rummy_training.inputs import DROPPED_PARTS, GameInputs, game_inputs
from rummy_training.ppo import Trainer
from rummy_training.scoring import ScoringNet
from rummy_training.stopping import Stopped
from rummy_training.vector_rollout import LegalBatch, VectorCollector

from test_training import stop_before_saving_update

GAMES = tuple(rummy_env.GAMES)


def legal_config(**fields) -> TrainConfig:
    """A legal-policy config that trains a few seconds in this process."""
    base = dict(game="three_thirteen", num_players=2, policy="legal", total_steps=1024, steps_per_update=512,
                num_envs=4, num_workers=0, hidden_sizes=(32,), action_width=16, minibatch_size=128,
                update_epochs=2, eval_every=0, progress=False, self_play=0.6, past_play=0.2, random_play=0.2,
                greedy_play=0.0)
    base.update(fields)
    config = TrainConfig(**base)
    config.validate()
    return config


def env_inputs(game: str) -> GameInputs:
    return game_inputs(game, {"num_players": 4, "reward_mode": "relative"})


# ---------------------------------------------------------------- the game's inputs
@pytest.mark.parametrize("game", GAMES)
def test_the_inputs_keep_the_observation_but_its_slot_blocks_and_point_each_face_action_at_its_face(game: str):
    env = rummy_env.GAMES[game].raw_env(num_players=4)
    inputs = env_inputs(game)
    offsets = env.observer.offsets
    for name, part in offsets.items():
        kept = np.isin(np.arange(part.start, part.stop), inputs.columns)
        if name in DROPPED_PARTS:
            assert not kept.any(), name
        elif name == "discard_order":
            assert kept.sum() == inputs_module.DISCARD_ROWS * env.observer.num_faces
        else:
            assert kept.all(), name
    env.reset(seed=3)
    observation = env.observe(env.agent_selection)["observation"]
    state = observation[inputs.columns]
    hand = offsets["hand"]
    for action in range(env.layout.size):
        kind, args = env.layout.kinds[action], env.layout.args[action]
        if kind in inputs_module.FACE_ACTIONS:
            face = args if isinstance(args, int) else args[0]
            assert state[inputs.face_channels[action, 0]] == observation[hand.start + face]  # the first part: hand
        else:
            assert (inputs.face_channels[action] == -1).all()
    assert (inputs.tokens[:, 0] == 1 + np.asarray(env.layout.kinds)).all()  # every action names its kind first
    assert len({tuple(row) for row in inputs.tokens}) > 0.9 * env.layout.size  # tokens tell actions apart
    again = GameInputs.from_dict(inputs.to_dict())
    assert all(np.array_equal(getattr(again, name), getattr(inputs, name))
               for name in ("columns", "tokens", "face_channels"))
    assert env_inputs(game) is inputs  # built once per process


def test_hand_penalties_are_the_dense_features_exact_penalties_batched_in_the_core():
    """At each discard decision, what discarding each held face saves and the hand's least
    penalty, and at each draw what taking the top discard saves, equal
    ``three_thirteen_penalties`` (the Python solver wrapper, a decision at a time); at a draw
    the per-face block is empty. A discard is scored with its own saving."""
    from rummy_env.agents import SeatInfo
    from rummy_training.features import ThreeThirteenPenalties

    inputs = game_inputs("three_thirteen", {"num_players": 4, "reward_mode": "relative"}, "hand_and_draw_penalties")
    short = game_inputs("three_thirteen", {"num_players": 4, "reward_mode": "relative"}, "hand_penalties")
    env = rummy_env.GAMES["three_thirteen"].raw_env(num_players=4)
    dense = ThreeThirteenPenalties(SeatInfo.of(env, env.possible_agents[0]))
    tables = vector.make("three_thirteen", 32, seed=4)
    rng = np.random.default_rng(1)
    faces, discards, draws = inputs.num_faces, 0, 0
    for _ in range(120):
        observation = tables.observe()
        ours = inputs.states(observation.obs)[:, len(inputs.columns):]
        np.testing.assert_array_equal(short.states(observation.obs)[:, len(short.columns):], ours[:, :faces + 1])
        for row, (obs, mask) in enumerate(zip(observation.obs, observation.mask)):
            reference = dense.compute(obs, mask)
            assert ours[row, faces] == pytest.approx(reference[faces])
            assert ours[row, faces + 1] == pytest.approx(reference[faces + 1])
            draws += bool(reference[faces + 1])
            if mask[2:].any():  # a discard (or going out) decision
                np.testing.assert_allclose(ours[row, :faces], reference[:faces], atol=1e-6)
                discards += 1
            else:
                assert not ours[row, :faces].any()
        tables.step(tables.random_legal(rng))
    assert discards > 1000 and draws > 200
    state = inputs.states(observation.obs[:1])[0]
    for action in np.flatnonzero(observation.mask[0][2:]) + 2:
        assert state[inputs.face_channels[action, -1]] == ours[0, (action - 2) % faces]


# ---------------------------------------------------------------- the scoring network
@pytest.mark.parametrize("game", GAMES)
def test_the_scoring_policy_puts_all_probability_on_legal_actions_whatever_the_padding(game: str):
    torch.manual_seed(0)
    inputs = env_inputs(game)
    net = ScoringNet(inputs, (32,), 16)
    tables = vector.make(game, 16, seed=2)
    rng = np.random.default_rng(0)
    for _ in range(30):
        tables.step(tables.random_legal(rng))
    observation = tables.observe()
    legal, counts = tables.legal_lists()
    states = torch.from_numpy(net.select(observation.obs))
    distribution, values = net(states, torch.from_numpy(legal))
    probs = distribution.probs
    assert torch.allclose(probs.sum(1), torch.ones(16)) and values.shape == (16,)
    assert (probs[torch.from_numpy(legal < 0)] == 0).all()
    positions = distribution.sample(torch.Generator().manual_seed(1))
    assert (positions < torch.from_numpy(counts)).all()
    wider = np.pad(legal, ((0, 0), (0, 7)), constant_values=-1)  # more padding: the same policy
    assert torch.allclose(net.distribution(states, torch.from_numpy(wider)).probs[:, :legal.shape[1]], probs)
    alone = net.distribution(states[:1], torch.from_numpy(legal[:1, :counts[0]])).probs  # other rows: no effect
    assert torch.allclose(alone, probs[:1, :counts[0]], atol=1e-6)
    net.freeze_actions(True)  # the table kept for collection scores as the one summed afresh
    assert torch.allclose(net.distribution(states, torch.from_numpy(legal)).probs, probs)
    for row in range(16):
        assert observation.mask[row, net.most_probable(observation.obs[row], observation.mask[row])]


# ---------------------------------------------------------------- collection
@pytest.mark.parametrize("algorithm,lam", [("ppo", 1.0), ("dmc", 0.5)])
def test_each_seat_is_credited_the_round_rewards_of_its_own_game(algorithm: str, lam: float):
    """Every seat the current policy, gamma = lambda = 1, one table: the return of a seat's
    first decision in a finished game is its relative result, (table mean - own score) / 100.
    Deep Monte-Carlo learns from returns whatever ``gae_lambda`` says."""
    config = legal_config(num_envs=1, self_play=1.0, past_play=0.0, random_play=0.0, gamma=1.0, gae_lambda=lam,
                          rules={"max_turns_per_round": 6}, algorithm=algorithm)
    collector = VectorCollector(config, 0, 1, build_network(config, *env_sizes(config)))
    finals: list[np.ndarray] = []
    record = collector._record
    collector._record = lambda table: (finals.append(collector.tables.final_scores[table].copy()), record(table))
    opener = int(collector.tables.observe().seat[0])
    batch = collector.collect(4000)
    assert finals, "the game did not end within the collection"
    scores = finals[0]
    returns = batch.advantages + batch.values
    # two players, each turn a draw then a discard: rows 0 and 2 open the two seats' games
    assert np.isclose(returns[0], (scores.mean() - scores[opener]) / 100, atol=1e-5)
    assert np.isclose(returns[2], (scores.mean() - scores[1 - opener]) / 100, atol=1e-5)
    assert (batch.actions < (batch.legal >= 0).sum(1)).all()  # every action a legal position


def _assert_states_fit_their_legal_lists(batch: LegalBatch, inputs: GameInputs) -> None:
    """Each decision's state holds every card its legal discards name (a state stored with
    the wrong decision, or lost, would not)."""
    discards = inputs.tokens[:, 0] == 1 + int(ActionKind.DISCARD)
    checked = 0
    for state, legal in zip(batch.states, batch.legal):
        for action in legal[legal >= 0]:
            if discards[action]:
                assert state[inputs.face_channels[action, 0]] >= 1  # the hand's count of the card
                checked += 1
    assert checked


def test_a_restored_collector_plays_on_exactly_as_the_one_it_was_saved_from():
    config = legal_config(num_envs=3, rules={"max_turns_per_round": 8})
    network = build_network(config, *env_sizes(config))
    snapshot = build_network(config, *env_sizes(config))
    pool = [snapshot.weights()]
    original = VectorCollector(config, 1, 3, network)
    original.set_pool(pool)
    original.collect(300)
    saved = original.state()
    copy = VectorCollector(config, 1, 3, network)
    copy.set_pool(pool)
    copy.restore(saved)
    for _ in range(2):
        a, b = original.collect(500), copy.collect(500)
        _assert_states_fit_their_legal_lists(a, original.inputs)
        for name in ("states", "legal", "actions", "log_probs", "values", "advantages"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
        assert a.games == b.games
    assert a.games, "no game ended: the test would not see the finished games' records"


def test_batches_of_two_workers_join_with_the_longest_legal_lists():
    config = legal_config(num_envs=2)
    network = build_network(config, *env_sizes(config))
    parts = [VectorCollector(config, stream, 1, network).collect(200) for stream in (0, 1)]
    joined = LegalBatch.concatenate(parts)
    assert len(joined.actions) == sum(len(p.actions) for p in parts)
    assert joined.legal.shape[1] == max(p.legal.shape[1] for p in parts)
    assert joined.env_steps == 400 and set(joined.timings) == {"core", "features", "forward", "bookkeeping"}


# ---------------------------------------------------------------- Deep Monte-Carlo
def test_deep_monte_carlo_plays_its_best_scored_action_but_for_epsilon_of_the_time():
    config = legal_config(num_envs=64, algorithm="dmc", epsilon=0.0, self_play=1.0, past_play=0.0, random_play=0.0)
    network = build_network(config, *env_sizes(config))
    collector = VectorCollector(config, 0, 64, network)
    observation = collector.tables.observe()
    legal, counts = collector.tables.legal_lists()
    states = network.select(observation.obs)
    best = network.distribution(torch.from_numpy(states), torch.from_numpy(legal)).logits.argmax(1).numpy()
    greedy, _, values = collector._sample(network, states, legal, True)
    assert np.array_equal(greedy, best)
    q = network.distribution(torch.from_numpy(states), torch.from_numpy(legal)).logits.detach().numpy()
    assert np.allclose(values, q[np.arange(64), best])  # the Q of the action taken
    collector.config = legal_config(algorithm="dmc", epsilon=1.0)
    picks = np.stack([collector._sample(network, states, legal, False)[0] for _ in range(20)])
    assert (picks < counts).all() and (picks != best).any(axis=0).sum() > 32  # uniform: mostly not the best


def test_deep_monte_carlo_fits_the_scores_of_the_actions_taken_to_their_returns():
    from rummy_training.dmc import dmc_update

    torch.manual_seed(0)
    config = legal_config(num_envs=8, algorithm="dmc", epsilon=0.1, update_epochs=4, minibatch_size=64)
    network = build_network(config, *env_sizes(config))
    batch = VectorCollector(config, 0, 8, network).collect(800)
    optimizer = torch.optim.Adam(network.parameters(), lr=1e-3)
    first = dmc_update(network, optimizer, batch, config, torch.Generator().manual_seed(0))["value_loss"]
    for _ in range(5):
        last = dmc_update(network, optimizer, batch, config, torch.Generator().manual_seed(0))["value_loss"]
    assert last < 0.5 * first


# ---------------------------------------------------------------- config and checkpoints
@pytest.mark.parametrize("fields,named", [
    (dict(features="three_thirteen_penalties"), "must be one of none, hand_penalties"),
    (dict(game="contract_rummy", num_players=4, features="hand_penalties"), "games without contracts"),
    (dict(greedy_play=0.2), "greedy_play"),
    (dict(face_head=True), "face_head"),
    (dict(imitation_agent="expert"), "imitation_agent"),
    (dict(policy="sparse"), "policy must be one of dense, legal"),
    (dict(device="tpu"), "device must be one of auto, cpu, cuda"),
    (dict(algorithm="dqn"), "algorithm must be one of ppo, dmc"),
    (dict(algorithm="dmc", policy="dense", random_play=0.0), "needs policy 'legal'"),
    (dict(algorithm="dmc", epsilon=1.5), "epsilon must lie in"),
])
def test_a_legal_policy_config_names_what_it_cannot_train(fields: dict, named: str):
    with pytest.raises(ConfigError, match=named):
        legal_config(**fields)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_asking_for_cuda_without_one_is_a_config_error():
    with pytest.raises(ConfigError, match="no CUDA device"):
        legal_config(device="cuda")
    assert legal_config(device="auto").torch_device() == "cpu"


def test_a_legal_policy_checkpoint_plays_through_the_harness_without_building_an_env(tmp_path: Path):
    run = Trainer(legal_config(run_dir=str(tmp_path), run_name="legal", features="hand_penalties")).train()
    data = load_checkpoint(run / "last.pt")
    assert GameInputs.from_dict(data["inputs"]).input_size == data["weights"]["trunk.0.weight"].shape[1]
    inputs_module._cached.cache_clear()
    network_of(data)
    assert inputs_module._cached.cache_info().misses == 0  # the network came from the checkpoint alone
    report = evaluate("three_thirteen", [str(run / "last.pt"), "random"], games=2, seed=1,
                      env_kwargs={"num_players": 2, "max_turns_per_round": 6})
    assert len(report.records) == 2
    agent = PolicyAgent(run / "last.pt")
    assert isinstance(agent.network, ScoringNet)


@pytest.mark.parametrize("algorithm", ["ppo", "dmc"])
def test_a_stopped_and_resumed_legal_run_equals_one_that_never_stopped(tmp_path: Path, monkeypatch, algorithm: str):
    fields = dict(run_dir=str(tmp_path), total_steps=2048, snapshot_every=1, seed=4, rules={"max_turns_per_round": 8},
                  algorithm=algorithm)
    whole = Trainer(legal_config(run_name="whole", **fields)).train()
    stop_before_saving_update(monkeypatch, 3)
    with pytest.raises(Stopped):
        Trainer(legal_config(run_name="stopped", **fields)).train()
    monkeypatch.undo()
    Trainer(legal_config(run_name="stopped", **{**fields, "resume": str(tmp_path / "stopped" / "last.pt")})).train()
    a, b = load_checkpoint(whole / "last.pt"), load_checkpoint(tmp_path / "stopped" / "last.pt")
    for name in ("weights", "optimizer", "pool"):
        torch.testing.assert_close(a[name], b[name], rtol=0, atol=0, msg=name)
    assert a["counters"]["env_steps"] == b["counters"]["env_steps"] == 2048


CONFIGS = Path(__file__).resolve().parent.parent / "configs"


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("scratch/*.yaml")) + sorted(CONFIGS.glob("dmc/*.yaml")),
                         ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_the_from_scratch_configs_train_the_legal_policy_from_the_observation_alone(path: Path):
    from rummy_training.config import load_config

    config = load_config(path)
    assert path.stem == config.game and config.policy == "legal"
    assert config.algorithm == ("dmc" if path.parent.name == "dmc" else "ppo")
    assert config.features in ("none", "hand_penalties", "hand_and_draw_penalties")  # from its own view
    assert config.imitation_agent is None and config.init_checkpoint is None
