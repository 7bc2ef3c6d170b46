"""The policy network and the masked action distribution.

One network serves every seat: the observation is already from the acting seat's point of
view. A shared fully connected trunk feeds a policy head (one logit per action id) and a
value head (the seat's expected return).

With ``FaceInputs`` the network also has a face head: an action about one face (discard it,
go out with it, lay it off, swap it in) adds to its logit the inputs about that face (its
count in the hand, in the pile, the features' numbers for it), weighted by weights that the
trunk sets per action kind and that every face shares. What the network learns about one
face's discard then holds for every face at once, instead of being learned 52 times over
through the policy head's separate rows. The head starts at zero: the same policy as
without it, so it can be added to a trained network.

With ``privileged_size`` the value comes from a critic of its own instead of the value
head: a network of the same widths over the input and privileged inputs that only training
has (the other seats' hands and the stock: ``rollout.privileged_inputs``), an asymmetric
actor-critic. The policy never reads them, so the network plays as before without them;
the critic's estimate of a seat's return no longer has to guess the hands that decide it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
from torch import nn

# Masked logits are set to this large finite negative rather than -inf, so that a row
# with no legal action cannot turn into NaN (STYLE.md, item 11).
MASKED_LOGIT = -1e8


class MaskedCategorical:
    """A categorical distribution over the legal actions only: no probability on masked
    actions, and the entropy is over the legal actions."""

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor) -> None:
        self.mask = mask
        self.logits = torch.where(mask, logits, torch.full_like(logits, MASKED_LOGIT))
        self.log_probs = torch.log_softmax(self.logits, dim=-1)

    @property
    def probs(self) -> torch.Tensor:
        return self.log_probs.exp()

    def sample(self, generator: torch.Generator | None = None) -> torch.Tensor:
        return torch.multinomial(self.probs, 1, generator=generator).squeeze(-1)

    def mode(self) -> torch.Tensor:
        return self.logits.argmax(dim=-1)

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        return self.log_probs.gather(-1, actions.unsqueeze(-1)).squeeze(-1)

    def kl(self, other: "MaskedCategorical") -> torch.Tensor:
        """KL(self || other) per row, over the legal actions (the same mask for both)."""
        terms = self.probs * (self.log_probs - other.log_probs)
        return torch.where(self.mask, terms, torch.zeros_like(terms)).sum(dim=-1)

    def entropy(self) -> torch.Tensor:
        # masked terms are zeroed outright: exp(-1e8) underflows to 0, but 0 * -1e8 must not count
        p_log_p = torch.where(self.mask, self.probs * self.log_probs, torch.zeros_like(self.log_probs))
        return -p_log_p.sum(dim=-1)


@dataclass(frozen=True)
class FaceInputs:
    """Which actions are about a face, and where the inputs about each face are.

    ``actions``: the ids of the actions about a face; ``kinds``: each one's kind, numbered
    from 0; ``index``: per such action, the positions in the network's input of the inputs
    about its face, one per channel (the same channels for every action)."""

    actions: np.ndarray
    kinds: np.ndarray
    index: np.ndarray

    @property
    def num_kinds(self) -> int:
        return int(self.kinds.max()) + 1

    @property
    def num_channels(self) -> int:
        return self.index.shape[1]


class FaceHead(nn.Module):
    """The face head (module docstring): ``logit[a] += w(hidden)[kind(a)] . input[index[a]]``."""

    def __init__(self, width: int, action_size: int, faces: FaceInputs) -> None:
        super().__init__()
        self.action_size = action_size
        self.num_kinds, self.num_channels = faces.num_kinds, faces.num_channels
        self.register_buffer("actions", torch.as_tensor(faces.actions, dtype=torch.long), persistent=False)
        self.register_buffer("kinds", torch.as_tensor(faces.kinds, dtype=torch.long), persistent=False)
        self.register_buffer("index", torch.as_tensor(faces.index, dtype=torch.long), persistent=False)
        self.weights = nn.Linear(width, self.num_kinds * self.num_channels)
        nn.init.zeros_(self.weights.weight)
        nn.init.zeros_(self.weights.bias)

    def forward(self, inputs: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
        per_face = inputs[:, self.index]  # (batch, face actions, channels)
        weights = self.weights(hidden).view(-1, self.num_kinds, self.num_channels)[:, self.kinds]
        logits = inputs.new_zeros(inputs.shape[0], self.action_size)
        return logits.index_copy(1, self.actions, (per_face * weights).sum(-1))


def relu_layers(width: int, hidden_sizes: Sequence[int]) -> tuple[nn.Sequential, int]:
    """Linear and ReLU layers of the given widths, and the last width."""
    layers: list[nn.Module] = []
    for hidden in hidden_sizes:
        layers += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    return nn.Sequential(*layers), width


def orthogonal(layers: Sequence[nn.Module], gain: float) -> None:
    for layer in layers:
        if isinstance(layer, nn.Linear):
            nn.init.orthogonal_(layer.weight, gain=gain)
            nn.init.zeros_(layer.bias)


class PolicyNet(nn.Module):
    """Trunk of ReLU layers, then a policy head (with the face head if ``faces`` is given)
    and a value head, or with ``privileged_size`` a critic of its own (module docstring)."""

    def __init__(self, observation_size: int, action_size: int, hidden_sizes: Sequence[int],
                 faces: FaceInputs | None = None, privileged_size: int = 0) -> None:
        super().__init__()
        self.trunk, width = relu_layers(observation_size, hidden_sizes)
        self.policy = nn.Linear(width, action_size)
        self.privileged_size = privileged_size
        self.critic: nn.Sequential | None = None
        if privileged_size:
            layers, critic_width = relu_layers(observation_size + privileged_size, hidden_sizes)
            self.critic = nn.Sequential(*layers, nn.Linear(critic_width, 1))
            value = self.critic[-1]
        else:
            self.value = value = nn.Linear(width, 1)
        self.face_head = FaceHead(width, action_size, faces) if faces is not None else None
        orthogonal(self.trunk, 2 ** 0.5)
        # small policy weights start near uniform over the legal actions (cleanrl's choice)
        orthogonal([self.policy], 0.01)
        if self.critic is not None:
            orthogonal(self.critic[:-1], 2 ** 0.5)
        orthogonal([value], 1.0)

    def distribution(self, observation: torch.Tensor, mask: torch.Tensor) -> MaskedCategorical:
        """The masked policy alone (all that playing needs)."""
        return self._distribution(observation, mask, self.trunk(observation))

    def _distribution(self, observation: torch.Tensor, mask: torch.Tensor, hidden: torch.Tensor) -> MaskedCategorical:
        logits = self.policy(hidden)
        if self.face_head is not None:
            logits = logits + self.face_head(observation, hidden)
        return MaskedCategorical(logits, mask)

    def forward(self, observation: torch.Tensor, mask: torch.Tensor, detach_value: bool = False,
                privileged: torch.Tensor | None = None) -> tuple[MaskedCategorical, torch.Tensor]:
        """The masked policy and the value; ``detach_value`` stops the value's gradient at
        the trunk (a value loss then trains the value head alone; a critic of its own shares
        nothing with the policy). ``privileged``: the critic's extra inputs, required with one."""
        hidden = self.trunk(observation)
        distribution = self._distribution(observation, mask, hidden)
        if self.critic is None:
            if privileged is not None:
                raise ValueError("privileged inputs given to a network without a privileged critic")
            value_input = hidden.detach() if detach_value else hidden
            return distribution, self.value(value_input).squeeze(-1)
        if privileged is None or privileged.shape[-1] != self.privileged_size:
            raise ValueError(f"the privileged critic needs privileged inputs of size {self.privileged_size}")
        return distribution, self.critic(torch.cat([observation, privileged], dim=-1)).squeeze(-1)

    @torch.no_grad()
    def most_probable(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The most probable legal action for one decision (how a trained policy plays)."""
        distribution = self.distribution(torch.from_numpy(np.asarray(observation, dtype=np.float32)).unsqueeze(0),
                                         torch.from_numpy(np.asarray(mask, dtype=bool)).unsqueeze(0))
        return int(distribution.mode()[0])

    @torch.no_grad()
    def soften(self, temperature: float) -> None:
        """Divides every logit by ``temperature`` (the weights and bias of the policy head and
        of the face head's weights): the same order of actions, a flatter distribution over them above 1."""
        heads = [self.policy] + ([self.face_head.weights] if self.face_head is not None else [])
        for head in heads:
            head.weight.div_(temperature)
            head.bias.div_(temperature)

    def weights(self) -> dict[str, torch.Tensor]:
        """A copy of the weights, detached: unchanged by later training."""
        return {k: v.detach().cpu().clone() for k, v in self.state_dict().items()}
