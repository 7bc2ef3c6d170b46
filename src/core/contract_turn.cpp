// A contract game's turn after the draw: going down, melding, laying off, swapping wilds and
// the discard (rules/contract_turn.py, turn_moves.py, melding.py, lay_off.py, swap.py), each
// function as its Python namesake, in the same order of tests. The look-ahead that keeps every
// offered move finishable is turn_search.cpp.
#include <algorithm>

#include "table.hpp"

namespace rummy {


// ---------------------------------------------------------------- contract_turn.py
std::vector<int> Table::contract_turn_legal() {
    const State& s = state_;
    const RoundRules& spec = round_rules(s);
    const int p = s.current;
    std::vector<int> actions;
    if (s.phase == kPlay && s.must_place < 0 && s.wilds_owed == 0 && !(spec.down_means_out && is_down(s, p)) &&
        !(s.hand_sizes[p] == 1 && !may_discard_last(s)))
        for (int f : discardable(s)) actions.push_back(discard_start_ + f);
    // A player down with no obligation open finishes after a meld or a lay-off that leaves
    // 2+ cards (a discard is then legal) or none: no look-ahead needed.
    const bool quick = s.phase == kPlay && is_down(s, p) && s.must_place < 0 && s.wilds_owed == 0 && !spec.down_means_out;
    const std::vector<int> moves = play_moves(s);
    if (moves.empty()) return actions;
    const int size = s.hand_sizes[p];
    if (quick) {
        int least = 1 << 30, most = 0;
        for (int a : moves) least = std::min(least, layout_->cards_used[a]), most = std::max(most, layout_->cards_used[a]);
        if (least && size - most >= 2) {
            actions.insert(actions.end(), moves.begin(), moves.end());
            return actions;  // no swap, and every move leaves 2+ cards
        }
    }
    int sets_left = 0, runs_left = 0;
    const bool going_down = !quick && plain_going_down_left(s, sets_left, runs_left);
    std::vector<int> verdicts;
    if (going_down) verdicts = plain_meld_verdicts(s, sets_left, runs_left, moves);
    const bool owing = s.wilds_owed > 0 && s.must_place < 0 && !spec.down_means_out && rules_.melds.set_max < 0;
    for (std::size_t k = 0; k < moves.size(); ++k) {
        const int action = moves[k];
        if (owing && owed_wilds_placed(s, action)) {
            actions.push_back(action);
            continue;
        }
        if (quick) {
            const int used = layout_->cards_used[action];
            if (used ? (size - used >= 2 || size == used) : swap_then_lay_off(s, action)) {
                actions.push_back(action);
                continue;
            }
        } else if (going_down) {
            const int verdict = layout_->cards_used[action] ? verdicts[k] : swap_then_go_down(s, action);
            if (verdict >= 0) {
                if (verdict) actions.push_back(action);
                continue;
            }
        }
        if (finishable(after(s, action))) actions.push_back(action);
    }
    return actions;
}

std::optional<RoundEnd> Table::contract_discard(int face) {
    State& s = state_;
    put_on_discard(s, face);
    if (s.hand_sizes[s.current] == 0) {
        s.went_out = s.current;  // went out by discarding the last card
        return end_round();
    }
    return end_turn(false);
}

std::optional<RoundEnd> Table::contract_move(int action) {  // a meld, lay-off or swap; an empty hand ends the round
    State& s = state_;
    play_move(s, action);
    if (s.hand_sizes[s.current] == 0) {
        s.went_out = s.current;
        return end_round();
    }
    return std::nullopt;
}

// ---------------------------------------------------------------- turn_moves.py
// The melds, lay-offs and swaps the rules allow now, ascending, before the check that the
// turn can still be finished after them.
std::vector<int> Table::play_moves(const State& s) const {
    const int p = s.current;
    const ContractPlay& play = rules_.play;
    const std::vector<int>& hand = s.hands[p];
    const bool room = int(s.table.size()) < play.max_table_melds;
    if (s.phase == kGoingDown) return room ? meld_moves(s, hand, s.sets_left > 0, s.runs_left > 0) : std::vector<int>{};
    const RoundRules& spec = round_rules(s);
    std::vector<int> moves;
    if (!is_down(s, p)) {
        if (int(s.table.size()) + spec.sets + spec.runs <= play.max_table_melds) {
            // a going down must be completed once started: none starts unless the hand can
            // make the whole contract (the search then applies the rule keeping runs apart)
            auto [naturals, wilds] = split_wilds(hand);
            const bool can = spec.down_means_out ? solver().can_partition(naturals, wilds, spec.sets, spec.runs)
                                                 : solver().can_make_contract(naturals, wilds, spec.sets, spec.runs);
            if (can) moves = meld_moves(s, hand, spec.sets > 0, spec.runs > 0);
        }
        if (!play.swap_needs_earlier_down && swap_start_ >= 0) {  // the wild taken must then go down this turn
            std::vector<int> swaps = swap_moves(s, hand);
            moves.insert(moves.end(), swaps.begin(), swaps.end());
        }
        return moves;
    }
    if (spec.down_means_out) return moves;  // going down had to use every card: nothing may follow it
    if (play.melds_after_down && room) moves = meld_moves(s, hand, true, true);
    const bool no_spare = no_spare_wild(s);  // then no wild may go on another player's meld
    for (std::size_t slot = 0; slot < s.table.size(); ++slot)
        for (int f : fitting_faces(s.table[slot].meld))
            if (hand[f]) {
                const int action = lay_off_start_ + int(slot) * num_faces_ + f;
                if (!(no_spare && wild_on_others_meld(s, action))) moves.push_back(action);
            }
    if (swap_start_ >= 0 && (!play.swap_needs_earlier_down || s.down_turn[p] < s.turns)) {
        std::vector<int> swaps = swap_moves(s, hand);
        moves.insert(moves.end(), swaps.begin(), swaps.end());
    }
    return moves;
}

// A meld, lay-off or swap, without ending the round (the caller does that).
void Table::play_move(State& s, int action) const {
    const Action& act = layout_->actions[std::size_t(action)];
    const int p = s.current, wild = wild_card_;
    if (act.kind == kMeldSetKind || act.kind == kMeldRunKind) {
        PlacedMeld meld;
        if (act.kind == kMeldSetKind) {
            meld.is_set = true, meld.naturals = act.naturals, meld.wilds = act.b, meld.rank = act.a;
        } else {
            meld = run_from_hand(s.hands[p], act);
        }
        for (int f : meld.naturals) to_table(s, f, true);
        for (int k = 0; k < meld.wilds; ++k) to_table(s, wild, true);
        s.wilds_owed -= std::min(s.wilds_owed, meld.wilds);  // a swapped wild played again
        s.wilds_to_meld -= std::min(s.wilds_to_meld, meld.wilds);  // those owed to melds first
        TableMeld placed{p, meld, meld.naturals};
        placed.cards.insert(placed.cards.end(), std::size_t(meld.wilds), wild);
        s.table.push_back(std::move(placed));
        count_contract_meld(s, meld.is_set);
    } else if (act.kind == kLayOffKind) {
        const int face = act.a, slot = act.b;
        TableMeld& tm = s.table[std::size_t(slot)];
        // Each obligation takes its own card: a wild laid off while a swapped wild is owed is
        // that wild, not the deep-drawn one. On another player's meld it pays no wild owed to
        // this turn's going-down melds (the mask offers it only as a spare).
        const bool own = tm.owner == p;
        const bool owed_wild = face == wild && s.wilds_owed > (own ? 0 : s.wilds_to_meld);
        to_table(s, face, !owed_wild);
        tm.meld = lay_off_place(tm.meld, face);
        tm.cards.push_back(face);
        if (owed_wild) {
            --s.wilds_owed;
            if (own && s.wilds_to_meld) --s.wilds_to_meld;
        }
    } else {  // a swap
        const int face = act.a, slot = act.b;
        to_table(s, face, false);
        TableMeld& tm = s.table[std::size_t(slot)];
        tm.meld.naturals.push_back(face);
        --tm.meld.wilds;
        *std::find(tm.cards.begin(), tm.cards.end(), wild) = face;
        ++s.hands[p][wild];
        ++s.hand_sizes[p];
        ++s.known[p][wild];  // everyone saw the wild taken back
        ++s.wilds_owed;
        if (!is_down(s, p)) ++s.wilds_to_meld;  // it must go into this turn's going-down melds
    }
}

// One card leaves the player's hand for the table; `placing` (a meld or a lay-off, not a swap)
// satisfies a deep draw's obligation.
void Table::to_table(State& s, int face, bool placing) const {
    const int p = s.current;
    --s.hands[p][face];
    --s.hand_sizes[p];
    if (s.known[p][face]) --s.known[p][face];
    if (face == s.taken_face) s.taken_face = -1;  // a meld or lay-off uses the card just taken first
    if (placing && face == s.must_place) s.must_place = -1;
}

// ---------------------------------------------------------------- melding.py
std::vector<int> Table::meld_moves(const State& s, const std::vector<int>& hand, bool sets, bool runs) const {
    const int R = rules_.num_ranks, wilds = wild_card_ >= 0 ? hand[wild_card_] : 0;
    std::vector<int> moves;
    if (sets) {  // a set action whose naturals are among the hand's, with no more wilds than held
        const SetIndex& index = layout_->sets;
        for (int rank = 0; rank < R; ++rank) {
            int held = 0, sig = 0;
            for (int suit = rules_.num_suits - 1; suit >= 0; --suit) {
                const int k = hand[suit * R + rank];
                held += k;
                sig = sig * (index.cap + 1) + std::min(k, index.cap);
            }
            if (!held || held + wilds < rules_.melds.set_min) continue;
            const int base = set_start_ + rank * index.per_rank;
            for (int k : index.offsets[std::size_t(sig * (index.max_wilds + 1) + std::min(wilds, index.max_wilds))])
                moves.push_back(base + k);
        }
    }
    if (runs) {
        // (suit, low, high) of the runs already laid in the going down in progress
        std::vector<const PlacedMeld*> apart;
        if (rules_.play.contract_runs_apart && s.phase == kGoingDown) {
            const RoundRules& spec = round_rules(s);
            const int placed = spec.sets + spec.runs - s.sets_left - s.runs_left;
            for (std::size_t k = s.table.size() - std::size_t(placed); k < s.table.size(); ++k)
                if (!s.table[k].meld.is_set) apart.push_back(&s.table[k].meld);
        }
        const int P = top_ + 1, usable = std::min(wilds, R);
        for (int suit = 0; suit < rules_.num_suits; ++suit) {
            bool any = false;
            for (int r = 0; r < R; ++r) any = any || hand[suit * R + r];
            if (!any) continue;
            for (int low = 0; low <= top_; ++low) {
                int missing = 0, naturals = 0;
                for (int high = low; high <= std::min(top_, low + R - 1); ++high) {
                    if (hand[suit * R + high % R] && !(high == R && low == 0))
                        ++naturals;
                    else
                        ++missing;
                    if (missing > usable) break;
                    const int action = layout_->run_ids[std::size_t((suit * P + low) * P + high)];
                    if (action < 0 || !naturals) continue;
                    bool joins = false;
                    for (const PlacedMeld* m : apart)
                        joins = joins || (m->suit == suit && (low == m->high + 1 || high == m->low - 1));
                    if (!joins) moves.push_back(action);
                }
            }
        }
    }
    std::sort(moves.begin(), moves.end());
    return moves;
}

// A meld run uses the hand's naturals and fills the missing places with wilds.
PlacedMeld Table::run_from_hand(const std::vector<int>& hand, const Action& act) const {
    const int R = rules_.num_ranks, base = act.a * R;
    PlacedMeld meld;
    meld.suit = act.a, meld.low = act.b, meld.high = act.c;
    for (int q = act.b; q <= act.c; ++q)
        if (hand[base + q % R]) meld.naturals.push_back(base + q % R);
    meld.wilds = act.c - act.b + 1 - int(meld.naturals.size());
    return meld;
}

void Table::count_contract_meld(State& s, bool is_set) const {
    const int p = s.current;
    if (is_down(s, p)) return;  // a further meld after going down
    if (s.phase != kGoingDown) {
        s.sets_left = round_rules(s).sets, s.runs_left = round_rules(s).runs;
        s.phase = kGoingDown;
    }
    if (is_set)
        --s.sets_left;
    else
        --s.runs_left;
    if (s.sets_left == 0 && s.runs_left == 0) {
        s.down_turn[p] = s.turns;
        s.phase = kPlay;
    }
}

// ---------------------------------------------------------------- lay_off.py
// The faces that may be laid off on a meld, ascending.
SmallList Table::fitting_faces(const PlacedMeld& meld) const {
    const int R = rules_.num_ranks;
    SmallList candidates, fits;
    if (meld.is_set) {
        for (int s = 0; s < rules_.num_suits; ++s) candidates.push_back(s * R + meld.rank);
    } else {
        for (int q : {meld.low - 1, meld.high + 1})
            if (q >= 0 && q <= top_) candidates.push_back(meld.suit * R + q % R);
    }
    if (wild_card_ >= 0) candidates.push_back(wild_card_);
    std::sort(candidates.items.begin(), candidates.items.begin() + candidates.size);
    for (int f : candidates)
        if (lay_off_end(meld, f) && !fits.contains(f)) fits.push_back(f);
    return fits;
}

// Where `face` goes on a meld (LayOffFit.end): 1 a set, 2 a run's high end, 3 its low end, 0 it
// does not fit. A wild, or an ace that fits both ends, goes to the high end of a run when it is open.
int Table::lay_off_end(const PlacedMeld& meld, int face) const {
    const int R = rules_.num_ranks, size = int(meld.naturals.size()) + meld.wilds;
    const bool wild = face == wild_card_;
    if (meld.is_set) {
        if (rules_.melds.set_max >= 0 && size >= rules_.melds.set_max) return 0;
        if (wild) return 1;
        if (face % R != meld.rank || face >= num_naturals_) return 0;
        if (rules_.melds.set_distinct_suits && count_of(meld.naturals, face)) return 0;
        return 1;
    }
    if (size >= R) return 0;
    const int low = meld.low, high = meld.high;
    const bool high_ok = high < top_ && !(high + 1 == R && low == 0);
    const bool low_ok = low > 0 && !(low - 1 == 0 && high == R);
    if (wild) return high_ok ? 2 : low_ok ? 3 : 0;
    if (face >= num_naturals_ || face / R != meld.suit) return 0;
    const int rank = face % R;
    if (high_ok && (rank == high + 1 || (rank == 0 && high + 1 == R))) return 2;
    if (low_ok && rank == low - 1) return 3;
    return 0;
}

// The meld with `face` added where lay_off_end puts it (the face fits).
PlacedMeld Table::lay_off_place(const PlacedMeld& meld, int face) const {
    const int end = lay_off_end(meld, face);
    if (!end) throw std::logic_error("a lay-off that does not fit");
    PlacedMeld out = meld;
    if (face == wild_card_)
        ++out.wilds;
    else
        out.naturals.push_back(face);
    if (end == 2) ++out.high;
    if (end == 3) --out.low;
    return out;
}

// Whether every wild in the player's hand is owed to this turn's going-down melds.
bool Table::no_spare_wild(const State& s) const {
    if (wild_card_ < 0) return false;
    const int held = s.hands[s.current][wild_card_];
    return 0 < held && held <= s.wilds_to_meld;
}

// Whether the lay-off `action` puts a wild on a meld another player laid.
bool Table::wild_on_others_meld(const State& s, int action) const {
    const Action& act = layout_->actions[std::size_t(action)];
    return act.a == wild_card_ && s.table[std::size_t(act.b)].owner != s.current;
}

// ---------------------------------------------------------------- swap.py
SmallList Table::wild_positions(const PlacedMeld& meld) const {  // a run's places filled by wilds, low to high
    const int R = rules_.num_ranks;
    SmallList out;
    for (int q = meld.low; q <= meld.high; ++q) {
        bool taken = false;
        for (int f : meld.naturals) taken = taken || f % R == q % R;
        if (!taken) out.push_back(q);
    }
    return out;
}

std::vector<int> Table::swap_moves(const State& s, const std::vector<int>& hand) const {
    const int R = rules_.num_ranks;
    std::vector<int> moves;
    for (std::size_t slot = 0; slot < s.table.size(); ++slot) {
        const PlacedMeld& m = s.table[slot].meld;
        if (m.is_set || !m.wilds) continue;
        for (int q : wild_positions(m)) {
            const int f = m.suit * R + q % R;
            if (hand[f]) moves.push_back(swap_start_ + int(slot) * num_naturals_ + f);
        }
    }
    std::sort(moves.begin(), moves.end());
    return moves;
}

// The naturals the player to act would give for every wild it could take off the table's runs
// by swaps at once: per face, the fewer of its cards in hand and of the wilds standing for it.
std::vector<int> Table::swap_faces(const State& s) const {
    const int R = rules_.num_ranks;
    std::vector<int> wanted(std::size_t(num_naturals_), 0), order, out;
    for (const TableMeld& tm : s.table) {
        if (tm.meld.is_set || !tm.meld.wilds) continue;
        for (int q : wild_positions(tm.meld)) {
            const int f = tm.meld.suit * R + q % R;
            if (!wanted[std::size_t(f)]++) order.push_back(f);
        }
    }
    const std::vector<int>& hand = s.hands[s.current];
    for (int f : order) out.insert(out.end(), std::size_t(std::min(wanted[std::size_t(f)], hand[f])), f);
    return out;
}

}  // namespace rummy
