"""The TorchRL and Tianshou examples re-thread each collected batch per seat before GAE
(docs/integrations.md): checked here against a plain loop on a hand-made batch of two games
in which rewards reach seats on other seats' steps."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torchrl's import-time notes
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SEATS = 3
ACTING = [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]   # the seat that acts at each step
ENDS = {6}                                          # the first game ends on step 6's action
RNG = np.random.default_rng(0)
REWARDS = np.where(RNG.random((len(ACTING), SEATS)) < 0.3, RNG.integers(-5, 6, (len(ACTING), SEATS)), 0).astype(float)


def _example(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def expected() -> dict[int, list[tuple[int, float, bool]]]:
    """Per seat, its decisions in order: (step, every reward it receives from that step until
    its next decision or its game's end, whether its game ended meanwhile)."""
    game = np.cumsum([0] + [t in ENDS for t in range(len(ACTING) - 1)])
    result: dict[int, list[tuple[int, float, bool]]] = {}
    for seat in range(SEATS):
        acts = [t for t, s in enumerate(ACTING) if s == seat]
        rows = []
        for k, step in enumerate(acts):
            stop = acts[k + 1] if k + 1 < len(acts) else len(ACTING)
            total, ended = 0.0, False
            for t in range(step, stop):
                if game[t] != game[step]:
                    break
                total += REWARDS[t, seat]
                ended = ended or t in ENDS
            rows.append((step, total, ended))
        result[seat] = rows
    return result


def test_the_torchrl_example_credits_each_seat_its_rewards_until_its_next_decision():
    pytest.importorskip("torchrl")
    import torch
    from tensordict import TensorDict

    example = _example("torchrl_ppo")
    group, steps = example.G, len(ACTING)
    observation = torch.tensor([[[10.0 * t + s] for s in range(SEATS)] for t in range(steps)])
    batch = TensorDict({
        group: TensorDict({"mask": torch.nn.functional.one_hot(torch.tensor(ACTING), SEATS).bool(),
                           "observation": observation, "action_mask": torch.ones(steps, SEATS, 4, dtype=torch.bool),
                           "action": torch.zeros(steps, SEATS, dtype=torch.long), "log_prob": torch.zeros(steps, SEATS)},
                          [steps]),
        "next": TensorDict({"done": torch.tensor([[t in ENDS] for t in range(steps)]),
                            group: TensorDict({"reward": torch.tensor(REWARDS, dtype=torch.float32).unsqueeze(-1),
                                               "observation": observation + 0.5}, [steps])}, [steps]),
    }, [steps])
    decisions = example.per_seat_decisions(batch)
    start = 0
    for seat, rows in expected().items():
        got = decisions[start:start + len(rows)]
        start += len(rows)
        assert got[group, "observation"][:, 0].tolist() == [10.0 * t + seat for t, _, _ in rows]
        assert got["next", group, "reward"][:, 0].tolist() == pytest.approx([r for _, r, _ in rows])
        assert got["next", group, "terminated"][:, 0].tolist() == [e for _, _, e in rows]
        # the next observation is the seat's next decision's, the last one bootstraps from its latest view
        following = [10.0 * t + seat for t, _, _ in rows[1:]] + [10.0 * (steps - 1) + seat + 0.5]
        assert got["next", group, "observation"][:, 0].tolist() == following
        assert got["next", group, "done"][:, 0].tolist() == [e for _, _, e in rows[:-1]] + [True]
    assert start == len(decisions)


def test_the_tianshou_example_credits_each_seat_its_rewards_until_its_next_decision():
    pytest.importorskip("tianshou")
    from tianshou.data import Batch

    example = _example("tianshou_ppo")
    seats = {f"player_{s}": s for s in range(SEATS)}
    steps = len(ACTING)
    batch = Batch(obs=Batch(agent_id=np.array([f"player_{s}" for s in ACTING]),
                            obs=np.arange(steps, dtype=np.float32)[:, None], mask=np.ones((steps, 4), bool)),
                  act=np.zeros(steps, dtype=int), rew=REWARDS,
                  terminated=np.array([t in ENDS for t in range(steps)]), truncated=np.zeros(steps, bool))
    buffer = example.per_seat_decisions(batch, seats)
    data = buffer[:]
    start = 0
    for seat, rows in expected().items():
        kept = [row for row in rows[:-1]] + [rows[-1]] * rows[-1][2]  # a seat's last decision needs an end
        got = slice(start, start + len(kept))
        start += len(kept)
        assert data.obs.obs[got, 0].tolist() == [float(t) for t, _, _ in kept]
        assert data.rew[got].tolist() == pytest.approx([r for _, r, _ in kept])
        assert data.terminated[got].tolist() == [e for _, _, e in kept]
        assert data.truncated[got].tolist() == [False] * (len(kept) - 1) + [not kept[-1][2]]
    assert start == len(data)
