"""The imitation warm start (``imitation.py``) as a phase of a run that a stop never loses.

Its progress lives in the run's ``warm_start/`` folder until the warm start is done:

- while decisions are recorded, each recording stream's parts (``imitation.RecordingParts``):
  the decisions of its whole games so far and its random state;
- ``state.pt``, written when a round's recording is whole and after every epoch of its fit:
  the round, the epochs fitted, the network, the imitation optimiser, the trainer's random
  generator, each finished round's figures and the seconds spent.

A warm start begun again in the same folder reads both and goes on: the recording from each
stream's last part, the fit from its last whole epoch. It ends with the same decisions and the
same weights, bit for bit, as one that never stopped.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from .checkpoint import CheckpointError
from .config import TrainConfig
from .imitation import Demonstrations, collect_demonstrations, imitate, recorded_streams
from .model import PolicyNet
from .stopping import deferred_signals

STATE = "state.pt"


class WarmStart:
    """The warm start of one run: ``run()`` does it, or what is left of it, in ``folder``."""

    def __init__(self, folder: Path, config: TrainConfig, network: PolicyNet, generator: torch.Generator) -> None:
        self.folder = folder
        self.config = config
        self.network = network
        self.generator = generator
        self.state: dict[str, Any] = {"round": 0, "recorded": False, "epochs": 0, "optimizer": None, "stats": None,
                                      "rounds": [], "seconds": 0.0}
        path = folder / STATE
        if path.exists():
            try:
                self.state = torch.load(path, map_location="cpu", weights_only=True)
            except Exception as err:  # a foreign or damaged file: torch raises many kinds
                raise CheckpointError(f"the warm start's progress {path} cannot be read ({type(err).__name__}): "
                                      "start the run afresh with --force") from None
            network.load_state_dict(self.state["network"])
            generator.set_state(self.state["generator"])
        self._started = time.perf_counter()

    def where(self) -> str:
        """Where the warm start stands, for the report of a stop."""
        state, rounds = self.state, self.config.imitation_rounds
        step = (f"fitting, {state['epochs']} of {self.config.imitation_epochs} epochs done" if state["recorded"]
                else "recording decisions")
        return f"round {state['round'] + 1} of {rounds}, {step}"

    def run(self) -> dict[str, Any]:
        """The warm start from where it stands; returns its figures (the run's ``counters["imitation"]``)."""
        config, state = self.config, self.state
        if state["round"] < config.imitation_rounds:
            rounds = [self._recorded(index) for index in range(state["round"])]  # refitted with the next rounds
            for index in range(state["round"], config.imitation_rounds):
                rounds.append(self._record(index))
                self._fit(index, rounds)
        return {**state["stats"], "rounds": state["rounds"], "seconds": self._seconds()}

    def _record(self, index: int) -> Demonstrations:
        """Round ``index``'s decisions: recorded (or the rest of them), or read back once whole."""
        if self.state["recorded"]:
            return self._recorded(index)
        weights = None if index == 0 else self.network.weights()  # DAgger: the network fitted so far plays
        demos = collect_demonstrations(self.config, index, weights, self.folder)
        self._save(recorded=True)
        return demos

    def _fit(self, index: int, rounds: list[Demonstrations]) -> None:
        """Fits round ``index`` (from its last whole epoch) on every round's decisions so far."""
        config, state = self.config, self.state
        everything = Demonstrations.concatenate(rounds) if len(rounds) > 1 else rounds[0]
        stats = state["stats"]
        if state["epochs"] < config.imitation_epochs:
            stats = imitate(self.network, everything, config, self.generator, index, state["epochs"],
                            state["optimizer"], self._fitted)
        summary = {"decisions": len(everything), "fit_agreement": stats["imitation_agreement"]}
        if index:
            demos = rounds[-1]
            summary["policy_agreement"] = float(np.mean(demos.played == demos.actions))
            tqdm.write(f"DAgger round {index + 1}: the network's play agreed with {config.imitation_agent} "
                       f"on {summary['policy_agreement']:.3f} of its decisions; refit on {len(everything):,}: "
                       f"{stats['imitation_agreement']:.3f}", file=sys.stderr)
        self._save(round=index + 1, recorded=False, epochs=0, optimizer=None, stats=stats,
                   rounds=state["rounds"] + [summary])

    def _recorded(self, index: int) -> Demonstrations:
        demos = recorded_streams(self.config, index, self.folder)
        if demos is None:
            raise CheckpointError(f"the warm start's round {index + 1} was recorded, but its decisions are no "
                                  f"longer whole in {self.folder}: start the run afresh with --force")
        return demos

    def _fitted(self, epochs: int, stats: dict[str, float], optimizer: dict[str, Any]) -> None:
        self._save(epochs=epochs, stats=stats, optimizer=optimizer)

    def _seconds(self) -> float:
        return self.state["seconds"] + time.perf_counter() - self._started

    def _save(self, **changes: Any) -> None:
        """``state.pt`` with ``changes``, the network, the generator and the time spent so far."""
        self.state.update(changes, network=self.network.weights(), generator=self.generator.get_state(),
                          seconds=self._seconds())
        self._started = time.perf_counter()
        path = self.folder / STATE
        tmp = path.with_name(path.name + ".tmp")
        with deferred_signals():  # a stop waits for the state to be whole
            self.folder.mkdir(parents=True, exist_ok=True)
            torch.save(self.state, tmp)
            tmp.replace(path)
