"""An independent oracle for the Toonerville Rook action mask.

Written from the rules text alone (``docs/rules/README.md``: shared procedure, meld basics,
environment conventions, notation; ``docs/rules/toonerville_rook.md`` with its decisions;
the action and mask spec in the docstring of
``rummy_env/toonerville_rook_v0.py``). It reads the env's state only (``describe()``, plain
fields of ``game_state``, ``rules``) and never calls the engine, the meld solver or the
action layout: cards, melds and actions are its own small representation here, and the
no-dead-ends filter is a plain brute-force search with memoisation and a node budget.

Representation
--------------
- A card is its text: ``"7R"``, ``"14G"``, ``"ROOK"``.
- A hand is a tuple of 57 counts, by the oracle's own card index (colour * 14 + number - 1
  for the naturals, colours R Y G B and numbers 1..14; 56 for the Rook).
- A meld is a tuple:
  ``("set", number, colours, rooks)``: ``colours`` the naturals' colour letters, sorted
  R Y G B, repeats allowed (one deck per player: duplicates are legal in Rook sets);
  ``rooks`` the number of Rooks in it; or
  ``("run", colour, low, high, rook_numbers)``: numbers ``low..high`` (1..14) of one colour,
  a Rook at each number of ``rook_numbers`` (a sorted tuple) and a natural at every other.
- An action is a tuple, turned into the env's canonical text by ``action_text``.

Rules applied
-------------
Draw phase: ``draw stock`` always (an empty stock is reshuffled, or the round ends dead);
``draw discard`` (the top card only: Rook has no deep draw) when the pile is not empty and
the turn can then be finished; the card taken becomes the "taken" face of the discard rule.

Buy question (phase ``buy``): exactly ``buy`` and ``pass``, for the agent asked.

Play phase:
- Not down: the contract's melds, while a meld slot is free (``max_table_melds``); once a
  going down has started, only its remaining melds (staged going down).
  ``meld set N XYZ +w``: 1..4 naturals of number N (a colour at most min(4, decks) times,
  and never more often than held), 0..2 Rooks, 3+ cards. ``meld run C lo hi``: 4+
  numbers of colour C inside 1..14 (no wrap); the hand's natural for every number it
  holds and a Rook for every other one; at least one natural (no meld of Rooks only).
  Runs of one colour may touch (docs/rules/toonerville_rook.md#adjacent-runs).
- Down (this turn or earlier): further melds of any kind (same actions), and ``lay off X on
  S`` for any meld S on the table (own or others'): a set takes any natural of its number
  or a Rook (no maximum); a run takes the natural of its colour just beyond either end, or
  a Rook, which goes to the high end when it is open, else the low end; a run is full
  at 1..14.
- ``swap X on S`` at any time after drawing, by any player, except in the middle of a going
  down: S is a run with a Rook standing for X, and X is in the hand. The Rook goes to the
  hand and one Rook per swap is owed: it must be played in a meld or a lay-off before a
  discard (a Rook played in a meld or laid off while owed pays one owed Rook each). A
  Rook swapped by a player not yet down goes into this turn's going-down melds
  (docs/rules/toonerville_rook.md#wild-swaps): a
  contract meld, a further meld of this turn, or a lay-off on a meld the player has laid
  (all laid this turn); never on another player's meld, unless the hand holds a Rook
  beyond those owed so (Rooks are interchangeable), which then pays a Rook owed by a swap
  made once down, if any. How many are owed so is read from ``game_state.wilds_to_meld``
  (``describe()`` does not show it); the search keeps its own count.
- ``discard X`` unless: a going down is in progress, a swapped Rook is still owed, it is
  round 11 and X is the last card, or X is the taken face and the hand holds no other copy.
  Melds, lay-offs and swaps use the taken card first, which lifts the rule
  (docs/rules/toonerville_rook.md#discard-rule; ``SWAP_USES_TAKEN``; the env agrees).
- An empty hand ends the turn (the round ends at once); not in the middle of a going down.

No dead ends: an action is offered iff it is rules-legal and after it the player can
still finish the turn by its own rules-legal actions (hand empty, or a legal discard).

Search: plain depth-first over the player's rules-legal actions, memoised on the whole turn
state (the table as a multiset: slot numbers do not matter for finishing), with a node
budget (``OracleBudgetExceeded``). Sound prunes, all switchable off (``prunes=False``; the
tests cross-check them against the plain search): while a going down is due (in progress,
or a Rook owed by a player not down), the hand must still hold 3 cards per set and 4 per
run left, the sets left cannot outnumber the sets the hand could make on its own, and the
runs left cannot need more Rooks than it holds (``min_run_rooks``, counting the Rooks in
runs on the table as held where swaps may still come); and the rest of a going down is
searched with its sets first (``search_actions``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from itertools import combinations_with_replacement

COLOURS = "RYGB"
NUMBERS = range(1, 15)
ROOK = "ROOK"
TOP = 14
SWAP_USES_TAKEN = True  # a swap uses the card just taken first (see the module docstring)


class OracleBudgetExceeded(RuntimeError):
    """The brute-force search visited more states than its budget allows."""


# ---------------------------------------------------------------------------- cards
CARD_TEXTS = tuple(f"{n}{c}" for c in COLOURS for n in NUMBERS) + (ROOK,)
CARD_INDEX = {c: i for i, c in enumerate(CARD_TEXTS)}
ROOK_INDEX = CARD_INDEX[ROOK]
# INDEX_OF[colour][number]: the card index of a natural (number 0 unused)
INDEX_OF = {c: (None,) + tuple(CARD_INDEX[f"{n}{c}"] for n in NUMBERS) for c in COLOURS}
# every multiset of 1..4 natural colours, as (colour letters, count of each colour)
COLOUR_MULTISETS = tuple(
    ("".join(m), tuple(m.count(c) for c in COLOURS))
    for k in range(1, 5) for m in combinations_with_replacement(COLOURS, k))


def card_number(card: str) -> int:
    return int(card[:-1])


def card_colour(card: str) -> str:
    return card[-1]


def card_of(colour: str, number: int) -> str:
    return f"{number}{colour}"


# ---------------------------------------------------------------------------- hands
def hand_of(cards: Iterable[str]) -> tuple:
    counts = [0] * len(CARD_TEXTS)
    for c in cards:
        counts[CARD_INDEX[c]] += 1
    return tuple(counts)


def hand_count(hand: tuple, card: str) -> int:
    return hand[CARD_INDEX[card]]


def hand_cards(hand: tuple) -> list[str]:
    """The distinct cards held."""
    return [CARD_TEXTS[i] for i, k in enumerate(hand) if k]


def hand_add(hand: tuple, cards: Iterable[str]) -> tuple:
    counts = list(hand)
    for c in cards:
        counts[CARD_INDEX[c]] += 1
    return tuple(counts)


def hand_remove(hand: tuple, cards: Iterable[str]) -> tuple:
    counts = list(hand)
    for c in cards:
        i = CARD_INDEX[c]
        if counts[i] <= 0:
            raise AssertionError(f"oracle bug: removing {c} from {hand_cards(hand)}")
        counts[i] -= 1
    return tuple(counts)


# ---------------------------------------------------------------------------- melds
def sort_colours(colours: Iterable[str]) -> str:
    return "".join(sorted(colours, key=COLOURS.index))


def meld_cards(meld: tuple) -> list[str]:
    if meld[0] == "set":
        _, number, colours, rooks = meld
        return [card_of(c, number) for c in colours] + [ROOK] * rooks
    _, colour, low, high, rooks = meld
    return [ROOK if q in rooks else card_of(colour, q) for q in range(low, high + 1)]


def meld_is_valid(meld: tuple) -> bool:
    """docs/rules/toonerville_rook.md#sets and #runs: a set is 3+ cards of one number, any colours; a run 4+ of one colour in
    order inside 1..14; every meld holds a natural."""
    if meld[0] == "set":
        _, number, colours, rooks = meld
        return number in NUMBERS and len(colours) >= 1 and len(colours) + rooks >= 3
    _, _, low, high, rooks = meld
    return (1 <= low and high <= TOP and high - low + 1 >= 4 and all(low <= q <= high for q in rooks)
            and len(rooks) < high - low + 1)


def lay_off_result(meld: tuple, card: str) -> tuple | None:
    """The meld after laying ``card`` off on it, or None if it does not fit."""
    if meld[0] == "set":
        _, number, colours, rooks = meld
        if card == ROOK:
            return ("set", number, colours, rooks + 1)
        if card_number(card) != number:
            return None
        return ("set", number, sort_colours(colours + card_colour(card)), rooks)
    _, colour, low, high, rooks = meld
    high_open, low_open = high < TOP, low > 1
    if card == ROOK:
        if high_open:
            return ("run", colour, low, high + 1, rooks + (high + 1,))
        if low_open:
            return ("run", colour, low - 1, high, (low - 1,) + rooks)
        return None
    if card_colour(card) != colour:
        return None
    number = card_number(card)
    if number == high + 1 and high_open:
        return ("run", colour, low, high + 1, rooks)
    if number == low - 1 and low_open:
        return ("run", colour, low - 1, high, rooks)
    return None


_WITHIN: dict[tuple, list[str]] = {}


def colour_multisets_within(held: tuple) -> list[str]:
    """The multisets of 1..4 colours (as sorted letters) using at most ``held[i]`` of
    colour ``i`` (memoised)."""
    found = _WITHIN.get(held)
    if found is None:  # (at most 5 ** 4 keys)
        found = _WITHIN[held] = [m for m, need in COLOUR_MULTISETS if all(k <= h for k, h in zip(need, held))]
    return found


def lay_off_candidates(meld: tuple) -> list[str]:
    """The only cards that could fit ``meld`` (``lay_off_result`` decides): a Rook, and the
    naturals of a set's number, or of a run's colour next to its ends."""
    if meld[0] == "set":
        return [card_of(c, meld[1]) for c in COLOURS] + [ROOK]
    _, colour, low, high, _ = meld
    return [card_of(colour, q) for q in (low - 1, high + 1) if q in NUMBERS] + [ROOK]


def max_sets(hand: tuple, extra_rooks: int = 0) -> int:
    """The most sets the hand could lay on its own, with ``extra_rooks`` more Rooks (an
    upper bound for a going down: Rook set actions name at most 2 Rooks, ignored here).
    Sets of number N made from k naturals cost max(0, 3s - k) Rooks for s <= k sets: the
    marginal costs are 0 (k // 3 times), then 3 - k % 3 when k % 3, then 3 each, so
    taking the cheapest first is optimal."""
    rooks = hand[ROOK_INDEX] + extra_rooks
    full = 0
    costs = []  # Rooks each further set would cost
    for n in NUMBERS:
        k = sum(hand[INDEX_OF[c][n]] for c in COLOURS)
        free = k // 3
        full += free
        extra = k - free  # further sets possible (each needs a natural)
        if k % 3 and extra > 0:
            costs.append(3 - k % 3)
            extra -= 1
        costs.extend([3] * extra)
    for cost in sorted(costs):
        if cost > rooks:
            break
        rooks -= cost
        full += 1
    return full


_WINDOW_ROOKS: dict[tuple, int] = {}


def window_rooks(row: tuple, j: int) -> int:
    """The fewest Rooks that ``j`` runs of 4 (windows of 4 numbers, repeats allowed) of one
    colour need, given the colour's natural counts ``row`` (numbers 1..14): at each number,
    the windows covering it beyond the naturals held. A lower bound for ``j`` runs of any
    length (a run shrinks to 4 of its places), by dynamic programming over the numbers
    with the windows started at the three numbers before (memoised)."""
    key = (row, j)
    hit = _WINDOW_ROOKS.get(key)
    if hit is not None:
        return hit
    # states: (started at q-1, q-2, q-3, windows left to start) -> fewest Rooks so far
    states = {(0, 0, 0, j): 0}
    for q in range(TOP):
        nxt: dict[tuple, int] = {}
        for (c1, c2, c3, left), cost in states.items():
            for x in range(left + 1 if q <= TOP - 4 else 1):
                k = (x, c1, c2, left - x)
                total = cost + max(0, x + c1 + c2 + c3 - row[q])
                if total < nxt.get(k, 1 << 30):
                    nxt[k] = total
        states = nxt
    hit = min((cost for (_, _, _, left), cost in states.items() if left == 0), default=1 << 30)
    if len(_WINDOW_ROOKS) > 200_000:
        _WINDOW_ROOKS.clear()
    _WINDOW_ROOKS[key] = hit
    return hit


def min_run_rooks(hand: tuple, runs: int) -> int:
    """The fewest Rooks ``runs`` runs made from the hand's naturals could need (a lower
    bound: the colours' windows may overlap sets, and a run needs a natural, both ignored)."""
    rows = [tuple(hand[INDEX_OF[c][q]] for q in NUMBERS) for c in COLOURS]
    best = 1 << 30
    for split in _splits(runs, len(COLOURS)):
        best = min(best, sum(window_rooks(row, j) for row, j in zip(rows, split) if j))
    return best


def _splits(total: int, parts: int) -> list[tuple]:
    if parts == 1:
        return [(total,)]
    return [(k,) + rest for k in range(total + 1) for rest in _splits(total - k, parts - 1)]


# ---------------------------------------------------------------------------- state
@dataclass(frozen=True)
class TurnState:
    """The acting player's turn, in the oracle's own terms (play phase)."""

    hand: tuple
    table: tuple  # melds in slot order
    going_down: bool  # a going down is in progress (only its remaining melds)
    left: tuple  # (sets, runs) still to lay while going down
    down: bool  # gone down this round (this turn or earlier)
    owed: int  # swapped Rooks still to play
    taken: str | None  # face taken from the top of the pile, not yet played
    owed_to_melds: int  # of ``owed``, those swapped before going down (the player's own melds only)
    own: tuple  # per slot of ``table``, whether the player laid it

    def key(self) -> tuple:
        return (self.hand, tuple(sorted(zip(self.table, self.own))), self.going_down, self.left, self.down,
                self.owed, self.taken, self.owed_to_melds)


@dataclass(frozen=True)
class Config:
    contract: tuple  # (sets, runs)
    last_round: bool  # round 11: the last card may not be discarded
    max_slots: int
    decks: int  # one Rook deck per player


@dataclass(frozen=True)
class Situation:
    """Everything the oracle reads from the env for the agent to act."""

    phase: str  # "draw", "play", "going_down", "buy", "game_over"
    config: Config
    pile: tuple  # discard pile, bottom to top
    turn: TurnState | None  # before the draw in the draw phase; None in a buy question


# ---------------------------------------------------------------------------- actions
def action_text(action: tuple) -> str:
    kind = action[0]
    if kind == "draw_stock":
        return "draw stock"
    if kind == "draw_top":
        return "draw discard"
    if kind in ("buy", "pass"):
        return kind
    if kind == "discard":
        return f"discard {action[1]}"
    if kind == "set":
        _, number, colours, rooks = action
        return f"meld set {number} {colours}" + (f" +{rooks}" if rooks else "")
    if kind == "run":
        _, colour, low, high = action
        return f"meld run {colour} {low} {high}"
    if kind == "layoff":
        return f"lay off {action[1]} on {action[2]}"
    if kind == "swap":
        return f"swap {action[1]} on {action[2]}"
    raise AssertionError(action)


class RookOracle:
    """Legal action texts of the agent to act, from the rules text (module docstring)."""

    def __init__(self, config: Config, node_budget: int = 100_000, prunes: bool = True) -> None:
        self.config = config
        self.prunes = prunes
        self.node_budget = node_budget
        self.copies = min(4, config.decks)
        self.memo: dict[tuple, bool] = {}
        self.nodes = 0

    # ------------------------------------------------------------ rules-legal play actions
    def meld_actions(self, st: TurnState, sets: bool, runs: bool) -> list[tuple]:
        if len(st.table) >= self.config.max_slots:
            return []
        hand = st.hand
        rooks = hand[ROOK_INDEX]
        actions = []
        if sets:
            for number in NUMBERS:
                held = tuple(min(hand[INDEX_OF[c][number]], self.copies) for c in COLOURS)
                if sum(held) + min(2, rooks) < 3 or not any(held):
                    continue
                for colours in colour_multisets_within(held):
                    for w in range(max(0, 3 - len(colours)), min(2, rooks) + 1):
                        actions.append(("set", number, colours, w))
        if runs:
            for colour in COLOURS:
                index = INDEX_OF[colour]
                held = [False] + [hand[index[q]] > 0 for q in NUMBERS]
                if not any(held):
                    continue
                for low in NUMBERS:
                    naturals = gaps = 0
                    for high in range(low, TOP + 1):
                        if held[high]:
                            naturals += 1
                        else:
                            gaps += 1
                        if gaps > rooks:
                            break  # longer spans only have more gaps
                        if high - low + 1 >= 4 and naturals:
                            actions.append(("run", colour, low, high))
        return actions

    def discard_allowed(self, st: TurnState) -> bool:
        size = sum(st.hand)
        if st.going_down or st.owed > 0 or size == 0:
            return False
        return not (self.config.last_round and size == 1)

    def play_actions(self, st: TurnState) -> list[tuple]:
        """Every rules-legal action of the play phase (before the no-dead-ends filter)."""
        actions: list[tuple] = []
        if not any(st.hand):
            return actions
        if st.going_down:
            sets, runs = st.left
            return self.meld_actions(st, sets > 0, runs > 0)  # nothing else mid going down
        if not st.down:
            sets, runs = self.config.contract
            actions += self.meld_actions(st, sets > 0, runs > 0)
        else:
            actions += self.meld_actions(st, True, True)
            # a Rook owed to the going-down melds goes on no other player's meld
            spare_rook = st.hand[ROOK_INDEX] > st.owed_to_melds
            for slot, meld in enumerate(st.table):
                for c in lay_off_candidates(meld):
                    if c == ROOK and not (st.own[slot] or spare_rook):
                        continue
                    if hand_count(st.hand, c) and lay_off_result(meld, c) is not None:
                        actions.append(("layoff", c, slot))
        for slot, meld in enumerate(st.table):
            if meld[0] == "run":
                for q in meld[4]:
                    if st.hand[INDEX_OF[meld[1]][q]]:
                        c = card_of(meld[1], q)
                        actions.append(("swap", c, slot))
        if self.discard_allowed(st):
            for c in hand_cards(st.hand):
                if c != st.taken or hand_count(st.hand, c) >= 2:
                    actions.append(("discard", c))
        return actions

    def search_actions(self, st: TurnState) -> list[tuple]:
        """The actions the search tries: the rules-legal ones but the discards (a discard
        ends the turn: ``finishable`` checks it first), and, with the prunes, the rest of
        a going down with its sets first. Any order of the same melds ends in the same
        state (a set names its cards; a run laid after a set finds the hand's naturals the
        set left, which are the ones it would have used before it), so finishing does not
        depend on the order; the memo merges the orders that reach one state."""
        actions = [a for a in self.play_actions(st) if a[0] != "discard"]
        if self.prunes and st.going_down and st.left[0]:
            return [a for a in actions if a[0] == "set"]
        return actions

    # ------------------------------------------------------------ applying
    def apply(self, st: TurnState, action: tuple) -> TurnState:
        kind = action[0]
        if kind in ("set", "run"):
            if kind == "set":
                _, number, colours, w = action
                meld = ("set", number, colours, w)
            else:
                _, colour, low, high = action
                index = INDEX_OF[colour]
                rooks = tuple(q for q in range(low, high + 1) if not st.hand[index[q]])
                meld = ("run", colour, low, high, rooks)
            cards = meld_cards(meld)
            rooks = cards.count(ROOK)
            going_down, left, down = st.going_down, st.left, st.down
            if not down:  # a contract meld
                sets, runs = left if going_down else self.config.contract
                sets, runs = (sets - 1, runs) if kind == "set" else (sets, runs - 1)
                assert sets >= 0 and runs >= 0
                done = (sets, runs) == (0, 0)
                going_down, left, down = not done, (0, 0) if done else (sets, runs), done
            return replace(
                st,
                hand=hand_remove(st.hand, cards),
                table=st.table + (meld,),
                going_down=going_down,
                left=left,
                down=down,
                owed=st.owed - min(st.owed, rooks),
                owed_to_melds=st.owed_to_melds - min(st.owed_to_melds, rooks),
                own=st.own + (True,),
                taken=None if st.taken in cards else st.taken,
            )
        if kind == "layoff":
            _, card, slot = action
            new = lay_off_result(st.table[slot], card)
            assert new is not None
            owed, owed_to_melds = st.owed, st.owed_to_melds
            if card == ROOK and st.own[slot]:  # pays an owed Rook, one owed to the melds first
                owed, owed_to_melds = max(0, owed - 1), max(0, owed_to_melds - 1)
            elif card == ROOK and owed > owed_to_melds:  # pays one owed by a swap made once down
                owed -= 1
            return replace(
                st,
                hand=hand_remove(st.hand, [card]),
                table=st.table[:slot] + (new,) + st.table[slot + 1:],
                taken=None if st.taken == card else st.taken,
                owed=owed,
                owed_to_melds=owed_to_melds,
            )
        if kind == "swap":
            _, card, slot = action
            _, colour, low, high, rooks = st.table[slot]
            q = card_number(card)
            assert card_colour(card) == colour and q in rooks
            new = ("run", colour, low, high, tuple(r for r in rooks if r != q))
            return replace(
                st,
                hand=hand_add(hand_remove(st.hand, [card]), [ROOK]),
                table=st.table[:slot] + (new,) + st.table[slot + 1:],
                owed=st.owed + 1,
                owed_to_melds=st.owed_to_melds + (0 if st.down else 1),
                taken=None if SWAP_USES_TAKEN and st.taken == card else st.taken,
            )
        raise AssertionError(action)

    # ------------------------------------------------------------ the no-dead-ends search
    def hopeless(self, st: TurnState) -> bool:
        """Sound prunes: a going down that is due (in progress, or the only way to play an
        owed Rook) cannot be completed with the cards left."""
        if not self.prunes or st.down or not (st.going_down or st.owed):
            return False
        sets, runs = st.left if st.going_down else self.config.contract
        if sum(st.hand) < 3 * sets + 4 * runs:
            return True
        # before a going down, swaps may turn naturals of the hand into Rooks: count every
        # Rook in a run as one more (no swap in the middle of a going down)
        table_rooks = 0 if st.going_down else sum(len(m[4]) for m in st.table if m[0] == "run")
        if sets > 0 and max_sets(st.hand, table_rooks) < sets:
            return True
        return runs > 0 and min_run_rooks(st.hand, runs) > st.hand[ROOK_INDEX] + table_rooks

    def finishable(self, st: TurnState) -> bool:
        """Can the player still end this turn legally by its own actions?"""
        if not any(st.hand):
            return not st.going_down and st.owed == 0
        if self.discard_allowed(st) and any(
                c != st.taken or hand_count(st.hand, c) >= 2 for c in hand_cards(st.hand)):
            return True
        key = st.key()
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        self.nodes += 1
        if self.nodes > self.node_budget:
            raise OracleBudgetExceeded(f"more than {self.node_budget} states")
        result = False
        if not self.hopeless(st):
            result = any(self.finishable(self.apply(st, a)) for a in self.search_actions(st))
        self.memo[key] = result
        return result

    # ------------------------------------------------------------ the mask
    def legal(self, sit: Situation) -> set[str]:
        if sit.phase == "game_over":
            return set()
        if sit.phase == "buy":
            return {"buy", "pass"}
        st = sit.turn
        if sit.phase == "draw":
            out = {action_text(("draw_stock",))}
            if sit.pile and self.finishable(replace(st, hand=hand_add(st.hand, [sit.pile[-1]]), taken=sit.pile[-1])):
                out.add(action_text(("draw_top",)))
            return out
        out: set[str] = set()
        for a in self.play_actions(st):
            if a[0] == "discard" or self.finishable(self.apply(st, a)):
                out.add(action_text(a))
        return out


# ---------------------------------------------------------------------------- reading the env
def meld_from_described(m: dict) -> tuple:
    """The oracle's meld from an entry of ``describe()["melds"]`` (its cards, and the
    cards its Rooks represent)."""
    cards = m["cards"]
    naturals = [c for c in cards if c != ROOK]
    rooks = len(cards) - len(naturals)
    assert naturals, f"a meld without a natural on the table: {m}"
    if m["kind"] == "set":
        numbers = {card_number(c) for c in naturals}
        assert len(numbers) == 1, f"a set of several numbers: {m}"
        (number,) = numbers
        assert m["represents"] == str(number), m
        meld = ("set", number, sort_colours(card_colour(c) for c in naturals), rooks)
        assert meld_is_valid(meld), f"an invalid set on the table: {m}"
        return meld
    colours = {card_colour(c) for c in naturals} | {card_colour(c) for c in m["represents"]}
    assert len(colours) == 1, f"a run of several colours: {m}"
    (colour,) = colours
    held = sorted(card_number(c) for c in naturals)
    stands = sorted(card_number(c) for c in m["represents"])
    assert len(stands) == rooks and not set(held) & set(stands), m
    numbers = sorted(held + stands)
    low, high = numbers[0], numbers[-1]
    assert numbers == list(range(low, high + 1)), f"a run with a gap: {m}"
    meld = ("run", colour, low, high, tuple(stands))
    assert meld_is_valid(meld), f"an invalid run on the table: {m}"
    return meld


def situation(raw) -> Situation:
    """Read the state of ``raw`` (an unwrapped Toonerville Rook env) for the agent to act."""
    gs = raw.game_state
    d = raw.describe(raw.agent_selection)  # only the hand of the agent to act
    phase = d["phase"]
    config = Config(
        contract=(d["contract"]["sets"], d["contract"]["runs"]) if d["contract"] else (0, 0),
        last_round=d["round"] == 11,
        max_slots=raw.rules.contract_play.max_table_melds,
        decks=raw.rules.num_players,
    )
    if phase in ("game_over", "buy"):
        if phase == "buy":
            assert d["buy_question"]["asked"] == d["to_act"] != d["current"]
            assert d["buy_question"]["card"] == d["discard"][-1]
        return Situation(phase, config, tuple(d["discard"]), None)
    agent = d["current"]
    assert d["to_act"] == agent
    table = tuple(meld_from_described(m) for m in d["melds"])
    # cross-check the plain fields against describe()'s card lists
    assert len(table) == len(gs.table)
    going_down = phase == "going_down"
    left = (d["contract_left"]["sets"], d["contract_left"]["runs"]) if going_down else (0, 0)
    st = TurnState(
        hand=hand_of(d["hands"][agent]),
        table=table,
        going_down=going_down,
        left=left,
        down=bool(d["gone_down"][agent]),
        owed=int(d["wilds_owed"]),
        taken=d["taken_from_discard"],
        owed_to_melds=int(gs.wilds_to_meld),
        own=tuple(m["owner"] == agent for m in d["melds"]),
    )
    return Situation(phase, config, tuple(d["discard"]), st)


def oracle_legal_texts(raw, node_budget: int = 100_000, prunes: bool = True) -> set[str]:
    """The oracle's set of legal action texts for the agent to act in ``raw``."""
    sit = situation(raw)
    return RookOracle(sit.config, node_budget, prunes).legal(sit)


__all__ = [
    "CARD_TEXTS", "COLOURS", "ROOK", "Config", "OracleBudgetExceeded", "RookOracle", "Situation", "TurnState",
    "action_text", "hand_of", "lay_off_result", "meld_from_described", "meld_is_valid", "oracle_legal_texts",
    "situation",
]
