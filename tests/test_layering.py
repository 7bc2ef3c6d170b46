"""The layers point one way (docs/architecture.md#layers): core, rules, engine, env, agents,
evaluation, and the trainer above them all. ``import rummy_env`` and everything it offers
(every game, the baselines, the tournament harness) run without torch or the trainer; a
checkpoint is played through the agent-kind entry point that the trainer declares."""

from __future__ import annotations

import ast
from importlib.machinery import EXTENSION_SUFFIXES
import subprocess
import sys
from pathlib import Path

import pytest

import rummy_env
from rummy_env import agents

PACKAGE = Path(rummy_env.__file__).parent

LAYERS = ("core", "rules", "engine", "env", "agents", "evaluation")
LAYER_OF = {
    "cards": "core", "melds": "core", "meld_solver": "core", "contract_solver": "core", "state": "core", "cli": "core",
    "backend": "core", "_core": "core",
    "rules": "rules", "actions": "rules",
    "engine": "engine", "observation": "engine", "observation_view": "engine", "table": "engine",
    "vector": "env", "vector_env": "env",
    "env": "env", "registry": "env", "__init__": "env",
    "agents": "agents", "wrappers": "agents", "recording": "agents",
    "hand_view": "env",
    "evaluate": "evaluation", "play": "evaluation", "replay": "evaluation", "replay_page": "evaluation",
    "serve": "evaluation",
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


def imports_of(path: Path, root: Path = PACKAGE.parent) -> list[str]:
    """Every module the file under ``root`` imports, as absolute dotted names."""
    own = path.relative_to(root).with_suffix("").parts
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
            found += [f"{target}.{a.name}" if _is_module(root, f"{target}.{a.name}") else target for a in node.names]
    return found


def _is_module(root: Path, dotted: str) -> bool:
    path = root.joinpath(*dotted.split("."))
    compiled = any(path.with_name(path.name + suffix).is_file() for suffix in EXTENSION_SUFFIXES)
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file() or compiled


def import_problems(path: Path, package: Path = PACKAGE) -> list[str]:
    """What is wrong with the imports of the module at ``path`` in ``package``: the trainer or
    torch imported, or a module of a higher layer. The module must have a layer itself."""
    me = ".".join(path.relative_to(package).with_suffix("").parts)
    mine = layer(me)
    problems = []
    for name in imports_of(path, package.parent):
        top = name.split(".")[0]
        if top in ABOVE_THE_PACKAGE:
            problems.append(f"rummy_env.{me} imports {name}")
        elif top == "rummy_env":
            theirs = name.removeprefix("rummy_env").removeprefix(".") or "__init__"  # the package is its __init__
            if LAYERS.index(layer(theirs)) > LAYERS.index(mine):
                problems.append(f"rummy_env.{me} ({mine}) imports {name} ({layer(theirs)}), a layer above it")
    return problems


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down_the_layers(path: Path):
    problems = import_problems(path)
    assert not problems, "\n".join(problems)


def test_the_layer_check_finds_imports_from_above_and_modules_without_a_layer(tmp_path: Path):
    """The check itself, on a planted package: every kind of import from above is caught, and
    a module missing from ``LAYER_OF`` fails even when it imports nothing of the package."""
    package = tmp_path / "rummy_env"
    (package / "rules").mkdir(parents=True)
    (package / "agents").mkdir()
    for empty in ("__init__.py", "rules/__init__.py", "agents/__init__.py", "agents/base.py", "a_new_module.py"):
        (package / empty).write_text("")
    planted = package / "rules" / "planted.py"
    planted.write_text("import torch\n"
                       "from ..agents import base\n"
                       "from rummy_env import GAMES\n"
                       "from . import deal\n"
                       "def later():\n"
                       "    from rummy_training.checkpoint import PolicyAgent\n")
    assert sorted(import_problems(planted, package)) == [
        "rummy_env.rules.planted (rules) imports rummy_env (env), a layer above it",
        "rummy_env.rules.planted (rules) imports rummy_env.agents.base (agents), a layer above it",
        "rummy_env.rules.planted imports rummy_training.checkpoint",
        "rummy_env.rules.planted imports torch",
    ]
    with pytest.raises(AssertionError, match="rummy_env.a_new_module is in no layer"):
        import_problems(package / "a_new_module.py", package)


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
print(sorted({{m.split(".")[0] for m in sys.modules}} & {above!r}))
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


def component_cycle(root: object) -> list[str]:
    """A cycle among the rule components reachable from ``root`` through their attributes
    (as class names, the first repeated), or ``[]``."""
    def is_component(value: object) -> bool:
        return type(value).__module__.startswith("rummy_env.rules.") and hasattr(value, "__dict__")

    def visit(node: object, path: list[object]) -> list[str]:
        if any(node is seen for seen in path):
            start = next(k for k, seen in enumerate(path) if seen is node)
            return [type(n).__name__ for n in path[start:] + [node]]
        for value in vars(node).values():
            if is_component(value):
                found = visit(value, path + [node])
                if found:
                    return found
        return []

    return visit(root, [])


@pytest.mark.parametrize("game", list(rummy_env.GAMES))
def test_no_rule_component_points_back_to_one_that_uses_it(game: str):
    engine = rummy_env.GAMES[game].env().unwrapped.engine
    components = [value for value in vars(engine).values() if type(value).__module__.startswith("rummy_env.rules.")]
    assert len(components) >= 4
    for component in components:
        assert component_cycle(component) == [], game


def test_the_cycle_check_finds_a_back_pointer():
    engine = rummy_env.GAMES["toonerville_rook"].env().unwrapped.engine
    assert component_cycle(engine.drawing) == []
    engine.buying.drawing = engine.drawing  # what the engine once wired after construction
    assert component_cycle(engine.drawing) == ["Drawing", "Buying", "Drawing"]
