"""Play a game in the terminal against any agents: ``rummy-play GAME``.

    rummy-play three_thirteen                                      # you in seat 0, greedy elsewhere
    rummy-play contract_rummy --opponents expert checkpoints/contract_rummy.pt greedy --seat 2
    rummy-play toonerville_rook --players 3 --seed 7

Each of your decisions shows the round (wild rank or contract), the discard pile's top, the
stock, the table's melds, every seat's score and hand size, what the other seats did since
your last decision, and your hand sorted by suit and rank with its best arrangement into
melds. You answer with the number of a legal action or its text (any unique beginning of
it; with readline, Tab completes); ``?`` lists the actions again and ``quit`` ends the
game. Anything else is answered and asked again. Round results and the final scores are
shown as they happen. A user's error on the command line is one line and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .agents import Agent, Decision, Episode, make_agent
from .cli import OneLineParser, fail
from .env import RummyEnv
from .evaluate import parse_env_kwarg
from .hand_view import HandNotes, arranged_hand, marked_drawn
from .registry import GAMES, game_spec


class Quit(Exception):
    """The player asked to end the game."""


class HumanAgent(Agent):
    """The seat the person at the keyboard plays: each decision is shown and asked for."""

    name = "human"

    def __init__(self, table: "TerminalTable") -> None:
        self.table = table

    def act(self, decision: Decision) -> int:
        return self.table.ask(decision)


class TerminalTable:
    """What the person sees and types, on ``console`` (reading answers from ``read``)."""

    def __init__(self, env: RummyEnv, seat: int, console: Console, read=input) -> None:
        self.env, self.seat, self.console, self.read = env, seat, console, read
        self.agent = env.possible_agents[seat]
        self.since_last: list[str] = []
        self.drawn: list[str] = []
        """The cards this seat took into hand this turn, marked in its hand."""

    # ---------------------------------------------------------------- what happened
    def record(self, seat: int, action: int, taken: list[list[str]], round_end: dict | None) -> None:
        """Notes a seat's action (``HandNotes.after``'s cards taken per seat and round's end
        with it), and shows a round's results when one has ended."""
        if seat != self.seat:
            self.since_last.append(f"{self.env.possible_agents[seat]}: {self.env.action_to_text(action)}")
        self.drawn = marked_drawn(self.drawn, taken[self.seat], self.seat, seat, self.env.game_state.current)
        if round_end is not None:
            self.drawn = []
            self.show_round(round_end)

    def show_round(self, round_end: dict) -> None:
        table = Table(title=f"Round {round_end['round']} over", title_style="bold")
        for column in ("seat", "penalty", "score", "hand as scored"):
            table.add_column(column, justify="left" if column in ("seat", "hand as scored") else "right")
        for seat, name in enumerate(self.env.possible_agents):
            you = " (you)" if seat == self.seat else ""
            hand = round_end["hands"][seat]
            shown = "  ".join([f"[{' '.join(meld)}]" for meld in hand["melds"]] + [" ".join(hand["loose"])]).strip()
            table.add_row(name + you, str(round_end["penalties"][seat]), str(self.env.game_state.scores[seat]),
                          escape(shown) or "(no cards)")
        self.console.print(table)

    def show_end(self) -> None:
        state = self.env.game_state
        winners = [self.env.possible_agents[s] + (" (you)" if s == self.seat else "")
                   for s in self.env.engine.winners(state)]
        self.console.print("[bold]Game over.[/bold] Final scores: "
                           + ", ".join(f"{a} {s}" for a, s in zip(self.env.possible_agents, state.scores))
                           + f". Winner: {' and '.join(winners)}.")

    # ---------------------------------------------------------------- a decision
    def show(self, legal: list[str]) -> None:
        d = self.env.describe(self.agent)
        console = self.console
        rule = (f"wild rank {d['wild_rank']}" if d["contract"] is None else
                f"contract: {d['contract']['sets']} set(s) + {d['contract']['runs']} run(s)")
        console.rule(f"{d['game']}, round {d['round']} of {d['num_rounds']}: {rule}")
        if self.since_last:
            console.print("Since your last turn: " + "; ".join(self.since_last))
            self.since_last = []
        seats = Table(show_header=True, box=None)
        for column in ("seat", "score", "cards", ""):
            seats.add_column(column)
        for name in self.env.possible_agents:
            notes = []
            if d["gone_down"][name]:
                notes.append("down")
            if name == d["to_act"]:
                notes.append("to act")
            seats.add_row(name + (" (you)" if name == self.agent else ""), str(d["scores"][name]),
                          str(d["hand_sizes"][name]), ", ".join(notes))
        console.print(seats)
        top = d["discard"][-1] if d["discard"] else "(empty)"
        size = len(d["discard"])
        console.print(f"Discard pile: [bold]{top}[/bold] ({size} card{'s' if size != 1 else ''})   "
                      f"Stock: {d['stock_size']}")
        for meld in d["melds"]:
            stands = f" (wilds as {' '.join(meld['represents'])})" if meld["kind"] == "run" and meld["represents"] else ""
            console.print(f"  table meld {meld['slot']} ({meld['owner']}, {meld['kind']}): "
                          f"{' '.join(meld['cards'])}{stands}")
        if d.get("buy_question"):
            console.print(f"[bold]Buy?[/bold] {d['buy_question']['card']} is on offer to you")
        console.print("Your hand: " + self.hand_text())
        for i, text in enumerate(legal, 1):
            console.print(f"  [cyan]{i:>3}[/cyan]  {text}")

    def hand_text(self) -> str:
        """The hand grouped into the melds of a least-penalty arrangement (``hand_view``), the
        cards drawn this turn marked with ``*``."""
        state = self.env.game_state
        shown = arranged_hand(self.env.engine, state.hands[self.seat], state.round)
        drawn = list(self.drawn)

        def text(card: str) -> str:
            if card in drawn:
                drawn.remove(card)
                return f"[bold yellow]*{card}[/bold yellow]"
            return card

        parts = [f"[green][{' '.join(map(text, meld))}][/green]" for meld in shown["melds"]]
        if shown["loose"]:
            parts.append(" ".join(map(text, shown["loose"])))
        return "  ".join(parts) or "(empty)"

    def ask(self, decision: Decision) -> int:
        legal_ids = [int(a) for a in decision.legal_actions]
        legal = [self.env.action_to_text(a) for a in legal_ids]
        self.show(legal)
        _complete_with(legal)
        while True:
            try:
                answer = self.read("Your action (number or text, ? lists, quit ends): ").strip()
            except EOFError:
                raise Quit from None
            if answer.lower() in ("quit", "exit", "q"):
                raise Quit
            if answer in ("?", "help"):
                self.show(legal)
                continue
            chosen, problem = choose(answer, legal)
            if chosen is not None:
                return legal_ids[chosen]
            self.console.print(f"[red]{problem}[/red]")


def choose(answer: str, legal: Sequence[str]) -> tuple[int | None, str]:
    """The index in ``legal`` that ``answer`` picks (a menu number, an action's text or a
    unique beginning of one, any case), or ``None`` and what is wrong with it."""
    if answer.isdigit():
        number = int(answer)
        if 1 <= number <= len(legal):
            return number - 1, ""
        return None, f"{number} is not on the menu: choose 1 to {len(legal)}"
    wanted = " ".join(answer.lower().split())
    if not wanted:
        return None, "type the number or the text of an action (? lists them)"
    exact = [i for i, text in enumerate(legal) if text.lower() == wanted]
    if exact:
        return exact[0], ""
    starts = [i for i, text in enumerate(legal) if text.lower().startswith(wanted)]
    if len(starts) == 1:
        return starts[0], ""
    if starts:
        shown = ", ".join(legal[i] for i in starts[:6]) + (", ..." if len(starts) > 6 else "")
        return None, f"{answer!r} could be {len(starts)} actions: {shown}"
    return None, f"{answer!r} is not a legal action now (? lists them)"


def _complete_with(options: Sequence[str]) -> None:
    """Tab completion of the legal actions' text, where readline is available."""
    try:
        import readline
    except ImportError:  # e.g. Windows without pyreadline: the numbered menu does
        return

    def complete(text: str, state: int) -> str | None:
        line = readline.get_line_buffer().lower()
        matches = [o for o in options if o.lower().startswith(line)]
        return matches[state][len(line) - len(text):] if state < len(matches) else None

    readline.set_completer_delims("")
    readline.set_completer(complete)
    readline.parse_and_bind("tab: complete")


def play(env: RummyEnv, opponents: Sequence[Agent], seat: int, seed: int | None, console: Console,
         read=input) -> bool:
    """Plays one game with the person in ``seat``; False if they quit."""
    table = TerminalTable(env, seat, console, read)
    agents = list(opponents)
    agents.insert(seat, HumanAgent(table))
    episode = Episode(env)
    episode.reset(seed)
    notes = HandNotes(env)
    for s, agent in enumerate(agents):
        agent.start_game(episode.seat_infos[s], None if seed is None else seed * 1_000_003 + s)
    try:
        while not episode.over:
            acting = episode.seat
            action = agents[acting].act(episode.decision())
            notes.before()
            episode.step(action)
            table.record(acting, action, *notes.after(acting, action))
    except Quit:
        console.print("Game ended by the player.")
        return False
    table.show_end()
    return True


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="rummy-play", description="Play a game in the terminal against agents.")
    parser.add_argument("game", choices=list(GAMES), help="the game to play")
    parser.add_argument("--players", type=int, help="player count (default: the game's default)")
    parser.add_argument("--opponents", nargs="+", default=["greedy"], metavar="SPEC",
                        help="agent specs of the other seats in seat order, or one for all (default greedy): "
                             "random, greedy, expert, module:Class or a checkpoint path")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument("--seed", type=int, help="the game's seed (default: a new game each time)")
    parser.add_argument("--env-kwargs", nargs="+", type=parse_env_kwarg, default=[], metavar="KEY=VALUE",
                        help="rule configuration, values as Python literals (e.g. max_turns_per_round=100)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    spec = game_spec(args.game)
    players = args.players or spec.default_players
    if players not in spec.player_counts:
        fail(parser.prog, f"{args.game} is played by {', '.join(map(str, spec.player_counts))} players, not {players}")
    if not 0 <= args.seat < players:
        fail(parser.prog, f"--seat must be 0..{players - 1}, not {args.seat}")
    if len(args.opponents) not in (1, players - 1):
        fail(parser.prog, f"--opponents takes one spec for all or {players - 1} (one per other seat), "
                          f"not {len(args.opponents)}")
    specs = args.opponents * (players - 1) if len(args.opponents) == 1 else args.opponents
    try:
        env = spec.raw_env(num_players=players, render_mode=None, **dict(args.env_kwargs))
        opponents = [make_agent(s) for s in specs]
        if args.seed is not None:
            env.engine.check_seed(args.seed)
    except ValueError as err:
        fail(parser.prog, str(err))
    console = Console(highlight=False)
    play(env, opponents, args.seat, args.seed, console)
    return 0


if __name__ == "__main__":
    sys.exit(main())
