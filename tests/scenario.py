"""Helpers shared by the test suites of every game: the games' cards and exact deck orders
for the scenario set-up (docs/rules/README.md#scenario-set-up), and what an agent decides
in a scenario."""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Sequence

from rummy_env.agents import Decision, SeatInfo


STANDARD_DECK = [rank + suit for suit in "CDHS" for rank in "A23456789TJQK"]


def contract_rummy_cards(num_players: int, num_decks: int | None = None, num_jokers: int | None = None) -> list[str]:
    """Every physical card of Contract Rummy: one deck + 1 joker for 3-4 players, two decks
    + 2 jokers for 5-8 (or the ``num_decks`` / ``num_jokers`` given)."""
    default = 1 if num_players <= 4 else 2
    decks = default if num_decks is None else num_decks
    jokers = default if num_jokers is None else num_jokers
    return STANDARD_DECK * decks + ["JK"] * jokers


ROOK_DECK = [f"{number}{colour}" for colour in "RYGB" for number in range(1, 15)] + ["ROOK"]


def toonerville_rook_cards(num_players: int) -> list[str]:
    """Every physical card of Toonerville Rook: one 57-card Rook deck per player."""
    return ROOK_DECK * num_players


def arrange_deck(
    cards: Sequence[str],
    num_players: int,
    dealer: int,
    hands: Sequence[Sequence[str] | None],
    upcard: str,
    stock: Sequence[str] = (),
    fill_order: Sequence[str] | None = None,
    hand_size: int | None = None,
) -> list[str]:
    """The exact order of the game's ``cards`` that deals ``hands[seat]`` to every seat (one
    card at a time, starting left of ``dealer``), then ``upcard`` as the first discard, then
    ``stock`` as the first stock draws. A ``None`` hand is filled with unused cards; those
    and the cards left over are taken in ``fill_order`` (default: the order of ``cards``),
    so that the multiset is exact. ``hand_size`` is needed only when every hand is ``None``."""
    n = num_players
    assert len(hands) == n
    pool = Counter(cards)
    used = Counter(c for h in hands if h is not None for c in h) + Counter([upcard]) + Counter(stock)
    for card, k in used.items():
        assert k <= pool[card], f"scenario uses {card} x{k}, the game has {pool[card]}"
    pool.subtract(used)
    spare = []
    for card in cards if fill_order is None else fill_order:
        if pool[card] > 0:
            spare.append(card)
            pool[card] -= 1
    assert not +pool, f"fill_order leaves out {sorted((+pool).elements())}"
    size = max((len(h) for h in hands if h is not None), default=hand_size)
    hands = list(hands)
    for seat, hand in enumerate(hands):
        if hand is None:
            hands[seat], spare = spare[:size], spare[size:]
    assert all(len(h) == size for h in hands), "every hand must have the round's size"
    order = [hands[(dealer + 1 + j) % n][k] for k in range(size) for j in range(n)]
    deck = order + [upcard] + list(stock) + spare
    assert sorted(deck) == sorted(cards)
    return deck


def reset_to(env, deck: list[str], dealer: int, round_no: int, scores=None, seed: int = 0):
    """``env`` reset with the scenario options (docs/rules/README.md#scenario-set-up);
    returns it."""
    options = {"deck": deck, "dealer": dealer, "round": round_no}
    if scores is not None:
        options["scores"] = scores
    env.reset(seed=seed, options=options)
    return env


def play(env, *texts: str) -> None:
    """Steps the env with each action text in turn."""
    for text in texts:
        env.step(env.unwrapped.text_to_action(text))


def legal(env) -> list[str]:
    """The legal actions' texts, sorted."""
    return sorted(env.unwrapped.legal_actions_text())


def desc(env) -> dict:
    return env.unwrapped.describe()


def P(i: int) -> str:
    """The agent name of seat ``i``."""
    return f"player_{i}"


def empty_the_stock(env) -> None:
    """Empties the stock through ``set_state``. Reachable only by manipulation: in play the
    discard pile holds one card per stock draw."""
    raw = env.unwrapped
    snap = raw.get_state()
    snap.state.stock = []
    raw.set_state(snap)
    assert raw.describe()["stock_size"] == 0


def draw_from_reshuffled_stock(exhausted_stock_env: Callable[[int], Any]) -> Any:
    """docs/rules/README.md#empty-stock, on ``exhausted_stock_env(seed)`` (a game with an
    empty stock and a discard pile of several cards): ``draw stock`` stays legal and
    reshuffles every discard but the top into the stock, then draws from it; the shuffle
    follows the seed. Returns the env (seed 1) after the draw."""
    env = exhausted_stock_env(1)
    raw = env.unwrapped
    d = raw.describe()
    old, who = d["discard"], d["current"]
    before = Counter(d["hands"][who])
    assert "draw stock" in raw.legal_actions_text()  # drawing from the empty stock stays legal
    env.step(raw.text_to_action("draw stock"))
    d = raw.describe()
    (drawn,) = list((Counter(d["hands"][who]) - before).elements())
    assert d["discard"] == [old[-1]] and d["stock_size"] == len(old) - 2
    stock = [raw.engine.card_set.format(f) for f in raw.game_state.stock]
    assert Counter(stock + [drawn]) == Counter(old[:-1])
    assert d["phase"] == "play"
    # shuffled with the seeded RNG: same seed, same order; another seed, another order
    again, other = exhausted_stock_env(1), exhausted_stock_env(2)
    for e in (again, other):
        e.step(e.unwrapped.text_to_action("draw stock"))
    assert again.unwrapped.game_state.stock == raw.game_state.stock
    assert other.unwrapped.game_state.stock != raw.game_state.stock
    return env


def decide(env, agent_cls) -> str:
    """The action text a fresh ``agent_cls`` chooses for the seat to act now (checked legal)."""
    raw = env.unwrapped
    name = env.agent_selection
    agent = agent_cls()
    agent.start_game(SeatInfo.of(env, name), 0)
    obs, _, _, _, _ = env.last()
    action = agent.act(Decision(obs["observation"], obs["action_mask"], lambda: raw.describe(name)))
    assert obs["action_mask"][action], "the agent chose an illegal action"
    return raw.action_to_text(action)
