"""Reading the tables of an env module's docstring (its spec), so that the API suites can
check the action layout and the observation parts against what the docstring says."""

from __future__ import annotations

import re
from types import ModuleType


def table_rows(section: str, columns: int) -> list[list[str]]:
    """The body rows of the markdown tables in ``section`` that have ``columns`` cells."""
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != columns or cells[0] in ("part", "block", "") or set(cells[0]) <= set("-"):
            continue
        rows.append(cells)
    return rows


def eval_size(expr: str, **names: int) -> int:
    """A docstring size such as ``53 (n-1)``, ``20 x 53``, ``3n (n + 107)`` or ``2971 + 57M``."""
    expr = expr.replace(" x ", " * ")
    expr = re.sub(r"(\d|[nMD]|\))\s*(?=[(nMD])", r"\1 * ", expr)
    return eval(expr, {"__builtins__": {}}, names)


def observation_table(module: ModuleType, n: int) -> list[tuple[str, int]]:
    """``(part, size)`` of the docstring's observation table for ``n`` players."""
    doc = module.__doc__
    section = doc[doc.index("## Observation"):doc.index("## Rewards")]
    return [(cells[0], eval_size(cells[1], n=n)) for cells in table_rows(section, 3)]
