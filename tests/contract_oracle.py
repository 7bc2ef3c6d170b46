"""An independent oracle for the Contract Rummy action mask.

Written from the rules text alone (``docs/rules/README.md``: shared procedure, meld
basics, environment conventions, notation; ``docs/rules/contract_rummy.md``, with its
decisions; the action and mask spec in the docstring of
``rummy_env/contract_rummy_v0.py``). It reads the env's state only (``describe()``, plain
fields of ``game_state``, ``rules``) and never calls the engine, the meld solver or the
action layout: cards, melds and actions are its own small representation here, and the
no-dead-ends filter is a plain brute-force search with memoisation.

Representation
--------------
- A card is its text: ``"7H"``, ``"TS"``, ``"AC"``, ``"JK"``.
- A hand is a tuple of 53 counts, by the oracle's own card index (suit * 13 + rank for the
  naturals, suits C D H S and ranks A..K; 52 for the joker).
- A meld is a tuple:
  ``("set", rank, suits, jokers)``: ``rank`` 0..12 (A..K), ``suits`` a sorted string of the
  naturals' suit letters (distinct), ``jokers`` the number of jokers in it; or
  ``("run", suit, low, high, joker_positions)``: positions ``low..high`` of suit ``suit``
  (0 = ace low, 1..12 = 2..K, 13 = ace high), the jokers at ``joker_positions`` (a sorted
  tuple) and a natural at every other position.
- An action is a tuple, turned into the env's canonical text by ``action_text``.

Rules applied
-------------
Draw phase: ``draw stock`` always (mask spec: an empty stock is reshuffled or ends the
round); ``draw discard`` when the pile is not empty; ``draw discard N`` (2 <= N <=
``max_deep_draw``, N <= pile size) takes the N-th card from the top and every card above
it, obliges the N-th card's face to reach the table by a going-down meld or a lay-off
(not a swap), and sets no discard-rule face (docs/rules/contract_rummy.md#deep-draws).
``draw discard`` (the top card) makes its face the "taken" face of the discard rule.

Play phase:
- Not down: the contract's melds (``meld set``: the named naturals, distinct suits, plus
  0..2 jokers, 3 or 4 cards; ``meld run``: suit, span of 3..13 positions, never both aces,
  the hand's natural at every position it holds and a joker at every other one, at least
  one natural), while a meld slot is free (``max_table_melds``). Once a going down has
  started only its remaining melds; two runs of one suit laid in one going down may not be
  adjacent (docs/rules/contract_rummy.md#runs-kept-apart).
- Down (this turn or earlier): ``lay off X on S`` when meld S stays legal (a set: rank,
  a new suit, at most 4 cards, a joker on a set of 3; a run: X extends an end, an ace
  that fits both ends and a joker go to the high end when open, else the low end; never
  both aces). No new melds.
- Down in an earlier turn: ``swap X on S`` for a run whose joker stands for X; the joker
  goes to the hand and one joker per swap must be laid off before a discard.
- ``discard X`` unless: a going down is in progress, the deep-drawn face is not yet on
  the table, a swapped joker is still owed, or X is the taken face and the hand holds no
  other copy (melds, lay-offs and swaps use the taken card first, which lifts the rule).
- Deal 7 (``down_means_out``): going down must empty the hand; no discard after it, no
  lay-offs, no swaps.
- An empty hand ends the turn (the round ends at once); the deep-drawn face must still have
  gone on the table by a meld or a lay-off (the deep draw is allowed "only if" it does).
  docs/rules/README.md#no-dead-ends lists "an empty hand" apart from "a legal discard with
  every obligation met"; the oracle reads the deep-draw rule as binding either way.

- Each obligation takes its own card (docs/rules/contract_rummy.md#obligations): a joker
  laid off while a swapped joker is owed pays that one, and a deep-drawn joker still has
  to reach the table by another card of its face.

No dead ends: an action is offered iff it is rules-legal and after it the player can
still finish the turn by its own rules-legal actions (hand empty, or a legal discard).
Discards finish the turn themselves; ``draw stock`` always leaves a free discard.

Search: plain depth-first over the player's rules-legal actions, memoised on the whole turn
state (the table as a multiset: slot numbers do not matter for finishing), with a node
budget (``OracleBudgetExceeded``). One sound shortcut, for deal 7 only, can be turned off
(``shortcuts=False``; the tests cross-check it): when the going down is the only way out,
the runs still to lay hold 3..13 cards each, of one suit each, so a hand with more suits
than runs left, or a size outside those bounds, cannot be emptied.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

RANKS = "A23456789TJQK"
SUITS = "CDHS"
JOKER = "JK"
TOP = 13  # the ace-high run position


class OracleBudgetExceeded(RuntimeError):
    """The brute-force search visited more states than its budget allows."""


# ---------------------------------------------------------------------------- cards
def card_rank(card: str) -> int:
    return RANKS.index(card[0])


def card_suit(card: str) -> str:
    return card[1]


def card_at(suit: str, position: int) -> str:
    """The natural that run position ``position`` of ``suit`` stands for."""
    return RANKS[position % 13] + suit


def position_text(position: int) -> str:
    return RANKS[position % 13]


# ---------------------------------------------------------------------------- hands
# A hand is a tuple of 53 counts, indexed by the oracle's own card index: suit * 13 + rank
# for naturals (suits C D H S, ranks A..K), 52 for the joker.
CARD_TEXTS = tuple(RANKS[i % 13] + SUITS[i // 13] for i in range(52)) + (JOKER,)
CARD_INDEX = {c: i for i, c in enumerate(CARD_TEXTS)}
EMPTY_HAND = (0,) * 53


def hand_of(cards: Iterable[str]) -> tuple:
    counts = [0] * 53
    for c in cards:
        counts[CARD_INDEX[c]] += 1
    return tuple(counts)


def hand_count(hand: tuple, card: str) -> int:
    return hand[CARD_INDEX[card]]


def hand_size(hand: tuple) -> int:
    return sum(hand)


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
def meld_cards(meld: tuple) -> list[str]:
    if meld[0] == "set":
        _, rank, suits, jokers = meld
        return [RANKS[rank] + s for s in suits] + [JOKER] * jokers
    _, suit, low, high, jokers = meld
    return [JOKER if p in jokers else card_at(suit, p) for p in range(low, high + 1)]


def run_is_valid(low: int, high: int) -> bool:
    """A span of run positions: 3..13 cards, inside 0..13, never both aces (no wrap)."""
    return 0 <= low and high <= TOP and high - low + 1 >= 3 and not (low == 0 and high == TOP)


def lay_off_result(meld: tuple, card: str) -> tuple | None:
    """The meld after laying ``card`` off on it, or None if it does not fit."""
    if meld[0] == "set":
        _, rank, suits, jokers = meld
        if len(suits) + jokers >= 4:
            return None
        if card == JOKER:
            return ("set", rank, suits, jokers + 1)
        if card_rank(card) != rank or card_suit(card) in suits:
            return None
        return ("set", rank, "".join(sorted(suits + card_suit(card), key=SUITS.index)), jokers)
    _, suit, low, high, jokers = meld
    high_open = high + 1 <= TOP and run_is_valid(low, high + 1)
    low_open = low - 1 >= 0 and run_is_valid(low - 1, high)
    if card == JOKER:
        if high_open:
            return ("run", suit, low, high + 1, tuple(sorted(jokers + (high + 1,))))
        if low_open:
            return ("run", suit, low - 1, high, tuple(sorted(jokers + (low - 1,))))
        return None
    if card_suit(card) != suit:
        return None
    rank = card_rank(card)
    positions = (TOP, 0) if rank == 0 else (rank,)  # an ace tries the high end first
    for p in positions:
        if p == high + 1 and high_open:
            return ("run", suit, low, high + 1, jokers)
        if p == low - 1 and low_open:
            return ("run", suit, low - 1, high, jokers)
    return None


# ---------------------------------------------------------------------------- state
@dataclass(frozen=True)
class TurnState:
    """The acting player's turn, in the oracle's own terms (play phase)."""

    hand: tuple
    table: tuple  # melds in slot order
    going_down: bool  # a going down is in progress (only its remaining melds)
    left: tuple  # (sets, runs) still to lay while going down
    down: bool  # gone down this round (this turn or earlier)
    down_earlier: bool  # gone down in an earlier turn (swaps)
    must: str | None  # deep-drawn face still to put on the table
    owed: int  # swapped jokers still to lay off
    taken: str | None  # face taken from the top of the pile, not yet played
    turn_runs: tuple  # (suit, low, high) of the runs of this going down

    def key(self) -> tuple:
        return (self.hand, tuple(sorted(self.table, key=repr)), self.going_down, self.left, self.down,
                self.down_earlier, self.must, self.owed, self.taken, tuple(sorted(self.turn_runs)))


@dataclass(frozen=True)
class Config:
    contract: tuple  # (sets, runs)
    down_means_out: bool
    max_deep_draw: int
    max_slots: int


@dataclass(frozen=True)
class Situation:
    """Everything the oracle reads from the env for the player to act."""

    phase: str  # "draw", "play", "going_down", "game_over"
    config: Config
    pile: tuple  # discard pile, bottom to top
    turn: TurnState  # before the draw in the draw phase (hand without the drawn card)


# ---------------------------------------------------------------------------- actions
def action_text(action: tuple) -> str:
    kind = action[0]
    if kind == "draw_stock":
        return "draw stock"
    if kind == "draw_top":
        return "draw discard"
    if kind == "deep":
        return f"draw discard {action[1]}"
    if kind == "discard":
        return f"discard {action[1]}"
    if kind == "set":
        _, rank, suits, jokers = action
        return f"meld set {RANKS[rank]} {suits}" + (f" +{jokers}" if jokers else "")
    if kind == "run":
        _, suit, low, high = action
        return f"meld run {suit} {position_text(low)} {position_text(high)}"
    if kind == "layoff":
        return f"lay off {action[1]} on {action[2]}"
    if kind == "swap":
        return f"swap {action[1]} on {action[2]}"
    raise AssertionError(action)


class ContractOracle:
    """Legal action texts of the player to act, from the rules text (module docstring)."""

    def __init__(self, config: Config, node_budget: int = 200_000, shortcuts: bool = True) -> None:
        self.config = config
        self.shortcuts = shortcuts
        self.node_budget = node_budget
        self.memo: dict[tuple, bool] = {}
        self.nodes = 0

    # ------------------------------------------------------------ rules-legal play actions
    def contract_melds(self, st: TurnState) -> list[tuple]:
        if len(st.table) >= self.config.max_slots:
            return []
        sets_left, runs_left = st.left if st.going_down else self.config.contract
        jokers = hand_count(st.hand, JOKER)
        actions = []
        if sets_left > 0:
            for rank in range(13):
                held = [s for s in SUITS if hand_count(st.hand, RANKS[rank] + s)]
                for mask in range(1, 1 << len(held)):
                    suits = "".join(s for i, s in enumerate(held) if mask >> i & 1)
                    for w in range(min(2, jokers) + 1):
                        if 3 <= len(suits) + w <= 4:
                            actions.append(("set", rank, suits, w))
        if runs_left > 0:
            for suit in SUITS:
                held = [hand_count(st.hand, card_at(suit, p)) > 0 for p in range(TOP + 1)]
                for low in range(TOP + 1):
                    naturals = gaps = 0
                    for high in range(low, TOP + 1):
                        if held[high]:
                            naturals += 1
                        else:
                            gaps += 1
                        if gaps > jokers:
                            break  # longer spans only have more gaps
                        if not run_is_valid(low, high) or naturals == 0:
                            continue
                        if any(s == suit and (h + 1 == low or high + 1 == lo) for s, lo, h in st.turn_runs):
                            continue  # would join up with a run of this going down
                        actions.append(("run", suit, low, high))
        return actions

    def discard_allowed(self, st: TurnState) -> bool:
        if st.going_down or st.must is not None or st.owed > 0 or not any(st.hand):
            return False
        # deal 7: no final discard (unreachable: going down empties the hand)
        return not (self.config.down_means_out and st.down)

    def play_actions(self, st: TurnState) -> list[tuple]:
        """Every rules-legal action of the play phase (before the no-dead-ends filter)."""
        actions: list[tuple] = []
        if not any(st.hand):
            return actions
        if st.going_down or not st.down:
            actions += self.contract_melds(st)
        elif not self.config.down_means_out:
            cards = hand_cards(st.hand)
            for slot, meld in enumerate(st.table):
                for c in cards:
                    if lay_off_result(meld, c) is not None:
                        actions.append(("layoff", c, slot))
            if st.down_earlier:
                for slot, meld in enumerate(st.table):
                    if meld[0] == "run":
                        for p in meld[4]:
                            c = card_at(meld[1], p)
                            if hand_count(st.hand, c):
                                actions.append(("swap", c, slot))
        if self.discard_allowed(st):
            for c in hand_cards(st.hand):
                if c != st.taken or hand_count(st.hand, c) >= 2:
                    actions.append(("discard", c))
        return actions

    # ------------------------------------------------------------ applying
    def apply(self, st: TurnState, action: tuple) -> TurnState:
        kind = action[0]
        if kind in ("set", "run"):
            if kind == "set":
                _, rank, suits, w = action
                meld = ("set", rank, suits, w)
            else:
                _, suit, low, high = action
                jokers = tuple(p for p in range(low, high + 1) if not hand_count(st.hand, card_at(suit, p)))
                meld = ("run", suit, low, high, jokers)
            cards = meld_cards(meld)
            sets_left, runs_left = st.left if st.going_down else self.config.contract
            if kind == "set":
                sets_left -= 1
            else:
                runs_left -= 1
            assert sets_left >= 0 and runs_left >= 0
            done = (sets_left, runs_left) == (0, 0)
            turn_runs = st.turn_runs + ((meld[1], meld[2], meld[3]),) if kind == "run" else st.turn_runs
            return replace(
                st,
                hand=hand_remove(st.hand, cards),
                table=st.table + (meld,),
                going_down=not done,
                left=(0, 0) if done else (sets_left, runs_left),
                down=done,
                turn_runs=() if done else turn_runs,
                must=None if st.must in cards else st.must,
                taken=None if st.taken in cards else st.taken,
            )
        if kind == "layoff":
            _, card, slot = action
            new = lay_off_result(st.table[slot], card)
            assert new is not None
            table = st.table[:slot] + (new,) + st.table[slot + 1:]
            return replace(
                st,
                hand=hand_remove(st.hand, [card]),
                table=table,
                # each obligation takes its own card: a joker laid off while a swapped joker
                # is owed is that joker (docs/rules/contract_rummy.md#obligations)
                must=None if st.must == card and not (card == JOKER and st.owed > 0) else st.must,
                taken=None if st.taken == card else st.taken,
                owed=st.owed - 1 if card == JOKER and st.owed > 0 else st.owed,
            )
        if kind == "swap":
            _, card, slot = action
            _, suit, low, high, jokers = st.table[slot]
            p = next(q for q in jokers if card_at(suit, q) == card)
            new = ("run", suit, low, high, tuple(q for q in jokers if q != p))
            table = st.table[:slot] + (new,) + st.table[slot + 1:]
            return replace(
                st,
                hand=hand_add(hand_remove(st.hand, [card]), [JOKER]),
                table=table,
                owed=st.owed + 1,
                taken=None if st.taken == card else st.taken,
            )
        raise AssertionError(action)

    # ------------------------------------------------------------ the no-dead-ends search
    def finishable(self, st: TurnState) -> bool:
        """Can the player still end this turn legally by its own actions?"""
        if not any(st.hand):
            # going out ends the round; the deep draw was only allowed on condition that its
            # card went on the table by a meld or a lay-off
            # (docs/rules/contract_rummy.md#deep-draws), so an empty hand does not excuse
            # that obligation (a swapped joker left the hand: laid off)
            return not st.going_down and st.must is None and st.owed == 0
        key = st.key()
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        self.nodes += 1
        if self.nodes > self.node_budget:
            raise OracleBudgetExceeded(f"more than {self.node_budget} states")
        if self.shortcuts and self.config.down_means_out and not st.down and (st.going_down or st.must is not None):
            # Deal 7 with no way out but the going down, which must empty the hand (no
            # discard, no lay-off after it). A sound shortcut of the search below: the runs
            # still to lay hold 3..13 cards each, all of one suit each.
            runs_left = st.left[1] if st.going_down else self.config.contract[1]
            size = hand_size(st.hand)
            suits = {i // 13 for i in range(52) if st.hand[i]}
            if not 3 * runs_left <= size <= 13 * runs_left or len(suits) > runs_left:
                self.memo[key] = False
                return False
        actions = self.play_actions(st)
        result = any(a[0] == "discard" for a in actions) or any(
            self.finishable(self.apply(st, a)) for a in actions if a[0] != "discard")
        self.memo[key] = result
        return result

    # ------------------------------------------------------------ draws
    def after_top_draw(self, st: TurnState, pile: tuple) -> TurnState:
        return replace(st, hand=hand_add(st.hand, [pile[-1]]), taken=pile[-1])

    def after_deep_draw(self, st: TurnState, pile: tuple, depth: int) -> TurnState:
        return replace(st, hand=hand_add(st.hand, pile[-depth:]), must=pile[-depth], taken=None)

    # ------------------------------------------------------------ the mask
    def legal(self, sit: Situation) -> set[str]:
        if sit.phase == "game_over":
            return set()
        st = sit.turn
        out: set[str] = set()
        if sit.phase == "draw":
            out.add(action_text(("draw_stock",)))
            if sit.pile and self.finishable(self.after_top_draw(st, sit.pile)):
                out.add(action_text(("draw_top",)))
            for depth in range(2, min(self.config.max_deep_draw, len(sit.pile)) + 1):
                if self.finishable(self.after_deep_draw(st, sit.pile, depth)):
                    out.add(action_text(("deep", depth)))
            return out
        for a in self.play_actions(st):
            if a[0] == "discard" or self.finishable(self.apply(st, a)):
                out.add(action_text(a))
        return out


# ---------------------------------------------------------------------------- reading the env
def _meld_from_state(meld) -> tuple:
    """The oracle's meld from a ``game_state.table[i].meld`` (plain fields only)."""
    if meld.kind == "set":
        suits = "".join(sorted((SUITS[f // 13] for f in meld.naturals), key=SUITS.index))
        assert len(set(suits)) == len(suits), f"set with repeated suits on the table: {meld}"
        return ("set", meld.rank, suits, meld.wilds)
    suit = SUITS[meld.suit]
    held = set()
    for f in meld.naturals:
        assert f // 13 == meld.suit
        r = f % 13
        p = r if r != 0 else (0 if meld.low == 0 else TOP)
        assert meld.low <= p <= meld.high and p not in held, f"odd run on the table: {meld}"
        held.add(p)
    jokers = tuple(p for p in range(meld.low, meld.high + 1) if p not in held)
    assert len(jokers) == meld.wilds, f"run jokers do not fill its gaps: {meld}"
    return ("run", suit, meld.low, meld.high, jokers)


def situation(raw) -> Situation:
    """Read the state of ``raw`` (an unwrapped Contract Rummy env) for the player to act."""
    gs = raw.game_state
    d = raw.describe(raw.possible_agents[gs.current])  # only the acting player's hand
    rules = raw.rules
    spec = rules.rounds[gs.round]
    play = rules.contract_play
    config = Config(tuple(spec.contract), bool(spec.down_means_out), play.max_deep_draw, play.max_table_melds)
    phase = d["phase"]
    if phase == "game_over":
        return Situation(phase, config, (), TurnState((), (), False, (0, 0), False, False, None, 0, None, ()))
    seat = gs.current
    agent = raw.possible_agents[seat]
    assert d["current"] == agent
    table = tuple(_meld_from_state(tm.meld) for tm in gs.table)
    # cross-check the plain fields against describe()'s card lists
    for m, dm in zip(table, d["melds"]):
        assert Counter(meld_cards(m)) == Counter(dm["cards"]), (m, dm)
    down_turn = gs.down_turn[seat]
    down = down_turn >= 0
    # a turn is counted when it starts (the draw): in the draw phase ``turns`` is the count
    # before this turn, so any going down is from an earlier turn
    down_earlier = down and (phase == "draw" or down_turn < gs.turns)
    going_down = phase == "going_down"
    turn_runs = ()
    if going_down:
        # the player had no meld before this going down (none before going down, exactly one
        # going down per round), so its melds on the table are this going down's
        turn_runs = tuple((m[1], m[2], m[3]) for m, tm in zip(table, gs.table) if tm.owner == seat and m[0] == "run")
    st = TurnState(
        hand=hand_of(d["hands"][agent]),
        table=table,
        going_down=going_down,
        left=tuple(gs.contract_left) if going_down else (0, 0),
        down=down,
        down_earlier=down_earlier,
        must=d["must_place"],
        owed=int(d["wilds_owed"]),
        taken=d["taken_from_discard"],
        turn_runs=turn_runs,
    )
    return Situation(phase, config, tuple(d["discard"]), st)


def oracle_legal_texts(raw, node_budget: int = 200_000, shortcuts: bool = True) -> set[str]:
    """The oracle's set of legal action texts for the player to act in ``raw``."""
    sit = situation(raw)
    return ContractOracle(sit.config, node_budget, shortcuts).legal(sit)


# ---------------------------------------------------------------------------- following a turn
def parse_action(text: str) -> tuple:
    """The oracle's action tuple of a canonical action text."""
    w = text.split()
    if w == ["draw", "stock"]:
        return ("draw_stock",)
    if w == ["draw", "discard"]:
        return ("draw_top",)
    if w[:2] == ["draw", "discard"]:
        return ("deep", int(w[2]))
    if w[0] == "discard":
        return ("discard", w[1])
    if w[:2] == ["meld", "set"]:
        return ("set", RANKS.index(w[2]), w[3], int(w[4][1:]) if len(w) == 5 else 0)
    if w[:2] == ["meld", "run"]:
        low = RANKS.index(w[3])
        high = RANKS.index(w[4])
        if high == 0:
            high = TOP  # an ace written last is high
        return ("run", w[2], low, high)
    if w[:2] == ["lay", "off"]:
        return ("layoff", w[2], int(w[4]))
    if w[0] == "swap":
        return ("swap", w[1], int(w[3]))
    raise ValueError(text)


def follow(oracle: ContractOracle, sit: Situation, text: str, drawn: str | None = None) -> TurnState | None:
    """The oracle's own turn state after the action ``text`` in ``sit`` (``drawn``: the card a
    stock draw gave), or None when the action ends the turn (a discard, an empty hand)."""
    action = parse_action(text)
    st = sit.turn
    kind = action[0]
    if kind == "draw_stock":
        assert drawn is not None
        return replace(st, hand=hand_add(st.hand, [drawn]))
    if kind == "draw_top":
        return oracle.after_top_draw(st, sit.pile)
    if kind == "deep":
        return oracle.after_deep_draw(st, sit.pile, action[1])
    if kind == "discard":
        return None
    new = oracle.apply(st, action)
    return new if any(new.hand) else None
