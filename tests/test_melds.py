"""The meld engine against an independent brute-force search on thousands of small hands."""

from __future__ import annotations

import random
from functools import lru_cache

import pytest

from rummy_env.cards import CardSet
from rummy_env.backend import BACKENDS, solver as make_solver
from rummy_env.contract_solver import ContractSolver
from rummy_env.melds import Meld, MeldRules, encode_counts

STANDARD = CardSet("standard", 4, 13, True)
ROOK = CardSet("rook", 4, 14, True)

# The meld rules of the three games, and a few extra corners of the parameter space.
VARIANTS = {
    "three_thirteen": (STANDARD, MeldRules(all_wild_melds=True)),
    "contract_rummy": (STANDARD, MeldRules(set_max=4, set_distinct_suits=True, ace_high=True)),
    "toonerville_rook": (ROOK, MeldRules(run_min=4)),
    "runs_of_five": (STANDARD, MeldRules(set_min=2, set_max=3, run_min=5, ace_high=True)),
}


def brute_group_valid(cs: CardSet, rules: MeldRules, naturals: tuple[int, ...], wilds: int) -> bool:
    """A meld straight from the rule text, checked by trying every window of positions."""
    size = len(naturals) + wilds
    if not naturals:
        return False  # all-wild groups are handled separately by the caller
    ranks = [f % cs.num_ranks for f in naturals]
    suits = [f // cs.num_ranks for f in naturals]
    as_set = (
        len(set(ranks)) == 1
        and size >= rules.set_min
        and (rules.set_max is None or size <= rules.set_max)
        and (not rules.set_distinct_suits or len(set(suits)) == len(suits))
    )
    if as_set:
        return True
    if len(set(suits)) != 1 or len(set(ranks)) != len(ranks) or not rules.run_min <= size <= cs.num_ranks:
        return False
    top = cs.num_ranks - 1 + (1 if rules.ace_high else 0)
    for low in range(0, top - size + 2):
        window = set(range(low, low + size))
        if all(r in window or (rules.ace_high and r == 0 and cs.num_ranks in window) for r in ranks):
            return True
    return False


def brute_force(cs, rules, naturals, wilds, values, wild_value, sets=None, runs=None):
    """Least penalty over every partition (or, with a contract, whether it can be made)."""
    naturals = tuple(sorted(naturals))

    @lru_cache(maxsize=None)
    def best(rest: tuple[int, ...], w: int, s: int, r: int) -> int:
        if not rest:
            if sets is not None:
                need = s * rules.set_min + r * rules.run_min
                return 0 if (s == r == 0 or (rules.all_wild_melds and w >= need)) else 10**9
            if w and rules.all_wild_melds and w >= rules.set_min:
                return 0
            return w * wild_value
        first, others = rest[0], rest[1:]
        result = best(others, w, s, r) + (0 if sets is not None else values[first])
        n = len(others)
        for mask in range(1 << n):
            group = (first,) + tuple(others[j] for j in range(n) if mask >> j & 1)
            left = tuple(others[j] for j in range(n) if not mask >> j & 1)
            for k in range(w + 1):
                if not brute_group_valid(cs, rules, group, k):
                    continue
                if sets is None:
                    result = min(result, best(left, w - k, s, r))
                    continue
                is_set = len({f % cs.num_ranks for f in group}) == 1 and rules.set_min <= len(group) + k and (
                    rules.set_max is None or len(group) + k <= rules.set_max
                ) and (not rules.set_distinct_suits or len({f // cs.num_ranks for f in group}) == len(group))
                is_run = brute_run_only(cs, rules, group, k)
                if is_set and s:
                    result = min(result, best(left, w - k, s - 1, r))
                if is_run and r:
                    result = min(result, best(left, w - k, s, r - 1))
        return result

    return best(naturals, wilds, sets or 0, runs or 0)


def brute_run_only(cs, rules, group, k):
    r = MeldRules(set_min=99, run_min=rules.run_min, ace_high=rules.ace_high)
    return brute_group_valid(cs, r, group, k)


def random_hand(rng: random.Random, cs: CardSet, size: int, copies: int) -> list[int]:
    """A hand packed into few suits and a window of ranks, so that melds are common."""
    suits = rng.sample(range(cs.num_suits), rng.randint(1, cs.num_suits))
    width = rng.randint(3, cs.num_ranks)
    low = rng.randint(0, cs.num_ranks - width)
    ranks = list(range(low, low + width))
    if rng.random() < 0.3:  # the ends of the rank line, where aces and wrapping matter
        ranks = [0, 1, 2, cs.num_ranks - 3, cs.num_ranks - 2, cs.num_ranks - 1]
    pool = [s * cs.num_ranks + r for s in suits for r in ranks for _ in range(copies)]
    return rng.sample(pool, min(size, len(pool)))


def to_counts(cs: CardSet, faces) -> list[int]:
    counts = [0] * cs.num_naturals
    for f in faces:
        counts[f] += 1
    return counts


def values_for(cs: CardSet) -> list[int]:
    return [min(10, f % cs.num_ranks + 1) + (f // cs.num_ranks) for f in range(cs.num_naturals)]


HALVES = [0, pytest.param(1, marks=pytest.mark.slow)]
"""The random samples of a comparison with brute force in two halves, each with its own seed:
the first in the default run, the second in the slow suite."""


@pytest.mark.parametrize("half", HALVES)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_min_penalty_and_full_meld_match_brute_force(variant, half):
    cs, rules = VARIANTS[variant]
    solvers = [make_solver(cs, rules, backend) for backend in BACKENDS]  # the compiled core and its reference
    rng = random.Random(2 * (sum(map(ord, variant)) % 1000) + half)
    values = values_for(cs)
    checked = 0
    for _ in range(450):
        hand = random_hand(rng, cs, rng.randint(1, 7), rng.choice([1, 2]))
        wilds = rng.choice([0, 0, 1, 2, 3])
        wild_value = rng.choice([0, 7, 15])
        expected = brute_force(cs, rules, hand, wilds, values, wild_value)
        melds_all = brute_force(cs, rules, hand, wilds, [1] * len(values), 1) == 0
        counts = to_counts(cs, hand)
        for solver in solvers:
            assert solver.min_penalty(counts, wilds, values, wild_value) == expected, (variant, hand, wilds, solver)
            assert solver.can_meld_all(counts, wilds) == melds_all, (variant, hand, wilds, solver)
        checked += 1
    assert checked == 450


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_best_arrangement_is_legal_and_optimal(variant, backend):
    cs, rules = VARIANTS[variant]
    solver = make_solver(cs, rules, backend)
    rng = random.Random(7)
    values = values_for(cs)
    for _ in range(400):
        hand = random_hand(rng, cs, rng.randint(1, 12), 2)
        wilds = rng.choice([0, 1, 2, 4])
        counts = to_counts(cs, hand)
        penalty, melds, unmatched, left = solver.best_arrangement(counts, wilds, values, 15)
        assert penalty == solver.min_penalty(counts, wilds, values, 15)
        assert penalty == sum(values[f] for f in unmatched) + 15 * left
        used = sorted([f for m in melds for f in m.naturals] + unmatched)
        assert used == sorted(hand)
        assert sum(m.wilds for m in melds) + left == wilds
        for m in melds:
            assert solver.is_valid(m), m


@pytest.mark.parametrize("half", HALVES)
@pytest.mark.parametrize("variant", ["contract_rummy", "toonerville_rook", "three_thirteen"])
def test_contract_feasibility_matches_brute_force(variant, half):
    cs, rules = VARIANTS[variant]
    solvers = [make_solver(cs, rules, backend) for backend in BACKENDS]  # the compiled core and its reference
    rng = random.Random(22 + half)
    for _ in range(300):
        # single copies too: sets-only contracts then take the closed form of _most_sets_any_suits
        hand = random_hand(rng, cs, rng.randint(3, 9), rng.choice([1, 2]))
        wilds = rng.choice([0, 0, 1, 2, 3, 4])
        sets, runs = rng.choice([(2, 0), (3, 0), (1, 1), (0, 2), (1, 0), (0, 1)])
        expected = brute_force(cs, rules, hand, wilds, [0] * cs.num_naturals, 0, sets, runs) == 0
        for solver in solvers:
            assert solver.can_make_contract(to_counts(cs, hand), wilds, sets, runs) == expected, (hand, wilds, sets, runs)
    for _ in range(100):  # few naturals, many wilds: sets of one natural and two wilds
        hand = random_hand(rng, cs, rng.randint(1, 4), rng.choice([1, 2]))
        wilds = rng.randint(3, 7)
        sets, runs = rng.choice([(2, 0), (3, 0), (4, 0), (2, 1)])
        expected = brute_force(cs, rules, hand, wilds, [0] * cs.num_naturals, 0, sets, runs) == 0
        for solver in solvers:
            assert solver.can_make_contract(to_counts(cs, hand), wilds, sets, runs) == expected, (hand, wilds, sets, runs)


@pytest.mark.parametrize("variant", ["contract_rummy", "toonerville_rook"])
def test_contract_with_a_given_card_matches_brute_force(variant):
    """``can_make_contract_with``: some meld of the contract holds the given natural."""
    cs, rules = VARIANTS[variant]
    solvers = [make_solver(cs, rules, backend) for backend in BACKENDS]  # the compiled core and its reference
    rng = random.Random(12)
    for _ in range(300):
        hand = sorted(random_hand(rng, cs, rng.randint(3, 8), 2))
        wilds = rng.choice([0, 0, 1, 2])
        sets, runs = rng.choice([(2, 0), (1, 1), (0, 2), (1, 0), (0, 1)])
        face = rng.choice(hand)
        others = list(hand)
        others.remove(face)
        expected = False
        for mask in range(1 << len(others)):
            group = (face,) + tuple(f for j, f in enumerate(others) if mask >> j & 1)
            left = [f for j, f in enumerate(others) if not mask >> j & 1]
            for k in range(wilds + 1):
                if not brute_group_valid(cs, rules, group, k):
                    continue
                one_rank = len({f % cs.num_ranks for f in group}) == 1
                is_set = one_rank and rules.set_min <= len(group) + k and (
                    rules.set_max is None or len(group) + k <= rules.set_max
                ) and (not rules.set_distinct_suits or len({f // cs.num_ranks for f in group}) == len(group))
                is_run = brute_run_only(cs, rules, group, k)
                for ds, dr, ok in ((1, 0, is_set and sets), (0, 1, is_run and runs)):
                    if ok and brute_force(cs, rules, left, wilds - k, [0] * cs.num_naturals, 0,
                                          sets - ds, runs - dr) == 0:
                        expected = True
        for solver in solvers:
            got = solver.can_make_contract_with(to_counts(cs, hand), wilds, sets, runs, face)
            assert got == expected, (hand, wilds, sets, runs, face, solver)


def test_runs_never_wrap_and_hold_one_ace():
    cr = ContractSolver(STANDARD, VARIANTS["contract_rummy"][1])
    tt = ContractSolver(STANDARD, VARIANTS["three_thirteen"][1])
    p = STANDARD.parse
    q_k_a = [p("QS"), p("KS"), p("AS")]
    k_a_2 = [p("KS"), p("AS"), p("2S")]
    assert cr.run_placements(q_k_a, 0) and cr.run_placements([p("AS"), p("2S"), p("3S")], 0)
    assert not cr.run_placements(k_a_2, 0)
    assert not tt.run_placements(q_k_a, 0)  # Three-Thirteen: ace low only
    a_to_k = [p(r + "S") for r in "A23456789TJQK"]
    assert cr.run_placements(a_to_k, 0) and not cr.run_placements(a_to_k, 1)  # no A..K..A
    rook = ContractSolver(ROOK, VARIANTS["toonerville_rook"][1])
    assert not rook.run_placements([ROOK.parse(x) for x in ("12R", "13R", "14R", "1R")], 0)


def test_set_rules():
    cr = ContractSolver(STANDARD, VARIANTS["contract_rummy"][1])
    p = STANDARD.parse
    assert cr.set_is_valid([p("7D"), p("7H"), p("7S")], 0)
    assert cr.set_is_valid([p("7H"), p("7S")], 1)
    assert not cr.set_is_valid([p("7H"), p("7H"), p("7S")], 0)  # distinct suits
    assert not cr.set_is_valid([p("7C"), p("7D"), p("7H"), p("7S")], 1)  # at most 4
    assert not cr.set_is_valid([], 3)  # a meld needs a natural here
    tt = ContractSolver(STANDARD, VARIANTS["three_thirteen"][1])
    assert tt.set_is_valid([p("6H"), p("6H"), p("6S")], 0)  # duplicates with two decks
    assert tt.set_is_valid([], 3)


def test_unmatched_wild_scores_wild_value_when_no_meld_has_room():
    tt = ContractSolver(STANDARD, VARIANTS["three_thirteen"][1])
    values = [min(10, f % 13 + 1) for f in range(52)]
    counts = to_counts(STANDARD, [STANDARD.parse("2C"), STANDARD.parse("9D")])
    # one wild: 2C + wild is not a meld, so the wild scores its own value
    assert tt.min_penalty(counts, 1, values, 5) == 2 + 9 + 5
    # two wilds make a set with 9D: left 2C
    assert tt.min_penalty(counts, 2, values, 5) == 2


def test_meld_wild_positions():
    m = Meld("run", (STANDARD.parse("3H"), STANDARD.parse("6H")), 2, suit=2, low=2, high=5)
    assert m.wild_positions(13) == [3, 4]


@pytest.mark.parametrize("half", HALVES)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("backend", BACKENDS)
def test_meldable_without_one_matches_full_meld_of_each_card_removed(variant, half, backend):
    cs, rules = VARIANTS[variant]
    solver = make_solver(cs, rules, backend)
    rng = random.Random(6 + half)
    for _ in range(300):
        hand = random_hand(rng, cs, rng.randint(2, 14), 2)
        wilds = rng.choice([0, 1, 1, 2, 3])
        counts = to_counts(cs, hand)
        faces, wild_ok = solver.meldable_without_one(counts, wilds)
        expected = []
        for f in sorted(set(hand)):
            counts[f] -= 1
            if solver.can_meld_all(counts, wilds):
                expected.append(f)
            counts[f] += 1
        assert sorted(faces) == expected, (hand, wilds)
        assert wild_ok == (wilds > 0 and solver.can_meld_all(counts, wilds - 1))


def brute_contract_holding(cs, rules, must, extras, wilds, sets, runs) -> bool:
    """Whether a contract of ``sets`` sets and ``runs`` runs holds every card of ``must``,
    with any of ``extras`` and up to ``wilds`` wilds, tried group by group."""
    if not must:
        return brute_force(cs, rules, extras, wilds, [0] * cs.num_naturals, 0, sets, runs) == 0
    first, others = must[0], must[1:]
    pool = others + extras
    for mask in range(1 << len(pool)):
        group = (first,) + tuple(f for j, f in enumerate(pool) if mask >> j & 1)
        rest_must = [f for j, f in enumerate(others) if not mask >> j & 1]
        rest_extras = [f for j, f in enumerate(extras) if not mask >> (len(others) + j) & 1]
        for k in range(wilds + 1):
            if not brute_group_valid(cs, rules, group, k):
                continue
            is_set = len({f % cs.num_ranks for f in group}) == 1 and rules.set_min <= len(group) + k and (
                rules.set_max is None or len(group) + k <= rules.set_max
            ) and (not rules.set_distinct_suits or len({f // cs.num_ranks for f in group}) == len(group))
            for ds, dr, ok in ((1, 0, is_set and sets), (0, 1, brute_run_only(cs, rules, group, k) and runs)):
                if ok and brute_contract_holding(cs, rules, rest_must, rest_extras, wilds - k, sets - ds, runs - dr):
                    return True
    return False


@pytest.mark.parametrize("variant", ["contract_rummy", "toonerville_rook"])
def test_each_could_meld_never_rejects_a_contract_holding_every_card(variant):
    """``each_could_meld`` is a necessary condition (a deal-7 deep draw is refused on it):
    it must pass whenever some contract holds every card of ``must``, and it must reject
    hands where some card has no meld of the contract's kinds."""
    cs, rules = VARIANTS[variant]
    compiled, solver = (make_solver(cs, rules, backend) for backend in BACKENDS)
    rng = random.Random(13)
    possible = rejected = 0
    for _ in range(400):
        hand = random_hand(rng, cs, rng.randint(3, 8), rng.choice([1, 2]))
        cut = rng.randint(1, min(5, len(hand)))
        must, extras = hand[:cut], hand[cut:]
        wilds = rng.choice([0, 0, 1, 2])
        sets, runs = rng.choice([(0, 1), (0, 2), (1, 1), (1, 0), (2, 0)])
        verdict = solver.each_could_meld(to_counts(cs, hand), wilds, to_counts(cs, must), sets, runs)
        assert compiled.each_could_meld(to_counts(cs, hand), wilds, to_counts(cs, must), sets, runs) == verdict
        if brute_contract_holding(cs, rules, must, extras, wilds, sets, runs):
            possible += 1
            assert verdict, (hand, must, wilds, sets, runs)
        elif not verdict:
            rejected += 1
    assert possible > 20 and rejected > 100, (possible, rejected)


def test_contract_shortcuts_match_the_plain_search_on_big_hands():
    """``can_make_contract`` answers most Toonerville Rook questions without searching (a
    greedy construction, the suits' best runs, bounds). On big hands with many copies and
    wilds, where brute force is out of reach, every answer must equal the plain search's
    (``_contract`` alone, on a solver with its own memo); both answers occur for every
    contract."""
    cs, rules = VARIANTS["toonerville_rook"]
    solver, plain = ContractSolver(cs, rules), ContractSolver(cs, rules)
    compiled = make_solver(cs, rules, "native")
    rng = random.Random(5)
    deck = [f for f in range(cs.num_naturals) for _ in range(5)]
    seen = set()
    for _ in range(700):
        hand = rng.sample(deck, rng.choice([10, 14, 18, 24, 32, 45]))
        wilds = rng.choice([0, 0, 1, 2, 3, 5])
        sets, runs = rng.choice([(0, 1), (0, 2), (0, 3), (0, 4), (1, 1), (1, 2), (2, 1), (2, 2), (3, 0), (5, 0)])
        counts = to_counts(cs, hand)
        expected = plain._contract(list(counts), encode_counts(counts), 0, wilds, sets, runs, sum(counts))
        assert solver.can_make_contract(counts, wilds, sets, runs) == expected, (sorted(hand), wilds, sets, runs)
        assert compiled.can_make_contract(counts, wilds, sets, runs) == expected, (sorted(hand), wilds, sets, runs)
        seen.add((sets, runs, expected))
    assert len(seen) == 20, sorted(seen)
    # runs stacked on the same numbers of one colour need as many copies as runs
    stacked = to_counts(cs, [cs.face(0, r) for r in range(4) for _ in range(3)])
    assert solver.can_make_contract(stacked, 0, 0, 3) and not solver.can_make_contract(stacked, 0, 0, 4)
    assert solver.can_make_contract(stacked, 2, 1, 2) and not solver.can_make_contract(stacked, 1, 1, 2)


@pytest.mark.parametrize("variant", ["contract_rummy", "toonerville_rook", "runs_of_five"])
def test_runs_bound_is_exact_for_naturals_and_never_below_the_best(variant):
    """``_natural_runs`` (the lowest full window first) must equal the exact per-suit
    search with no wilds where the ace is low only; ``_runs_at_most`` (it, plus one run per
    wild) must never fall below the most runs the cards make, since a contract it rules
    out is refused without a search."""
    cs, rules = VARIANTS[variant]
    solver = ContractSolver(cs, rules)
    rng = random.Random(3)
    for _ in range(3000):
        row = bytes(rng.choice([0, 0, 1, 1, 2, 3]) if rng.random() < 0.8 else 0 for _ in range(cs.num_ranks))
        exact = solver._runs_of_suit(row, 0)[0]
        if rules.ace_high:
            assert solver._natural_runs(row) >= exact, row
        else:
            assert solver._natural_runs(row) == exact, row
    for _ in range(1500):
        hand = random_hand(rng, cs, rng.randint(3, 30), rng.choice([1, 2, 3]))
        wilds = rng.choice([0, 0, 1, 2, 3])
        counts = to_counts(cs, hand)
        most = max(runs for runs in range(0, 12) if solver._enough_runs(counts, wilds, runs))
        assert solver._runs_at_most(counts, wilds) >= most, (sorted(hand), wilds)
