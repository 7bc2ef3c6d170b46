// A contract game's draws beyond the top card: deep draws (rules/deep_draw.py) and the buy
// question out of turn (rules/buy.py), each function as its Python namesake.
#include <algorithm>

#include "table.hpp"

namespace rummy {

namespace {

// deep_draw.py's _CardPool: a growing pool of cards (a hand plus the discards down to some
// depth) that answers fast necessary conditions for putting one of its cards on the table
// this turn. Run positions held are kept per suit, position R standing for the ace high.
class CardPool {
public:
    CardPool(int num_suits, int num_ranks, int top, int wild, const MeldRules& melds, const std::vector<int>& naturals,
             int wilds, std::vector<bool> fits_a_set, std::vector<std::vector<std::pair<int, int>>> runs,
             int swappable)
        : R_(num_ranks), top_(top), wild_(wild), set_min_(melds.set_min), run_min_(melds.run_min),
          distinct_(melds.set_distinct_suits), wilds_(wilds), swappable_(swappable),
          fits_a_set_(std::move(fits_a_set)), runs_(std::move(runs)) {
        held_.assign(std::size_t(num_suits), std::vector<bool>(std::size_t(top + 1), false));
        same_rank_.assign(std::size_t(num_ranks), 0);
        for (int s = 0; s < num_suits; ++s)
            for (int r = 0; r < num_ranks; ++r) {
                const int k = naturals[std::size_t(s * num_ranks + r)];
                same_rank_[std::size_t(r)] += distinct_ ? (k > 0) : k;
                if (k) mark(s, r);
            }
    }

    void add(int face) {
        if (face == wild_) {
            ++wilds_;
            return;
        }
        const int rank = face % R_, suit = face / R_;
        if (!distinct_ || !held_[std::size_t(suit)][std::size_t(rank)]) ++same_rank_[std::size_t(rank)];
        mark(suit, rank);
    }

    bool could_lay_off(int face) const {
        if (face == wild_ || fits_a_set_[std::size_t(face)]) return true;
        const int suit = face / R_;
        for (auto [low, high] : runs_[std::size_t(suit)])
            for (int q : positions(face)) {
                int first, last;
                if (q > high)
                    first = high + 1, last = q - 1;
                else if (q < low)
                    first = q + 1, last = low - 1;
                else
                    continue;
                const int gap = last - first + 1;
                if (gap <= 0) return true;
                if (gap - count_held(suit, first, last) <= wilds_ + swappable_) return true;
            }
        return false;
    }

    // going down with a contract of `sets` sets and `runs` runs, then laying off
    bool could_meld(int face, int sets, int runs) const {
        if (could_lay_off(face)) return true;
        const int rank = face % R_, suit = face / R_;
        if (sets && same_rank_[std::size_t(rank)] + wilds_ >= set_min_) return true;
        if (runs) {  // a run through the face: then some shortest run window through it fills too
            const int need = run_min_ - wilds_;
            for (int position : positions(face))
                for (int low = std::max(0, position - run_min_ + 1); low <= std::min(position, top_ - run_min_ + 1); ++low)
                    if (count_held(suit, low, low + run_min_ - 1) >= need) return true;
        }
        return false;
    }

private:
    void mark(int suit, int rank) {
        held_[std::size_t(suit)][std::size_t(rank)] = true;
        if (rank == 0 && top_ == R_) held_[std::size_t(suit)][std::size_t(R_)] = true;
    }
    std::vector<int> positions(int face) const {
        const int rank = face % R_;
        if (rank == 0 && top_ == R_) return {0, R_};
        return {rank};
    }
    int count_held(int suit, int first, int last) const {
        int k = 0;
        for (int q = first; q <= last && q <= top_; ++q) k += held_[std::size_t(suit)][std::size_t(q)];
        return k;
    }

    int R_, top_, wild_, set_min_, run_min_;
    bool distinct_;
    int wilds_, swappable_;
    std::vector<bool> fits_a_set_;
    std::vector<std::vector<std::pair<int, int>>> runs_;
    std::vector<std::vector<bool>> held_;
    std::vector<int> same_rank_;
};

}  // namespace

// draw discard N for each depth whose card can be put on the table this turn
std::vector<int> Table::deep_draw_legal() {
    const State& s = state_;
    const int deepest = std::min(rules_.play.max_deep_draw, int(s.discard.size()));
    const int p = s.current;
    const RoundRules& spec = round_rules(s);
    const bool down = is_down(s, p);
    auto [naturals, wilds] = split_wilds(s.hands[p]);
    auto with_cards = [&](int depth) {  // the hand and the discards down to depth
        std::pair<std::vector<int>, int> out{naturals, wilds};
        for (std::size_t k = s.discard.size() - std::size_t(depth); k < s.discard.size(); ++k) {
            const int f = s.discard[k];
            if (f == wild_card_)
                ++out.second;
            else
                ++out.first[std::size_t(f)];
        }
        return out;
    };
    int smallest = -1;  // the shallowest depth that can make the contract, found lazily
    auto contract_depth = [&]() {
        if (smallest < 0) {  // more cards never make a contract impossible: bisect
            int low = 2, high = deepest + 1;
            while (low < high) {
                const int mid = (low + high) / 2;
                auto [counts, w] = with_cards(mid);
                if (solver().can_make_contract(counts, w, spec.sets, spec.runs))
                    high = mid;
                else
                    low = mid + 1;
            }
            smallest = low;
        }
        return smallest;
    };
    if (!down) {
        auto [counts, w] = with_cards(deepest);
        if (spec.down_means_out) {  // going down must then take every card of the hand
            if (!solver().each_could_meld(counts, w, naturals, spec.sets, spec.runs)) return {};
        } else if (!solver().can_make_contract(counts, w, spec.sets, spec.runs)) {
            return {};  // not even every card down to the deepest makes the contract
        }
    }
    // table_facts: the faces that fit a set on the table, each suit's runs, the wilds in runs
    std::vector<bool> fits(std::size_t(num_faces_), false);
    std::vector<std::vector<std::pair<int, int>>> runs(std::size_t(rules_.num_suits));
    int wilds_in_runs = 0;
    for (const TableMeld& t : s.table) {
        if (t.meld.is_set) {
            for (int f : fitting_faces(t.meld)) fits[std::size_t(f)] = true;
        } else {
            runs[std::size_t(t.meld.suit)].emplace_back(t.meld.low, t.meld.high);
            wilds_in_runs += t.meld.wilds;
        }
    }
    // a player down before this turn may swap wilds off the table to fill gaps
    const bool may_swap = down || !rules_.play.swap_needs_earlier_down;
    CardPool pool(rules_.num_suits, rules_.num_ranks, top_, wild_card_, rules_.melds, naturals, wilds, std::move(fits),
                  std::move(runs), may_swap ? wilds_in_runs : 0);
    // melds of the contract's kinds, or any kind where more may follow going down
    const int sets_wanted = rules_.play.melds_after_down ? 1 : spec.sets;
    const int runs_wanted = rules_.play.melds_after_down ? 1 : spec.runs;
    std::vector<int> actions;
    for (int depth = 1; depth <= deepest; ++depth) {
        const int face = s.discard[s.discard.size() - std::size_t(depth)];
        pool.add(face);
        if (depth < 2) continue;
        if (down) {
            if (!pool.could_lay_off(face)) continue;
        } else {
            if (!pool.could_meld(face, sets_wanted, runs_wanted)) continue;
            if (!spec.down_means_out && depth < contract_depth()) continue;
        }
        State next = s;
        take_from_discard(next, depth);
        if (finishable(next)) actions.push_back(deep_start_ + depth - 2);
    }
    return actions;
}

// The player to act chose the stock: ask the next player after seat `after` who may buy the
// top discard, or, with none left, make the stock draw.
std::optional<RoundEnd> Table::ask_buyer(int after) {
    const int buyer = next_buyer(after);
    if (buyer < 0) {
        state_.asked = -1;
        return draw_stock();
    }
    state_.asked = buyer;
    state_.phase = kBuy;
    return std::nullopt;
}

// The first seat left of `after` (and before the player to act) that may buy the top discard
// (not its discarder, not past the buy limit, and only while the stock, reshuffled if need
// be, can give the buyer's penalty card and the player's draw), or -1.
int Table::next_buyer(int after) const {
    const State& s = state_;
    if (s.discard.empty() || int(s.stock.size()) + std::max(0, int(s.discard.size()) - 2) < 2) return -1;
    const int n = rules_.num_players, cap = rules_.play.max_buys_per_round, discarder = s.discard_seats.back();
    for (int seat = (after + 1) % n; seat != s.current; seat = (seat + 1) % n)
        if (seat != discarder && (cap < 0 || s.buys[std::size_t(seat)] < cap)) return seat;
    return -1;
}

// The asked seat takes the top discard (seen by all) and a penalty card from the stock
// (unseen); then the player to act draws from the stock.
std::optional<RoundEnd> Table::buy() {
    State& s = state_;
    const int buyer = s.asked, face = s.discard.back();
    s.discard.pop_back();
    s.discard_seats.pop_back();
    --s.discard_counts[face];
    if (s.stock.empty()) reshuffle(s);  // the bought card has left the pile first
    const int penalty = s.stock.back();
    s.stock.pop_back();
    ++s.hands[buyer][face];
    ++s.hands[buyer][penalty];
    ++s.known[buyer][face];
    s.hand_sizes[buyer] += 2;
    ++s.buys[buyer];
    s.asked = -1;
    return draw_stock();
}

}  // namespace rummy
