"""Agents that play the games, and ``make_agent``, which builds one from a short text spec.

A spec names an agent on a command line or in a config, so that tournaments can be run in
worker processes (a spec is a string, so it pickles) and users can plug in their own code:

- ``random``, ``greedy``, ``expert``: the baselines (``AGENT_NAMES``). The heuristic
  baselines are imported only when asked for, so the rest works without their modules.
- ``module:Class``: a user's ``Agent`` subclass, imported and built with no arguments.
- a checkpoint path (containing ``/`` or ending in ``.pt``): a trained policy, built by the
  agent kind ``checkpoint`` that a package declares in the entry-point group
  ``rummy_env.agent_kinds`` (this project's trainer, ``rummy_training``, declares
  ``rummy_training.checkpoint:PolicyAgent``; it needs torch, the ``train`` extra). The agents
  never import the trainer: a kind is looked up, and loaded, only when a spec asks for it.
  A kind is a class called with the spec that returns an ``Agent`` (a ``ValueError`` says
  what is wrong with the file); docs/agents.md shows the declaration.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from .base import Agent, Decision, Episode, GameResult, RandomAgent, SeatInfo, play_game

# Where each named baseline lives, as ``module:Class``: imported on demand.
_BASELINES: dict[str, str] = {
    "random": "rummy_env.agents.base:RandomAgent",
    "greedy": "rummy_env.agents.heuristic:GreedyAgent",
    "expert": "rummy_env.agents.heuristic:ExpertAgent",
}

AGENT_NAMES: tuple[str, ...] = tuple(_BASELINES)

_ACCEPTED = (f"accepted: one of {', '.join(AGENT_NAMES)}; 'module:Class' naming an Agent subclass; "
             "or a checkpoint path (containing '/' or ending in '.pt')")


def is_checkpoint_spec(spec: str) -> bool:
    """Whether ``spec`` names a checkpoint file rather than an agent class."""
    return "/" in spec or spec.endswith(".pt")


def make_agent(spec: str) -> Agent:
    """A new agent for ``spec`` (see the module docstring); a ``ValueError`` that names the
    spec and what is accepted if it names no agent that can be built."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, not {spec!r}; {_ACCEPTED}")
    if is_checkpoint_spec(spec):
        return _agent_kind(spec, "checkpoint")(spec)  # a ValueError names what is wrong with the file
    if spec in _BASELINES:
        return _instantiate(spec, _load_class(spec, _BASELINES[spec]))
    if ":" in spec:
        return _instantiate(spec, _load_class(spec, spec))
    raise ValueError(f"unknown agent spec {spec!r}; {_ACCEPTED}")


AGENT_KINDS_GROUP = "rummy_env.agent_kinds"
"""The entry-point group of agent kinds that other packages provide (see the module docstring)."""


def _agent_kind(spec: str, kind: str) -> type[Agent]:
    """The agent class of ``kind`` from the installed entry points, or a ``ValueError``."""
    found = entry_points(group=AGENT_KINDS_GROUP, name=kind)
    if not found:
        raise ValueError(f"agent spec {spec!r} is a {kind} path, but no installed package provides the agent kind "
                         f"{kind!r} (entry-point group {AGENT_KINDS_GROUP!r}): install this project's trainer "
                         "with pip install -e '.[train]'")
    try:
        return next(iter(found)).load()
    except ImportError as err:
        raise ValueError(f"agent spec {spec!r} is a {kind} path: playing one needs the trainer's dependencies "
                         f"(pip install -e '.[train]'): {err}") from None


def _load_class(spec: str, target: str) -> type[Agent]:
    module_name, _, class_name = target.partition(":")
    if not module_name or not class_name:
        raise ValueError(f"agent spec {spec!r} must be 'module:Class'; {_ACCEPTED}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(f"agent spec {spec!r}: cannot import {module_name!r} ({err}); {_ACCEPTED}") from None
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ValueError(f"agent spec {spec!r}: module {module_name!r} has no {class_name!r}; {_ACCEPTED}")
    if not (isinstance(cls, type) and issubclass(cls, Agent)):
        raise ValueError(f"agent spec {spec!r}: {target} is not a subclass of rummy_env.agents.Agent; {_ACCEPTED}")
    return cls


def _instantiate(spec: str, cls: type[Agent]) -> Agent:
    try:
        return cls()
    except TypeError as err:
        raise ValueError(f"agent spec {spec!r}: {cls.__qualname__} must be constructible with no arguments "
                         f"({err})") from None


__all__ = ["AGENT_KINDS_GROUP", "AGENT_NAMES", "Agent", "Decision", "Episode", "GameResult", "RandomAgent", "SeatInfo", "is_checkpoint_spec",
           "make_agent", "play_game"]
