"""The games a ``rummy-serve`` server holds, without the web: each ``ServedGame`` is one
game dealt exactly as the AEC env's ``reset(seed=seed)`` deals it, a person in one seat (or
none: agents in every seat, watched), agents in the others, and what each view shows.

A person's view is ``describe(agent)`` of their seat (runs in order), plus what the server
adds from public facts only: the legal actions as text, the hand arranged into melds, the
cards the person drew this turn, the actions since the person's last turn and the last
few of the game, and each finished round's hands as they were scored. A watched game's view
is ``describe()``, every hand. Nothing here ever puts another seat's hidden cards or the stock's order into a person's
view; only a finished game's recording holds every hand.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from pathlib import Path
from typing import Any, Sequence

from ..agents import Agent, Episode, make_agent
from ..hand_view import HandNotes, arranged_hand, marked_drawn
from ..recording import RecordingWrapper, record_line
from ..registry import GAMES, game_spec
from ..replay import game_view

LOG = logging.getLogger("rummy-serve")
BASELINES = ("random", "greedy", "expert")
LOG_SHOWN = 30
"""A view's ``log`` holds the last this many actions (the whole game is in its recording)."""
SINCE_SHOWN = 300
"""A view's ``since`` holds at most this many of the actions since the person's last."""


class GameError(Exception):
    """A request the server refuses: its HTTP status, a message, and any data to add."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


def offered_agents(checkpoint_folder: Path | None, extra: Sequence[str] = ()) -> list[str]:
    """The agent specs a page may choose: the baselines, every ``*.pt`` under
    ``checkpoint_folder``, and the specs given on the command line."""
    found = sorted(str(p) for p in checkpoint_folder.rglob("*.pt")) if checkpoint_folder and checkpoint_folder.is_dir() else []
    return list(dict.fromkeys([*BASELINES, *found, *extra]))


class ServedGame:
    """One game on the server (see the module docstring). Every method takes the game's lock."""

    def __init__(self, game: str, num_players: int | None, seat: int | None, opponents: Sequence[str],
                 seed: int | None, rules: dict[str, Any], offered: Sequence[str]) -> None:
        if game not in GAMES:
            raise GameError(400, f"unknown game {game!r}; games are {', '.join(GAMES)}")
        spec = game_spec(game)
        players = num_players or spec.default_players
        if players not in spec.player_counts:
            raise GameError(400, f"{game} is played by {', '.join(map(str, spec.player_counts))} players, not {players}")
        if seat is not None and not 0 <= seat < players:
            raise GameError(400, f"seat must be 0..{players - 1} (or null to watch agents), not {seat}")
        others = players - (seat is not None)
        if len(opponents) not in (1, others):
            raise GameError(400, f"opponents takes one agent spec for every other seat or {others} (one per seat), "
                                 f"not {len(opponents)}")
        specs = list(opponents) * others if len(opponents) == 1 else list(opponents)
        for spec_text in specs:
            if spec_text not in offered:
                raise GameError(400, f"unknown agent {spec_text!r}: this server offers {', '.join(offered)} "
                                     "(rummy-serve --agent SPEC offers more)")
        try:
            env = spec.env(num_players=players, **rules)
            raw = env.unwrapped
            if seed is not None:
                raw.engine.check_seed(seed)
            agents: list[Agent | None] = [make_agent(s) for s in specs]
        except (TypeError, ValueError) as err:
            raise GameError(400, str(err)) from None
        if seat is not None:
            agents.insert(seat, None)
            specs.insert(seat, "person")
        self.id = secrets.token_hex(8)
        self.token = secrets.token_urlsafe(24)
        self.game, self.seat, self.specs, self.seed = game, seat, specs, seed
        self.lock = threading.RLock()
        self.used = time.monotonic()
        self.version = 0
        """Changes with every step: live updates send a view when it moves."""
        self.recorder = RecordingWrapper(env, players=specs)
        self.episode = Episode(self.recorder)
        self.episode.reset(seed)
        self.raw = raw
        self.agents = agents
        for s, agent in enumerate(agents):
            if agent is not None:
                try:
                    agent.start_game(self.episode.seat_infos[s], None if seed is None else seed * 1_000_003 + s)
                except ValueError as err:  # a checkpoint for other rules or player counts, say
                    raise GameError(400, f"{specs[s]} cannot play seat {s} of this game: {err}") from None
        self.notes = HandNotes(raw)
        self.log: list[list[Any]] = []
        """Every action so far: [number from 1, seat, text, round from 1]."""
        self.rounds: list[dict[str, Any]] = []
        """Each finished round: its number, penalties and every hand as it was scored."""
        self.drawn: list[str] = []
        """The cards the person took into hand this turn."""
        self.last_own = 0
        """The number in ``log`` of the person's last action outside their turn or ending it (0: none yet)."""
        self.error: str | None = None
        """Why the game stopped early: an agent that raised or chose an illegal action."""
        if seat is not None:
            self.play_agents()

    # ---------------------------------------------------------------- playing
    @property
    def over(self) -> bool:
        return self.episode.over or self.error is not None

    def _step(self, seat: int, action: int) -> None:
        round_number = self.raw.game_state.round + 1
        self.notes.before()
        self.episode.step(action)
        taken, round_end = self.notes.after(seat, action)
        self.log.append([len(self.log) + 1, seat, self.raw.layout.text(action), round_number])
        if seat == self.seat and self.raw.game_state.current != self.seat:
            self.last_own = len(self.log)  # a step of the person's that ended their turn (or a buy answer)
        if round_end is not None:
            self.rounds.append(round_end)
            self.drawn = []
        elif self.seat is not None:  # only the person's own cards: the others' stay hidden
            self.drawn = marked_drawn(self.drawn, taken[self.seat], self.seat, seat, self.raw.game_state.current)
        self.version += 1

    def _agent_turn(self) -> None:
        seat = self.episode.seat
        agent = self.agents[seat]
        try:
            action = agent.act(self.episode.decision())
            if not self.raw.observe(self.raw.agent_selection)["action_mask"][action]:
                raise ValueError(f"chose the illegal action {action}")
        except Exception as err:  # an agent's failure ends its game, never the server
            # its message may name the agent's own cards: the server's log has it, the person does not
            LOG.exception("game %s: %s in seat %d failed", self.id, self.specs[seat], seat)
            self.error = f"{self.specs[seat]} (seat {seat}) failed ({type(err).__name__}): the game is stopped"
            self.version += 1
            return
        self._step(seat, int(action))

    def play_agents(self) -> None:
        """Agents play until the person is to act or the game ends."""
        while not self.over and self.episode.seat != self.seat:
            self._agent_turn()

    def play(self, text: str) -> None:
        """The person's action, by its text; then the agents play until the person is to act again."""
        with self.lock:
            if self.seat is None:
                raise GameError(409, "agents play every seat of this game: step it instead")
            if self.over:
                raise GameError(409, self.error or "the game is over", legal=[])
            legal = self.legal()
            if self.episode.seat != self.seat:
                raise GameError(409, f"it is not your turn: {self.raw.agent_selection} is to act", legal=legal)
            try:
                action = self.raw.text_to_action(text)
            except ValueError as err:
                raise GameError(409, f"{err}; legal now: {', '.join(legal)}", legal=legal) from None
            if self.raw.layout.text(action) not in legal:
                raise GameError(409, f"{self.raw.layout.text(action)!r} is not legal now; legal now: {', '.join(legal)}",
                                legal=legal)
            self._step(self.seat, action)
            self.play_agents()

    def step_agents(self, steps: int) -> None:
        """A watched game: the next ``steps`` decisions."""
        with self.lock:
            if self.seat is not None:
                raise GameError(409, "a person plays in this game: post actions instead")
            for _ in range(steps):
                if self.over:
                    break
                self._agent_turn()

    def legal(self) -> list[str]:
        """The person's legal actions as text (none when it is not their turn)."""
        if self.over or self.episode.seat != self.seat:
            return []
        return self.raw.legal_actions_text()

    # ---------------------------------------------------------------- what is shown
    def view(self) -> dict[str, Any]:
        """What the person (or, in a watched game, the watcher) is shown now."""
        with self.lock:
            raw, state = self.raw, self.raw.game_state
            agent = None if self.seat is None else raw.possible_agents[self.seat]
            view = game_view(raw, agent)
            view.update({
                "id": self.id, "seat": self.seat, "you": agent, "players": self.specs, "seed": self.seed,
                "deck": raw.rules.deck.kind,
                "version": self.version, "legal": self.legal(), "over": self.over, "error": self.error,
                "actions": len(self.log), "log": self.log[-LOG_SHOWN:], "rounds": self.rounds,
                "since": self.log[self.last_own:][-SINCE_SHOWN:] if self.seat is not None else [],
                "result": None if not self.episode.over else {
                    "scores": list(state.scores), "winners": raw.engine.winners(state)},
            })
            if self.seat is not None and not self.episode.over:
                view["hand"] = arranged_hand(raw.engine, state.hands[self.seat], state.round)
                view["drawn"] = list(self.drawn)
                view["penalty"] = raw.engine.hand_penalty(state, self.seat)
            elif self.seat is None and not self.episode.over:
                view["arranged"] = [arranged_hand(raw.engine, hand, state.round) for hand in state.hands]
            return view

    def recording(self) -> str:
        """The finished game as a recording's line (docs/recording.md)."""
        with self.lock:
            if not self.recorder.records:
                raise GameError(409, "only a finished game can be downloaded: the recording holds every hand")
            return record_line(self.recorder.records[-1])


class GameStore:
    """The server's games by id; a game idle for ``idle_seconds`` is dropped."""

    def __init__(self, idle_seconds: float, max_games: int) -> None:
        self.idle_seconds, self.max_games = idle_seconds, max_games
        self.games: dict[str, ServedGame] = {}
        self.lock = threading.Lock()

    def add(self, game: ServedGame) -> None:
        with self.lock:
            self._sweep()
            if len(self.games) >= self.max_games:
                raise GameError(503, f"the server holds {self.max_games} games already: try again later")
            self.games[game.id] = game

    def get(self, game_id: str, token: str | None) -> ServedGame:
        """The game, once its token is checked (401 without one, 403 with another's)."""
        with self.lock:
            self._sweep()
            game = self.games.get(game_id)
        if game is None:
            raise GameError(404, f"no game {game_id!r} on this server (a game idle for "
                                 f"{self.idle_seconds:.0f} s is cleaned up)")
        if not token:
            raise GameError(401, "this request needs the game's token: an 'Authorization: Bearer TOKEN' header")
        if not secrets.compare_digest(token.encode(), game.token.encode()):
            raise GameError(403, "that token is not this game's")
        game.used = time.monotonic()
        return game

    def sweep(self) -> int:
        """Drops the idle games; how many."""
        with self.lock:
            return self._sweep()

    def _sweep(self) -> int:
        now = time.monotonic()
        idle = [key for key, game in self.games.items() if now - game.used > self.idle_seconds]
        for key in idle:
            del self.games[key]
        return len(idle)
