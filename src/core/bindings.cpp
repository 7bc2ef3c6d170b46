// rummy_env._core: the compiled core's Python bindings.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "contract_solver.hpp"
#include "py_random.hpp"
#include "batch.hpp"
#include "table.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// The contract play of table_arguments (rummy_env/table.py): ContractPlay's fields, each
// round's contract, and the action layout as (kind, a, b, c, set naturals) per action.
void read_contract(rummy::TableRules& rules, const nb::dict& d) {
    rummy::ContractPlay& play = rules.play;
    play.enabled = true;
    play.melds_after_down = nb::cast<bool>(d["melds_after_down"]);
    play.swap_needs_earlier_down = nb::cast<bool>(d["swap_needs_earlier_down"]);
    play.max_deep_draw = nb::cast<int>(d["max_deep_draw"]);
    play.max_table_melds = nb::cast<int>(d["max_table_melds"]);
    play.wild_penalty = nb::cast<int>(d["wild_penalty"]);
    play.contract_runs_apart = nb::cast<bool>(d["contract_runs_apart"]);
    play.max_set_action_wilds = nb::cast<int>(d["max_set_action_wilds"]);
    play.buying = nb::cast<bool>(d["buying"]);
    play.max_buys_per_round = nb::cast<int>(d["max_buys_per_round"]);
    auto sets = nb::cast<std::vector<int>>(d["sets"]), runs = nb::cast<std::vector<int>>(d["runs"]);
    auto out = nb::cast<std::vector<bool>>(d["down_means_out"]), melding = nb::cast<std::vector<bool>>(d["out_by_melding"]);
    if (sets.size() != rules.rounds.size() || runs.size() != sets.size() || out.size() != sets.size() ||
        melding.size() != sets.size())
        throw std::invalid_argument("the contract holds one entry per round");
    for (std::size_t r = 0; r < sets.size(); ++r)
        rules.rounds[r].sets = sets[r], rules.rounds[r].runs = runs[r], rules.rounds[r].down_means_out = out[r],
        rules.rounds[r].out_by_melding = melding[r];
    auto layout = std::make_shared<std::vector<rummy::Action>>();
    for (nb::handle item : nb::cast<nb::list>(d["layout"])) {
        auto [kind, a, b, c, naturals] = nb::cast<std::tuple<int, int, int, int, std::vector<int>>>(item);
        layout->push_back({kind, a, b, c, naturals});
    }
    rules.layout = std::move(layout);
    if (play.max_deep_draw < 1 || play.max_table_melds < 1 || play.max_set_action_wilds < 0 || play.wild_penalty < 0 ||
        play.max_buys_per_round < -1)
        throw std::invalid_argument("the contract play's numbers are out of range");
}

rummy::TableRules table_rules(int num_players, int num_suits, int num_ranks, bool has_wild_card,
                              const std::vector<int>& cards, int set_min, int set_max, bool set_distinct_suits,
                              int run_min, bool ace_high, bool all_wild_melds, const std::vector<int>& rank_penalties,
                              const std::vector<int>& hand_sizes, const std::vector<int>& wild_ranks,
                              int max_turns_per_round, const std::optional<nb::dict>& contract) {
    if (hand_sizes.size() != wild_ranks.size())
        throw std::invalid_argument("hand_sizes and wild_ranks hold one entry per round");
    rummy::TableRules rules{num_players, num_suits, num_ranks, has_wild_card, cards,
                            {set_min, set_max, set_distinct_suits, run_min, ace_high, all_wild_melds},
                            rank_penalties, {}, max_turns_per_round};
    for (std::size_t r = 0; r < hand_sizes.size(); ++r) rules.rounds.push_back({hand_sizes[r], wild_ranks[r]});
    if (contract) read_contract(rules, *contract);
    return rules;
}

#define TABLE_RULE_ARGS                                                                                        \
    "num_players"_a, "num_suits"_a, "num_ranks"_a, "has_wild_card"_a, "cards"_a, "set_min"_a, "set_max"_a,     \
        "set_distinct_suits"_a, "run_min"_a, "ace_high"_a, "all_wild_melds"_a, "rank_penalties"_a, "hand_sizes"_a, \
        "wild_ranks"_a, "max_turns_per_round"_a, "contract"_a = nb::none()

template <typename T, typename... Shape>
using Array = nb::ndarray<T, nb::numpy, nb::c_contig, nb::device::cpu, Shape...>;

template <typename A>
void require_shape(const A& a, const char* name, std::size_t rows, std::size_t cols = 0) {
    const bool ok = cols ? a.ndim() == 2 && a.shape(0) == rows && a.shape(1) == cols : a.ndim() == 1 && a.shape(0) == rows;
    if (!ok) throw std::invalid_argument(std::string(name) + " has the wrong shape for this batch");
}

// A batch of hands for the solver's *_many queries: one row of counts per hand.
template <typename Counts, typename Wilds>
std::size_t check_hands(const rummy::MeldSolver& solver, const Counts& counts, const Wilds& wilds) {
    if (counts.shape(1) != std::size_t(solver.num_naturals()) || wilds.shape(0) != counts.shape(0))
        throw std::invalid_argument("counts must be [hands, naturals] and wilds [hands]");
    return counts.shape(0);
}

template <typename Counts, typename Fn>
void for_each_hand(const rummy::MeldSolver&, const Counts& counts, Fn&& fn) {
    const std::size_t naturals = counts.shape(1);
    std::vector<int> row(naturals);
    for (std::size_t i = 0; i < counts.shape(0); ++i) {
        for (std::size_t f = 0; f < naturals; ++f) row[f] = counts(i, f);
        fn(i, row);
    }
}

// One answer per hand of a batch, computed with the interpreter released: fn(row, wilds).
template <typename T, typename Counts, typename Wilds, typename Fn>
nb::ndarray<nb::numpy, T, nb::ndim<1>> answer_each(const rummy::MeldSolver& solver, const Counts& counts,
                                                   const Wilds& wilds, Fn&& fn) {
    const std::size_t hands = check_hands(solver, counts, wilds);
    T* out = new T[hands ? hands : 1];
    nb::capsule owner(out, [](void* p) noexcept { delete[] static_cast<T*>(p); });
    {
        nb::gil_scoped_release release;
        for_each_hand(solver, counts, [&](std::size_t i, const std::vector<int>& row) { out[i] = fn(row, wilds(i)); });
    }
    return nb::ndarray<nb::numpy, T, nb::ndim<1>>(out, {hands}, owner);
}

// fn(table i of the batch), the batch claimed for the call and the table number checked.
template <typename Fn>
auto with_table(rummy::Batch& batch, int i, Fn&& fn) {
    auto claim = batch.claim();
    if (i < 0 || i >= batch.size()) throw std::invalid_argument("no table " + std::to_string(i));
    return fn(batch.table(i));
}

nb::dict state_dict(const rummy::Table& self) {
    const rummy::State& s = self.state();
    nb::dict d;
    d["round"] = s.round, d["dealer"] = s.dealer, d["current"] = s.current, d["phase"] = s.phase;
    d["hands"] = s.hands, d["known"] = s.known, d["hand_sizes"] = s.hand_sizes, d["stock"] = s.stock;
    d["discard"] = s.discard, d["discard_seats"] = s.discard_seats, d["discard_counts"] = s.discard_counts;
    d["scores"] = s.scores, d["round_penalties"] = s.round_penalties, d["taken_face"] = s.taken_face;
    d["went_out"] = s.went_out, d["last_turns_left"] = s.last_turns_left, d["turns"] = s.turns;
    d["down_turn"] = s.down_turn, d["buys"] = s.buys, d["contract_left"] = nb::make_tuple(s.sets_left, s.runs_left);
    d["must_place"] = s.must_place, d["wilds_owed"] = s.wilds_owed, d["wilds_to_meld"] = s.wilds_to_meld;
    d["asked"] = s.asked;
    nb::list table;
    for (const auto& t : s.table)
        table.append(nb::make_tuple(t.owner, t.meld.is_set, t.meld.naturals, t.meld.wilds, t.meld.rank, t.meld.suit,
                                    t.meld.low, t.meld.high, t.cards));
    d["table"] = table;
    d["rng"] = s.rng.state();
    return d;
}

}  // namespace

NB_MODULE(_core, m) {
    m.doc() = "rummy_env's compiled core (src/core); rummy_env.meld_solver is its Python reference.";

    // the meld queries; built only as the ContractSolver below, which adds the contract queries
    nb::class_<rummy::MeldSolver>(m, "MeldSolver")
        .def("can_meld_all", &rummy::MeldSolver::can_meld_all, "counts"_a, "wilds"_a)
        .def("meldable_without_one", &rummy::MeldSolver::meldable_without_one, "counts"_a, "wilds"_a)
        .def("min_penalty", &rummy::MeldSolver::min_penalty, "counts"_a, "wilds"_a, "values"_a, "wild_value"_a)
        .def(
            "min_penalty_many",
            [](rummy::MeldSolver& self, Array<const int32_t, nb::ndim<2>> counts, Array<const int32_t, nb::ndim<1>> wilds,
               const std::vector<int>& values, int wild_value) {
                return answer_each<int32_t>(self, counts, wilds, [&](const std::vector<int>& row, int w) {
                    return self.min_penalty(row, w, values, wild_value);
                });
            },
            "counts"_a, "wilds"_a, "values"_a, "wild_value"_a, "min_penalty of each hand: counts [B, naturals], wilds [B]")
        .def(
            "can_meld_all_many",
            [](rummy::MeldSolver& self, Array<const int32_t, nb::ndim<2>> counts, Array<const int32_t, nb::ndim<1>> wilds) {
                return answer_each<bool>(self, counts, wilds,
                                         [&](const std::vector<int>& row, int w) { return self.can_meld_all(row, w); });
            },
            "counts"_a, "wilds"_a)
        .def(
            "meldable_without_one_many",
            [](rummy::MeldSolver& self, Array<const int32_t, nb::ndim<2>> counts, Array<const int32_t, nb::ndim<1>> wilds) {
                const std::size_t hands = check_hands(self, counts, wilds), naturals = counts.shape(1);
                bool* faces = new bool[hands * naturals ? hands * naturals : 1]();
                nb::capsule faces_owner(faces, [](void* p) noexcept { delete[] static_cast<bool*>(p); });
                bool* wild_ok = new bool[hands ? hands : 1];
                nb::capsule wild_owner(wild_ok, [](void* p) noexcept { delete[] static_cast<bool*>(p); });
                {
                    nb::gil_scoped_release release;
                    for_each_hand(self, counts, [&](std::size_t i, const std::vector<int>& row) {
                        auto [found, ok] = self.meldable_without_one(row, wilds(i));
                        for (int f : found) faces[i * naturals + std::size_t(f)] = true;
                        wild_ok[i] = ok;
                    });
                }
                return nb::make_tuple(nb::ndarray<nb::numpy, bool, nb::ndim<2>>(faces, {hands, naturals}, faces_owner),
                                      nb::ndarray<nb::numpy, bool, nb::ndim<1>>(wild_ok, {hands}, wild_owner));
            },
            "counts"_a, "wilds"_a, "(faces that may be left out [B, naturals], whether a wild may [B])")
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
        .def("can_partition", &rummy::ContractSolver::can_partition, "counts"_a, "wilds"_a, "sets"_a, "runs"_a)
        .def(
            "can_make_contract_many",
            [](rummy::ContractSolver& self, Array<const int32_t, nb::ndim<2>> counts, Array<const int32_t, nb::ndim<1>> wilds,
               int sets, int runs) {
                return answer_each<bool>(self, counts, wilds, [&](const std::vector<int>& row, int w) {
                    return self.can_make_contract(row, w, sets, runs);
                });
            },
            "counts"_a, "wilds"_a, "sets"_a, "runs"_a);

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

    nb::class_<rummy::Table>(m, "Table", "One table of a game, played as rummy_env.engine.Engine plays it.")
        .def(
            "__init__",
            [](rummy::Table* self, int num_players, int num_suits, int num_ranks, bool has_wild_card,
               const std::vector<int>& cards, int set_min, int set_max, bool set_distinct_suits, int run_min,
               bool ace_high, bool all_wild_melds, const std::vector<int>& rank_penalties,
               const std::vector<int>& hand_sizes, const std::vector<int>& wild_ranks, int max_turns_per_round,
               const std::optional<nb::dict>& contract) {
                new (self) rummy::Table(table_rules(num_players, num_suits, num_ranks, has_wild_card, cards, set_min,
                                                    set_max, set_distinct_suits, run_min, ace_high, all_wild_melds,
                                                    rank_penalties, hand_sizes, wild_ranks, max_turns_per_round,
                                                    contract));
            },
            TABLE_RULE_ARGS)
        .def("reset", &rummy::Table::reset, "seed_words"_a)
        .def("legal_actions", &rummy::Table::legal_actions)
        .def("apply",
             [](rummy::Table& self, int action) -> nb::object {
                 auto end = self.apply(action);
                 if (!end) return nb::none();
                 return nb::make_tuple(end->penalties, end->game_over);
             },
             "action"_a, "None, or (penalties, game_over) where a round ended")
        .def_prop_ro("num_actions", &rummy::Table::num_actions)
        .def_prop_ro("observation_size", &rummy::Table::observation_size)
        .def(
            "legal_mask",
            [](rummy::Table& self) {
                const std::size_t size = std::size_t(self.num_actions());
                const std::vector<int>& legal = self.legal_actions();
                int8_t* data = new int8_t[size]();
                for (int a : legal) data[a] = 1;
                nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<int8_t*>(p); });
                return nb::ndarray<nb::numpy, int8_t, nb::ndim<1>>(data, {size}, owner);
            },
            "the legal actions as a new int8 array of num_actions, 1 where legal")
        .def(
            "observe",
            [](const rummy::Table& self, int seat) {
                const std::size_t size = std::size_t(self.observation_size());
                float* data = new float[size];
                try {
                    self.observe(seat, data);
                } catch (...) {
                    delete[] data;
                    throw;
                }
                nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<float*>(p); });
                return nb::ndarray<nb::numpy, float, nb::ndim<1>>(data, {size}, owner);
            },
            "seat"_a, "the seat's observation (a new float32 array), as the env's observer encodes it")
        .def_prop_ro("to_act", &rummy::Table::to_act, "the seat to act")
        .def_prop_ro("game_over", &rummy::Table::game_over)
        .def("state", &state_dict, "the game state as plain data (rummy_env.state.GameState's fields)")
        .def(
            "set_state",
            [](rummy::Table& self, const nb::dict& d) {
                rummy::State s;
                s.round = nb::cast<int>(d["round"]), s.dealer = nb::cast<int>(d["dealer"]);
                s.current = nb::cast<int>(d["current"]), s.phase = nb::cast<int>(d["phase"]);
                s.hands = nb::cast<std::vector<std::vector<int>>>(d["hands"]);
                s.known = nb::cast<std::vector<std::vector<int>>>(d["known"]);
                s.hand_sizes = nb::cast<std::vector<int>>(d["hand_sizes"]);
                s.stock = nb::cast<std::vector<int>>(d["stock"]);
                s.discard = nb::cast<std::vector<int>>(d["discard"]);
                s.discard_seats = nb::cast<std::vector<int>>(d["discard_seats"]);
                s.discard_counts = nb::cast<std::vector<int>>(d["discard_counts"]);
                s.scores = nb::cast<std::vector<int>>(d["scores"]);
                s.round_penalties = nb::cast<std::vector<std::vector<int>>>(d["round_penalties"]);
                s.taken_face = nb::cast<int>(d["taken_face"]), s.went_out = nb::cast<int>(d["went_out"]);
                s.last_turns_left = nb::cast<int>(d["last_turns_left"]), s.turns = nb::cast<int>(d["turns"]);
                s.down_turn = nb::cast<std::vector<int>>(d["down_turn"]), s.buys = nb::cast<std::vector<int>>(d["buys"]);
                std::tie(s.sets_left, s.runs_left) = nb::cast<std::pair<int, int>>(d["contract_left"]);
                s.must_place = nb::cast<int>(d["must_place"]), s.wilds_owed = nb::cast<int>(d["wilds_owed"]);
                s.wilds_to_meld = nb::cast<int>(d["wilds_to_meld"]), s.asked = nb::cast<int>(d["asked"]);
                for (nb::handle item : nb::cast<nb::list>(d["table"])) {
                    auto [owner, is_set, naturals, wilds, rank, suit, low, high, cards] =
                        nb::cast<std::tuple<int, bool, std::vector<int>, int, int, int, int, int, std::vector<int>>>(item);
                    s.table.push_back({owner, {is_set, naturals, wilds, rank, suit, low, high}, cards});
                }
                s.rng.set_state(nb::cast<std::vector<uint32_t>>(d["rng"]));
                self.set_state(s);
            },
            "state"_a, "continues from a state in state()'s terms (ValueError naming a field that does not fit)");

    nb::class_<rummy::Batch>(m, "Batch", "Tables of one game stepped in one call, on a thread pool (rummy_env.vector).")
        .def(
            "__init__",
            [](rummy::Batch* self, int num_tables, int num_threads, int reward_mode, int num_players, int num_suits,
               int num_ranks, bool has_wild_card, const std::vector<int>& cards, int set_min, int set_max,
               bool set_distinct_suits, int run_min, bool ace_high, bool all_wild_melds,
               const std::vector<int>& rank_penalties, const std::vector<int>& hand_sizes,
               const std::vector<int>& wild_ranks, int max_turns_per_round, const std::optional<nb::dict>& contract) {
                new (self) rummy::Batch(table_rules(num_players, num_suits, num_ranks, has_wild_card, cards, set_min,
                                                    set_max, set_distinct_suits, run_min, ace_high, all_wild_melds,
                                                    rank_penalties, hand_sizes, wild_ranks, max_turns_per_round,
                                                    contract),
                                        num_tables, num_threads, reward_mode);
            },
            "num_tables"_a, "num_threads"_a, "reward_mode"_a, TABLE_RULE_ARGS)
        .def_prop_ro("size", &rummy::Batch::size)
        .def_prop_ro("threads", &rummy::Batch::threads)
        .def_prop_ro("observation_size", [](rummy::Batch& self) { return self.table(0).observation_size(); })
        .def(
            "reset", [](rummy::Batch& self, int i, const std::vector<uint32_t>& words) {
                with_table(self, i, [&](rummy::Table& t) { t.reset(words); });
            },
            "table"_a, "seed_words"_a)
        .def(
            "scores", [](rummy::Batch& self, int i) {
                return with_table(self, i, [](rummy::Table& t) { return t.state().scores; });
            },
            "table"_a, "the table's scores so far")
        .def(
            "to_act", [](rummy::Batch& self, int i) {
                return with_table(self, i, [](rummy::Table& t) { return t.to_act(); });
            },
            "table"_a, "the seat to act at the table")
        .def(
            "legal_actions", [](rummy::Batch& self, int i) {
                return with_table(self, i, [](rummy::Table& t) { return t.legal_actions(); });
            },
            "table"_a)
        .def(
            "observe",
            [](rummy::Batch& self, Array<int32_t, nb::ndim<1>> seats, Array<float, nb::ndim<2>> obs,
               Array<bool, nb::ndim<2>> mask) {
                const std::size_t n = std::size_t(self.size());
                require_shape(seats, "seats", n);
                require_shape(obs, "obs", n, std::size_t(self.table(0).observation_size()));
                require_shape(mask, "mask", n, std::size_t(self.table(0).num_actions()));
                nb::gil_scoped_release release;
                auto claim = self.claim();
                self.observe(seats.data(), obs.data(), mask.data());
            },
            // no conversion: a converted copy would be filled instead of the caller's array
            "seats"_a.noconvert(), "obs"_a.noconvert(), "mask"_a.noconvert(), "fills the arrays: each table's seat to act, its observation and mask")
        .def(
            "pick_legal",
            [](rummy::Batch& self, Array<const double, nb::ndim<1>> uniforms, Array<int64_t, nb::ndim<1>> actions) {
                const std::size_t n = std::size_t(self.size());
                require_shape(uniforms, "uniforms", n);
                require_shape(actions, "actions", n);
                nb::gil_scoped_release release;
                auto claim = self.claim();
                self.pick_legal(uniforms.data(), actions.data());
            },
            "uniforms"_a.noconvert(), "actions"_a.noconvert(),
            "fills actions: at each table its legal action number floor(uniform * count), ascending")
        .def(
            "legal_lists",
            [](rummy::Batch& self, Array<int32_t, nb::ndim<2>> ids, Array<int32_t, nb::ndim<1>> counts) {
                const std::size_t n = std::size_t(self.size());
                if (ids.shape(0) != n) throw nb::value_error("ids must have one row per table");
                require_shape(counts, "counts", n);
                nb::gil_scoped_release release;
                auto claim = self.claim();
                self.legal_lists(ids.data(), int(ids.shape(1)), counts.data());
            },
            "ids"_a.noconvert(), "counts"_a.noconvert(),
            "fills ids [N, width] with each table's legal actions, ascending, then -1 (cut at width), and counts [N] "
            "with each table's number of legal actions")
        .def(
            "step",
            [](rummy::Batch& self, Array<const int64_t, nb::ndim<1>> actions, std::optional<Array<const bool, nb::ndim<1>>> active,
               Array<const uint64_t, nb::ndim<1>> seeds, Array<float, nb::ndim<2>> rewards, Array<bool, nb::ndim<1>> done,
               Array<int32_t, nb::ndim<2>> scores) {
                const std::size_t n = std::size_t(self.size()), p = std::size_t(self.table(0).state().scores.size());
                require_shape(actions, "actions", n);
                if (active) require_shape(*active, "active", n);
                require_shape(seeds, "next_seeds", n);
                require_shape(rewards, "rewards", n, p);
                require_shape(done, "done", n);
                require_shape(scores, "final_scores", n, p);
                nb::gil_scoped_release release;
                auto claim = self.claim();
                return self.step(actions.data(), active ? active->data() : nullptr, seeds.data(), rewards.data(),
                                 done.data(), scores.data());
            },
            "actions"_a.noconvert(), "active"_a.noconvert().none(), "next_seeds"_a.noconvert(), "rewards"_a.noconvert(), "done"_a.noconvert(),
            "final_scores"_a.noconvert(),
            "the first table whose action is illegal (nothing applied), or -1 once every action is applied");
}
