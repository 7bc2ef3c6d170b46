#include "meld_solver.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace rummy {

constexpr int kMaxValue = 1 << 20;  // penalties stay small enough that no sum overflows
constexpr int kNoBound = std::numeric_limits<int>::max();

MeldSolver::MeldSolver(int num_suits, int num_ranks, const MeldRules& rules)
    : R_(num_ranks), S_(num_suits), N_(num_suits * num_ranks), rules_(rules) {
    if (num_suits < 1 || num_suits > 4 || num_ranks < 1 || num_ranks > 16)
        throw std::invalid_argument("a deck has 1 to 4 suits of 1 to 16 ranks");
    if (rules.set_min < 1 || rules.run_min < 1) throw std::invalid_argument("meld minimum sizes must be positive");
    max_pos_ = R_ - 1 + (rules.ace_high ? 1 : 0);
    lone_cost_ = std::min(rules.set_min, rules.run_min) - 1;
    // room for a 13-card hand's search up front: a new solver's first query would otherwise
    // spend a sixth of its time growing these buffers (about sixty allocations)
    options_.resize(16);
    for (auto& depth : options_) depth.reserve(32);
    run_stack_.reserve(64);
}

MeldSolver::Counts MeldSolver::to_counts(const std::vector<int>& counts) const {
    if (int(counts.size()) != N_)
        throw std::invalid_argument("counts must hold one count per natural face (" + std::to_string(N_) + ")");
    Counts c{};
    for (int f = 0; f < N_; ++f) {
        if (counts[f] < 0 || counts[f] > 15) throw std::invalid_argument("a face's count must be from 0 to 15");
        c[f] = uint8_t(counts[f]);
    }
    return c;
}

Code MeldSolver::encode(const Counts& c) const {
    Code code;
    for (int f = 0; f < N_; ++f)
        if (c[f]) code.add(f, c[f]);
    return code;
}

std::vector<Option>& MeldSolver::options_at(int depth) {
    if (int(options_.size()) <= depth) options_.resize(depth + 1);
    auto& v = options_[depth];
    v.clear();
    return v;
}

// ---------------------------------------------------------------- options
void MeldSolver::meld_options(const Counts& c, int i, int wilds, std::vector<Option>& out) const {
    set_options(c, i, wilds, out);
    run_options(c, i, wilds, out);
}

void MeldSolver::set_options(const Counts& c, int i, int wilds, std::vector<Option>& out) const {
    const int rank = i % R_, suit = i / R_;
    const bool distinct = rules_.set_distinct_suits;
    // per suit (from i's own up): the face and how many copies of it may join, lo..hi
    int faces[16], lo[16], hi[16], m = 0;
    faces[m] = i, lo[m] = 1, hi[m] = distinct ? 1 : c[i], ++m;
    for (int t = suit + 1; t < S_; ++t) {
        int f = t * R_ + rank;
        if (c[f]) faces[m] = f, lo[m] = 0, hi[m] = distinct ? 1 : c[f], ++m;
    }
    int k[16];
    for (int j = 0; j < m; ++j) k[j] = lo[j];
    while (true) {
        int n = 0;
        for (int j = 0; j < m; ++j) n += k[j];
        int need = n < rules_.set_min ? rules_.set_min - n : 0;
        if (!(need > wilds || (rules_.set_max >= 0 && n + need > rules_.set_max))) {
            Option o;
            o.is_set = true;
            o.rank = rank;
            for (int j = 0; j < m; ++j)
                for (int x = 0; x < k[j]; ++x) o.faces[o.size++] = uint8_t(faces[j]);
            o.used = need;
            o.room = rules_.set_max < 0 ? kUnlimited : rules_.set_max - n - need;
            out.push_back(o);
        }
        // the next pick, the last choice varying fastest (the order of the Python product)
        int j = m - 1;
        while (j >= 0 && k[j] == hi[j]) k[j] = lo[j], --j;
        if (j < 0) break;
        ++k[j];
    }
}

void MeldSolver::run_options(const Counts& c, int i, int wilds, std::vector<Option>& out) const {
    const int suit = i / R_, p0 = i % R_, base = suit * R_, run_min = rules_.run_min;
    std::vector<RunEntry>& stack = run_stack_;
    stack.clear();
    auto emit = [&](const RunEntry& e, int used, int room, int low, int high) {
        Option o;
        for (int x = 0; x < e.size; ++x) o.faces[x] = e.faces[x];
        o.size = uint8_t(e.size);
        o.used = used, o.room = room;
        o.suit = suit, o.low = low, o.high = high;
        out.push_back(o);
    };
    RunEntry first{p0, 0, {}, 1};
    first.faces[0] = uint8_t(i);
    stack.push_back(first);
    while (!stack.empty()) {
        RunEntry e = stack.back();
        stack.pop_back();
        int length = e.q - p0 + 1;
        int pad = length < run_min ? run_min - length : 0;
        if (e.gaps + pad <= wilds && length + pad <= R_ && (max_pos_ - e.q) + p0 >= pad) {
            int high = std::min(max_pos_, e.q + pad);
            emit(e, e.gaps + pad, R_ - length - pad, p0 - (pad - (high - e.q)), high);
        }
        for (int nq = e.q + 1; nq < R_; ++nq) {
            int g = e.gaps + (nq - e.q - 1);
            if (g > wilds || nq - p0 + 1 > R_) break;
            if (c[base + nq]) {
                RunEntry n = e;
                n.q = nq, n.gaps = g;
                n.faces[n.size++] = uint8_t(base + nq);
                stack.push_back(n);
            }
        }
    }
    if (p0 == 0 && rules_.ace_high) {  // the ace placed high: the run reaches down from position R
        RunEntry top{R_, 0, {}, 1};
        top.faces[0] = uint8_t(i);
        stack.push_back(top);
        while (!stack.empty()) {
            RunEntry e = stack.back();
            stack.pop_back();
            int length = R_ - e.q + 1;
            int pad = length < run_min ? run_min - length : 0;
            if (e.q < R_ && e.gaps + pad <= wilds && length + pad <= R_ && e.q - 1 >= pad) {
                emit(e, e.gaps + pad, R_ - length - pad, e.q - pad, R_);
            }
            for (int nq = e.q - 1; nq > 0; --nq) {
                int g = e.gaps + (e.q - nq - 1);
                if (g > wilds) break;
                if (c[base + nq]) {
                    RunEntry n = e;
                    n.q = nq, n.gaps = g;
                    n.faces[n.size++] = uint8_t(base + nq);
                    stack.push_back(n);
                }
            }
        }
    }
}

int MeldSolver::leftover_wilds_unplaced(int wilds, int room) const {
    if (wilds <= room) return 0;
    if (rules_.all_wild_melds && wilds >= rules_.set_min) return 0;
    return wilds - room;
}

// ---------------------------------------------------------------- full melding
bool MeldSolver::can_meld_all(const std::vector<int>& counts, int wilds) {
    if (wilds < 0 || wilds > 255) throw std::invalid_argument("wilds must be from 0 to 255");
    Counts c = to_counts(counts);
    return full(c, encode(c), 0, wilds, 0, 0);
}

bool MeldSolver::full(Counts& c, Code code, int start, int wilds, int room, int depth) {
    Key key{code, wilds, room < wilds ? room : wilds};
    if (const bool* hit = full_memo_.find(key)) return *hit;
    int i = start;
    while (i < N_ && !c[i]) ++i;
    bool result = false;
    if (i == N_) {
        result = leftover_wilds_unplaced(wilds, room) == 0;
    } else {
        auto& opts = options_at(depth);
        meld_options(c, i, wilds, opts);
        for (std::size_t k = 0; k < options_[depth].size() && !result; ++k) {
            const Option o = options_[depth][k];
            Code sub = code;
            for (int x = 0; x < o.size; ++x) --c[o.faces[x]], sub.add(o.faces[x], -1);
            bool ok = full(c, sub, i, wilds - o.used, room + o.room, depth + 1);
            for (int x = 0; x < o.size; ++x) ++c[o.faces[x]];
            result = ok;
        }
    }
    full_memo_.put(key, result);
    return result;
}

// ---------------------------------------------------------------- going out
std::pair<std::vector<int>, bool> MeldSolver::meldable_without_one(const std::vector<int>& counts, int wilds) {
    if (wilds < 0 || wilds > 255) throw std::invalid_argument("wilds must be from 0 to 255");
    Counts c = to_counts(counts);
    groups(c, wilds);
    const std::size_t G = group_starts_.size() - 1;
    group_counts_.assign(G, Counts{});
    group_codes_.resize(G);
    group_needs_.resize(G);
    int total = 0;
    for (std::size_t g = 0; g < G; ++g) {
        Counts& gc = group_counts_[g];
        for (int k = group_starts_[g]; k < group_starts_[g + 1]; ++k) ++gc[group_faces_[std::size_t(k)]];
        group_codes_[g] = encode(gc);
        group_needs_[g] = group_need(group_codes_[g], gc, wilds + lone_cost_ + 1);
        total += group_needs_[g];
    }
    std::vector<int> faces;
    if (total - lone_cost_ <= wilds) {
        for (std::size_t g = 0; g < G; ++g) {
            int rest = total - group_needs_[g];
            if (rest > wilds) continue;
            int prev = -1;
            for (int k = group_starts_[g]; k < group_starts_[g + 1]; ++k) {  // each face of the group once, in order
                const int f = group_faces_[std::size_t(k)];
                if (f == prev) continue;
                prev = f;
                Counts left = group_counts_[g];
                --left[f];
                Code lcode = group_codes_[g];
                lcode.add(f, -1);
                int need_left = group_need(lcode, left, wilds - rest + 1);
                if (rest + need_left <= wilds && places_leftover(c, f, wilds, wilds - rest - need_left))
                    faces.push_back(f);
            }
        }
    }
    bool wild_ok = 0 < wilds && total <= wilds - 1 && places_leftover(c, -1, wilds - 1, wilds - 1 - total);
    return {faces, wild_ok};
}

bool MeldSolver::places_leftover(const Counts& counts, int left_out, int wilds, int leftover) {
    if (leftover == 0 || (rules_.all_wild_melds && leftover >= rules_.set_min)) return true;
    Counts work = counts;
    if (left_out >= 0) --work[left_out];
    return full(work, encode(work), 0, wilds, 0, 0);
}

void MeldSolver::groups(const Counts& counts, int wilds) {
    // fixed-size scratch: a deck has at most kMaxFaces naturals and 16 ranks
    const int reach = 1 + wilds;
    std::array<int, kMaxFaces> present, parent, label, slot;
    int num_present = 0, num_parents = 0;
    int prev = -R_;
    for (int f = 0; f < N_; ++f) {
        if (!counts[f]) continue;
        if (f - prev > reach || f / R_ != prev / R_) parent[num_parents] = num_parents, ++num_parents;
        label[num_present] = num_parents - 1;
        present[num_present++] = f;
        prev = f;
    }
    auto root = [&](int k) {
        while (parent[k] != k) parent[k] = parent[parent[k]], k = parent[k];
        return k;
    };
    auto join = [&](int a, int b) {
        a = root(a), b = root(b);
        if (a != b) parent[a] = b;
    };
    std::array<int, 16> first_of_rank;
    first_of_rank.fill(-1);
    for (int j = 0; j < num_present; ++j) {
        int rank = present[j] % R_;
        if (first_of_rank[rank] >= 0) join(label[j], first_of_rank[rank]);
        else first_of_rank[rank] = label[j];
    }
    if (rules_.ace_high) {  // an ace placed above the king reaches the suit's top card
        for (int j = 0; j < num_present; ++j) {
            int f = present[j];
            if (f % R_ != 0) continue;
            int top = j;
            for (int t = 0; t < num_present; ++t)
                if (present[t] / R_ == f / R_) top = t;  // present ascends, so the last of the suit
            int tf = present[top];
            if (tf != f && R_ - tf % R_ <= reach) join(label[j], label[top]);
        }
    }
    // groups in the order of their first face, as the Python dict keeps them: count each
    // group's cards, then lay the groups out one after another
    std::fill(slot.begin(), slot.begin() + num_parents, -1);
    std::array<int, kMaxFaces + 1> sizes{};
    int num_groups = 0;
    for (int j = 0; j < num_present; ++j) {
        int r = root(label[j]);
        if (slot[r] < 0) slot[r] = num_groups++;
        sizes[slot[r]] += counts[present[j]];
    }
    group_starts_.assign(std::size_t(num_groups) + 1, 0);
    for (int g = 0; g < num_groups; ++g) group_starts_[std::size_t(g) + 1] = group_starts_[std::size_t(g)] + sizes[g];
    group_faces_.resize(std::size_t(group_starts_.back()));
    std::array<int, kMaxFaces> fill_at;
    for (int g = 0; g < num_groups; ++g) fill_at[g] = group_starts_[std::size_t(g)];
    for (int j = 0; j < num_present; ++j) {
        const int g = slot[root(label[j])];
        for (int x = 0; x < counts[present[j]]; ++x) group_faces_[std::size_t(fill_at[g]++)] = present[j];
    }
}

int MeldSolver::group_need(Code code, const Counts& group, int cap) {
    if (code.empty()) return 0;
    Key key{code, 0, 0};
    const auto* hit = need_memo_.find(key);
    if (hit && (hit->second || hit->first >= cap)) return std::min(hit->first, cap);
    Counts c = group;
    int start = 0;
    while (!c[start]) ++start;
    return need(c, code, start, cap, 0);
}

int MeldSolver::need(Counts& c, Code code, int start, int cap, int depth) {
    // the memo holds (value, exact): an exact need, or a lower bound found under a cap
    if (code.empty()) return 0;
    Key key{code, 0, 0};
    const auto* hit = need_memo_.find(key);
    if (hit && (hit->second || hit->first >= cap)) return std::min(hit->first, cap);
    if (cap <= 0) return 0;
    int i = start;
    while (!c[i]) ++i;
    int best = cap;
    auto& opts = options_at(depth);
    meld_options(c, i, cap - 1, opts);
    for (std::size_t k = 0; k < options_[depth].size(); ++k) {
        const Option o = options_[depth][k];
        if (o.used >= best) continue;
        Code sub = code;
        for (int x = 0; x < o.size; ++x) --c[o.faces[x]], sub.add(o.faces[x], -1);
        int value = o.used + need(c, sub, i, best - o.used, depth + 1);
        for (int x = 0; x < o.size; ++x) ++c[o.faces[x]];
        if (value < best) best = value;
    }
    need_memo_.put(key, {best, best < cap});
    return best;
}

// ---------------------------------------------------------------- least penalty
void MeldSolver::set_values(const std::vector<int>& values, int wild_value) {
    if (int(values.size()) != N_)
        throw std::invalid_argument("values must hold one penalty per natural face (" + std::to_string(N_) + ")");
    for (int v : values)
        if (v < 0 || v > kMaxValue) throw std::invalid_argument("penalty values must be from 0 to 1048576");
    if (wild_value < 0 || wild_value > kMaxValue) throw std::invalid_argument("penalty values must be from 0 to 1048576");
    if (values != values_ || wild_value != wild_value_) {  // the memo holds one scoring's values
        values_ = values;
        wild_value_ = wild_value;
        pen_memo_.clear();
    }
}

int MeldSolver::min_penalty(const std::vector<int>& counts, int wilds, const std::vector<int>& values,
                            int wild_value) {
    if (wilds < 0 || wilds > 255) throw std::invalid_argument("wilds must be from 0 to 255");
    Counts c = to_counts(counts);
    set_values(values, wild_value);
    return pen(c, encode(c), 0, wilds, 0, 0, kNoBound);
}

int MeldSolver::pen(Counts& c, Code code, int start, int wilds, int room, int depth, int bound) {
    // Branch and bound: the least penalty exactly where it is below `bound`, else a lower bound
    // of at least `bound` (penalties are never negative, so nothing is below 0). The memo keeps
    // whether each value is exact, as the need memo does.
    if (bound <= 0) return 0;
    Key key{code, wilds, room < wilds ? room : wilds};
    const auto* hit = pen_memo_.find(key);
    if (hit && (hit->second || hit->first >= bound)) return hit->first;
    int i = start;
    while (i < N_ && !c[i]) ++i;
    if (i == N_) {
        int result = leftover_wilds_unplaced(wilds, room) * wild_value_;
        pen_memo_.put(key, {result, true});
        return result;
    }
    // the melds holding the lowest card first: they find low penalties, which bound the rest
    int best = bound;
    auto& opts = options_at(depth);
    meld_options(c, i, wilds, opts);
    for (std::size_t k = 0; k < options_[depth].size() && best > 0; ++k) {
        const Option& o = options_[depth][k];
        Code s = code;
        for (int x = 0; x < o.size; ++x) --c[o.faces[x]], s.add(o.faces[x], -1);
        best = std::min(best, pen(c, s, i, wilds - o.used, room + o.room, depth + 1, best));
        for (int x = 0; x < o.size; ++x) ++c[o.faces[x]];
    }
    if (best > values_[i]) {  // or the lowest card stays unmatched
        --c[i];
        Code sub = code;
        sub.add(i, -1);
        best = std::min(best, values_[i] + pen(c, sub, i, wilds, room, depth + 1, best - values_[i]));
        ++c[i];
    }
    pen_memo_.put(key, {best, best < bound});
    return best;
}

int MeldSolver::meld_room(const PlacedMeld& m) const {
    int size = int(m.naturals.size()) + m.wilds;
    if (m.is_set) return rules_.set_max < 0 ? kUnlimited : rules_.set_max - size;
    return R_ - size;
}

Arrangement MeldSolver::best_arrangement(const std::vector<int>& counts, int wilds, const std::vector<int>& values,
                                         int wild_value) {
    Arrangement out;
    out.penalty = min_penalty(counts, wilds, values, wild_value);
    Counts c = to_counts(counts);
    Code code = encode(c);
    int i = 0, room = 0;
    std::vector<Option> opts;
    while (true) {
        while (i < N_ && !c[i]) ++i;
        if (i == N_) break;
        // follow the memoised search: take the first choice that keeps its value
        int value = pen(c, code, i, wilds, room, 0, kNoBound);
        --c[i];
        Code alone = code;
        alone.add(i, -1);
        if (values_[i] + pen(c, alone, i, wilds, room, 0, kNoBound) == value) {
            out.unmatched.push_back(i);
            code = alone;
            continue;
        }
        ++c[i];
        opts.clear();
        meld_options(c, i, wilds, opts);
        bool found = false;
        for (const Option& o : opts) {
            Code s = code;
            for (int x = 0; x < o.size; ++x) --c[o.faces[x]], s.add(o.faces[x], -1);
            if (pen(c, s, i, wilds - o.used, room + o.room, 0, kNoBound) == value) {
                PlacedMeld m;
                m.is_set = o.is_set;
                m.naturals.assign(o.faces.begin(), o.faces.begin() + o.size);
                m.wilds = o.used;
                m.rank = o.rank, m.suit = o.suit, m.low = o.low, m.high = o.high;
                out.melds.push_back(m);
                code = s, wilds -= o.used, room += o.room;
                found = true;
                break;
            }
            for (int x = 0; x < o.size; ++x) ++c[o.faces[x]];
        }
        if (!found) throw std::logic_error("arrangement search lost its optimum");
    }
    // leftover wilds into melds with room (runs: high end first), else a set of their own
    for (PlacedMeld& m : out.melds) {
        if (!wilds) break;
        int add = std::min(wilds, meld_room(m));
        if (add <= 0) continue;
        if (!m.is_set) {
            int high = std::min(max_pos_, m.high + add);
            m.low -= add - (high - m.high);
            m.high = high;
        }
        m.wilds += add;
        wilds -= add;
    }
    if (wilds && rules_.all_wild_melds && wilds >= rules_.set_min) {
        PlacedMeld m;
        m.is_set = true;
        m.wilds = wilds;
        out.melds.push_back(m);
        wilds = 0;
    }
    out.unmatched_wilds = wilds;
    return out;
}

}  // namespace rummy
