"""The batched API (``rummy_env.vector``), over every registered game and both backends: each
table plays exactly as the AEC env plays the same seed, step for step (seat, observation,
mask, rewards, the game's end and its final scores, the next game's deal); an illegal action
changes no table and names it; the result does not depend on the thread count; the arrays
handed out are the caller's; bad input is refused with the batch unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env import vector
from rummy_env.registry import GAMES
from rummy_env.state import IllegalActionError

GAME_BACKENDS = [(name, backend) for backend in ("python", "native") for name in GAMES]


def random_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def snapshot(tables: vector.Tables) -> tuple[np.ndarray, ...]:
    o = tables.observe()
    return o.seat, o.obs, o.mask


def assert_same_view(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> None:
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


MODE_CASES = [
    pytest.param(game, backend, mode, marks=[pytest.mark.slow] if mode != "relative" and backend == "python" else [])
    for game, backend in GAME_BACKENDS for mode in ("relative", "penalty", "win")]
"""Every reward mode on the core; on the reference (whose rewards the AEC env's own tests
check in every mode) the other modes in the slow run."""


@pytest.mark.parametrize("game,backend,reward_mode", MODE_CASES)
def test_each_table_plays_as_the_aec_env_plays_its_seed(game: str, backend: str, reward_mode: str) -> None:
    """Short rounds (a cap of 6 turns) so that games end, auto-reset and continue within the test."""
    spec = GAMES[game]
    for players in spec.player_counts[:1] + spec.player_counts[-1:]:
        seeds = [7, -3, 2**40 + 5]
        tables = vector.make(game, len(seeds), num_players=players, max_turns_per_round=6,
                             reward_mode=reward_mode, backend=backend)
        tables.reset(seeds)
        envs = []
        for s in seeds:
            env = spec.raw_env(num_players=players, max_turns_per_round=6, reward_mode=reward_mode)
            env.reset(seed=s)
            envs.append(env)
        rng = np.random.default_rng(players)
        ended = np.zeros(len(seeds), dtype=int)
        for _ in range(3000):  # until every table has finished a game and played on in its next
            if ended.min() >= 1 and _ % 20 == 0:
                break
            o = tables.observe()
            for i, env in enumerate(envs):
                agent = env.agent_selection
                assert f"player_{o.seat[i]}" == agent
                seen = env.observe(agent)
                np.testing.assert_array_equal(o.obs[i], seen["observation"])
                np.testing.assert_array_equal(o.mask[i], seen["action_mask"].astype(bool))
            actions = random_actions(rng, o.mask)
            rewards, done = tables.step(actions)
            for i, env in enumerate(envs):
                env.step(int(actions[i]))
                np.testing.assert_array_equal(rewards[i], np.float32([env.rewards[a] for a in env.possible_agents]))
                assert done[i] == all(env.terminations.values())
                if done[i]:
                    ended[i] += 1
                    assert tables.final_scores[i].tolist() == env.game_state.scores
                    env.reset()  # the env's next game from its own stream, as the table's
                    assert tables.game_seeds[i] == env.game_seed
        assert ended.min() >= 1, "a table finished no game: the test compares no game's end or next deal"


@pytest.mark.parametrize("game", GAMES)
def test_native_and_python_backends_agree_at_every_step(game: str) -> None:
    native = vector.make(game, 12, seed=11, num_threads=2, max_turns_per_round=10)
    python = vector.make(game, 12, seed=11, backend="python", max_turns_per_round=10)
    assert native.backend == "native" and python.backend == "python"
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(600):
        view = snapshot(native)
        assert_same_view(view, snapshot(python))
        actions = random_actions(rng, view[2])
        r1, d1 = native.step(np.stack([actions, actions], axis=1)[:, 0])  # a strided view is read as any array
        r2, d2 = python.step(actions.tolist())
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(d1, d2)
        np.testing.assert_array_equal(native.final_scores[d1], python.final_scores[d2])
        ended += int(d1.sum())
    assert native.game_seeds == python.game_seeds
    assert ended > 0


@pytest.mark.parametrize("game", GAMES)
def test_the_thread_count_changes_nothing(game: str) -> None:
    batches = [vector.make(game, 37, seed=5, num_threads=k, max_turns_per_round=10) for k in (1, 2, 4)]
    rng = np.random.default_rng(1)
    for _ in range(300):
        views = [snapshot(b) for b in batches]
        for view in views[1:]:
            assert_same_view(views[0], view)
        actions = random_actions(rng, views[0][2])
        results = [b.step(actions) for b in batches]
        for rewards, done in results[1:]:
            np.testing.assert_array_equal(rewards, results[0][0])
            np.testing.assert_array_equal(done, results[0][1])


@pytest.mark.parametrize("game,backend", GAME_BACKENDS)
def test_one_illegal_action_changes_no_table_and_names_it(game: str, backend: str) -> None:
    tables = vector.make(game, 5, seed=3, backend=backend)
    twin = vector.make(game, 5, seed=3, backend=backend)
    rng = np.random.default_rng(2)
    for _ in range(4):
        actions = random_actions(rng, tables.observe().mask)
        tables.step(actions)
        twin.step(actions)
    before = snapshot(tables)
    actions = random_actions(rng, before[2])
    bad = int(np.flatnonzero(~before[2][3])[0])
    wrong = actions.copy()
    wrong[3] = bad
    with pytest.raises(IllegalActionError, match=rf"table 3: illegal action {bad} .* for seat {before[0][3]}"):
        tables.step(wrong)
    assert_same_view(snapshot(tables), before)
    r1, d1 = tables.step(actions)  # the batch goes on as if the bad call never happened
    r2, d2 = twin.step(actions)
    np.testing.assert_array_equal(r1, r2)
    assert_same_view(snapshot(tables), snapshot(twin))


@pytest.mark.parametrize("backend", ["native", "python"])
def test_bad_actions_and_seeds_are_refused_with_the_batch_unchanged(backend: str) -> None:
    game = next(iter(GAMES))
    tables = vector.make(game, 4, seed=9, backend=backend)
    before = snapshot(tables)
    legal = random_actions(np.random.default_rng(0), before[2])
    bad_actions = {
        "one action id per table": [legal[:3], legal.reshape(2, 2), legal[0]],
        "integer action ids": [legal.astype(np.float64), legal.astype(bool), ["0"] * 4, [None] * 4],
        "outside the action space": [np.where(np.arange(4) == 1, -1, legal),
                                     np.where(np.arange(4) == 1, tables.num_actions, legal),
                                     np.where(np.arange(4) == 1, 2**62, legal),
                                     np.where(np.arange(4) == 1, 2**64 - 1, legal).astype(np.uint64)],
    }
    for message, cases in bad_actions.items():
        for actions in cases:
            with pytest.raises(IllegalActionError, match=message):
                tables.step(actions)
            assert_same_view(snapshot(tables), before)
    seeds_before = list(tables.game_seeds)
    for seeds in ([1, 2, 3], [1, 2, 3, "4"], [1, 2, 3, 4.0], [1, 2, 3, None], "1234", 5):
        with pytest.raises((ValueError, TypeError), match="seed"):
            tables.reset(seeds)
        assert tables.game_seeds == seeds_before
        assert_same_view(snapshot(tables), before)


def test_make_refuses_bad_arguments() -> None:
    game = next(iter(GAMES))
    cases = [
        (dict(game="no_such_game", num_tables=2), "unknown game"),
        (dict(game=game, num_tables=0), "num_tables"),
        (dict(game=game, num_tables=True), "num_tables"),
        (dict(game=game, num_tables=2, num_threads=0), "num_threads"),
        (dict(game=game, num_tables=2, reward_mode="score"), "reward_mode"),
        (dict(game=game, num_tables=2, backend="gpu"), "backend"),
        (dict(game=game, num_tables=2, num_players=9), "num_players|players"),
        (dict(game=game, num_tables=2, no_such_rule=1), "bad configuration"),
        (dict(game=game, num_tables=2, seed="x"), "seed"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            vector.make(**kwargs)


@pytest.mark.parametrize("game,backend", GAME_BACKENDS)
def test_observations_are_the_callers(game: str, backend: str) -> None:
    tables = vector.make(game, 3, seed=1, backend=backend)
    first = tables.observe()
    kept = tuple(a.copy() for a in first)
    again = tables.observe()
    for a in first:
        a[...] = 0  # changing what was handed out reaches no later observe
    assert_same_view(snapshot(tables), kept)
    assert_same_view(again, kept)
    actions = random_actions(np.random.default_rng(0), kept[2])
    for _ in range(3):
        tables.step(actions if _ == 0 else random_actions(np.random.default_rng(_), tables.observe().mask))
    assert_same_view(again, kept)  # nor does a later step


@pytest.mark.parametrize("game,backend", GAME_BACKENDS)
def test_the_seed_makes_every_tables_stream(game: str, backend: str) -> None:
    """``make(seed=s)``: table i's games come from numpy's default_rng([s, i]), the same in two
    batches, and each game is the AEC env's game of its seed."""
    a = vector.make(game, 3, seed=21, backend=backend)
    b = vector.make(game, 3, seed=21, backend=backend)
    expected = [int(np.random.default_rng([21, i]).integers(2**63)) for i in range(3)]
    assert a.game_seeds == b.game_seeds == expected
    assert_same_view(snapshot(a), snapshot(b))
    env = GAMES[game].raw_env()
    env.reset(seed=expected[2])
    np.testing.assert_array_equal(a.observe().obs[2], env.observe(env.agent_selection)["observation"])
    a.reset()  # the next game of each stream, as the env's reset() without a seed
    stream = np.random.default_rng([21, 2])
    stream.integers(2**63)
    assert a.game_seeds[2] == int(stream.integers(2**63))
    assert vector.make(game, 3, seed=22, backend=backend).game_seeds != expected


MILLION_STEP_GAMES = [name for name in GAMES if not GAMES[name].game.preset.__module__.endswith(".variants")]
"""The registered games but the variants (rummy_env/rules/variants.py: presets of another
game's components, which its sweep covers; the fast sweep compares each variant too)."""


@pytest.mark.slow
@pytest.mark.parametrize("game", MILLION_STEP_GAMES)
def test_a_million_random_steps_agree_on_both_backends(game: str) -> None:
    """At least 1,000,000 steps per game over its player counts, full games: at every step
    the legal lists, rewards, ends and final scores, and at every 4th step the whole view
    (seats, observations, masks) as in ``test_native_and_python_backends_agree_at_every_step``
    (the fast suite's smaller sweep). The reference's observation is three quarters of the
    sweep's time: encoding it at every 4th step keeps the test within CI's budget."""
    counts = GAMES[game].player_counts
    steps_each = -(-1_000_000 // (64 * len(counts)))
    total = ended = 0
    for players in counts:
        native = vector.make(game, 64, num_players=players, seed=players, num_threads=2)
        python = vector.make(game, 64, num_players=players, seed=players, backend="python")
        rng = np.random.default_rng(players)
        for step in range(steps_each):
            if step % 4 == 0:
                assert_same_view(snapshot(native), snapshot(python))
            legal, sizes = native.legal_lists()
            assert_same_view((legal, sizes), python.legal_lists())
            actions = legal[np.arange(64), (rng.random(64) * sizes).astype(np.int64)]
            r1, d1 = native.step(actions)
            r2, d2 = python.step(actions)
            np.testing.assert_array_equal(r1, r2)
            np.testing.assert_array_equal(d1, d2)
            np.testing.assert_array_equal(native.final_scores[d1], python.final_scores[d2])
            total += 64
            ended += int(d1.sum())
    assert total >= 1_000_000 and ended >= 20  # random play rarely goes out: most rounds run to the turn cap


def test_the_core_batch_refuses_malformed_arrays() -> None:
    """The bindings themselves (below ``Tables``' checks): wrong shapes, dtypes, layouts and
    table numbers raise, never crash, and change nothing."""
    from rummy_env import _core
    from rummy_env.table import table_arguments

    rules = GAMES[next(iter(GAMES))].rules()
    batch = _core.Batch(3, 2, 0, **table_arguments(rules))
    tables = vector.make(next(iter(GAMES)), 3, seed=0)
    obs_size, actions = tables.observation_size, tables.num_actions
    players = rules.num_players
    for i in range(3):
        batch.reset(i, [i])
    good = dict(seats=np.zeros(3, np.int32), obs=np.zeros((3, obs_size), np.float32),
                mask=np.zeros((3, actions), np.bool_))
    batch.observe(**good)
    before = [a.copy() for a in good.values()]
    bad_observe = [
        dict(good, seats=np.zeros(4, np.int32)), dict(good, seats=np.zeros(3, np.int64)),
        dict(good, obs=np.zeros((3, obs_size + 1), np.float32)), dict(good, obs=np.zeros((3, obs_size), np.float64)),
        dict(good, obs=np.zeros((obs_size, 3), np.float32).T), dict(good, mask=np.zeros((3, actions), np.int8)),
        dict(good, mask=None), dict(good, obs=[[0.0] * obs_size] * 3),
    ]
    for kwargs in bad_observe:
        with pytest.raises((TypeError, ValueError)):
            batch.observe(**kwargs)
    step = dict(actions=np.zeros(3, np.int64), active=None, next_seeds=np.zeros(3, np.uint64),
                rewards=np.zeros((3, players), np.float32), done=np.zeros(3, np.bool_),
                final_scores=np.zeros((3, players), np.int32))
    bad_step = [dict(step, actions=np.zeros(2, np.int64)), dict(step, actions=np.zeros(3, np.int32)),
                dict(step, next_seeds=np.zeros(3, np.int64)), dict(step, rewards=np.zeros((3, players + 1), np.float32)),
                dict(step, done=np.zeros(3, np.int8)), dict(step, final_scores=np.zeros((3, players), np.int64)),
                dict(step, active=np.ones(2, np.bool_)), dict(step, active=np.ones(3, np.int8))]
    for kwargs in bad_step:
        with pytest.raises((TypeError, ValueError)):
            batch.step(**kwargs)
    bad_pick = [dict(uniforms=np.zeros(2), actions=np.zeros(3, np.int64)),
                dict(uniforms=np.zeros(3, np.float32), actions=np.zeros(3, np.int64)),
                dict(uniforms=np.zeros(3), actions=np.zeros(3, np.int32)), dict(uniforms=[0.0] * 3, actions=None)]
    for kwargs in bad_pick:
        with pytest.raises((TypeError, ValueError)):
            batch.pick_legal(**kwargs)
    for i in (-1, 3, 2**40):
        for call in (batch.to_act, batch.legal_actions, batch.scores):
            with pytest.raises((TypeError, ValueError, OverflowError)):
                call(i)
        with pytest.raises((TypeError, ValueError, OverflowError)):
            batch.reset(i, [0])
    for args in ((0, 1, 0), (2, 0, 0), (2, 1, 3), (2, 300, 0)):
        with pytest.raises(ValueError):
            _core.Batch(*args, **table_arguments(rules))
    batch.observe(**good)
    for a, b in zip(good.values(), before):
        np.testing.assert_array_equal(a, b)
    # random action ids (most illegal) never crash: the first illegal table is named, or all apply
    rng = np.random.default_rng(0)
    for _ in range(200):
        step["actions"] = rng.integers(-5, actions + 5, size=3).astype(np.int64)
        result = batch.step(**step)
        assert result == -1 or 0 <= result < 3


@pytest.mark.parametrize("game,backend", GAME_BACKENDS)
def test_observe_fills_the_callers_buffers(game: str, backend: str) -> None:
    tables = vector.make(game, 3, seed=4, backend=backend)
    fresh = tables.observe()
    out = vector.Observation(np.full(3, -7, np.int32), np.full(fresh.obs.shape, np.nan, np.float32),
                             np.ones(fresh.mask.shape, np.bool_))
    assert tables.observe(out=out) is out
    assert_same_view(out, fresh)
    wide = np.zeros((3, tables.observation_size + 1), np.float32)
    bad = [out._replace(obs=wide[:, 1:]), out._replace(obs=out.obs.astype(np.float64)),
           out._replace(mask=out.mask.astype(np.int8)), out._replace(seat=np.zeros(4, np.int32)), tuple(out)]
    for buffers in bad:
        kept = [np.array(a, copy=True) for a in buffers]
        with pytest.raises(ValueError, match="out"):
            tables.observe(out=buffers)
        for a, b in zip(buffers, kept):
            np.testing.assert_array_equal(a, b)  # nothing written into a buffer that does not fit


@pytest.mark.parametrize("game,backend", GAME_BACKENDS)
def test_only_the_active_tables_are_stepped(game: str, backend: str) -> None:
    tables = vector.make(game, 4, seed=6, backend=backend)
    twins = [vector.make(game, 4, seed=6, backend=backend) for _ in range(2)]
    rng = np.random.default_rng(3)
    active = np.array([True, False, True, False])
    for _ in range(5):
        view = snapshot(tables)
        actions = random_actions(rng, view[2])
        sparse = np.where(active, actions, -1)  # an inactive table's entry is never read
        rewards, done = tables.step(sparse, active=active)
        assert not rewards[~active].any() and not done[~active].any()
        elsewhere = random_actions(rng, snapshot(twins[0])[2])  # the twin's other tables play on
        twins[0].step(np.where(active, actions, elsewhere))
    after = snapshot(tables)
    full = snapshot(twins[0])
    untouched = snapshot(twins[1])
    for got, stepped, fresh in zip(after, full, untouched):
        np.testing.assert_array_equal(got[active], stepped[active])
        np.testing.assert_array_equal(got[~active], fresh[~active])
    for bad in (np.ones(3, np.bool_), np.ones(4, np.int8), [1, 0, 1, 0]):
        with pytest.raises(ValueError, match="active"):
            tables.step(np.zeros(4, np.int64), active=bad)
    wrong = np.where(active, -1, 0)  # an illegal entry at an active table is still refused
    with pytest.raises(IllegalActionError, match="table 0"):
        tables.step(wrong, active=active)
    assert_same_view(snapshot(tables), after)


@pytest.mark.parametrize("game,backend", GAME_BACKENDS)
def test_random_legal_picks_as_numpy_picks_from_the_masks(game: str, backend: str) -> None:
    """``Tables.random_legal`` reads the tables' legal lists, not the masks: the same picks and
    the same use of the generator as ``vector_env.random_legal`` on the observed masks, at
    every table or the active ones, on any thread count."""
    from rummy_env.vector_env import random_legal

    batches = [vector.make(game, 24, seed=3, backend=backend, num_threads=threads) for threads in (1, 2)]
    active = np.arange(24) % 3 != 1
    for step in range(150):
        mask = batches[0].observe().mask
        wanted = random_legal(np.random.default_rng(step), mask)
        wanted_active = random_legal(np.random.default_rng(step), mask[active])
        for tables in batches:
            np.testing.assert_array_equal(tables.random_legal(np.random.default_rng(step)), wanted)
            some = tables.random_legal(np.random.default_rng(step), active)
            np.testing.assert_array_equal(some[active], wanted_active)
            assert not some[~active].any()
            tables.step(wanted)


@pytest.mark.parametrize("game,backend", GAME_BACKENDS)
def test_legal_lists_are_the_masks_legal_ids(game: str, backend: str) -> None:
    """``legal_lists`` gives each table's legal ids as the mask has them, padded with -1 to
    the largest count, also when the lists outgrow the width it started with."""
    tables = vector.make(game, 16, seed=5, backend=backend, num_threads=2 if backend == "native" else 1)
    tables._legal_width = 2  # so that the lists outgrow it at once
    rng = np.random.default_rng(0)
    for _ in range(120):
        mask = tables.observe().mask
        ids, counts = tables.legal_lists()
        np.testing.assert_array_equal(counts, mask.sum(axis=1))
        assert ids.shape == (16, counts.max()) and ids.dtype == np.int32
        for row, count, legal in zip(ids, counts, mask):
            np.testing.assert_array_equal(row[:count], np.flatnonzero(legal))
            assert (row[count:] == -1).all()
        tables.step(random_actions(rng, mask))


@pytest.mark.parametrize("game", GAMES)
def test_a_batch_dealt_its_games_again_replayed_and_given_its_streams_plays_on_as_the_original(game: str) -> None:
    """What a training run saves of a batch: each table's game seed, the actions since its
    deal, and ``streams()``; a new batch restored from them plays on exactly as the original,
    into the games that come after (the streams decide their deals)."""
    original = vector.make(game, 6, seed=7, max_turns_per_round=4)
    rng = np.random.default_rng(0)
    played: list[list[int]] = [[] for _ in range(6)]
    for _ in range(60):
        actions = original.random_legal(rng)
        _, done = original.step(actions)
        for table, action in enumerate(actions.tolist()):
            played[table] = [] if done[table] else played[table] + [action]
    saved = (list(original.game_seeds), original.streams())
    copy = vector.make(game, 6, seed=99, max_turns_per_round=4)
    copy.reset(seeds=saved[0])
    for step in range(max(len(h) for h in played)):
        active = np.array([len(h) > step for h in played])
        copy.step(np.array([h[step] if len(h) > step else 0 for h in played]), active=active)
    copy.set_streams(saved[1])
    ended = 0
    for _ in range(400):
        assert_same_view(snapshot(copy), snapshot(original))
        actions = original.random_legal(rng)
        _, done = original.step(actions)
        np.testing.assert_array_equal(copy.step(actions)[1], done)
        ended += int(done.sum())
    assert ended >= 6 and copy.game_seeds == original.game_seeds
    with pytest.raises(ValueError, match="6 tables, not 2"):
        vector.make(game, 2, seed=0).set_streams(saved[1])


@pytest.mark.parametrize("game", GAMES)
def test_calls_from_two_threads_on_one_batch_are_refused_not_interleaved(game: str) -> None:
    """The core releases the interpreter while it works: a second thread's call on the same
    batch raises instead of corrupting the first (it used to hang the process)."""
    import threading

    tables = vector.make(game, 256, seed=0, num_threads=2)
    errors: list[BaseException] = []

    def play(seed: int) -> None:
        rng = np.random.default_rng(seed)
        for _ in range(150):
            try:
                mask = tables.observe().mask
                tables.step(random_actions(rng, mask))
            except (RuntimeError, IllegalActionError) as err:  # refused, or a mask from before the other's step
                errors.append(err)

    threads = [threading.Thread(target=play, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert all(isinstance(e, IllegalActionError) or "in use by another thread" in str(e) for e in errors)
    mask = tables.observe().mask  # and the batch still plays
    tables.step(random_actions(np.random.default_rng(9), mask))


def test_random_options_seeds_and_actions_never_crash_the_core() -> None:
    """Fuzz: rule options, seeds and actions drawn at random, sound or not, on every game and
    backend: each either works or is refused with an error, and the interpreter survives."""
    rng = np.random.default_rng(2026)
    values = [None, -1, 0, 1, 2, 3, 4, 5, 8, 9, 13, 400, 10**6, 2**31, -2**63, 1.5, "3", True]
    built = refused = 0
    for _ in range(120):
        game = list(GAMES)[int(rng.integers(len(GAMES)))]
        options = {name: values[int(rng.integers(len(values)))] for name in GAMES[game].defaults if rng.random() < 0.5}
        seed = values[int(rng.integers(len(values)))]
        try:
            tables = vector.make(game, int(rng.integers(1, 4)), seed=seed, num_threads=int(rng.integers(1, 3)), **options)
        except (ValueError, TypeError):
            refused += 1
            continue
        built += 1
        for _ in range(3):
            actions = rng.integers(-3, tables.num_actions + 3, size=tables.num_tables)
            try:
                tables.step(actions)
            except IllegalActionError:
                pass
            mask = tables.observe().mask
            tables.step(random_actions(rng, mask))
        not_seeds = [None, 1.5, "3", True]
        with pytest.raises((ValueError, TypeError)):
            tables.reset([not_seeds[int(rng.integers(len(not_seeds)))]] * tables.num_tables)
        tables.reset([int(rng.integers(-2**62, 2**62)) for _ in range(tables.num_tables)])
    assert built > 10 and refused > 10
