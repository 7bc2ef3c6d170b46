"""The training config: one dataclass, loaded from YAML and overridable on the command line.

    python -m rummy_training.ppo --config configs/three_thirteen.yaml --total-steps 2000000 --seed 3

``load_config`` reads a YAML file of field values, and ``TrainConfig.validate`` checks every
field: its type against the dataclass's annotation (a YAML ``learning_rate: fast`` is an
error that names the field), then its value. Unknown keys are an error that names them.
The command line (``training/cli.py``) builds on these with tyro.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from rummy_env import GAMES, game_spec
from rummy_env.cli import closest_options
from rummy_env.env import RummyEnv
from rummy_env.agents import AGENT_NAMES, is_checkpoint_spec, make_agent

from .features import FEATURES
from .inputs import game_inputs

REWARD_MODES: tuple[str, ...] = ("relative", "penalty", "win")
BACKENDS: tuple[str, ...] = ("process", "ray")
POLICIES: tuple[str, ...] = ("dense", "legal")
ALGORITHMS: tuple[str, ...] = ("ppo", "dmc")
DEVICES: tuple[str, ...] = ("auto", "cpu", "cuda")
RESUMABLE: tuple[str, ...] = ("total_steps", "progress", "backend", "ray_address", "ray_worker_cpus")
"""The fields a resumed run may change: none of them changes what the run computes (with
anneal_lr, a new total_steps stretches the rest of the schedule: that is what it is for)."""


class ConfigError(ValueError):
    """A config that cannot be trained: the message names the field and what is accepted."""


@dataclass
class TrainConfig:
    """Masked-PPO self-play training of one game."""

    game: str = "three_thirteen"
    """Which game: a name in the registry, ``rummy_env.GAMES``."""
    num_players: int = 4
    """Players per table; every seat is played by the network or an opponent from the pool."""
    rules: dict[str, int] = field(default_factory=dict)
    """Further rules options passed to the env (e.g. num_decks, max_turns_per_round)."""
    reward_mode: str = "relative"
    """The env's reward: relative (round penalty against the table mean), penalty or win."""
    seed: int = 1
    """Seed of everything: deals, seat draws, opponent draws, action sampling, network init."""

    total_steps: int = 5_000_000
    """Environment steps (decisions by any seat) to train for."""
    steps_per_update: int = 16_384
    """Environment steps collected (over all rollout workers) before each PPO update."""
    num_envs: int = 64
    """Games played side by side, split over the rollout workers; the policy acts for all
    of them in one batched forward pass per step."""
    num_workers: int = 2
    """Rollout worker processes (each steps its share of the games). 0 collects in the
    trainer's own process."""
    backend: str = "process"
    """Where the rollout workers run: 'process' (local processes) or 'ray' (Ray actors, on
    this machine or the cluster at ray_address; needs the [ray] extra). The same
    num_workers gives the same run on either."""
    ray_address: str | None = None
    """With backend 'ray': the cluster to join ('auto', 'HOST:6379' or 'ray://HOST:10001');
    None starts a private Ray instance on this machine for the run."""
    ray_worker_cpus: float = 1.0
    """With backend 'ray': CPUs each rollout worker reserves on its node."""
    torch_threads: int = 1
    """Torch threads of the trainer's update (rollout workers use one each). More help only
    on idle cores: a thread that shares its core with a busy process stalls every op."""

    features: str = "none"
    """Extra policy inputs computed from the seat's own observation. Policy 'dense'
    (training/features.py): 'none', 'three_thirteen_penalties', 'three_thirteen_expert', 'three_thirteen_closer', 'contract_plan',
    'contract_expert', 'contract_last_deal' or 'contract_last_deal_odds'. Policy 'legal'
    (training/inputs.py): 'none' or 'hand_penalties' (games without contracts: the hand's
    exact least penalty and each discard's saving, batched in the core)."""
    hidden_sizes: tuple[int, ...] = (256, 256)
    """Widths of the shared fully connected trunk (ReLU) before the policy and value heads."""
    policy: str = "dense"
    """The policy's shape: 'dense' (``PolicyNet``: one logit per action id, games stepped one by
    one in Python, any features and opponents) or 'legal' (``ScoringNet``: scores the legal
    actions only, games stepped on the batched core, ``vector_rollout.py``; its own features,
    and opponents only self, past and random)."""
    action_width: int = 64
    """With policy 'legal': the width of each action's embedding and of the state's query."""
    algorithm: str = "ppo"
    """The learner: 'ppo' (clipped PPO, ``ppo.py``) or, with policy 'legal', 'dmc' (Deep
    Monte-Carlo as DouZero: Q of each legal action fitted to the seats' returns, played
    epsilon-greedy; ``dmc.py``). Both run on the same collection and run management."""
    epsilon: float = 0.01
    """With algorithm 'dmc': the chance of a uniformly random legal action at each decision."""
    """With policy 'legal': the width of each action's embedding and of the state's query."""
    device: str = "auto"
    """Where the update runs: 'cpu', 'cuda', or 'auto' (cuda where torch sees one). Rollout
    workers infer on their CPU core either way."""
    face_head: bool = False
    """Add the face head (training/model.py): an action about a face (discard, go out, lay
    off, swap) also scores the inputs about that face (the observation's and the features'),
    by weights the trunk sets per action kind and every face shares. It starts at zero, so a
    run with it can start from a checkpoint without it (init_checkpoint)."""
    privileged_critic: bool = False
    """Estimate values with a critic of its own that also reads what the seat cannot see: the
    other seats' hands and the stock (an asymmetric actor-critic, training/model.py). The
    policy never reads them: it plays as before. A return that depends on the other hands (the
    relative reward) is then predictable. Not with an imitation warm start, which trains the
    value without them; a run with it can start from a checkpoint without it (init_checkpoint;
    value_warmup_updates then fit the new critic first)."""
    privileged_stock_order: int = 0
    """With privileged_critic, the critic also reads the next this many cards of the stock in
    the order they will be drawn: with the other hands, most of what decides a round's result
    (the stock's counts alone do not say who draws what)."""
    learning_rate: float = 3e-4
    """Adam learning rate at the start of training."""
    anneal_lr: bool = True
    """Anneal the learning rate linearly to zero over total_steps."""
    gamma: float = 0.995
    """Discount per decision of a seat."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    update_epochs: int = 4
    """Passes over each collected batch."""
    minibatch_size: int = 2048
    """Decisions per gradient step."""
    clip_coef: float = 0.2
    """PPO policy-ratio clip."""
    clip_value: bool = True
    """Clip the value update around the value at collection time (same coefficient)."""
    ent_coef: float = 0.01
    """Weight of the masked entropy bonus (at the start of training, see ent_coef_final)."""
    ent_coef_final: float | None = None
    """The entropy weight reached at total_steps, linearly from ent_coef (None: ent_coef
    throughout)."""
    kl_coef: float = 0.0
    """Weight of a penalty on KL(policy || reference) over the legal actions of each
    decision, the reference being the policy as PPO started (after the warm start or from
    init_checkpoint): PPO may then take larger steps without forgetting the imitated play."""
    value_warmup_updates: int = 0
    """PPO's first updates that train the value head alone (the policy plays, unchanged): a
    critic fitted to PPO's own rewards and opponents before the policy moves."""
    start_temperature: float = 1.0
    """Divides the policy head (so every logit) by this once the warm start or
    init_checkpoint has set the weights: the most probable action, and so the evaluated
    play, stays the same, while the play sampled in training tries the close alternatives
    (an imitated policy is nearly deterministic: PPO then sees no alternative to weigh)."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradient norm clip."""
    norm_adv: bool = True
    """Normalise advantages per minibatch."""
    target_kl: float | None = None
    """Stop an update's epochs early once the approximate KL passes this (None: never)."""

    imitation_agent: str | None = None
    """A baseline (e.g. 'expert') or a 'module:Class' agent spec (e.g.
    'rummy_env.agents.three_thirteen_closer:ClosingThreeThirteen') whose play the policy
    imitates before PPO starts (None: PPO starts from the initial, near-uniform policy)."""
    imitation_opponent: str | None = None
    """An agent spec as imitation_agent's, for the other seats while it is recorded: one seat per
    game (rotating) plays imitation_agent and only its decisions are recorded, so the
    demonstrations show the positions such opponents lead to (None: imitation_agent in
    every seat, every decision recorded)."""
    imitation_decisions: int = 300_000
    """Decisions of imitation_agent recorded for the warm start (whole games), per round."""
    imitation_rounds: int = 1
    """Rounds of the warm start. The first records imitation_agent's own play; each further
    one (DAgger) records the network fitted so far playing those seats, labelled with
    imitation_agent's choices, and refits the network on every round's decisions."""
    imitation_epochs: int = 6
    """Passes over the recorded decisions."""
    imitation_learning_rate: float = 1e-3
    """Adam learning rate of the imitation (PPO then starts afresh with learning_rate)."""
    init_checkpoint: str | None = None
    """A checkpoint whose weights start PPO instead of a warm start (a run's best.pt or a
    shipped checkpoint of this game, trained with the same features and hidden_sizes)."""

    self_play: float = 0.5
    """Weight, for each seat beside the network's own, of the current policy (whose
    decisions are trained on too). The seat weights need not sum to one."""
    past_play: float = 0.2
    """Weight of a frozen snapshot drawn from the pool (the current policy while it is empty)."""
    greedy_play: float = 0.3
    """Weight of the greedy baseline."""
    expert_play: float = 0.0
    """Weight of the expert baseline."""
    random_play: float = 0.0
    """Weight of the random baseline."""
    snapshot_every: int = 10
    """Updates between snapshots of the current policy added to the pool."""
    pool_size: int = 8
    """Most recent snapshots kept in the pool."""

    keep_every: int = 0
    """Updates between copies of the weights kept as kept/<env_steps>.pt in the run folder,
    for evaluating a learning curve afterwards (0: none)."""
    eval_every: int = 10
    """Updates between evaluations against eval_opponent; the last update is evaluated too
    (0: never, and no best.pt)."""
    eval_games: int = 200
    """Games per evaluation: the policy in one seat, eval_opponent in the others, seats
    rotated (rounded up to a multiple of num_players)."""
    eval_opponent: str = "greedy"
    """Agent spec of the evaluation opponents."""
    eval_seed: int = 2026
    """Seed of the evaluation deals (the same deals at every evaluation)."""

    run_dir: str = "runs"
    """Folder that holds the run folders."""
    run_name: str | None = None
    """Name of this run's folder under run_dir (default: <game>-s<seed>)."""
    resume: str | None = None
    """A run's last.pt to continue from, in that run's folder, exactly where it stopped (its
    config comes from it; only the fields of config.RESUMABLE may be given anew)."""
    progress: bool = True
    """Show a progress bar with steps per second."""

    def conform(self) -> None:
        """Raises ``ConfigError`` for a value not of its field's annotated type. Values of a
        near type are made that type: an int for a float, a list for a tuple, and a string
        that reads as a number for a float (YAML reads ``1e-3`` as a string)."""
        hints = typing.get_type_hints(TrainConfig)
        for f in dataclasses.fields(self):
            setattr(self, f.name, _conform(f.name, getattr(self, f.name), hints[f.name]))

    def validate(self) -> None:
        """Raises ``ConfigError`` for values that cannot be trained (types first: ``conform``)."""
        self.conform()
        if self.game not in GAMES:
            raise ConfigError(f"game must be one of {', '.join(GAMES)} (rummy_env.GAMES), not {self.game!r}")
        if self.reward_mode not in REWARD_MODES:
            raise ConfigError(f"reward_mode must be one of {', '.join(REWARD_MODES)}, not {self.reward_mode!r}")
        positive = ("num_players", "total_steps", "steps_per_update", "num_envs", "update_epochs",
                    "minibatch_size", "snapshot_every", "pool_size", "eval_games", "torch_threads",
                    "imitation_decisions", "imitation_rounds", "imitation_epochs")
        for name in positive:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, not {value!r}")
        for name in ("num_workers", "eval_every", "keep_every", "value_warmup_updates"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must be at least 0, not {getattr(self, name)!r}")
        for name in ("kl_coef", "ent_coef", "ent_coef_final"):
            if (getattr(self, name) or 0.0) < 0:
                raise ConfigError(f"{name} must be at least 0, not {getattr(self, name)!r}")
        if self.init_checkpoint is not None and self.imitation_agent is not None:
            raise ConfigError("init_checkpoint and imitation_agent are two ways to start PPO: give one")
        if self.privileged_critic and self.imitation_agent is not None:
            raise ConfigError("privileged_critic cannot start from imitation_agent (the warm start trains the "
                              "value without the other hands): start from an init_checkpoint")
        if self.privileged_stock_order < 0 or (self.privileged_stock_order and not self.privileged_critic):
            raise ConfigError(f"privileged_stock_order must be 0, or positive with privileged_critic, not "
                              f"{self.privileged_stock_order!r}")
        if self.kl_coef and self.init_checkpoint is None and self.imitation_agent is None:
            raise ConfigError("kl_coef needs a policy to stay near: an imitation_agent or an init_checkpoint")
        if not self.start_temperature > 0:
            raise ConfigError(f"start_temperature must be above 0, not {self.start_temperature!r}")
        if self.start_temperature != 1 and self.init_checkpoint is None and self.imitation_agent is None:
            raise ConfigError("start_temperature needs a policy to soften: an imitation_agent or an init_checkpoint")
        if self.backend not in BACKENDS:
            raise ConfigError(f"backend must be one of {', '.join(BACKENDS)}, not {self.backend!r}")
        if self.backend == "ray":  # the values first: their messages do not depend on what is installed
            if self.num_workers < 1:
                raise ConfigError("backend 'ray' needs num_workers of at least 1 (0 collects in the trainer's process)")
            if isinstance(self.ray_worker_cpus, bool) or not self.ray_worker_cpus > 0:
                raise ConfigError(f"ray_worker_cpus must be positive, not {self.ray_worker_cpus!r}")
            if importlib.util.find_spec("ray") is None:
                raise ConfigError("backend 'ray' needs Ray: pip install -e \".[train,ray]\"")
        if self.policy not in POLICIES:
            raise ConfigError(f"policy must be one of {', '.join(POLICIES)}, not {self.policy!r}")
        if self.device not in DEVICES:
            raise ConfigError(f"device must be one of {', '.join(DEVICES)}, not {self.device!r}")
        if self.device == "cuda" and not torch_cuda_available():
            raise ConfigError("device 'cuda' but torch sees no CUDA device here: use 'auto' or 'cpu'")
        if self.algorithm not in ALGORITHMS:
            raise ConfigError(f"algorithm must be one of {', '.join(ALGORITHMS)}, not {self.algorithm!r}")
        if self.algorithm == "dmc" and self.policy != "legal":
            raise ConfigError("algorithm 'dmc' scores the legal actions as Q-values: it needs policy 'legal'")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ConfigError(f"epsilon must lie in [0, 1], not {self.epsilon!r}")
        if self.action_width < 1:
            raise ConfigError(f"action_width must be a positive integer, not {self.action_width!r}")
        if self.policy == "legal":
            unfit = {"face_head": self.face_head,
                     "privileged_critic": self.privileged_critic, "imitation_agent": self.imitation_agent is not None,
                     "greedy_play": self.greedy_play > 0, "expert_play": self.expert_play > 0}
            named = [name for name, bad in unfit.items() if bad]
            if named:
                raise ConfigError(f"policy 'legal' learns from its own play against self, past and random seats: "
                                  f"set {', '.join(named)} to its default (false, none or 0)")
        if self.num_workers > self.num_envs:
            raise ConfigError(f"num_envs ({self.num_envs}) must be at least num_workers ({self.num_workers})")
        if not self.hidden_sizes or any(h < 1 for h in self.hidden_sizes):
            raise ConfigError(f"hidden_sizes must be positive widths, not {self.hidden_sizes!r}")
        for name in ("gamma", "gae_lambda"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"{name} must lie in [0, 1], not {getattr(self, name)!r}")
        for name in ("learning_rate", "imitation_learning_rate", "clip_coef"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"{name} must be positive, not {getattr(self, name)!r}")
        for name in ("imitation_agent", "imitation_opponent"):
            spec = getattr(self, name)
            if spec is None or spec in AGENT_NAMES:
                continue
            problem = "a checkpoint" if isinstance(spec, str) and is_checkpoint_spec(spec) else None
            if problem is None:
                try:
                    make_agent(spec)
                except ValueError as err:
                    problem = str(err)
            if problem is not None:
                raise ConfigError(f"{name} must be one of {', '.join(AGENT_NAMES)}, a 'module:Class' agent spec "
                                  f"or None, not {spec!r} ({problem})")
        try:
            game_inputs(self.game, self.env_kwargs())  # builds the env once per process
        except ValueError as err:  # e.g. an unknown rules option, named by the env
            raise ConfigError(f"rules: {err}") from None
        if self.policy == "legal":
            try:
                game_inputs(self.game, self.env_kwargs(), self.features)
            except ValueError as err:  # a set the legal policy has not, or one the game cannot have
                raise ConfigError(str(err)) from None
        else:
            if self.features not in FEATURES:
                raise ConfigError(f"features must be one of {', '.join(FEATURES)}, not {self.features!r}")
            problem = FEATURES[self.features].unfit_for(game_spec(self.game).rules())
            if problem:
                raise ConfigError(problem)
        try:
            make_agent(self.eval_opponent)  # fails now, not at the first evaluation
        except ValueError as err:
            raise ConfigError(f"eval_opponent: {err}") from None
        seats = ("self_play", "past_play", "greedy_play", "expert_play", "random_play")
        for name in seats:
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must be at least 0, not {getattr(self, name)!r}")
        if sum(self.opponent_weights().values()) <= 0:
            raise ConfigError(f"{', '.join(seats)} are all 0: at least one seat weight must be positive")

    def opponent_weights(self) -> dict[str, float]:
        """The seat mixture: 'self', 'past' or a baseline spec, to its weight."""
        return {"self": self.self_play, "past": self.past_play, "greedy": self.greedy_play,
                "expert": self.expert_play, "random": self.random_play}

    def draw_seat(self, rng: Any) -> str:
        """Who plays one other seat of a new game, drawn from the mixture with ``rng`` (a
        numpy generator): 'self', 'past' or a baseline's spec."""
        weights = {kind: weight for kind, weight in self.opponent_weights().items() if weight > 0}
        kinds, total = list(weights), sum(weights.values())
        return kinds[rng.choice(len(kinds), p=[weights[kind] / total for kind in kinds])]

    def torch_device(self) -> str:
        """The device the update runs on: ``device``, with 'auto' resolved."""
        if self.device == "auto":
            return "cuda" if torch_cuda_available() else "cpu"
        return self.device

    def env_kwargs(self) -> dict[str, Any]:
        """The env's keyword arguments: the rules config and the reward mode."""
        return {"num_players": self.num_players, "reward_mode": self.reward_mode, **self.rules}

    def make_env(self) -> RummyEnv:
        """A new raw env of this config's game and options (from the registry)."""
        return game_spec(self.game).raw_env(**self.env_kwargs())

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["hidden_sizes"] = list(self.hidden_sizes)
        return data


def torch_cuda_available() -> bool:
    import torch  # the config module is read by commands that never train: torch only when asked

    return torch.cuda.is_available()


def config_from_dict(data: dict[str, Any], source: str = "config", check: bool = True) -> TrainConfig:
    """A config from field values, validated unless ``check`` is false (then only its types
    are); unknown fields are an error naming them."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source} must be a mapping of field names to values, not {type(data).__name__}")
    names = {f.name for f in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(data) - names)
    if unknown:
        guesses = [guess for name in unknown for guess in closest_options(str(name), names)[:1]]
        raise ConfigError(f"{source}: unknown field(s) {', '.join(map(str, unknown))}"
                          + (f" (did you mean {', '.join(guesses)}?)" if guesses else "")
                          + f"; fields are {', '.join(sorted(names))}")
    config = TrainConfig(**data)
    if check:
        config.validate()
    else:
        config.conform()
    return config


def refuse_changes(saved: TrainConfig, config: TrainConfig, path: str | Path) -> None:
    """A ``ConfigError`` naming the first field that ``config`` changes from ``saved`` (the
    config of the checkpoint ``path``) beyond ``RESUMABLE`` (and the run's folder, which is
    where ``path`` lies)."""
    for f in dataclasses.fields(TrainConfig):
        if f.name in RESUMABLE or f.name in ("resume", "run_dir", "run_name"):
            continue
        before, after = getattr(saved, f.name), getattr(config, f.name)
        if before != after:
            raise ConfigError(f"{f.name} cannot change when resuming (the run of {path} has {before!r}, "
                              f"not {after!r}); a resumed run may change only {', '.join(RESUMABLE)}")


def load_config(path: str | Path) -> TrainConfig:
    """The config of a YAML file of field values."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except OSError as err:
        raise ConfigError(f"cannot read config {path}: {err.strerror}") from None
    except yaml.YAMLError as err:
        raise ConfigError(f"config {path} is not valid YAML: {err}") from None
    return config_from_dict(data, source=str(path))


_TYPE_NAMES = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def _conform(name: str, value: Any, hint: Any) -> Any:
    """``value`` as the annotated type ``hint``, or a ``ConfigError`` that names the field."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):  # only "X | None" occurs
        if value is None:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _conform(name, value, inner)
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{name} must be a list of {_TYPE_NAMES[args[0]]}s, not {value!r}")
        return tuple(_conform(name, item, args[0]) for item in value)
    if origin is dict:
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise ConfigError(f"{name} must be a mapping of names to {_TYPE_NAMES[args[1]]}s, not {value!r}")
        return {k: _conform(f"{name}.{k}", v, args[1]) for k, v in value.items()}
    if hint is float and isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
    ok = isinstance(value, hint) and not (hint is not bool and isinstance(value, bool))
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not ok:
        raise ConfigError(f"{name} must be {_TYPE_NAMES[hint]}, not {value!r}")
    return value
