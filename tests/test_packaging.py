"""The declared dependencies are honest: the lowest version that each range of the README's
set-up admits (the project's own requirements, the ``train`` and ``dev`` extras) is pinned in
``.ci/floors.txt``, which ``bash .ci/floors`` installs exactly to run the fast suite on; so a
floor raised or lowered in one place and not the other fails here."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
SET_UP_EXTRAS = ("train", "dev", "browser")
"""The extras that the README's install command brings (``dev`` includes ``browser``)."""


def floors() -> dict[str, str]:
    """Each requirement of the README's set-up, by its normalised name, to its lowest version."""
    requirements = PROJECT["dependencies"] + [r for extra in SET_UP_EXTRAS
                                               for r in PROJECT["optional-dependencies"][extra]]
    found = {}
    for requirement in requirements:
        name, spec = re.match(r"([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*(.*)", requirement.split(";")[0]).groups()
        if name.replace("-", "_") == PROJECT["name"]:
            continue  # the project's own extras
        lowest = re.search(r">=\s*([\w.]+)", spec)
        assert lowest, f"{requirement!r} has no lowest version: every requirement needs a tested floor"
        found[name.lower().replace("_", "-")] = lowest.group(1)
    return found


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
