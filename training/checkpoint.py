"""Checkpoints, and the agent that plays one.

A checkpoint is a ``torch.save`` dict of plain data and tensors (loaded with
``weights_only=True``): the network weights, the full training config, the game and its
rules config, the observation and action sizes, the package version, and training
counters; a run's ``last.pt`` also holds what resuming needs to go on exactly as if the run
had not stopped: the optimiser state, the snapshot pool, the evaluation history, the
trainer's random generator and each rollout worker's pickled state (``Collector.state``: its
random streams and games in progress; unpickled only when resuming one's own run).

A checkpoint path is an agent spec (``rummy-eval --agents checkpoints/three_thirteen.pt greedy
...``): ``PolicyAgent`` picks the most probable legal action.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

import rummy_env
from rummy_env.agents import Agent, Decision, SeatInfo

from .config import TrainConfig, config_from_dict
from .features import FEATURES, face_inputs
from .inputs import GameInputs, game_inputs
from .model import PolicyNet
from .rollout import privileged_size
from .scoring import ScoringNet

Network = PolicyNet | ScoringNet

FORMAT = "rummy_env-ppo-1"


class CheckpointError(ValueError):
    """A checkpoint that cannot be read, or does not fit the game it is asked to play."""


def env_sizes(config: TrainConfig) -> tuple[int, int]:
    """The observation and action sizes of the config's game and rules."""
    inputs = game_inputs(config.game, config.env_kwargs())
    return inputs.observation_size, inputs.action_size


def build_network(config: TrainConfig, observation_size: int, action_size: int,
                  inputs: GameInputs | None = None) -> Network:
    """The config's network for an env of these sizes (its input: the observation, then the
    config's features); a ``ScoringNet`` with policy 'legal', over ``inputs`` (default: the
    config's game's, ``inputs.game_inputs``)."""
    if config.policy == "legal":
        return ScoringNet(inputs or game_inputs(config.game, config.env_kwargs(), config.features),
                          config.hidden_sizes, config.action_width)
    env = config.make_env()
    features = FEATURES[config.features]
    faces = face_inputs(env, features) if config.face_head else None
    return PolicyNet(observation_size + features.size_for(env.rules), action_size, config.hidden_sizes, faces,
                     privileged_size(env, config.privileged_stock_order) if config.privileged_critic else 0)


def save_checkpoint(path: str | Path, network: Network, config: TrainConfig, counters: dict[str, Any],
                    extra: dict[str, Any] | None = None) -> None:
    """Writes a checkpoint (via a temporary file, so a crash never leaves half of one); a
    ``ScoringNet``'s holds its game's ``GameInputs`` too."""
    observation_size, action_size = env_sizes(config)
    if isinstance(network, ScoringNet):
        extra = {"inputs": network.inputs.to_dict(), **(extra or {})}
    data = {
        "format": FORMAT,
        "package_version": rummy_env.__version__,
        "game": config.game,
        "rules_config": config.env_kwargs(),
        "observation_size": observation_size,
        "action_size": action_size,
        "config": config.to_dict(),
        "counters": dict(counters),
        "weights": network.weights(),
        **(extra or {}),
    }
    path = Path(path)
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save(data, tmp)
    tmp.replace(path)


def load_checkpoint(path: str | Path, game: str | None = None, observation_size: int | None = None,
                    action_size: int | None = None) -> dict[str, Any]:
    """A checkpoint's dict, checked against the expected game and sizes where given."""
    try:
        data = torch.load(Path(path), map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise CheckpointError(f"checkpoint {path} does not exist") from None
    except Exception as err:  # a truncated or foreign file: torch raises many kinds
        raise CheckpointError(f"checkpoint {path} cannot be read: {type(err).__name__}: {err}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a rummy_env PPO checkpoint (format {FORMAT})")
    check_fits(data, path, game, observation_size, action_size)
    return data


def load_resumable(path: str | Path) -> dict[str, Any]:
    """A run's last.pt, or a ``CheckpointError`` if ``path`` is not one."""
    data = load_checkpoint(path)
    if "optimizer" not in data:
        raise CheckpointError(f"{path} holds weights only (a run's best.pt or latest.pt, or a shipped checkpoint): "
                              "resume from a run's last.pt")
    return data


def load_start(network: PolicyNet, weights: dict[str, Any], path: str | Path) -> None:
    """Loads a starting checkpoint's weights; a network with the face head may start from
    one without it (the head stays at zero: the same policy). The values may come from a
    value head or a privileged critic either way: a network with the other keeps its own,
    fresh (``value_warmup_updates`` fit it)."""
    value_parts = ("value.", "critic.")
    weights = {key: value for key, value in weights.items()
               if not (key.startswith(value_parts) and key not in network.state_dict())}
    missing, unexpected = network.load_state_dict(weights, strict=False)
    missing = [key for key in missing if not key.startswith(value_parts)]
    if unexpected and all(key.startswith("face_head.") for key in unexpected):
        raise CheckpointError(f"init_checkpoint {path} has a face head and this network has none: "
                              "set face_head to start from it")
    if unexpected or any(not key.startswith("face_head.") for key in missing):
        raise CheckpointError(f"init_checkpoint {path} does not fit this network "
                              f"(weights missing: {missing}; not in the network: {unexpected})")


def network_of(data: dict[str, Any]) -> Network:
    """The network of a loaded checkpoint, in evaluation mode."""
    config = config_from_dict(data["config"], check=False)  # validated when trained; a cuda device may be absent here
    inputs = GameInputs.from_dict(data["inputs"]) if "inputs" in data else None
    network = build_network(config, data["observation_size"], data["action_size"], inputs)
    network.load_state_dict(data["weights"])
    return network.eval()


class PolicyAgent(Agent):
    """A trained policy: the most probable legal action of the checkpoint's network."""

    name = "ppo"

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.data = load_checkpoint(path)
        self.network = network_of(self.data)

    def start_game(self, seat: SeatInfo, seed: int | None) -> None:
        super().start_game(seat, seed)
        check_fits(self.data, self.path, seat.game, seat.observation.size, seat.layout.size)
        # a legal-action policy computes its own features from the observation (GameInputs.states)
        legal = isinstance(self.network, ScoringNet)
        self.features = None if legal else FEATURES[self.data["config"]["features"]](seat)

    def act(self, decision: Decision) -> int:
        observation = decision.observation
        if self.features is not None:
            observation = self.features(observation, decision.action_mask)
        return self.network.most_probable(observation, decision.action_mask)


def check_fits(data: dict[str, Any], path: str | Path, game: str | None = None,
               observation_size: int | None = None, action_size: int | None = None) -> None:
    """Raises ``CheckpointError`` unless a loaded checkpoint fits the game and sizes given."""
    if game is not None and data["game"] != game:
        raise CheckpointError(f"checkpoint {path} was trained on {data['game']}, not {game}")
    for name, expected in (("observation_size", observation_size), ("action_size", action_size)):
        if expected is not None and data[name] != expected:
            raise CheckpointError(
                f"checkpoint {path} has {name} {data[name]}, but this {data['game']} table has {expected} "
                f"(its rules config was {data['rules_config']}): train or pick a checkpoint for these rules")
