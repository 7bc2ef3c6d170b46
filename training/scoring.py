"""A policy that scores the legal actions only (``policy: legal`` in the config).

The dense ``PolicyNet`` has one logit per action id: its head, softmax and entropy grow with
the action space (6,587 in Toonerville Rook), whatever is legal. ``ScoringNet`` scores each
legal action against the state instead, as pointer networks and DouZero's Q(s, a) do, so its
cost grows with the few dozen legal actions:

- a trunk of ReLU layers over the state's input (``GameInputs.states``: columns of the
  observation, then the features if any) gives ``h``; a linear map of ``h`` gives the query
  ``q`` and another the value;
- action ``a`` is ``u(a) = relu(E[a] + sum of its token embeddings + W x(a))``: its own
  embedding, what it names (kind, faces, slot, ...; ``GameInputs.tokens``) and ``x(a)``, the
  state's entries about its face (``GameInputs.face_channels``), weighed by weights that every
  face shares;
- its logit is ``q . u(a)``; the distribution is a softmax over the legal actions alone
  (``MaskedCategorical`` over the padded list, the padding masked): an illegal action has
  probability zero because it is never scored.

Actions go in as ``legal`` (int ``[B, K]``: each row's legal ids, padded with -1) and come out
as positions in that list; ``legal.gather(1, position)`` is the action id.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch
from torch import nn

from .inputs import GameInputs
from .model import MaskedCategorical, orthogonal, relu_layers


class ScoringNet(nn.Module):
    """The legal-action policy and its value (module docstring)."""

    def __init__(self, inputs: GameInputs, hidden_sizes: Sequence[int], action_width: int = 64) -> None:
        super().__init__()
        self.inputs = inputs
        self.trunk, width = relu_layers(inputs.input_size, hidden_sizes)
        self.query = nn.Linear(width, action_width)
        self.value = nn.Linear(width, 1)
        self.action_embedding = nn.Embedding(inputs.action_size, action_width)
        self.token_embedding = nn.Embedding(inputs.num_tokens, action_width, padding_idx=0)
        self.face_weights = nn.Linear(inputs.face_channels.shape[1], action_width, bias=False)
        # -1 (not about a face) reads the zero column appended to the input
        channels = np.where(inputs.face_channels < 0, inputs.input_size, inputs.face_channels)
        self.register_buffer("tokens", torch.as_tensor(inputs.tokens), persistent=False)
        self.register_buffer("channels", torch.as_tensor(channels), persistent=False)
        orthogonal(self.trunk, 2 ** 0.5)
        orthogonal([self.query], 0.01)  # near uniform over the legal actions at the start
        orthogonal([self.value], 1.0)
        nn.init.normal_(self.action_embedding.weight, std=0.1)
        nn.init.normal_(self.token_embedding.weight, std=0.1)
        with torch.no_grad():
            self.token_embedding.weight[0].zero_()
        self._frozen_actions: torch.Tensor | None = None

    def select(self, observations: np.ndarray) -> np.ndarray:
        """The state's input of full observations (``[B, observation_size]``)."""
        return self.inputs.states(observations)

    def action_table(self) -> torch.Tensor:
        """Every action's embedding and token sum, ``[A, width]`` (before the face term)."""
        if self._frozen_actions is not None:
            return self._frozen_actions
        return self.action_embedding.weight + self.token_embedding(self.tokens).sum(1)

    def freeze_actions(self, frozen: bool) -> None:
        """While the weights stay as they are (collecting, playing), keep the action table
        instead of summing it at every call; ``False`` drops it (training changes it)."""
        with torch.no_grad():
            self._frozen_actions = self.action_embedding.weight + self.token_embedding(self.tokens).sum(1) \
                if frozen else None

    def _logits(self, state: torch.Tensor, hidden: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
        """``[B, K]`` logits of the legal lists, 0 at the padding (masked by the caller). Only
        the legal entries are scored: a batch's lists are as long as its longest, and most
        are far shorter (Toonerville Rook: 9 legal actions on average, 75 in a batch's longest).
        The queries are repeated per entry and the scores scattered back by mask: their
        gradients are plain copies, where advanced indexing's accumulate (measured slower)."""
        valid = legal >= 0
        rows, cols = valid.nonzero(as_tuple=True)  # row by row
        ids = legal[rows, cols].long()
        padded = torch.nn.functional.pad(state, (0, 1))
        faces = padded[rows.unsqueeze(1), self.channels[ids]]  # [L, C]; inputs: no gradient to carry back
        # embedding() rather than indexing: its backward sums rows far faster than index_put
        actions = torch.relu(torch.nn.functional.embedding(ids, self.action_table()) + self.face_weights(faces))
        queries = self.query(hidden).repeat_interleave(valid.sum(1), dim=0)
        scores = (actions * queries).sum(-1)
        return torch.zeros(legal.shape, dtype=scores.dtype, device=scores.device).masked_scatter(valid, scores)

    def distribution(self, state: torch.Tensor, legal: torch.Tensor) -> MaskedCategorical:
        """The policy over each row's legal actions (positions in ``legal``)."""
        return MaskedCategorical(self._logits(state, self.trunk(state), legal), legal >= 0)

    def forward(self, state: torch.Tensor, legal: torch.Tensor,
                detach_value: bool = False) -> tuple[MaskedCategorical, torch.Tensor]:
        """The policy and the value; ``detach_value`` trains the value head alone."""
        hidden = self.trunk(state)
        distribution = MaskedCategorical(self._logits(state, hidden, legal), legal >= 0)
        return distribution, self.value(hidden.detach() if detach_value else hidden).squeeze(-1)

    @torch.no_grad()
    def most_probable(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The most probable legal action id for one decision (how a trained policy plays)."""
        legal = np.flatnonzero(mask)
        state = torch.from_numpy(self.select(np.asarray(observation, dtype=np.float32)[None]))
        position = int(self.distribution(state, torch.from_numpy(legal).unsqueeze(0)).mode()[0])
        return int(legal[position])

    @torch.no_grad()
    def soften(self, temperature: float) -> None:
        """Divides every logit by ``temperature`` (the query's weights and bias): the same
        order of actions, a flatter distribution over them above 1."""
        self.query.weight.div_(temperature)
        self.query.bias.div_(temperature)

    def weights(self) -> dict[str, torch.Tensor]:
        """A copy of the weights, detached: unchanged by later training."""
        return {k: v.detach().cpu().clone() for k, v in self.state_dict().items()}
