"""The compiled core (``rummy_env._core``) against the Python reference it replaces: the
same answers, the same arrangement chosen, on random hands of every registered game's deck
and meld rules; and bad input answered with an error, never a crash."""

from __future__ import annotations

import pickle
import random

import pytest

import rummy_env
from rummy_env.backend import BACKENDS, CompiledSolver, default_backend, solver
from rummy_env.contract_solver import ContractSolver


def rules_of(game: str):
    spec = rummy_env.GAMES[game]
    rules = spec.rules(num_players=max(spec.player_counts))  # the most decks the game deals
    return rules.deck, rules.melds, rules


def both_solvers(game: str):
    """The compiled solver and the reference for the game's deck and meld rules."""
    deck, melds, _ = rules_of(game)
    compiled, reference = solver(deck.card_set, melds, "native"), solver(deck.card_set, melds, "python")
    assert isinstance(compiled, CompiledSolver) and type(reference) is ContractSolver
    return compiled, reference


def random_hands(game: str, count: int, seed: int):
    """Hands from the game's own deck: every size the game deals and a few wilds."""
    deck, _, rules = rules_of(game)
    cs = deck.card_set
    naturals = [f for f in deck.cards() if f < cs.num_naturals]
    values = [rules.rank_penalties[cs.rank(f)] for f in range(cs.num_naturals)]
    rng = random.Random(seed)
    for _ in range(count):
        counts = [0] * cs.num_naturals
        for f in rng.sample(naturals, rng.randint(1, 14)):
            counts[f] += 1
        yield counts, rng.choice([0, 0, 1, 1, 2, 3, 4]), values


SWEEP = [pytest.param(400, id="fast"), pytest.param(4000, id="more", marks=pytest.mark.slow)]


@pytest.mark.parametrize("hands", SWEEP)
@pytest.mark.parametrize("game", list(rummy_env.GAMES))
def test_the_core_answers_every_meld_query_as_the_reference(game: str, hands: int):
    compiled, reference = both_solvers(game)
    for counts, wilds, values in random_hands(game, hands, seed=len(game)):
        for wild_value in (0, 25):
            assert compiled.min_penalty(counts, wilds, values, wild_value) == reference.min_penalty(
                counts, wilds, values, wild_value), (counts, wilds, wild_value)
            # the same arrangement, meld for meld, not only one as good
            assert compiled.best_arrangement(counts, wilds, values, wild_value) == reference.best_arrangement(
                counts, wilds, values, wild_value), (counts, wilds, wild_value)
        assert compiled.can_meld_all(counts, wilds) == reference.can_meld_all(counts, wilds), (counts, wilds)
        assert compiled.meldable_without_one(counts, wilds) == reference.meldable_without_one(counts, wilds)


@pytest.mark.parametrize("hands", SWEEP)
@pytest.mark.parametrize("game", list(rummy_env.GAMES))
def test_the_core_answers_every_contract_query_as_the_reference(game: str, hands: int):
    """Big hands too (a deep draw takes the discard pile): the fast bounds and the search."""
    deck, _, rules = rules_of(game)
    compiled, reference = both_solvers(game)
    contracts = sorted({r.contract for r in rules.rounds if r.contract} | {(1, 1), (0, 1), (2, 0)})
    naturals = [f for f in deck.cards() if f < deck.card_set.num_naturals]
    rng = random.Random(len(game) + 1)
    answers = set()
    for _ in range(hands):
        hand = rng.sample(naturals, rng.choice([3, 6, 9, 12, 16, 24]))
        counts = [0] * deck.card_set.num_naturals
        for f in hand:
            counts[f] += 1
        must = [0] * len(counts)
        for f in rng.sample(hand, rng.randint(1, min(5, len(hand)))):
            must[f] = 1
        wilds = rng.choice([0, 0, 1, 2, 3])
        sets, runs = rng.choice(contracts)
        face = rng.choice(hand)
        for query, args in (("can_make_contract", (counts, wilds, sets, runs)),
                            ("can_partition", (counts, wilds, sets, runs)),
                            ("can_make_contract_with", (counts, wilds, sets, runs, face)),
                            ("each_could_meld", (counts, wilds, must, sets, runs))):
            answer = getattr(compiled, query)(*args)
            assert answer == getattr(reference, query)(*args), (query, sorted(hand), wilds, sets, runs, face)
            answers.add((query, answer))
    # both answers of every query (each_could_meld always passes where all-wild melds are allowed);
    # the fast sweep may miss a rare one, the slow one may not
    assert len(answers) == (7 if rules.melds.all_wild_melds else 8) or hands < 1000


def test_a_compiled_solver_crosses_to_another_process_as_a_fresh_one():
    deck, melds, rules = rules_of("three_thirteen")
    compiled = solver(deck.card_set, melds, "native")
    counts = [1, 1, 1] + [0] * 49
    assert compiled.can_meld_all(counts, 0)
    copy = pickle.loads(pickle.dumps(compiled))
    assert type(copy) is CompiledSolver and copy._core is not compiled._core
    assert (copy.card_set, copy.rules) == (compiled.card_set, compiled.rules) and copy.can_meld_all(counts, 0)


def test_the_backend_is_native_unless_the_environment_says_otherwise(monkeypatch):
    deck, melds, _ = rules_of("three_thirteen")
    monkeypatch.delenv("RUMMY_ENV_BACKEND", raising=False)
    assert default_backend() == "native" and isinstance(solver(deck.card_set, melds), CompiledSolver)
    monkeypatch.setenv("RUMMY_ENV_BACKEND", "python")
    assert type(solver(deck.card_set, melds)) is ContractSolver
    monkeypatch.setenv("RUMMY_ENV_BACKEND", "fortran")
    with pytest.raises(ValueError, match="RUMMY_ENV_BACKEND must be one of native, python, not 'fortran'"):
        default_backend()
    with pytest.raises(ValueError, match="backend must be one of native, python, not 'gpu'"):
        solver(deck.card_set, melds, "gpu")
    assert BACKENDS == ("native", "python")


def test_bad_input_to_the_core_is_an_error_and_the_solver_goes_on():
    deck, melds, rules = rules_of("contract_rummy")
    core = solver(deck.card_set, melds, "native")
    good = [0] * deck.card_set.num_naturals
    values = [1] * deck.card_set.num_naturals
    bad_calls = [
        (lambda: core.min_penalty([0] * 51, 0, values, 0), ValueError, "one count per natural face \\(52\\)"),
        (lambda: core.min_penalty(good, 0, values[:3], 0), ValueError, "one penalty per natural face \\(52\\)"),
        (lambda: core.can_meld_all([-1] + good[1:], 0), ValueError, "count must be from 0 to 15"),
        (lambda: core.can_meld_all([16] + good[1:], 0), ValueError, "count must be from 0 to 15"),
        (lambda: core.meldable_without_one(good, -2), ValueError, "wilds must be from 0 to 255"),
        (lambda: core.best_arrangement(good, -1, values, 0), ValueError, "wilds must be from 0 to 255"),
        (lambda: core.min_penalty(good, 256, values, 0), ValueError, "wilds must be from 0 to 255"),
        (lambda: core.min_penalty(good, 0, [2**30] * 52, 0), ValueError, "penalty values must be from 0 to 1048576"),
        (lambda: core.can_make_contract(good, 0, 16, 0), ValueError, "sets and runs must each be from 0 to 15"),
        (lambda: core.can_make_contract(good, 0, 1, -1), ValueError, "sets and runs must each be from 0 to 15"),
        (lambda: core.can_make_contract_with(good, 0, 1, 1, 60), ValueError, "a natural face of the deck"),
        (lambda: core.can_make_contract_with(good, 0, 1, 1, 5), ValueError, "the face must be in the hand"),
        (lambda: core.each_could_meld(good, 0, [1] * 53, 1, 1), ValueError, "one entry per natural face"),
        (lambda: core.can_partition(good, 300, 1, 1), ValueError, "wilds must be from 0 to 255"),
        (lambda: core.can_meld_all(None, 0), TypeError, "incompatible function arguments"),
        (lambda: core.can_meld_all(["2H"] * 52, 0), TypeError, "incompatible function arguments"),
        (lambda: core.min_penalty(good, 1.5, values, 0), TypeError, "incompatible function arguments"),
        (lambda: core.can_meld_all(good, 2**40), TypeError, "incompatible function arguments"),
    ]
    for call, error, message in bad_calls:
        with pytest.raises(error, match=message):
            call()
    # and it still answers, as the reference does
    hand = [0] * 52
    for f in (0, 1, 2, 13, 26):  # A-2-3 of clubs, and two more aces that need a wild for a set
        hand[f] = 1
    assert core.can_meld_all(hand, 0) is False and core.can_meld_all(hand, 1) is True


def test_the_biggest_hands_the_core_accepts_are_answered():
    """Fifteen copies of every face (the most a count may be): the widest sets and runs."""
    deck, melds, _ = rules_of("toonerville_rook")
    compiled, reference = both_solvers("toonerville_rook")
    n = deck.card_set.num_naturals
    full = [15] * n
    one_rank = [15 if f % deck.card_set.num_ranks == 0 else 0 for f in range(n)]  # a set of 60 cards
    for counts in (one_rank, full):
        assert compiled.can_meld_all(counts, 0) == reference.can_meld_all(counts, 0)
        assert compiled.can_make_contract(counts, 2, 1, 0) == reference.can_make_contract(counts, 2, 1, 0)
    assert compiled.can_make_contract(full, 0, 2, 2) and compiled.can_partition(one_rank, 0, 1, 0)
    assert compiled.min_penalty(one_rank, 3, [5] * n, 20) == reference.min_penalty(one_rank, 3, [5] * n, 20) == 0
    with pytest.raises(ValueError, match="1 to 4 suits of 1 to 16 ranks"):
        from rummy_env._core import ContractSolver as Core
        Core(5, 13, 3, -1, False, 3, False, False)


def test_random_bytes_never_crash_the_core():
    """Malformed calls of every shape: each is answered (a value or an exception), and the
    interpreter survives to check the next."""
    deck, melds, _ = rules_of("toonerville_rook")
    core = solver(deck.card_set, melds, "native")._core
    n = deck.card_set.num_naturals
    rng = random.Random(5)
    answered = 0
    for _ in range(3000):
        size = rng.choice([0, n - 1, n, n + 1, 200])
        counts = [rng.choice([0, 0, 0, 0, 0, 1, 2, 16, -1, 255, 2**31]) for _ in range(size)]
        wilds = rng.choice([0, 1, 5, 40, -1, 2**31 - 1])
        values = [rng.randint(-5, 50) for _ in range(rng.choice([n, n + 1]))]
        sets, runs, face = rng.choice([0, 1, 3, 16, -1]), rng.choice([0, 1, 2, -2]), rng.choice([0, 7, n, -1])
        for call in (lambda: core.can_meld_all(counts, wilds), lambda: core.min_penalty(counts, wilds, values, 3),
                     lambda: core.meldable_without_one(counts, wilds),
                     lambda: core.can_make_contract(counts, wilds, sets, runs),
                     lambda: core.can_make_contract_with(counts, wilds, sets, runs, face),
                     lambda: core.can_partition(counts, wilds, sets, runs),
                     lambda: core.each_could_meld(counts, wilds, counts, sets, runs)):
            try:
                call()
            except (ValueError, TypeError, OverflowError):
                pass
            answered += 1
    assert answered == 21000


def test_the_cores_generator_draws_as_pythons_random_from_any_int_seed():
    """The deal's randomness: every seed as random.Random(seed) reads it (big, negative), the
    shuffles of every deck size the games use, randrange and raw bits, and a state taken from
    Python's generator in mid-stream."""
    from rummy_env._core import PyRandom
    from rummy_env.backend import seed_words

    rng = random.Random(9)
    seeds = [0, 1, -1, 2**32 - 1, 2**32, -(2**40), 10**30] + [rng.getrandbits(rng.choice([8, 31, 33, 64, 100]))
                                                             for _ in range(60)]
    sizes = sorted({len(rummy_env.GAMES[g].rules(num_players=n).deck.cards())
                    for g in rummy_env.GAMES for n in rummy_env.GAMES[g].player_counts})
    for seed in seeds:
        python, core = random.Random(seed), PyRandom(seed_words(seed))
        assert core.state() == list(python.getstate()[1]), seed
        for n in sizes:
            deck = list(range(n))
            python.shuffle(deck)
            assert core.shuffle(list(range(n))) == deck, (seed, n)
            assert core.randrange(n) == python.randrange(n) and core.getrandbits(7) == python.getrandbits(7)
    python = random.Random(3)
    python.shuffle(list(range(500)))  # mid-stream
    core = PyRandom([1])
    core.set_state(list(python.getstate()[1]))
    assert [core.randrange(1000) for _ in range(700)] == [python.randrange(1000) for _ in range(700)]
    assert len(sizes) >= 4


def test_bad_input_to_the_cores_generator_is_an_error():
    from rummy_env._core import PyRandom

    core = PyRandom([5])
    for call, message in ((lambda: core.getrandbits(0), "1 to 32 bits"), (lambda: core.getrandbits(33), "1 to 32 bits"),
                          (lambda: core.randrange(0), "n from 1 to"), (lambda: core.randrange(2**32), "n from 1 to"),
                          (lambda: core.set_state([0] * 624), "624 words and a position"),
                          (lambda: core.set_state([0] * 624 + [625]), "624 words and a position"),
                          (lambda: PyRandom([]), "at least one word")):
        with pytest.raises(ValueError, match=message):
            call()
    with pytest.raises(TypeError):
        PyRandom([2**32])  # a word has 32 bits
    assert 0 <= core.randrange(10) < 10  # and it goes on


@pytest.mark.parametrize("game", list(rummy_env.GAMES))
def test_the_batched_queries_answer_as_the_one_hand_queries_on_both_backends(game: str):
    """``*_many``: a batch of hands in one call, each answer the one-hand query's, both backends."""
    import numpy as np

    compiled, reference = both_solvers(game)
    hands = list(random_hands(game, 150, seed=len(game) + 7))
    counts = np.array([c for c, _, _ in hands], dtype=np.int64)  # any integer dtype is taken
    wilds = np.array([w for _, w, _ in hands], dtype=np.int16)
    values = hands[0][2]
    deck, _, rules = rules_of(game)
    sets, runs = next((r.contract for r in rules.rounds if r.contract), (1, 1))
    for batched in (compiled, reference):
        penalties = batched.min_penalty_many(counts, wilds, values, 25)
        full = batched.can_meld_all_many(counts, wilds)
        faces, wild_ok = batched.meldable_without_one_many(counts, wilds)
        contracts = batched.can_make_contract_many(counts, wilds, sets, runs)
        assert penalties.dtype == np.int32 and full.dtype == faces.dtype == contracts.dtype == np.bool_
        for i, (row, w, _) in enumerate(hands):
            assert penalties[i] == reference.min_penalty(row, w, values, 25)
            assert full[i] == reference.can_meld_all(row, w)
            found, ok = reference.meldable_without_one(row, w)
            assert np.flatnonzero(faces[i]).tolist() == sorted(found) and wild_ok[i] == ok
            assert contracts[i] == reference.can_make_contract(row, w, sets, runs)
        assert batched.min_penalty_many(counts[:0], wilds[:0], values, 0).shape == (0,)
        naturals = counts.shape[1]
        bad = [(counts[:, :-1], wilds), (counts, wilds[:-1]), (counts.astype(float), wilds), (counts[0], wilds[:1]),
               (np.full_like(counts, 16), wilds), (-counts, wilds), (counts, np.full_like(wilds, 256))]
        for c, w in bad:
            with pytest.raises(ValueError, match="counts|wilds"):
                batched.can_meld_all_many(c, w)
        assert naturals == deck.card_set.num_naturals
    from rummy_env import _core  # the core's own checks, below the Python ones
    core = compiled._core
    with pytest.raises((ValueError, TypeError)):
        core.can_meld_all_many(np.zeros((2, 3), np.int32), np.zeros(2, np.int32))
    with pytest.raises((ValueError, TypeError)):
        core.min_penalty_many(counts.astype(np.int32), np.zeros(3, np.int32), values, 0)
    assert isinstance(core, _core.ContractSolver)
