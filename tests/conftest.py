"""The test suite's switches: tests marked ``slow`` (long random-play sweeps, oracles at
volume, training and evaluation runs) are left out unless a ``-m`` expression asks for
them, so that ``python -m pytest -n 2`` stays fast; CI then runs ``-m slow``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Callable

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: a long sweep, left out unless selected with -m (CI runs -m slow)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The reference's run of a sweep (each_backend_reference_slow) takes the sweep's fast cases
    # only: its slow cases run on the core, and doubling them would double CI's longest part.
    doubled = [item for item in items if _reference_run_of_a_slow_case(item)]
    if doubled:
        config.hook.pytest_deselected(items=doubled)
        items[:] = [item for item in items if not _reference_run_of_a_slow_case(item)]
    if config.option.markexpr:
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


def _reference_run_of_a_slow_case(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    reference = callspec is not None and callspec.params.get("each_backend_reference_slow") == "python"
    return reference and len(list(item.iter_markers("slow"))) > 1  # slow of itself, not only as the reference's


@pytest.fixture(scope="session")
def benchmark() -> Callable[[str], ModuleType]:
    """Imports a script of ``benchmarks/`` by name (they are scripts, not a package)."""
    def load(name: str) -> ModuleType:
        if name not in sys.modules:
            spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # its dataclasses look themselves up there
            spec.loader.exec_module(module)
        return sys.modules[name]
    return load


@pytest.fixture(params=["native", "python"])
def each_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs a test once on the compiled core and once on the Python reference engine (the
    default backend of every env the test builds, and of the solvers every rule component
    reads, through ``RUMMY_ENV_BACKEND``). Each game's rules module applies it to all its
    tests."""
    monkeypatch.setenv("RUMMY_ENV_BACKEND", request.param)
    return request.param


@pytest.fixture(params=["native", pytest.param("python", marks=pytest.mark.slow)])
def each_backend_reference_slow(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """``each_backend`` with the reference's run marked slow: for the long invariant sweeps,
    which the fast suite runs on the default backend only."""
    monkeypatch.setenv("RUMMY_ENV_BACKEND", request.param)
    return request.param
