"""``get_state`` / ``set_state`` snapshots, seeding and determinism of ``three_thirteen_v0``."""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rummy_env import three_thirteen_v0

PLAYERS = (2, 3, 4)
GO_OUT_BASE = 54


def policy(rng: random.Random, mask: np.ndarray) -> int:
    """Uniform over legal actions, but going out with probability 0.5 when it is legal."""
    legal = np.flatnonzero(mask).tolist()
    go_outs = [a for a in legal if a >= GO_OUT_BASE]
    if go_outs and rng.random() < 0.5:
        return rng.choice(go_outs)
    return rng.choice(legal)


def frame(env) -> tuple:
    """Everything an agent or a user can read from the env at this point, exactly."""
    raw = env.unwrapped
    obs = tuple(
        (a, env.observe(a)["observation"].tobytes(), env.observe(a)["action_mask"].tobytes())
        for a in raw.possible_agents
    )
    return (
        raw.agent_selection,
        obs,
        tuple(raw.agents),
        tuple(sorted(raw.rewards.items())),
        tuple(sorted(raw._cumulative_rewards.items())),
        tuple(sorted(raw.terminations.items())),
        tuple(sorted(raw.truncations.items())),
        repr(raw.describe()),
    )


def run(env, steps: int | None, rng: random.Random | None = None, actions: list | None = None):
    """Plays ``steps`` agent steps (None: to the end of the game), choosing with ``rng`` or
    replaying ``actions``; returns the frames seen (one before each step and one at the
    end) and the actions taken (None for a terminated agent's step)."""
    frames, taken = [frame(env)], []
    if actions is not None and steps is None:
        steps = len(actions)
    i = 0
    while env.agents and (steps is None or i < steps):
        _, reward, term, trunc, _ = env.last()
        if actions is not None:
            action = actions[i]
        elif term or trunc:
            action = None
        else:
            action = policy(rng, env.observe(env.agent_selection)["action_mask"])
        env.step(action)
        taken.append(action)
        frames.append(frame(env))
        i += 1
    return frames, taken


def state_fields(snapshot) -> tuple:
    st = snapshot.state
    return (
        st.round, st.dealer, st.current, st.phase, [bytes(h) for h in st.hands], list(st.hand_sizes),
        list(st.stock), list(st.discard), bytes(st.discard_counts), [bytes(k) for k in st.known],
        [(tm.owner, tm.meld, tuple(tm.cards)) for tm in st.table], list(st.scores),
        [list(p) for p in st.round_penalties], st.taken_face, st.went_out, st.last_turns_left, st.turns,
        st.rng.getstate(), list(snapshot.agents), snapshot.agent_selection, dict(snapshot.rewards),
        dict(snapshot.cumulative_rewards), dict(snapshot.terminations), dict(snapshot.truncations),
    )


# ---------------------------------------------------------------- get_state / set_state
@pytest.mark.parametrize("n", PLAYERS)
@pytest.mark.parametrize("cap", [20, pytest.param(400, marks=pytest.mark.slow)])
def test_snapshot_round_trip(n, cap):
    env = three_thirteen_v0.env(num_players=n, max_turns_per_round=cap)
    raw = env.unwrapped
    rng = random.Random(n * 1000 + cap)
    for seed in range(3 if cap < 100 else 1):
        env.reset(seed=seed)
        run(env, rng.randrange(0, 300), rng)
        snap = raw.get_state()
        fields = state_fields(snap)
        # continue to the end of the game (rounds end, rewards, reshuffles on the long cap)
        frames, actions = run(env, None, rng)
        assert not env.agents
        assert state_fields(snap) == fields, "later play changed the snapshot"
        for _ in range(2):  # the same snapshot restores the same game more than once
            raw.set_state(snap)
            assert frames[0] == frame(env)
            replay, _ = run(env, None, actions=actions)
            assert replay == frames
        assert state_fields(snap) == fields
        # a fresh env of the same configuration continues the same way from the snapshot
        other = three_thirteen_v0.env(num_players=n, max_turns_per_round=cap)
        other.reset(seed=12345)
        other.unwrapped.set_state(snap)
        replay, _ = run(other, None, actions=actions)
        assert replay == frames


@pytest.mark.parametrize("n", PLAYERS)
def test_snapshot_continues_with_same_random_choices(n):
    """Restored, the env's own RNG gives the same reshuffles: a snapshot taken with an
    empty stock, before ``draw stock``, replays identically (and the reshuffle happens)."""
    env = three_thirteen_v0.env(num_players=n)
    raw = env.unwrapped
    rng = random.Random(n)
    found = 0
    for seed in range(20):
        env.reset(seed=seed)
        while env.agents and found < 3:
            obs, _, term, _, _ = env.last()
            if term:
                env.step(None)
                continue
            st = raw.game_state
            if not st.stock and obs["action_mask"][0] and len(st.discard) > 1:
                snap = raw.get_state()
                pile = sorted(st.discard[:-1])
                env.step(0)
                after_stock = list(raw.game_state.stock)
                assert sorted(after_stock + [_drawn(snap, raw)]) == pile
                frames, actions = run(env, 40, rng)
                raw.set_state(snap)
                env.step(0)
                assert raw.game_state.stock == after_stock
                assert run(env, None, actions=actions)[0] == frames
                found += 1
                break
            env.step(policy(rng, obs["action_mask"]))
        if found >= 3:
            break
    assert found == 3, "no reshuffle reached"


def _drawn(snap, raw) -> int:
    """The face the player to act in ``snap`` has drawn since (its hand grew by one card)."""
    seat = snap.state.current
    before, after = snap.state.hands[seat], raw.game_state.hands[seat]
    (face,) = [f for f in range(len(after)) if after[f] == before[f] + 1]
    return face


def test_snapshot_is_independent_of_the_env():
    env = three_thirteen_v0.env(num_players=3)
    raw = env.unwrapped
    env.reset(seed=4)
    run(env, 25, random.Random(0))
    snap = raw.get_state()
    fields = state_fields(snap)
    # mutating the snapshot does not touch the env, nor the env's state the snapshot
    here = frame(env)
    snap.state.hands[0][0] += 5
    snap.state.stock.clear()
    snap.rewards["player_0"] = 99.0
    assert frame(env) == here
    snap = raw.get_state()
    raw.set_state(snap)
    snap.state.hands[1][3] += 1
    snap.state.discard.append(7)
    snap.state.rng.random()
    assert frame(env) == here
    assert state_fields(raw.get_state()) == fields
    raw.game_state.stock.pop()
    assert len(snap.state.stock) == len(fields[6])


def test_set_state_rejects_foreign_snapshots():
    env2 = three_thirteen_v0.env(num_players=2)
    env3 = three_thirteen_v0.env(num_players=3)
    env2.reset(seed=0)
    env3.reset(seed=0)
    with pytest.raises(ValueError):
        env2.unwrapped.set_state(env3.unwrapped.get_state())
    for junk in (None, {}, "state", env3.unwrapped.game_state):
        with pytest.raises(ValueError):
            env2.unwrapped.set_state(junk)


def test_set_state_before_reset():
    env = three_thirteen_v0.env(num_players=2)
    env.reset(seed=8)
    run(env, 10, random.Random(1))
    snap = env.unwrapped.get_state()
    frames, actions = run(env, 50, random.Random(2))
    fresh = three_thirteen_v0.raw_env(num_players=2)
    fresh.set_state(snap)
    assert run(fresh, None, actions=actions)[0] == frames


# ---------------------------------------------------------------- determinism
def _whole_game(n: int, seed: int, policy_seed: int, cap: int = 400):
    env = three_thirteen_v0.env(num_players=n, max_turns_per_round=cap)
    env.reset(seed=seed)
    return run(env, None, random.Random(policy_seed))


@pytest.mark.parametrize("n", PLAYERS)
@pytest.mark.parametrize("caps", [(60, 30), pytest.param((400, 30), marks=pytest.mark.slow)], ids=["short", "whole"])
def test_same_seed_same_actions_same_game(n, caps):
    for seed, cap in ((0, caps[0]), (1, caps[1]), (2**40 + 3, caps[1])):
        frames_a, actions_a = _whole_game(n, seed, policy_seed=seed, cap=cap)
        frames_b, actions_b = _whole_game(n, seed, policy_seed=seed, cap=cap)
        assert actions_a == actions_b
        assert frames_a == frames_b
        # replaying the recorded actions on a third env gives the same game too
        env = three_thirteen_v0.env(num_players=n, max_turns_per_round=cap)
        env.reset(seed=seed)
        assert run(env, None, actions=actions_a)[0] == frames_a


@pytest.mark.parametrize("n", PLAYERS)
def test_different_seeds_differ(n):
    env = three_thirteen_v0.env(num_players=n)
    starts, dealers = set(), set()
    for seed in range(40):
        env.reset(seed=seed)
        starts.add(frame(env))
        dealers.add(env.unwrapped.game_state.dealer)
    assert len(starts) == 40, "two seeds dealt the same game"
    assert dealers == set(range(n)), "the seed does not choose the dealer uniformly"
    a, _ = _whole_game(n, 1, policy_seed=7, cap=20)
    b, _ = _whole_game(n, 2, policy_seed=7, cap=20)
    assert a != b
    # same seed, different actions: the same deal, then a different game
    c, _ = _whole_game(n, 1, policy_seed=8, cap=20)
    assert c != a and c[0] == a[0]


@pytest.mark.parametrize("n", PLAYERS)
def test_reset_with_seed_twice_gives_same_game(n):
    env = three_thirteen_v0.env(num_players=n, max_turns_per_round=30)
    env.reset(seed=77)
    first, actions = run(env, None, random.Random(5))
    env.reset(seed=77)  # after a whole game
    assert run(env, None, actions=actions)[0] == first
    env.reset(seed=77)
    run(env, 37, random.Random(9))  # mid-game
    env.reset(seed=77)
    assert run(env, None, actions=actions)[0] == first
    env.reset(seed=78)
    assert frame(env) != first[0]


def test_reset_without_seed_is_random():
    env = three_thirteen_v0.env(num_players=4)
    starts = set()
    for _ in range(5):
        env.reset()
        starts.add(repr(env.unwrapped.describe()))
    assert len(starts) == 5


def test_reset_options_are_deterministic_and_do_not_leak():
    env = three_thirteen_v0.env(num_players=3)
    env.reset(seed=3, options={"round": 6, "dealer": 2, "scores": [10, 20, 30]})
    a = frame(env)
    env.reset(seed=3, options={"round": 6, "dealer": 2, "scores": {"player_0": 10, "player_1": 20, "player_2": 30}})
    assert frame(env) == a
    d = env.unwrapped.describe()
    assert d["round"] == 6 and d["dealer"] == 2 and d["scores"] == {"player_0": 10, "player_1": 20, "player_2": 30}
    assert env.agent_selection == "player_0"  # the dealer's left plays first
    env.reset(seed=3)  # options of an earlier reset do not carry over
    d = env.unwrapped.describe()
    assert d["round"] == 1 and set(d["scores"].values()) == {0}


_HASH_SCRIPT = """
import hashlib, random, sys
sys.path.insert(0, {root!r})
from tests.test_state import _whole_game
h = hashlib.sha256()
for n in (2, 3, 4):
    frames, actions = _whole_game(n, seed=2024 + n, policy_seed=n, cap=25)
    h.update(repr((frames, actions)).encode())
print(h.hexdigest())
"""


def test_determinism_across_processes_and_hash_seeds():
    """The same seed and actions give the same game bit for bit in fresh interpreters with
    different ``PYTHONHASHSEED`` values (no dependence on set/dict hashing or ids)."""
    root = str(Path(__file__).resolve().parent.parent)
    script = _HASH_SCRIPT.format(root=root)
    digests = set()
    for hash_seed in ("0", "1", "12345"):
        out = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
            env={**os.environ, "PYTHONHASHSEED": hash_seed}, cwd=root,
        )
        assert out.returncode == 0, out.stderr
        digests.add(out.stdout.strip())
    h = hashlib.sha256()
    for n in (2, 3, 4):
        frames, actions = _whole_game(n, seed=2024 + n, policy_seed=n, cap=25)
        h.update(repr((frames, actions)).encode())
    digests.add(h.hexdigest())
    assert len(digests) == 1, digests


def test_numpy_integer_seeds_work_and_bad_seeds_are_rejected():
    a, b = three_thirteen_v0.raw_env(), three_thirteen_v0.raw_env()
    a.reset(seed=np.int64(7))
    b.reset(seed=7)
    assert a.describe() == b.describe()
    for bad in (1.5, "7", True):
        with pytest.raises(ValueError, match="seed"):
            a.reset(seed=bad)
