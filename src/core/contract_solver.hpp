// The contract queries of rummy_env/contract_solver.py in C++ (Contract Rummy, Toonerville
// Rook): whether a hand can make a contract of sets and runs, with a given card, with every
// card; the same fast bounds first and the same memoised searches behind them.
#pragma once

#include <unordered_map>
#include <vector>

#include "meld_solver.hpp"

namespace rummy {

class ContractSolver : public MeldSolver {
public:
    using MeldSolver::MeldSolver;

    // Whether some of the cards make `sets` sets and `runs` runs at once.
    bool can_make_contract(const std::vector<int>& counts, int wilds, int sets, int runs);
    // The same, with the natural `face` in one of the melds.
    bool can_make_contract_with(const std::vector<int>& counts, int wilds, int sets, int runs, int face);
    // A cheap necessary condition: each face counted in `must` has enough cards of its rank
    // for a set, or of its suit around it for a run, counting every wild for each.
    bool each_could_meld(const std::vector<int>& counts, int wilds, const std::vector<int>& must, int sets,
                         int runs);
    // Whether all the cards (every natural and wild) make exactly `sets` sets and `runs` runs.
    bool can_partition(const std::vector<int>& counts, int wilds, int sets, int runs);

private:
    using Row = std::array<uint8_t, 16>;  // one suit's count per rank

    void check_contract(int wilds, int sets, int runs) const;
    bool contract(const Counts& c, int wilds, int sets, int runs);
    bool search(Counts& c, Code code, int start, int wilds, int sets, int runs, int left);
    Row row_of(const Counts& c, int suit) const;
    int natural_runs(const Row& row) const;
    int runs_at_most(const Counts& c, int wilds) const;
    bool natural_runs_then_sets(const Counts& c, int wilds, int sets, int runs) const;
    bool enough_runs(const Counts& c, int wilds, int runs);
    const std::vector<int>& runs_of_suit(const Row& row, int wilds);
    int most_sets(const Counts& c, int wilds) const;
    int most_sets_any_suits(const Counts& c, int wilds) const;
    bool within_bounds(const Counts& c, int wilds, int sets, int runs) const;
    std::vector<int> window_sums(const Row& marks) const;
    struct RunPick {
        std::vector<int> places;  // run positions of the other naturals
        int need;                 // wilds for the rest
    };
    std::vector<RunPick> smallest_runs_from(const Row& row, int rank, int wilds) const;
    struct ContractOption {
        std::vector<int> faces;
        int used, sets, runs;
    };
    std::vector<ContractOption> smallest_options(const Counts& c, int i, int wilds, int sets, int runs) const;
    bool partition(Counts& c, Code code, int start, int wilds, int sets, int runs, int room, int depth);

    Memo<bool> contract_memo_;
    Memo<bool> partition_memo_;
    std::unordered_map<uint64_t, std::vector<int>> suit_runs_memo_;  // (row, wilds) -> most runs per wilds
};

}  // namespace rummy
