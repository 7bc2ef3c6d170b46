"""The checks that every game's random-play invariant suite runs at each step: card
conservation, a masked-out action that is refused and changes nothing, and hidden cards
that do not reach the acting agent's observation. Each suite subclasses
``InvariantChecks`` and adds its game's own checks and policy."""

from __future__ import annotations

import copy
import dataclasses
import random
from collections import Counter
from operator import add, le

import numpy as np
import pytest

from rummy_env import IllegalActionError
from rummy_env.actions import ActionKind, Block
from rummy_env.state import GameState, Phase

STATE_FIELDS = tuple(f.name for f in dataclasses.fields(GameState) if f.name != "legal_cache")


def freeze(value):
    """A comparable copy of a game-state field (lists of bytearrays, of lists, of ints; the RNG)."""
    kind = type(value)
    if kind is list:
        if value and type(value[0]) is bytearray:
            return tuple(map(bytes, value))
        if value and type(value[0]) is list:
            return tuple(map(tuple, value))
        return tuple(value)
    if kind is bytearray:
        return bytes(value)
    if kind is random.Random:
        return value.getstate()
    return value


class InvariantChecks:
    """Checks of one wrapped env; ``count`` tallies what was checked and reached."""

    def __init__(self, env, seed: int) -> None:
        self.env = env
        self.raw = raw = env.unwrapped
        self.n = raw.rules.num_players
        self.rng = random.Random(seed)  # the checks' choices: illegal ids, hidden-card shuffles
        self.np_rng = np.random.default_rng(seed)
        self.engine = raw.engine
        self.layout = layout = raw.layout
        self.num_actions = layout.size
        self.deck_list = list(raw.rules.deck.face_counts())
        self.num_faces = len(self.deck_list)
        self.hand_slice = raw.observer.offsets["hand"]
        self.blocks = [Block(ActionKind.DRAW_STOCK, 0, 2), *layout.blocks.values()]
        self.count: Counter = Counter()

    # ------------------------------------------------------------ (a)
    def check_cards(self, st: GameState | None = None) -> None:
        """Conservation of every face, ``discard_counts``, ``known``, ``hand_sizes``, and
        ``check_table_meld`` for every meld on the table."""
        st = self.raw.game_state if st is None else st
        hands = st.hands
        assert len(hands) == self.n and all(len(h) == self.num_faces for h in hands)
        assert [sum(h) for h in hands] == st.hand_sizes, (st.hand_sizes, [sum(h) for h in hands])
        discard = [0] * self.num_faces
        for f in st.discard:
            discard[f] += 1
        assert discard == list(st.discard_counts), "discard_counts does not count the discard pile"
        total = list(discard)
        for f in st.stock:
            total[f] += 1
        for slot, tm in enumerate(st.table):
            self.check_table_meld(slot, tm)
            for f in tm.cards:
                total[f] += 1
        for h in hands:
            total = list(map(add, total, h))
        if total != self.deck_list:
            diff = {f: t - d for f, (t, d) in enumerate(zip(total, self.deck_list)) if t != d}
            raise AssertionError(f"cards not conserved (face: surplus): {diff}")
        for h, k in zip(hands, st.known):
            assert all(map(le, k, h)), "a seat is 'known' to hold a card it does not hold"

    def check_table_meld(self, slot: int, tm) -> None:
        """A game's own checks of a meld on the table (none by default)."""

    # ------------------------------------------------------------ (b)
    def check_masks(self, agent: str, obs: dict, term: bool, oracle: bool = True) -> list[int]:
        """The acting agent's mask is non-empty and equals the engine's legal actions (and,
        with ``oracle``, the game's ``check_oracle``); the ``hand`` part of its observation
        is its hand; every other agent's mask is all zeros, and at the end every mask."""
        raw, st = self.raw, self.raw.game_state
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (self.num_actions,)
        legal = np.flatnonzero(mask).tolist()
        if term:
            assert st.phase == Phase.GAME_OVER and not legal
        else:
            assert st.phase != Phase.GAME_OVER
            seat = self.engine.to_act(st)  # the player whose turn it is, or the one asked to buy
            assert agent == raw.possible_agents[seat]
            assert legal, "empty action mask for the agent to act (a dead end)"
            assert legal == sorted(self.engine.legal_actions(st))
            assert obs["observation"][self.hand_slice].tolist() == list(st.hands[seat])
            if oracle:
                self.check_oracle(legal)
        for other in raw.possible_agents:
            if other != agent or term:
                assert not raw.observe(other)["action_mask"].any(), (
                    f"{other} has a non-zero mask while {agent} acts")
        return legal

    def check_oracle(self, legal: list[int]) -> None:
        """The game's independent check of the legal actions (none by default)."""

    # ------------------------------------------------------------ (c)
    def fingerprint(self) -> tuple:
        """Every field of the raw env's game state (RNG state included), and the AEC bookkeeping."""
        raw = self.raw
        st = raw.game_state
        return (
            tuple(freeze(getattr(st, name)) for name in STATE_FIELDS),
            list(raw.agents), raw.agent_selection, dict(raw.rewards), dict(raw._cumulative_rewards),
            dict(raw.terminations), dict(raw.truncations),
        )

    def pick_illegal(self, legal: list[int]) -> int:
        """A masked-out id: half the time from a block that has legal actions now (the
        nearest misses), else from the whole space."""
        legal_set = set(legal)
        if self.rng.random() < 0.5:
            blocks = [b for b in self.blocks if any(b.start <= a < b.stop for a in legal)]
            block = self.rng.choice(blocks)
            near = [a for a in range(block.start, block.stop) if a not in legal_set]
            if near:
                return self.rng.choice(near)
        while True:
            a = self.rng.randrange(self.num_actions)
            if a not in legal_set:
                return a

    def check_illegal(self, agent: str, legal: list[int], thorough: bool) -> dict | None:
        """A masked-out action raises ``IllegalActionError`` naming the agent and the action
        and changes nothing; when ``thorough``, every agent's observation and ``describe()``
        are compared too, and ``describe()`` is returned for ``check_hidden``."""
        raw = self.raw
        action = self.pick_illegal(legal)
        described = raw.describe() if thorough else None
        state = self.fingerprint()
        obs = {}
        for a in (raw.possible_agents if thorough else [agent]):
            o = self.env.observe(a)
            obs[a] = (o["observation"].copy(), o["action_mask"].copy())
        with pytest.raises(IllegalActionError) as info:
            self.env.step(action)
        assert agent in str(info.value) and raw.action_to_text(action) in str(info.value)
        raw._obs_cache = {}  # observe afresh: the failed step did not clear the cache
        assert not thorough or raw.describe() == described, f"illegal action {action} changed describe()"
        assert self.fingerprint() == state, f"illegal action {action} changed the state"
        for a, (ob, mk) in obs.items():
            o = self.env.observe(a)
            assert np.array_equal(o["observation"], ob) and np.array_equal(o["action_mask"], mk), (
                f"illegal action {action} changed {a}'s observation")
        self.count["illegal_checks"] += 1
        return described

    # ------------------------------------------------------------ (d)
    def check_hidden(self, agent: str, described: dict | None) -> None:
        """The cards ``agent`` cannot see (other hands less their known cards, and the
        stock) are shuffled among those places through ``set_state``; its observation and
        mask, and (given ``described``, the current ``describe()``) its ``describe(agent)``
        view must not change. The snapshot is then restored and checked."""
        raw = self.raw
        seat = raw._seat[agent]
        ob = self.env.observe(agent)
        obs_before, mask_before = ob["observation"].copy(), ob["action_mask"].copy()
        original = raw.get_state()
        restored = self.fingerprint() if described is not None else None
        st = copy.copy(original.state)  # set_state copies it again; only hands and stock change
        others = [p for p in range(self.n) if p != seat]
        pool: list[int] = list(st.stock)
        hidden_sizes = []
        for p in others:
            hidden_sizes.append(st.hand_sizes[p] - sum(st.known[p]))
            for f, (h, k) in enumerate(zip(st.hands[p], st.known[p])):
                if h > k:
                    pool.extend([f] * (h - k))
        hands_before, stock_before = st.hands, st.stock
        places = len(stock_before) + sum(1 for size in hidden_sizes if size)  # the stock's order counts
        movable = len(set(pool)) >= 2 and places >= 2
        for _ in range(20):  # until some card moves (a tiny pool may come back as it was)
            shuffled = self.np_rng.permutation(pool).tolist()  # (random.shuffle is several times slower)
            at = 0
            hands = list(hands_before)
            for p, size in zip(others, hidden_sizes):
                hand = bytearray(st.known[p])
                for f in shuffled[at:at + size]:
                    hand[f] += 1
                at += size
                hands[p] = hand
            stock = shuffled[at:]
            changed = stock != stock_before or hands != hands_before
            if changed or not movable:
                break
        st.hands, st.stock = hands, stock
        assert len(st.stock) == len(original.state.stock)
        st.legal_cache = None
        raw.set_state(dataclasses.replace(original, state=st))
        try:
            self.check_cards()
            ob = self.env.observe(agent)
            if not np.array_equal(ob["observation"], obs_before):
                parts = [k for k, sl in raw.observer.offsets.items()
                         if not np.array_equal(ob["observation"][sl], obs_before[sl])]
                raise AssertionError(f"{agent}'s observation depends on cards it cannot see: parts {parts}")
            assert np.array_equal(ob["action_mask"], mask_before), f"{agent}'s mask depends on hidden cards"
            # describe(agent) shows only the agent's own hand, so it must not change either
            if described is not None:
                assert raw.describe(agent) == {**described, "hands": {agent: described["hands"][agent]}}
        finally:
            raw.set_state(original)
        if restored is not None:
            assert self.fingerprint() == restored, "set_state did not restore the snapshot"
        else:  # cheaper: the acting agent's view is back
            assert np.array_equal(self.env.observe(agent)["observation"], obs_before)
        self.count["hidden_checks"] += 1
        self.count["hidden_changed"] += changed or not movable


def sweep(params: list, fast: int) -> list:
    """A random-play sweep's parameters, the first ``fast`` in the default run and the rest
    marked ``slow`` (run by CI with ``-m slow``)."""
    return [p if i < fast else pytest.param(*(p if isinstance(p, tuple) else (p,)), marks=pytest.mark.slow)
            for i, p in enumerate(params)]
