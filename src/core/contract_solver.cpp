#include "contract_solver.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace rummy {

namespace {

// Every way to choose `m` of `items` (by index, ascending), calling `visit` with each; stops
// early when `visit` returns true, and returns whether it did.
template <typename Visit>
bool combinations(const std::vector<int>& items, int m, bool with_replacement, Visit&& visit) {
    std::vector<int> idx(m), pick(m);
    const int n = int(items.size());
    if (m == 0) return visit(pick);
    if (n == 0 || (!with_replacement && m > n)) return false;
    for (int k = 0; k < m; ++k) idx[k] = with_replacement ? 0 : k;
    while (true) {
        for (int k = 0; k < m; ++k) pick[k] = items[idx[k]];
        if (visit(pick)) return true;
        // the next index tuple in lexicographic order
        int k = m - 1;
        if (with_replacement) {
            while (k >= 0 && idx[k] == n - 1) --k;
            if (k < 0) return false;
            ++idx[k];
            for (int j = k + 1; j < m; ++j) idx[j] = idx[k];
        } else {
            while (k >= 0 && idx[k] == n - m + k) --k;
            if (k < 0) return false;
            ++idx[k];
            for (int j = k + 1; j < m; ++j) idx[j] = idx[j - 1] + 1;
        }
    }
}

}  // namespace

void ContractSolver::check_contract(int wilds, int sets, int runs) const {
    if (wilds < 0 || wilds > 255) throw std::invalid_argument("wilds must be from 0 to 255");
    if (sets < 0 || sets > 15 || runs < 0 || runs > 15)
        throw std::invalid_argument("a contract's sets and runs must each be from 0 to 15");
    if (R_ > 14) throw std::invalid_argument("contract queries need a deck of at most 14 ranks");
}

ContractSolver::Row ContractSolver::row_of(const Counts& c, int suit) const {
    Row row{};
    for (int r = 0; r < R_; ++r) row[r] = c[suit * R_ + r];
    return row;
}

// ---------------------------------------------------------------- can_make_contract
bool ContractSolver::can_make_contract(const std::vector<int>& counts, int wilds, int sets, int runs) {
    check_contract(wilds, sets, runs);
    return contract(to_counts(counts), wilds, sets, runs);
}

bool ContractSolver::contract(const Counts& given, int wilds, int sets, int runs) {
    Counts c = given;
    Code code = encode(c);
    Key key{code, wilds, sets << 8 | runs};
    if (const bool* hit = contract_memo_.find(key)) return *hit;  // one turn asks about one hand several times
    int left = 0;
    for (int f = 0; f < N_; ++f) left += c[f];
    if (rules_.all_wild_melds) return search(c, code, 0, wilds, sets, runs, left);
    bool result;
    if (!runs) {
        result = most_sets(c, wilds) >= sets;
    } else if (runs_at_most(c, wilds) < runs) {
        result = false;  // most hands that fail, fail here
    } else if (!sets) {  // the greedy's runs when it finds them, else exact: the suits are independent
        result = natural_runs_then_sets(c, wilds, 0, runs) || enough_runs(c, wilds, runs);
    } else if (natural_runs_then_sets(c, wilds, sets, runs)) {
        result = true;
    } else if (!within_bounds(c, wilds, sets, runs) || !enough_runs(c, wilds, runs)) {
        result = false;
    } else {
        return search(c, code, 0, wilds, sets, runs, left);
    }
    contract_memo_.put(key, result);
    return result;
}

int ContractSolver::natural_runs(const Row& row) const {
    const int length = rules_.run_min;
    Row places = row;
    int n = R_;
    if (rules_.ace_high) places[n++] = row[0];
    int runs = 0;
    for (int low = 0; low + length <= n; ++low) {
        int k = 255;
        for (int q = low; q < low + length; ++q) k = std::min<int>(k, places[q]);
        if (k) {
            runs += k;
            for (int q = low; q < low + length; ++q) places[q] -= uint8_t(k);
        }
    }
    return runs;
}

int ContractSolver::runs_at_most(const Counts& c, int wilds) const {
    int total = wilds;
    for (int s = 0; s < S_; ++s) total += natural_runs(row_of(c, s));
    return total;
}

bool ContractSolver::natural_runs_then_sets(const Counts& c, int wilds, int sets, int runs) const {
    const int length = rules_.run_min;
    std::vector<Row> rows(S_);
    for (int s = 0; s < S_; ++s) rows[s] = row_of(c, s);
    const int most_missing = std::min(wilds, length - 1);
    for (int missing = 0; missing <= most_missing; ++missing) {
        for (Row& row : rows) {
            int low = 0;
            while (runs && missing <= wilds && low + length <= R_) {
                int zeros = 0;
                for (int q = low; q < low + length; ++q) zeros += row[q] == 0;
                if (zeros == missing) {
                    for (int q = low; q < low + length; ++q)
                        if (row[q]) --row[q];
                    --runs;
                    wilds -= missing;
                } else {
                    ++low;
                }
            }
        }
        if (!runs) break;
    }
    if (runs) return false;
    if (!sets) return true;
    Counts rest{};
    for (int s = 0; s < S_; ++s)
        for (int r = 0; r < R_; ++r) rest[s * R_ + r] = rows[s][r];
    return most_sets(rest, wilds) >= sets;
}

bool ContractSolver::enough_runs(const Counts& c, int wilds, int runs) {
    std::vector<int> best(wilds + 1, 0), next(wilds + 1);  // best[w]: most runs with at most w wilds
    for (int s = 0; s < S_; ++s) {
        Row row = row_of(c, s);
        bool any = false;
        for (int r = 0; r < R_; ++r) {
            row[r] = uint8_t(std::min<int>(row[r], runs));  // runs runs never need more copies
            any |= row[r] != 0;
        }
        if (!any) continue;
        const std::vector<int> of_suit = runs_of_suit(row, wilds);
        for (int w = 0; w <= wilds; ++w) {
            int m = 0;
            for (int u = 0; u <= w; ++u) m = std::max(m, best[w - u] + of_suit[u]);
            next[w] = m;
        }
        best.swap(next);
    }
    return best[wilds] >= runs;
}

const std::vector<int>& ContractSolver::runs_of_suit(const Row& row, int wilds) {
    uint64_t key = uint64_t(wilds) << 56;
    for (int r = 0; r < R_; ++r) key |= uint64_t(row[r]) << (4 * r);
    auto hit = suit_runs_memo_.find(key);
    if (hit != suit_runs_memo_.end()) return hit->second;
    int i = 0;
    while (i < R_ && !row[i]) ++i;
    std::vector<int> best(wilds + 1, 0);
    if (i < R_) {
        Row less = row;
        --less[i];
        best = runs_of_suit(less, wilds);
        for (const RunPick& pick : smallest_runs_from(row, i, wilds)) {
            Row rest = less;
            for (int q : pick.places) --rest[q % R_];
            const std::vector<int> sub = runs_of_suit(rest, wilds - pick.need);
            for (int w = pick.need; w <= wilds; ++w) best[w] = std::max(best[w], sub[w - pick.need] + 1);
        }
    }
    if (suit_runs_memo_.size() > kMemoLimit) suit_runs_memo_.clear();
    return suit_runs_memo_[key] = best;
}

std::vector<ContractSolver::RunPick> ContractSolver::smallest_runs_from(const Row& row, int rank, int wilds) const {
    const int top = max_pos_, length = rules_.run_min;
    std::vector<std::pair<int, int>> windows{{std::max(0, std::min(rank, top - length + 1)), rank}};
    if (rank == 0 && top == R_) windows.emplace_back(R_ - length + 1, R_);
    std::vector<RunPick> out;
    for (auto [low, place] : windows) {
        if (low + length - 1 > top) continue;
        std::vector<int> above;
        for (int q = low; q < low + length; ++q)
            if (q != place && (q > place || place == R_) && row[q % R_]) above.push_back(q);
        for (int m = 0; m <= int(above.size()); ++m) {
            int need = length - 1 - m;
            if (need > wilds) continue;
            combinations(above, m, false, [&](const std::vector<int>& pick) {
                out.push_back({pick, need});
                return false;
            });
        }
    }
    return out;
}

int ContractSolver::most_sets(const Counts& c, int wilds) const {
    int most = 0;
    for (int f = 0; f < N_; ++f) most = std::max<int>(most, c[f]);
    if (!rules_.set_distinct_suits || most <= 1) return most_sets_any_suits(c, wilds);
    std::vector<int> best(wilds + 1, 0), next(wilds + 1);  // best[w]: most sets with at most w wilds
    for (int rank = 0; rank < R_; ++rank) {
        int held = 0;
        for (int t = 0; t < S_; ++t) held += c[t * R_ + rank];
        if (!held) continue;
        std::vector<int> costs;  // costs[j - 1]: wilds for j sets of this rank
        for (int j = 1; j <= held; ++j) {
            int usable = 0;
            for (int t = 0; t < S_; ++t) usable += std::min<int>(c[t * R_ + rank], j);
            int need = std::max(0, rules_.set_min * j - usable);
            if (need > wilds) break;
            costs.push_back(need);
        }
        if (costs.empty()) continue;
        for (int w = 0; w <= wilds; ++w) {
            int m = best[w];
            for (int j = 1; j <= int(costs.size()); ++j)
                if (costs[j - 1] <= w) m = std::max(m, best[w - costs[j - 1]] + j);
            next[w] = m;
        }
        best.swap(next);
    }
    return best[wilds];
}

int ContractSolver::most_sets_any_suits(const Counts& c, int wilds) const {
    // h naturals of a rank make h / k sets; one more costs k - h % k wilds, each further one
    // k (while naturals last); the costs rise within a rank, so the cheapest go first
    const int k = rules_.set_min;
    int sets = 0, further = 0;
    std::vector<int> completing(k, 0);
    for (int rank = 0; rank < R_; ++rank) {
        int h = 0;
        for (int s = 0; s < S_; ++s) h += c[s * R_ + rank];
        if (!h) continue;
        sets += h / k;
        if (h % k) ++completing[k - h % k];
        further += h - (h + k - 1) / k;
    }
    for (int cost = 1; cost < k; ++cost) {
        if (wilds < cost) break;
        int take = std::min(completing[cost], wilds / cost);
        sets += take;
        wilds -= take * cost;
    }
    return sets + std::min(further, wilds / k);
}

std::vector<int> ContractSolver::window_sums(const Row& marks) const {
    // per low run position, the positions held among the run_min from it (the ace repeated
    // above the top where it may be high)
    int n = R_ + (rules_.ace_high ? 1 : 0);
    std::vector<int> held(n), out(n, 0);
    for (int p = 0; p < n; ++p) held[p] = marks[p % R_];
    for (int p = 0; p < n; ++p)
        for (int k = 0; k < rules_.run_min && p + k < n; ++k) out[p] += held[p + k];
    return out;
}

bool ContractSolver::within_bounds(const Counts& c, int wilds, int sets, int runs) const {
    if (rules_.all_wild_melds) return true;  // melds of wilds alone: no natural bounds them
    if (sets) {
        int total = 0;
        for (int rank = 0; rank < R_; ++rank) {
            int held = 0, kinds = 0;
            for (int s = 0; s < S_; ++s) held += c[s * R_ + rank], kinds += c[s * R_ + rank] > 0;
            if (!rules_.set_distinct_suits) kinds = held;
            if (kinds >= std::max(0, rules_.set_min - wilds))
                total += std::min({held, (held + wilds) / rules_.set_min, 255});
        }
        if (total < sets) return false;
    }
    if (runs) {
        int possible = 0;
        for (int s = 0; s < S_; ++s) {
            Row row = row_of(c, s), marks{};
            int held = 0;
            for (int r = 0; r < R_; ++r) held += row[r], marks[r] = row[r] > 0;
            if (!held) continue;
            auto sums = window_sums(marks);
            if (*std::max_element(sums.begin(), sums.end()) >= rules_.run_min - wilds)
                possible += (held + wilds) / rules_.run_min;
        }
        if (possible < runs) return false;
    }
    return true;
}

bool ContractSolver::search(Counts& c, Code code, int start, int wilds, int sets, int runs, int left) {
    // `left`: naturals remaining; too few for the melds still wanted ends the branch
    if (!sets && !runs) return true;
    if (left + wilds < sets * rules_.set_min + runs * rules_.run_min) return false;
    if (!left) return rules_.all_wild_melds;
    Key key{code, wilds, sets << 8 | runs};
    if (const bool* hit = contract_memo_.find(key)) return *hit;
    int i = start;
    while (!c[i]) ++i;
    bool result = false;
    // the melds holding the lowest natural first: feasible hands end fast
    for (const ContractOption& o : smallest_options(c, i, wilds, sets, runs)) {
        Code sub = code;
        for (int f : o.faces) --c[f], sub.add(f, -1);
        bool ok = search(c, sub, i, wilds - o.used, sets - o.sets, runs - o.runs, left - int(o.faces.size()));
        for (int f : o.faces) ++c[f];
        if (ok) {
            result = true;
            break;
        }
    }
    if (!result) {  // or the lowest natural stays out of the contract
        --c[i];
        Code sub = code;
        sub.add(i, -1);
        result = search(c, sub, i, wilds, sets, runs, left - 1);
        ++c[i];
    }
    contract_memo_.put(key, result);
    return result;
}

std::vector<ContractSolver::ContractOption> ContractSolver::smallest_options(const Counts& c, int i, int wilds,
                                                                             int sets, int runs) const {
    const int rank = i % R_, suit = i / R_;
    const bool distinct = rules_.set_distinct_suits;
    std::vector<ContractOption> options;
    if (sets) {
        const int k = rules_.set_min;
        // the other naturals of the rank still available: higher suits, more copies of i
        std::vector<int> faces;
        if (c[i] > 1 && !distinct) faces.push_back(i);
        for (int t = suit + 1; t < S_; ++t)
            if (c[t * R_ + rank]) faces.push_back(t * R_ + rank);
        int most = std::min<int>(k - 1, int(faces.size()) * (distinct ? 1 : k));
        for (int m = 0; m <= most; ++m) {
            int need = k - 1 - m;
            if (need > wilds) continue;
            combinations(faces, m, !distinct, [&](const std::vector<int>& pick) {
                for (int f : pick) {
                    int copies = int(std::count(pick.begin(), pick.end(), f)) + (f == i);
                    if (c[f] < copies) return false;
                }
                ContractOption o{{i}, need, 1, 0};
                o.faces.insert(o.faces.end(), pick.begin(), pick.end());
                options.push_back(std::move(o));
                return false;
            });
        }
    }
    if (runs) {
        Row row = row_of(c, suit);
        for (const RunPick& pick : smallest_runs_from(row, rank, wilds)) {
            ContractOption o{{i}, pick.need, 0, 1};
            for (int q : pick.places) o.faces.push_back(suit * R_ + q % R_);
            options.push_back(std::move(o));
        }
    }
    return options;
}

// ---------------------------------------------------------------- with a given card
bool ContractSolver::can_make_contract_with(const std::vector<int>& counts, int wilds, int sets, int runs,
                                            int face) {
    check_contract(wilds, sets, runs);
    Counts work = to_counts(counts);
    if (face < 0 || face >= N_) throw std::invalid_argument("face must be a natural face of the deck");
    if (!work[face]) throw std::invalid_argument("the face must be in the hand");
    const int rank = face % R_, suit = face / R_;
    auto rest_makes = [&](const std::vector<int>& naturals, int used, int ds, int dr) {
        for (int f : naturals) --work[f];
        bool ok = contract(work, wilds - used, sets - ds, runs - dr);
        for (int f : naturals) ++work[f];
        return ok;
    };
    // only the smallest melds holding the face: a bigger one contains one of them
    if (sets) {
        std::vector<int> pool;
        for (int t = 0; t < S_; ++t) {
            int f = t * R_ + rank;
            if (t == suit || !work[f]) continue;
            for (int x = 0; x < (rules_.set_distinct_suits ? 1 : work[f]); ++x) pool.push_back(f);
        }
        if (!rules_.set_distinct_suits)
            for (int x = 1; x < work[face]; ++x) pool.push_back(face);
        int k = std::min<int>(rules_.set_min - 1, int(pool.size()));
        int need = rules_.set_min - 1 - k;
        if (need <= wilds && combinations(pool, k, false, [&](const std::vector<int>& chosen) {
                std::vector<int> naturals{face};
                naturals.insert(naturals.end(), chosen.begin(), chosen.end());
                return rest_makes(naturals, need, 1, 0);
            }))
            return true;
    }
    if (runs) {
        const int base = suit * R_, top = max_pos_, length = rules_.run_min;
        std::vector<int> positions{rank};
        if (rank == 0 && top == R_) positions.push_back(R_);
        for (int position : positions) {
            for (int low = std::max(0, position - length + 1); low <= std::min(position, top - length + 1); ++low) {
                if (low == 0 && low + length - 1 >= R_) continue;  // one ace per run
                std::vector<int> naturals;
                for (int q = low; q < low + length; ++q)
                    if (work[base + q % R_]) naturals.push_back(base + q % R_);
                int need = length - int(naturals.size());
                if (need <= wilds && rest_makes(naturals, need, 0, 1)) return true;
            }
        }
    }
    return false;
}

// ---------------------------------------------------------------- each could meld
bool ContractSolver::each_could_meld(const std::vector<int>& counts, int wilds, const std::vector<int>& must,
                                     int sets, int runs) {
    check_contract(wilds, sets, runs);
    Counts c = to_counts(counts);
    if (int(must.size()) > N_) throw std::invalid_argument("must holds at most one entry per natural face");
    if (rules_.all_wild_melds) return true;
    std::vector<int> of_rank(R_, 0);
    for (int rank = 0; rank < R_; ++rank)
        for (int s = 0; s < S_; ++s) {
            int k = c[s * R_ + rank];
            of_rank[rank] += rules_.set_distinct_suits ? (k > 0) : k;
        }
    // per suit, the run positions some window of run_min could fill (windows running past
    // the top only ever pass more faces: still necessary)
    std::vector<std::vector<bool>> covered(S_);
    if (runs) {
        const int at_least = std::max(0, rules_.run_min - wilds);
        for (int s = 0; s < S_; ++s) {
            Row marks{};
            for (int r = 0; r < R_; ++r) marks[r] = c[s * R_ + r] > 0;
            auto sums = window_sums(marks);
            covered[s].assign(sums.size() + rules_.run_min, false);
            for (int p = 0; p < int(sums.size()); ++p)
                if (sums[p] >= at_least)
                    for (int k = 0; k < rules_.run_min; ++k) covered[s][p + k] = true;
        }
    }
    for (int face = 0; face < int(must.size()); ++face) {
        if (!must[face]) continue;
        const int rank = face % R_;
        if (sets && of_rank[rank] + wilds >= rules_.set_min) continue;
        if (runs) {
            const auto& cover = covered[face / R_];
            if (cover[rank] || (rank == 0 && rules_.ace_high && cover[R_])) continue;
        }
        return false;
    }
    return true;
}

// ---------------------------------------------------------------- every card
bool ContractSolver::can_partition(const std::vector<int>& counts, int wilds, int sets, int runs) {
    check_contract(wilds, sets, runs);
    Counts c = to_counts(counts);
    return partition(c, encode(c), 0, wilds, sets, runs, 0, 0);
}

bool ContractSolver::partition(Counts& c, Code code, int start, int wilds, int sets, int runs, int room,
                               int depth) {
    Key key{code, wilds | (room < wilds ? room : wilds) << 8, sets << 8 | runs};
    if (const bool* hit = partition_memo_.find(key)) return *hit;
    int i = start;
    while (i < N_ && !c[i]) ++i;
    bool result = false;
    if (i == N_) {
        result = !sets && !runs && wilds <= room;  // leftover wilds join melds with room
    } else {
        auto& opts = options_at(depth);
        if (sets) set_options(c, i, wilds, opts);
        const std::size_t set_count = opts.size();
        if (runs) run_options(c, i, wilds, opts);
        for (std::size_t k = 0; k < options_[depth].size() && !result; ++k) {
            const Option o = options_[depth][k];
            const bool is_set = k < set_count;
            Code sub = code;
            for (int x = 0; x < o.size; ++x) --c[o.faces[x]], sub.add(o.faces[x], -1);
            result = partition(c, sub, i, wilds - o.used, sets - is_set, runs - !is_set, room + o.room, depth + 1);
            for (int x = 0; x < o.size; ++x) ++c[o.faces[x]];
        }
    }
    partition_memo_.put(key, result);
    return result;
}

}  // namespace rummy
