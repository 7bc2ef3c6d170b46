"""Deep Monte-Carlo (``algorithm: dmc``): the second learner, beside PPO.

DouZero (Zha et al., 2021) learns Q(s, a) for the legal actions of a large action space by
regression on Monte-Carlo returns, playing epsilon-greedy on it. Here the legal-action
network (``ScoringNet``) gives the scores: its score of a legal action is its Q. The
collection is PPO's (``vector_rollout.py``: the same seats, credit, resume), with
epsilon-greedy play and lambda 1 (a seat's return to the end of its game, bootstrapped only
where the collection cuts its trajectory). ``dmc_update`` fits each decision's Q of the action
taken to its return, by minibatches over ``update_epochs`` passes. Everything else, the run
folder, checkpoints, pool, evaluation, logs and resuming, is the trainer's (``ppo.Trainer``),
which calls the config's learner through ``LEARNERS``. A checkpoint plays the action of the
highest Q, as any policy checkpoint plays its most probable action.
"""

from __future__ import annotations

import torch

from .config import TrainConfig
from .scoring import ScoringNet
from .vector_rollout import LegalBatch


def dmc_update(network: ScoringNet, optimizer: torch.optim.Optimizer, batch: LegalBatch, config: TrainConfig,
               generator: torch.Generator, **_: object) -> dict[str, float]:
    """Regression of Q(s, a) on the returns of ``batch``; the mean squared error and the
    mean Q before the update (``value_loss``, ``q_mean``). The update runs where the network's
    weights are. PPO's extras (entropy weight, reference policy) do not apply."""
    device = next(network.parameters()).device
    states = torch.from_numpy(batch.states).to(device)
    legal = torch.from_numpy(batch.legal).to(device)
    widths = (legal >= 0).sum(1)
    actions = torch.from_numpy(batch.actions).to(device)
    returns = torch.from_numpy(batch.returns).to(device)
    size, losses = len(actions), []
    for _ in range(config.update_epochs):
        order = torch.randperm(size, generator=generator).to(device)
        for start in range(0, size, config.minibatch_size):
            rows = order[start:start + config.minibatch_size]
            width = int(widths[rows].max())
            q = network.distribution(states[rows], legal[rows, :width]).logits
            taken = q.gather(1, actions[rows].unsqueeze(1)).squeeze(1)
            loss = ((taken - returns[rows]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(network.parameters(), config.max_grad_norm)
            optimizer.step()
            losses.append(loss.item())
    return {"value_loss": sum(losses) / max(len(losses), 1), "q_mean": float(batch.values.mean()) if size else 0.0}
