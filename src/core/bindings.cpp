// rummy_env._core: the compiled core's Python bindings.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>
#include <nanobind/stl/string.h>

#include "contract_solver.hpp"
#include "py_random.hpp"

namespace nb = nanobind;
using namespace nb::literals;

NB_MODULE(_core, m) {
    m.doc() = "rummy_env's compiled core (src/core); rummy_env.meld_solver is its Python reference.";

    // the meld queries; built only as the ContractSolver below, which adds the contract queries
    nb::class_<rummy::MeldSolver>(m, "MeldSolver")
        .def("can_meld_all", &rummy::MeldSolver::can_meld_all, "counts"_a, "wilds"_a)
        .def("meldable_without_one", &rummy::MeldSolver::meldable_without_one, "counts"_a, "wilds"_a)
        .def("min_penalty", &rummy::MeldSolver::min_penalty, "counts"_a, "wilds"_a, "values"_a, "wild_value"_a)
        .def(
            "best_arrangement",
            [](rummy::MeldSolver& self, const std::vector<int>& counts, int wilds, const std::vector<int>& values,
               int wild_value) {
                auto a = self.best_arrangement(counts, wilds, values, wild_value);
                nb::list melds;
                for (const auto& m : a.melds)
                    melds.append(nb::make_tuple(m.is_set, m.naturals, m.wilds, m.rank, m.suit, m.low, m.high));
                return nb::make_tuple(a.penalty, melds, a.unmatched, a.unmatched_wilds);
            },
            "counts"_a, "wilds"_a, "values"_a, "wild_value"_a,
            "(penalty, melds as (is_set, naturals, wilds, rank, suit, low, high), unmatched, unmatched wilds)");

    nb::class_<rummy::ContractSolver, rummy::MeldSolver>(m, "ContractSolver")
        .def(
            "__init__",
            [](rummy::ContractSolver* self, int num_suits, int num_ranks, int set_min, int set_max,
               bool set_distinct_suits, int run_min, bool ace_high, bool all_wild_melds) {
                rummy::MeldRules rules{set_min, set_max, set_distinct_suits, run_min, ace_high, all_wild_melds};
                new (self) rummy::ContractSolver(num_suits, num_ranks, rules);
            },
            "num_suits"_a, "num_ranks"_a, "set_min"_a, "set_max"_a, "set_distinct_suits"_a, "run_min"_a,
            "ace_high"_a, "all_wild_melds"_a)
        .def("can_make_contract", &rummy::ContractSolver::can_make_contract, "counts"_a, "wilds"_a, "sets"_a,
             "runs"_a)
        .def("can_make_contract_with", &rummy::ContractSolver::can_make_contract_with, "counts"_a, "wilds"_a,
             "sets"_a, "runs"_a, "face"_a)
        .def("each_could_meld", &rummy::ContractSolver::each_could_meld, "counts"_a, "wilds"_a, "must"_a, "sets"_a,
             "runs"_a)
        .def("can_partition", &rummy::ContractSolver::can_partition, "counts"_a, "wilds"_a, "sets"_a, "runs"_a);

    nb::class_<rummy::PyRandom>(m, "PyRandom",
                                "Python's random.Random, draw for draw (the deal's shuffles and draws).")
        .def(
            "__init__",
            [](rummy::PyRandom* self, const std::vector<uint32_t>& key) {
                new (self) rummy::PyRandom();
                self->seed(key);
            },
            "key"_a, "the 32-bit words of abs(seed), least significant first (rummy_env.backend.seed_words)")
        .def("state", &rummy::PyRandom::state, "getstate()[1]: the 624 words and the position")
        .def("set_state", &rummy::PyRandom::set_state, "words"_a)
        .def(
            "getrandbits",
            [](rummy::PyRandom& self, int k) {
                if (k < 1 || k > 32) throw std::invalid_argument("getrandbits takes 1 to 32 bits here");
                return self.getrandbits(k);
            },
            "k"_a)
        .def(
            "randrange",
            [](rummy::PyRandom& self, int64_t n) {
                if (n < 1 || n > 0xFFFFFFFFll) throw std::invalid_argument("randrange takes n from 1 to 2**32 - 1 here");
                return self.randbelow(uint32_t(n));
            },
            "n"_a)
        .def(
            "shuffle",
            [](rummy::PyRandom& self, std::vector<int> items) {
                self.shuffle(items.data(), items.size());
                return items;
            },
            "items"_a, "a shuffled copy, as random.shuffle shuffles in place");
}
