"""The layers point one way (docs/architecture.md#layers): core, rules, engine, env, agents,
evaluation, and the trainer above them all. ``import rummy_env`` and everything it offers
(every game, the baselines, the tournament harness) run without torch or the trainer; a
checkpoint is played through the agent-kind entry point that the trainer declares."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import rummy_env
from rummy_env import agents

PACKAGE = Path(rummy_env.__file__).parent

LAYERS = ("core", "rules", "engine", "env", "agents", "evaluation")
LAYER_OF = {
    "cards": "core", "melds": "core", "meld_solver": "core", "contract_solver": "core", "state": "core",
    "rules": "rules", "actions": "rules",
    "engine": "engine", "observation": "engine", "observation_view": "engine",
    "env": "env", "registry": "env", "__init__": "env",
    "agents": "agents",
    "evaluate": "evaluation",
}
"""The layer of each module of ``rummy_env`` by its first name below the package (``rules``
and ``agents`` are packages: all their modules); every ``<game>_v0`` env module is in env."""

ABOVE_THE_PACKAGE = ("rummy_training", "training", "torch")


def layer(module: str) -> str:
    """The layer of a ``rummy_env`` module given as its dotted name below the package."""
    first = module.split(".")[0]
    if first.endswith("_v0"):
        return "env"
    assert first in LAYER_OF, f"rummy_env.{module} is in no layer: place it in LAYER_OF (docs/architecture.md)"
    return LAYER_OF[first]


def imports_of(path: Path) -> list[str]:
    """Every module the file imports, as absolute dotted names."""
    own = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = own if own[-1] == "__init__" else own[:-1]
    package = package[:-1] if package[-1] == "__init__" else package
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            target = ".".join(p for p in (base, node.module or "") if p)
            # ``from . import x`` imports the module x, if there is one, else a name of the package
            found += [f"{target}.{a.name}" if _is_module(f"{target}.{a.name}") else target for a in node.names]
    return found


def _is_module(dotted: str) -> bool:
    path = PACKAGE.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down_the_layers(path: Path):
    me = ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
    for name in imports_of(path):
        assert name.split(".")[0] not in ABOVE_THE_PACKAGE, f"rummy_env.{me} imports {name}"
        if name.split(".")[0] == "rummy_env" and name != "rummy_env":
            theirs = name.removeprefix("rummy_env.")
            assert LAYERS.index(layer(theirs)) <= LAYERS.index(layer(me)), (
                f"rummy_env.{me} ({layer(me)}) imports {name} ({layer(theirs)}), a layer above it")


def test_the_layer_check_finds_an_import_from_above(tmp_path: Path):
    """The check itself: an engine module importing the agents is caught."""
    assert imports_of(PACKAGE / "rules" / "deal.py")  # it reads relative imports
    assert "rummy_env.state" in imports_of(PACKAGE / "rules" / "deal.py")
    assert LAYERS.index(layer("agents.base")) > LAYERS.index(layer("engine"))
    with pytest.raises(AssertionError, match="in no layer"):
        layer("a_new_module")


PLAY_EVERYTHING = """
import sys
import rummy_env
from rummy_env.agents import make_agent, play_game
from rummy_env.evaluate import evaluate
for name, spec in rummy_env.GAMES.items():
    env = spec.env()
    seats = [make_agent(("random", "greedy", "expert")[s % 3]) for s in range(spec.default_players)]
    result = play_game(env, seats, seed=1)
    assert len(result.round_penalties) == env.unwrapped.rules.num_rounds, name
evaluate("three_thirteen", ["expert", "greedy"], games=2, seed=0, players=2)
print(sorted(m for m in sys.modules if m.split(".")[0] in {above!r}))
"""


def test_every_game_baselines_and_evaluation_run_without_torch_or_the_trainer():
    out = subprocess.run([sys.executable, "-c", PLAY_EVERYTHING.format(above=set(ABOVE_THE_PACKAGE))],
                         capture_output=True, text=True, check=True, timeout=600)
    assert out.stdout.strip() == "[]"


def test_a_checkpoint_spec_without_the_trainer_installed_says_what_to_install(monkeypatch):
    monkeypatch.setattr(agents, "entry_points", lambda **kwargs: ())
    with pytest.raises(ValueError, match=r"no installed package provides the agent kind 'checkpoint' "
                                         r"\(entry-point group 'rummy_env.agent_kinds'\).*pip install -e '.\[train\]'"):
        agents.make_agent("checkpoints/three_thirteen.pt")
