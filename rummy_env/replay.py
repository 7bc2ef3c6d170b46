"""Step through recorded games in a browser: ``rummy-replay FILE [--out DIR] [--seat N]``.

    rummy-eval --game contract_rummy --agents expert greedy greedy random --games 4 --record games.jsonl
    rummy-replay games.jsonl                            # games/index.html, games/games-1.html .. games-4.html
    rummy-replay games.jsonl --out replays --seat 2     # only what seat 2 saw, in replays/

Writes one self-contained HTML page per game of a recording (docs/recording.md), and an
index page that links them, into one folder: by default the recording's name without its
suffix, beside it. Each page has its CSS, script and data inline, so that it opens anywhere
with no network. The page steps through
the game forwards and back (buttons, arrow keys, a slider): every hand (or, with
``--seat``, that seat's hand and the others' card counts), the cards just drawn outlined,
the table's melds, the discard pile's top, the stock, each action with its seat, round
results with every hand as it was scored (arranged into melds), scores, and the wild rank
or contract. The states are built here by replaying each record exactly (a record
that does not replay is an error) and stored in the page as the changes from one step to
the next. A user's error is one line and exit code 2, with nothing written.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from typing import Any, Sequence

from .cards import CardSet
from .cli import OneLineParser, check_writable_folder, fail
from .env import RummyEnv
from .hand_view import HandNotes
from .recording import Record, RecordError, read_records, replay_steps
from .replay_page import render_index, render_page
from .state import TableMeld

PROG = "rummy-replay"


class CardTable:
    """Card text to small integers: a page names each card by its index in one list."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, text: str | None) -> int | None:
        if text is None:
            return None
        return self.index.setdefault(text, len(self.index))

    def texts(self) -> list[str]:
        return list(self.index)


def step_state(view: dict[str, Any], names: list[str], card: CardTable) -> dict[str, Any]:
    """One step's state from ``describe()`` (or a seat's ``describe(agent)``), compactly:
    seats by index, cards by index into the page's card list. A seat's hand is present
    only when the view shows it."""
    seat = {name: i for i, name in enumerate(names)}
    contract, left, question = view["contract"], view["contract_left"], view.get("buy_question")
    state = {
        "round": view["round"], "phase": view["phase"], "dealer": view["dealer"], "turns": view["turns"],
        "current": seat.get(view["current"], -1), "to_act": seat.get(view["to_act"], -1),
        "sizes": [view["hand_sizes"][a] for a in names],
        "stock": view["stock_size"],
        "top": card(view["discard"][-1]) if view["discard"] else None, "pile": len(view["discard"]),
        "melds": [[seat[m["owner"]], m["kind"], [card(c) for c in m["cards"]],
                   m["represents"] if m["kind"] == "run" else None] for m in view["melds"]],
        "scores": [view["scores"][a] for a in names],
        "penalties": [[p[a] for a in names] for p in view["round_penalties"]],
        "down": [int(view["gone_down"][a]) for a in names],
        "wild": view["wild_rank"],
        "contract": None if contract is None else _contract_text(contract),
        "left": None if left is None else f"{left['sets']} set(s), {left['runs']} run(s) still to lay",
        "taken": card(view["taken_from_discard"]), "must": card(view["must_place"]),
        "question": None if question is None else [seat[question["asked"]], card(question["card"])],
        "buys": [view["buys"][a] for a in names] if "buys" in view else None,
    }
    for a, cards in view["hands"].items():
        state[f"hand{seat[a]}"] = [card(c) for c in cards]
    return state


def _contract_text(contract: dict[str, Any]) -> str:
    parts = [f"{contract[k]} {k[:-1] if contract[k] == 1 else k}" for k in ("sets", "runs") if contract[k]]
    extra = (", every card" if contract["down_means_out"] else "") + (
        ", out by melding" if contract["out_by_melding"] else "")
    return " + ".join(parts) + extra


def run_in_order(meld: TableMeld, card_set: CardSet) -> list[int]:
    """A run's cards from low to high, each wild where it stands: the table keeps them in
    the order they were laid (``J K JK 10``), hard to read as a run (``10 J JK K``)."""
    ranks = card_set.num_ranks
    naturals = {face % ranks: face for face in meld.meld.naturals}
    wilds = list(meld.cards)
    for face in meld.meld.naturals:
        wilds.remove(face)
    ordered = [naturals.pop(p % ranks) if p % ranks in naturals else wilds.pop() if wilds else None
               for p in range(meld.meld.low, meld.meld.high + 1)]
    return list(meld.cards) if None in ordered or wilds else ordered  # laid order, should the table ever disagree


def game_view(env: RummyEnv, viewer: str | None) -> dict[str, Any]:
    """``env.describe(viewer)``, with every run's cards in run order."""
    view = env.describe(viewer)
    card_set = env.engine.card_set
    for shown, meld in zip(view["melds"], env.game_state.table):
        if shown["kind"] == "run":
            shown["cards"] = [card_set.format(face) for face in run_in_order(meld, card_set)]
    return view


def page_data(record: Record, seat: int | None = None) -> dict[str, Any]:
    """What a page shows of one recorded game: its settings, every action, and each step's
    state as the keys that changed since the step before (step 0, the deal, in full).
    Replays the record exactly; ``ReplayError`` names the step where it departs."""
    card = CardTable()
    steps = replay_steps(record)
    _, env = next(steps)  # the deal
    names = list(env.possible_agents)
    viewer = None if seat is None else names[seat]
    frames: list[dict[str, Any]] = []
    previous: dict[str, Any] = {}
    notes = HandNotes(env)
    for step, env in itertools.chain([(0, env)], steps):
        state = step_state(game_view(env, viewer), names, card)
        state["drawn"] = state["ended"] = None
        if step:
            entry = record["actions"][step - 1]
            taken, ended = notes.after(entry["seat"], entry["action"])
            shown = [[s, [card(c) for c in cards]] for s, cards in enumerate(taken)
                     if cards and seat in (None, s)]  # another seat's draw stays hidden in a seat's view
            state["drawn"] = shown or None
            if ended is not None:  # every hand as it was scored: shown to all at a round's end
                state["ended"] = [[[[card(c) for c in meld] for meld in hand["melds"]], [card(c) for c in hand["loose"]]]
                                  for hand in ended["hands"]]
        frames.append({key: value for key, value in state.items() if previous.get(key, ()) != value})
        previous = state
        notes.before()
    return {
        "game": record["game"], "seed": record["seed"], "env": record["env"], "deck": env.rules.deck.kind,
        "num_rounds": env.rules.num_rounds, "names": names, "players": record["players"], "seat": seat,
        "tournament": record.get("tournament"), "cards": card.texts(),
        "actions": [[a["seat"], a["text"]] for a in record["actions"]], "frames": frames,
        "result": record["result"],
    }


def page_names(source: Path, count: int, seat: int | None) -> list[str]:
    """``<stem>-<k>.html`` for games k = 1..count (``-seat<N>`` added with a seat)."""
    width = len(str(count))
    suffix = "" if seat is None else f"-seat{seat}"
    return [f"{source.stem}-{k:0{width}d}{suffix}.html" for k in range(1, count + 1)]


def index_name(seat: int | None) -> str:
    """``index.html`` (``index-seat<N>.html`` with a seat, so that both views share a folder)."""
    return "index.html" if seat is None else f"index-seat{seat}.html"


def default_folder(source: Path) -> Path:
    """The pages' folder when none is given: the recording's path without its suffix
    (``runs/games.jsonl``: ``runs/games``), or with ``-pages`` added if it has none."""
    folder = source.with_suffix("")
    return folder if folder != source else source.with_name(source.name + "-pages")


def build_parser() -> OneLineParser:
    parser = OneLineParser(prog=PROG, description="One self-contained HTML page per game of a recording "
                                                  "(rummy-eval --record), to step through in a browser.",
                           epilog="See docs/recording.md.")
    parser.add_argument("file", metavar="FILE", help="a recording: JSON lines, one game per line")
    parser.add_argument("--out", metavar="DIR",
                        help="folder for the pages and their index, made if missing (default: the recording's "
                             "path without its suffix: games.jsonl makes games/)")
    parser.add_argument("--seat", metavar="N", type=int,
                        help="show only what seat N saw: its own hand, the others' card counts")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    source = Path(args.file)
    out = Path(args.out) if args.out is not None else default_folder(source)
    if not source.is_file():
        fail(PROG, f"{source} {'is a folder' if source.is_dir() else 'does not exist'}")
    check_writable_folder(PROG, "--out", out)
    try:
        records = list(read_records(source))
    except RecordError as err:
        fail(PROG, err)
    except UnicodeDecodeError:
        fail(PROG, f"{source} is not text: not a recording")
    except OSError as err:
        fail(PROG, f"{source} cannot be read: {err.strerror or err}")
    if not records:
        fail(PROG, f"{source} holds no games")
    for number, record in records:
        players = record["env"]["num_players"]
        if args.seat is not None and not 0 <= args.seat < players:
            fail(PROG, f"--seat {args.seat}: the game on line {number} has {players} players, seats 0 to {players - 1}")
    names = page_names(source, len(records), args.seat)
    pages, games = [], []
    for (number, record), name in zip(records, names):  # every page is built before any is written
        try:
            data = page_data(record, args.seat)
        except RecordError as err:
            fail(PROG, f"{source}, line {number}: {err}")
        pages.append(render_page(data))
        games.append({"page": name, "data": data})
    view = "" if args.seat is None else f", what seat {args.seat} saw"
    index = render_index(f"{source.name}{view}", games)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name, page in zip(names, pages):
            (out / name).write_text(page, encoding="utf-8")
            print(out / name)
        (out / index_name(args.seat)).write_text(index, encoding="utf-8")
        print(out / index_name(args.seat))
    except OSError as err:  # what the checks up front cannot foresee (a full disk, a special file system)
        fail(PROG, f"cannot write to {out}: {err.strerror or err}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
