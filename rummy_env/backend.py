"""Which engine answers the rules' queries: the compiled core (``native``, the default) or
the pure-Python reference (``python``) that the core is checked against.

The default comes from the environment variable ``RUMMY_ENV_BACKEND`` (``native`` or
``python``), so that a whole test run or program can be switched without changing code;
``solver(card_set, rules, backend=...)`` picks one explicitly.
"""

from __future__ import annotations

import os
from typing import Literal, Sequence

from . import _core
from .cards import CardSet
from .contract_solver import ContractSolver
from .meld_solver import batch_of_hands
from .melds import Meld, MeldRules

Backend = Literal["native", "python"]
BACKENDS: tuple[Backend, ...] = ("native", "python")


def default_backend() -> Backend:
    """``RUMMY_ENV_BACKEND`` when set, else ``native``."""
    name = os.environ.get("RUMMY_ENV_BACKEND", "native")
    if name not in BACKENDS:
        raise ValueError(f"RUMMY_ENV_BACKEND must be one of {', '.join(BACKENDS)}, not {name!r}")
    return name  # type: ignore[return-value]


class CompiledSolver(ContractSolver):
    """Every query of ``ContractSolver`` answered by the compiled core
    (``src/core/meld_solver.cpp``, ``contract_solver.cpp``); from the Python reference it
    inherits its interface and the checks of a placed meld (``is_valid``, ``run_placements``).
    The core enumerates melds in the reference's order, so even ``best_arrangement``'s choice
    is the same."""

    def __init__(self, card_set: CardSet, rules: MeldRules) -> None:
        super().__init__(card_set, rules)
        self._core = _core.ContractSolver(
            card_set.num_suits, card_set.num_ranks, rules.set_min,
            -1 if rules.set_max is None else rules.set_max, rules.set_distinct_suits,
            rules.run_min, rules.ace_high, rules.all_wild_melds)

    def __reduce__(self):
        # a copy (another process's) starts with empty memos: answers never depend on them
        return CompiledSolver, (self.card_set, self.rules)

    def can_meld_all(self, counts: list[int], wilds: int) -> bool:
        return self._core.can_meld_all(counts, wilds)

    def meldable_without_one(self, counts: list[int], wilds: int) -> tuple[list[int], bool]:
        return self._core.meldable_without_one(counts, wilds)

    def min_penalty(self, counts: list[int], wilds: int, values: Sequence[int], wild_value: int) -> int:
        return self._core.min_penalty(counts, wilds, values, wild_value)

    def can_make_contract(self, counts: list[int], wilds: int, sets: int, runs: int) -> bool:
        return self._core.can_make_contract(counts, wilds, sets, runs)

    def can_make_contract_with(self, counts: Sequence[int], wilds: int, sets: int, runs: int, face: int) -> bool:
        return self._core.can_make_contract_with(counts, wilds, sets, runs, face)

    def each_could_meld(self, counts: Sequence[int], wilds: int, must: Sequence[int], sets: int, runs: int) -> bool:
        return self._core.each_could_meld(counts, wilds, must, sets, runs)

    def can_partition(self, counts: list[int], wilds: int, sets: int, runs: int) -> bool:
        return self._core.can_partition(counts, wilds, sets, runs)

    def min_penalty_many(self, counts, wilds, values: Sequence[int], wild_value: int):
        return self._core.min_penalty_many(*batch_of_hands(counts, wilds, self.card_set.num_naturals), values, wild_value)

    def can_meld_all_many(self, counts, wilds):
        return self._core.can_meld_all_many(*batch_of_hands(counts, wilds, self.card_set.num_naturals))

    def meldable_without_one_many(self, counts, wilds):
        return self._core.meldable_without_one_many(*batch_of_hands(counts, wilds, self.card_set.num_naturals))

    def can_make_contract_many(self, counts, wilds, sets: int, runs: int):
        return self._core.can_make_contract_many(*batch_of_hands(counts, wilds, self.card_set.num_naturals), sets, runs)

    def best_arrangement(
        self, counts: list[int], wilds: int, values: Sequence[int], wild_value: int
    ) -> tuple[int, list[Meld], list[int], int]:
        penalty, placed, unmatched, left = self._core.best_arrangement(counts, wilds, values, wild_value)
        melds = [
            Meld("set", tuple(naturals), used, rank=rank) if is_set
            else Meld("run", tuple(naturals), used, suit=suit, low=low, high=high)
            for is_set, naturals, used, rank, suit, low, high in placed
        ]
        return penalty, melds, unmatched, left


def seed_words(seed: int) -> list[int]:
    """How CPython's ``random.seed`` reads an int: the 32-bit words of its absolute value,
    least significant first (``[0]`` for 0), the key of the core's ``PyRandom``."""
    n = abs(seed)
    return [(n >> (32 * k)) & 0xFFFFFFFF for k in range(max(1, -(-n.bit_length() // 32)))]


def solver(card_set: CardSet, rules: MeldRules, backend: Backend | None = None) -> ContractSolver:
    """A meld and contract solver for one deck and one set of meld rules."""
    backend = backend or default_backend()
    if backend == "python":
        return ContractSolver(card_set, rules)
    if backend != "native":
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    return CompiledSolver(card_set, rules)
