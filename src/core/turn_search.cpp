// The turn search of a contract game (rules/turn_search.py, docs/rules/README.md#no-dead-ends):
// whether some sequence of the player's own melds, lay-offs and swaps finishes the turn legally
// after a move, decided exactly, with the quick verdicts first where the meld solver alone is
// sure; each function as its Python namesake, in the same order of tests.
#include <algorithm>
#include <string>
#include <unordered_map>

#include "table.hpp"

namespace rummy {

namespace {
constexpr std::size_t kSearchMemoLimit = 1 << 16;  // melding.SEARCH_MEMO_LIMIT
}  // namespace

// ---------------------------------------------------------------- turn_search.py
// A quick sufficient test for a meld or lay-off by a player who owes wilds taken back by
// swaps, where sets have no maximum (TurnSearch.owed_wilds_placed).
bool Table::owed_wilds_placed(const State& s, int action) const {
    const Action& act = layout_->actions[std::size_t(action)];
    const int p = s.current, wild = wild_card_;
    const MeldRules& mr = rules_.melds;
    std::vector<int> naturals;
    int wilds = 0;
    bool is_set = false;
    if (act.kind == kLayOffKind) {
        if (act.a == wild)
            wilds = 1;
        else
            naturals = {act.a};
    } else if (act.kind == kMeldSetKind) {
        naturals = act.naturals, wilds = act.b, is_set = true;
    } else if (act.kind == kMeldRunKind) {
        PlacedMeld meld = run_from_hand(s.hands[p], act);
        naturals = meld.naturals, wilds = meld.wilds;
    } else {
        return false;  // a swap owes one more: left to the search
    }
    int sets = 0, runs = 0;
    if (!is_down(s, p)) {
        sets = s.phase == kGoingDown ? s.sets_left : round_rules(s).sets;
        runs = s.phase == kGoingDown ? s.runs_left : round_rules(s).runs;
        (is_set ? sets : runs) -= 1;
        if (sets + runs && (int(s.table.size()) + 1 + sets + runs > rules_.play.max_table_melds ||
                            !rest_makeable(s, naturals, wilds, sets, runs)))
            return false;
    }
    int owed = std::max(0, s.wilds_owed - wilds), to_meld = std::max(0, s.wilds_to_meld - wilds);
    if (act.kind == kLayOffKind && wilds && s.table[std::size_t(act.b)].owner != p) {
        // not a wild owed to the going-down melds: one owed without that rule, or a spare
        owed = s.wilds_owed - (s.wilds_owed > s.wilds_to_meld ? 1 : 0), to_meld = s.wilds_to_meld;
    }
    const int left = s.hand_sizes[p] - int(naturals.size()) - wilds - mr.set_min * sets - mr.run_min * runs;
    if (!owed) return left >= 2 || (left == 0 && !(sets + runs));
    // those owed to the going-down melds need a set of the player's own
    bool has_set = is_set || sets > 0;
    for (const TableMeld& tm : s.table) has_set = has_set || (tm.meld.is_set && (!to_meld || tm.owner == p));
    return has_set && left - owed >= 2;
}

bool Table::rest_makeable(const State& s, const std::vector<int>& naturals, int wilds, int sets, int runs) const {
    auto [counts, have] = split_wilds(s.hands[s.current]);
    for (int f : naturals) --counts[std::size_t(f)];
    return solver().can_make_contract(counts, have - wilds, sets, runs);
}

// The contract still to lay when the next meld starts or continues a going down that
// plain_going_down will judge after it (no obligation open, none of the rules it leaves to the
// search): false where there is none.
bool Table::plain_going_down_left(const State& s, int& sets, int& runs) const {
    const int p = s.current;
    const RoundRules& spec = round_rules(s);
    if (s.phase == kGoingDown) {
        sets = s.sets_left, runs = s.runs_left;
    } else if (s.phase == kPlay && !is_down(s, p)) {
        sets = spec.sets, runs = spec.runs;
    } else {
        return false;
    }
    return s.must_place < 0 && !search_needed(s);
}

// The verdict on the swap `action` by a player not yet down where quick tests decide it (1 or
// 0), else -1 for the search (TurnSearch.swap_then_go_down).
int Table::swap_then_go_down(const State& s, int action) const {
    const int p = s.current;
    const RoundRules& spec = round_rules(s);
    const MeldRules& mr = rules_.melds;
    if (s.phase != kPlay) return -1;
    const int sets = spec.sets, runs = spec.runs;
    if (int(s.table.size()) + sets + runs > rules_.play.max_table_melds) return 0;
    const int face = layout_->actions[std::size_t(action)].a;
    auto [counts, wilds] = split_wilds(s.hands[p]);
    --counts[std::size_t(face)];
    const int spare = s.hand_sizes[p] - mr.set_min * sets - mr.run_min * runs;
    const bool smallest_take_a_wild = (mr.set_max < 0 || mr.set_max > mr.set_min) && mr.run_min < rules_.num_ranks;
    const bool sure = spare - 1 >= 2 && smallest_take_a_wild;
    if (sure && solver().can_make_contract(counts, wilds + 1, sets, runs)) return 1;
    const std::vector<int> more = swap_faces(after(s, action));
    const int extra = int(more.size());
    if (!solver().can_make_contract(counts, wilds + 1 + extra, sets, runs)) return 0;
    if (!sure || !extra || !sets || mr.set_max >= 0 || spare - 1 - extra < 2)
        return -1;  // room for several wilds taken is only sure on a set without a maximum
    for (int f : more) --counts[std::size_t(f)];
    return solver().can_make_contract(counts, wilds + 1 + extra, sets, runs) ? 1 : -1;
}

// Per move, the verdict on a going-down meld where plain_going_down decides it (1 or 0, the
// solver on the cards left), else -1 (TurnSearch.plain_meld_verdicts). Biggest melds first:
// a meld whose cards are among those of a meld found to leave a contract that can be made
// leaves one too.
std::vector<int> Table::plain_meld_verdicts(const State& s, int sets_left, int runs_left,
                                            const std::vector<int>& moves) const {
    struct Meld {
        int used, action, index;
        std::vector<int> naturals;
        int wilds;
        bool is_set;
        int group, low, high;
    };
    const int p = s.current;
    const std::vector<int>& hand = s.hands[p];
    std::vector<Meld> melds;
    for (int k = 0; k < int(moves.size()); ++k) {
        const Action& act = layout_->actions[std::size_t(moves[k])];
        if (act.kind == kMeldSetKind) {
            melds.push_back({layout_->cards_used[moves[k]], moves[k], k, act.naturals, act.b, true, act.a, -1, -1});
        } else if (act.kind == kMeldRunKind) {
            PlacedMeld m = run_from_hand(hand, act);
            melds.push_back({layout_->cards_used[moves[k]], moves[k], k, m.naturals, m.wilds, false, act.a, act.b, act.c});
        }
    }
    std::sort(melds.begin(), melds.end(),
              [](const Meld& x, const Meld& y) { return x.used != y.used ? x.used > y.used : x.action < y.action; });
    auto [counts, have] = split_wilds(hand);
    const int t = s.taken_face;
    std::vector<int> verdicts(moves.size(), -1);
    std::vector<const Meld*> kept;  // melds found to leave enough
    for (const Meld& m : melds) {
        const int sets = m.is_set ? sets_left - 1 : sets_left, runs = m.is_set ? runs_left : runs_left - 1;
        const bool taken_blocked = t >= 0 && !count_of(m.naturals, t) && hand[t] == 1;
        const int size = s.hand_sizes[p] - int(m.naturals.size()) - m.wilds;
        int& verdict = verdicts[std::size_t(m.index)];
        if (!(sets + runs) || !going_down_ends(s, size, taken_blocked, sets, runs)) {
            verdict = -1;
        } else if (int(s.table.size()) + 1 + sets + runs > rules_.play.max_table_melds) {
            verdict = 0;
        } else if (std::any_of(kept.begin(), kept.end(), [&](const Meld* other) {
                       if (other->is_set != m.is_set || other->group != m.group) return false;
                       if (!m.is_set) return other->low <= m.low && m.high <= other->high;
                       if (m.wilds > other->wilds) return false;
                       for (int f : m.naturals)
                           if (count_of(m.naturals, f) > count_of(other->naturals, f)) return false;
                       return true;
                   })) {
            verdict = 1;
        } else {
            for (int f : m.naturals) --counts[std::size_t(f)];
            verdict = solver().can_make_contract(counts, have - m.wilds, sets, runs);
            for (int f : m.naturals) ++counts[std::size_t(f)];
            if (verdict) kept.push_back(&m);
        }
    }
    return verdicts;
}

// Whether, after the swap `action` by a player down with no obligation open, the wild taken
// can be laid off on another meld leaving 2+ cards (then discard one).
bool Table::swap_then_lay_off(const State& s, int action) const {
    const int slot = layout_->actions[std::size_t(action)].b;
    if (s.hand_sizes[s.current] < 3) return false;
    for (int k = 0; k < int(s.table.size()); ++k)
        if (k != slot) {
            if (lay_off_end(s.table[std::size_t(k)].meld, wild_card_)) return true;
        }
    return false;
}

State Table::after(const State& s, int action) const {
    State next = s;
    play_move(next, action);
    return next;
}

// Whether the player to act can end the turn now: every obligation met, and the hand empty
// (gone out) or holding a card the discard rule lets go.
bool Table::turn_done(const State& s) const {
    if (s.phase != kPlay || s.must_place >= 0 || s.wilds_owed) return false;
    const int p = s.current, size = s.hand_sizes[p];
    if (size == 0) return true;
    if (round_rules(s).down_means_out && is_down(s, p)) return false;  // going down had to use every card
    if (size >= 2) return true;
    // one card left: the discard rule forbids it if it is the card just taken
    return may_discard_last(s) && (s.taken_face < 0 || s.hands[p][s.taken_face] == 0);
}

// Whether the player to act may go out by discarding their last card: only once down, and not
// where the round must end by melding.
bool Table::may_discard_last(const State& s) const {
    return is_down(s, s.current) && !round_rules(s).out_by_melding;
}

// Whether some sequence of the player's own moves finishes the turn legally: an exact search
// over the turn's melds, lay-offs and swaps, memoised (per thread) on everything they depend on.
bool Table::finishable(const State& s) const {
    if (turn_done(s)) return true;
    const int p = s.current;
    if (plain_going_down(s)) return obligations_possible(s);
    std::string key;
    auto put = [&](int v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
    put(int(search_id_)), put(s.round), put(s.phase);
    for (int k : s.hands[p]) key.push_back(char(k));
    put(int(s.table.size()));
    for (const TableMeld& tm : s.table) {
        const PlacedMeld& m = tm.meld;
        put(m.is_set), put(m.wilds), put(m.rank), put(m.suit), put(m.low), put(m.high), put(int(m.naturals.size()));
        for (int f : m.naturals) key.push_back(char(f));
        if (s.wilds_to_meld) key.push_back(char(tm.owner == p));
    }
    put(s.down_turn[p] < 0), put(s.down_turn[p] == s.turns), put(s.sets_left), put(s.runs_left);
    put(s.must_place), put(s.wilds_owed), put(s.taken_face), put(s.wilds_to_meld);
    thread_local std::unordered_map<std::string, bool> memo;
    auto hit = memo.find(key);
    if (hit != memo.end()) return hit->second;
    if (memo.size() > kSearchMemoLimit) memo.clear();
    bool result = obligations_possible(s);
    if (result) {
        std::vector<int> moves = play_moves(s);
        if (s.must_place >= 0)  // moves that play the card that must be placed first: they finish most searches
            std::stable_partition(moves.begin(), moves.end(), [&](int a) { return move_plays(a, s.must_place); });
        result = std::any_of(moves.begin(), moves.end(), [&](int a) { return finishable(after(s, a)); });
    }
    memo[key] = result;
    return result;
}

// A going down, in progress or forced by a deep draw, that the meld solver decides exactly
// (obligations_possible), with no search (TurnSearch._plain_going_down).
bool Table::plain_going_down(const State& s) const {
    const int p = s.current;
    int sets, runs;
    if (s.phase == kGoingDown) {
        sets = s.sets_left, runs = s.runs_left;
    } else if (s.phase == kPlay && s.must_place >= 0 && !is_down(s, p)) {
        sets = round_rules(s).sets, runs = round_rules(s).runs;
    } else {
        return false;
    }
    if (search_needed(s)) return false;
    if (int(s.table.size()) + sets + runs > rules_.play.max_table_melds) return false;
    const int must = s.must_place;
    if (must >= 0 && (must == wild_card_ || table_has_meld_for(s, must))) return false;
    const bool taken_blocked = s.taken_face >= 0 && s.hands[p][s.taken_face] == 1;
    return going_down_ends(s, s.hand_sizes[p], taken_blocked, sets, runs);
}

// Whether a going down this turn involves rules the meld solver leaves to the turn search: a
// wild owed, deal 7's every-card rule, or runs of one suit kept apart.
bool Table::search_needed(const State& s) const {
    const RoundRules& spec = round_rules(s);
    return s.wilds_owed || spec.down_means_out || (spec.runs > 1 && rules_.play.contract_runs_apart);
}

// Whether a hand of `size` cards that lays `sets` sets and `runs` runs more surely ends the
// turn then, if it can lay them at all.
bool Table::going_down_ends(const State& s, int size, bool taken_blocked, int sets, int runs) const {
    const int spare = size - rules_.melds.set_min * sets - rules_.melds.run_min * runs;
    return spare >= 2 || spare == 0 || !(round_rules(s).out_by_melding || taken_blocked);
}

bool Table::move_plays(int action, int face) const {
    const Action& act = layout_->actions[std::size_t(action)];
    const int R = rules_.num_ranks;
    if (act.kind == kMeldSetKind) return count_of(act.naturals, face) || (face == wild_card_ && act.b > 0);
    if (act.kind == kMeldRunKind) {
        if (face / R != act.a) return false;
        for (int q = act.b; q <= act.c; ++q)
            if (q % R == face % R) return true;
        return false;
    }
    return act.kind == kLayOffKind && act.a == face;
}

// Fast necessary conditions for finishing the turn, checked before searching
// (TurnSearch._obligations_possible).
bool Table::obligations_possible(const State& s) const {
    const int p = s.current, must = s.must_place;
    const bool down = is_down(s, p);
    if (must >= 0 && down && s.phase == kPlay) return placeable_when_down(s, must);
    const RoundRules& spec = round_rules(s);
    int sets, runs;
    if (s.phase == kGoingDown) {
        sets = s.sets_left, runs = s.runs_left;
    } else if ((must >= 0 || s.wilds_owed) && !down) {
        sets = spec.sets, runs = spec.runs;  // a swapped wild must go down with the contract
    } else {
        return true;
    }
    if (int(s.table.size()) + sets + runs > rules_.play.max_table_melds) return false;  // no slots left
    auto [naturals, wilds] = split_wilds(s.hands[p]);
    if (s.wilds_owed && !down && s.phase == kPlay)
        wilds += int(swap_faces(s).size());  // further swaps may bring the wilds it needs
    if (spec.down_means_out) return solver().can_partition(naturals, wilds, sets, runs);
    if (must < 0 || must == wild_card_ || table_has_meld_for(s, must))
        return solver().can_make_contract(naturals, wilds, sets, runs);
    return solver().can_make_contract_with(naturals, wilds, sets, runs, must);  // only in one of the contract's melds
}

// Whether a meld on the table has the natural `face`'s rank (a set) or suit (a run).
bool Table::table_has_meld_for(const State& s, int face) const {
    const int rank = face % rules_.num_ranks, suit = face / rules_.num_ranks;
    for (const TableMeld& tm : s.table)
        if ((tm.meld.is_set && tm.meld.rank == rank) || (!tm.meld.is_set && tm.meld.suit == suit)) return true;
    return false;
}

// Whether a player already down could lay off the card `must` this turn, at best
// (TurnSearch._placeable_when_down).
bool Table::placeable_when_down(const State& s, int must) const {
    for (const TableMeld& tm : s.table) {
        if (lay_off_end(tm.meld, must)) return true;
    }
    if (rules_.play.melds_after_down) return true;  // a new meld could take it: left to the search
    if (must == wild_card_) return false;  // other lay-offs only fill sets and lengthen runs
    const std::vector<int>& hand = s.hands[s.current];
    const int R = rules_.num_ranks, suit = must / R, rank = must % R;
    const std::vector<int> swaps = swap_faces(s);
    int wilds = (wild_card_ >= 0 ? hand[wild_card_] : 0) + int(swaps.size());
    if (count_of(swaps, must) == hand[must]) --wilds;
    std::vector<int> places{rank};
    if (rank == 0 && top_ == R) places.push_back(top_);
    for (const TableMeld& tm : s.table) {
        const PlacedMeld& m = tm.meld;
        if (m.is_set || m.suit != suit) continue;
        for (int q : places) {
            if ((m.low <= q && q <= m.high) || std::max(m.high, q) - std::min(m.low, q) + 1 > R) continue;
            int missing = 0;
            if (q > m.high)
                for (int g = m.high + 1; g < q; ++g) missing += !hand[suit * R + g % R];
            else
                for (int g = q + 1; g < m.low; ++g) missing += !hand[suit * R + g % R];
            if (q < m.low && missing) {  // a wild goes on a run's low end only once its high end is closed
                if (top_ - q + 1 > R) continue;
                for (int g = m.high + 1; g <= top_; ++g) missing += !hand[suit * R + g % R];
            }
            if (missing <= wilds) return true;
        }
    }
    return false;
}

}  // namespace rummy
