"""The declared dependencies are honest: the lowest version that each range admits is one the
tests ran on. For the README's set-up (the project's own requirements, the ``train`` and
``dev`` extras) those versions are pinned in ``.ci/floors.txt``, which ``bash .ci/floors``
installs exactly to run the fast suite on; for the other extras, in ``.ci/floors-extras.txt``,
each tested with that extra's tests and examples. A floor raised or lowered in pyproject.toml
and not in those files fails here."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
SET_UP_EXTRAS = ("train", "dev", "browser", "serve")
"""The extras that the README's install command brings (``dev`` includes ``browser``)."""


def _floors(requirements: list[str]) -> dict[str, str]:
    """Each requirement (its name with any extras, normalised) to the lowest version it admits."""
    found = {}
    for requirement in requirements:
        name, extras, spec = re.match(r"([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*(.*)", requirement.split(";")[0]).groups()
        if name.replace("-", "_") == PROJECT["name"]:
            continue  # the project's own extras
        lowest = re.search(r">=\s*([\w.]+)", spec)
        assert lowest, f"{requirement!r} has no lowest version: every requirement needs a tested floor"
        found[name.lower().replace("_", "-") + (extras or "")] = lowest.group(1)
    return found


def floors() -> dict[str, str]:
    """The README's set-up: its requirements to their lowest versions."""
    return _floors(PROJECT["dependencies"] + [r for extra in SET_UP_EXTRAS for r in PROJECT["optional-dependencies"][extra]])


def pinned() -> dict[str, str]:
    pins = {}
    for line in (REPO / ".ci" / "floors.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[name.strip().lower().replace("_", "-")] = version.strip()
    return pins


def _release(version: str) -> tuple[int, ...]:
    """A release as numbers, padded (``6`` and ``6.0.0`` are one release)."""
    parts = tuple(int(part) for part in version.split("."))
    return parts + (0,) * (4 - len(parts))


def test_every_floor_of_the_set_up_is_the_version_the_floors_check_installs():
    declared, pins = floors(), pinned()
    assert set(declared) == set(pins), sorted(set(declared) ^ set(pins))
    for name, lowest in declared.items():
        assert _release(pins[name]) == _release(lowest), (name, lowest, pins[name])


def test_every_floor_of_the_other_extras_is_one_that_was_tested():
    pins: dict[tuple[str, str], str] = {}
    for line in (REPO / ".ci" / "floors-extras.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            extra, requirement = line.split(":", 1)
            name, version = requirement.strip().split("==")
            pins[extra.strip(), name.lower().replace("_", "-")] = version
    declared = {(extra, name): lowest for extra, requirements in PROJECT["optional-dependencies"].items()
                if extra not in SET_UP_EXTRAS for name, lowest in _floors(requirements).items()}
    assert set(declared) == set(pins), sorted(set(declared) ^ set(pins))
    for key, lowest in declared.items():
        assert _release(pins[key]) == _release(lowest), (key, lowest, pins[key])
