#include "table.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <tuple>

namespace rummy {

namespace {
constexpr int kDrawStock = 0, kDrawDiscard = 1;
}

Table::Table(const TableRules& rules) : rules_(rules) {
    if (rules.num_players < 2 || rules.num_players > 8) throw std::invalid_argument("a table seats 2 to 8 players");
    if (rules.rounds.empty()) throw std::invalid_argument("a game has at least one round");
    if (int(rules.rank_penalties.size()) != rules.num_ranks)
        throw std::invalid_argument("rank_penalties holds one penalty per rank");
    num_naturals_ = rules.num_suits * rules.num_ranks;
    num_faces_ = num_naturals_ + (rules.has_wild_card ? 1 : 0);
    for (int f : rules.cards)
        if (f < 0 || f >= num_faces_) throw std::invalid_argument("a card of the deck is not one of its faces");
    for (const RoundRules& r : rules.rounds) {
        if (r.hand_size < 1 || rules.num_players * r.hand_size + 1 > int(rules.cards.size()))
            throw std::invalid_argument("a round deals more cards than the deck holds");
        if (r.wild_rank >= rules.num_ranks) throw std::invalid_argument("a wild rank is not a rank of the deck");
    }
    for (int f = 0; f < num_naturals_; ++f) natural_values_.push_back(rules.rank_penalties[f % rules.num_ranks]);
    copies_.assign(num_faces_, 0);
    for (int f : rules.cards) ++copies_[f];
    contract_ = rules.play.enabled;
    if (rules.has_wild_card) wild_card_ = num_naturals_;
    top_ = rules.num_ranks - 1 + (rules.melds.ace_high ? 1 : 0);
    search_id_ = rules_id(rules);
    if (contract_) {
        static std::mutex lock;  // one layout index per rules, shared by its tables
        static std::map<long, std::shared_ptr<const LayoutIndex>> built;
        std::lock_guard<std::mutex> guard(lock);
        auto hit = built.find(search_id_);
        layout_ = hit != built.end() ? hit->second : (built[search_id_] = build_layout());
        buy_start_ = layout_->buy_start, deep_start_ = layout_->deep_start, discard_start_ = layout_->discard_start;
        set_start_ = layout_->set_start, lay_off_start_ = layout_->lay_off_start;
        swap_start_ = layout_->swap_start;
    }
    solver();  // the deck and meld rules are checked here, not at the first move
}

std::shared_ptr<const Table::LayoutIndex> Table::build_layout() const {
    auto built = std::make_shared<LayoutIndex>();
    LayoutIndex& x = *built;
    if (!rules_.layout) throw std::invalid_argument("a contract game needs its action layout");
    x.actions = *rules_.layout;
    const std::vector<Action>& layout = x.actions;
    const int P = top_ + 1;
    x.run_ids.assign(std::size_t(rules_.num_suits) * P * P, -1);
    x.cards_used.assign(layout.size(), 0);
    auto first = [&](int& start, int i) { if (start < 0) start = i; };
    for (int i = 0; i < int(layout.size()); ++i) {
        const Action& act = layout[i];
        switch (act.kind) {
            case kBuyKind: first(x.buy_start, i); break;
            case kDeepDrawKind: first(x.deep_start, i); break;
            case kDiscardKind: first(x.discard_start, i); break;
            case kMeldSetKind:
                first(x.set_start, i);
                if (act.a < 0 || act.a >= rules_.num_ranks || act.b < 0 || act.naturals.empty())
                    throw std::invalid_argument("a meld set action does not fit the deck");
                for (int f : act.naturals)
                    if (f < 0 || f >= num_naturals_ || f % rules_.num_ranks != act.a)
                        throw std::invalid_argument("a meld set action does not fit the deck");
                x.cards_used[i] = int(act.naturals.size()) + act.b;
                break;
            case kMeldRunKind:
                first(x.run_start, i);
                if (act.a < 0 || act.a >= rules_.num_suits || act.b < 0 || act.c < act.b || act.c > top_)
                    throw std::invalid_argument("a meld run action does not fit the deck");
                x.run_ids[std::size_t((act.a * P + act.b) * P + act.c)] = i;
                x.cards_used[i] = act.c - act.b + 1;
                break;
            case kLayOffKind: first(x.lay_off_start, i); x.cards_used[i] = 1; break;
            case kSwapKind: first(x.swap_start, i); break;
            case kDrawStockKind: case kDrawDiscardKind: case kPassKind: break;
            default: throw std::invalid_argument("an action kind the core does not know");
        }
    }
    // the layout's fixed arithmetic (ActionLayout.discard, lay_off, swap, deep_draw) is relied on
    auto check = [&](bool ok) { if (!ok) throw std::invalid_argument("the action layout is not ActionLayout's"); };
    check(layout.size() >= 2 && layout[0].kind == kDrawStockKind && layout[1].kind == kDrawDiscardKind);
    check(x.discard_start >= 2 && x.discard_start + num_faces_ <= int(layout.size()));
    for (int f = 0; f < num_faces_; ++f)
        check(layout[x.discard_start + f].kind == kDiscardKind && layout[x.discard_start + f].a == f);
    const int M = rules_.play.max_table_melds;
    check(M >= 1 && M <= int(layout.size()) && x.lay_off_start >= 0 &&
          x.lay_off_start + M * num_faces_ <= int(layout.size()));
    for (int k = 0; k < M * num_faces_; ++k) {
        const Action& act = layout[x.lay_off_start + k];
        check(act.kind == kLayOffKind && act.a == k % num_faces_ && act.b == k / num_faces_);
    }
    if (x.swap_start >= 0) {
        check(x.swap_start + M * num_naturals_ <= int(layout.size()) && wild_card_ >= 0);
        for (int k = 0; k < M * num_naturals_; ++k) {
            const Action& act = layout[x.swap_start + k];
            check(act.kind == kSwapKind && act.a == k % num_naturals_ && act.b == k / num_naturals_);
        }
    }
    if (rules_.play.max_deep_draw >= 2) {
        check(x.deep_start >= 0 && rules_.play.max_deep_draw <= int(layout.size()) &&
              x.deep_start + rules_.play.max_deep_draw - 2 < int(layout.size()));
        for (int d = 2; d <= rules_.play.max_deep_draw; ++d)
            check(layout[x.deep_start + d - 2].kind == kDeepDrawKind && layout[x.deep_start + d - 2].a == d);
    }
    if (rules_.play.buying)
        check(x.buy_start >= 0 && x.buy_start + 1 < int(layout.size()) && layout[x.buy_start + 1].kind == kPassKind);
    check(x.set_start >= 0 && x.run_start >= 0);
    for (const RoundRules& r : rules_.rounds) check(r.sets >= 0 && r.runs >= 0 && r.sets + r.runs >= 1);
    index_sets(x);
    return built;
}

void Table::index_sets(LayoutIndex& x) const {
    const std::vector<Action>& layout = x.actions;
    const int set_start_ = x.set_start;
    const int R = rules_.num_ranks, S = rules_.num_suits;
    int count = 0;
    while (set_start_ + count < int(layout.size()) && layout[std::size_t(set_start_ + count)].kind == kMeldSetKind) ++count;
    auto check = [&](bool ok) { if (!ok) throw std::invalid_argument("the meld set actions are not ActionLayout's"); };
    check(count % R == 0 && S <= 8);
    SetIndex* index = &x.sets;
    index->per_rank = count / R;
    std::vector<std::array<int, 8>> need(std::size_t(index->per_rank));  // the first rank's sets: naturals per suit
    for (int k = 0; k < index->per_rank; ++k) {
        for (int rank = 0; rank < R; ++rank) {  // each rank's k-th set names the same suits and wilds
            const Action& act = layout[std::size_t(set_start_ + rank * index->per_rank + k)];
            const Action& first = layout[std::size_t(set_start_ + k)];
            check(act.a == rank && act.b == first.b && act.naturals.size() == first.naturals.size());
            for (std::size_t j = 0; j < act.naturals.size(); ++j) check(act.naturals[j] - rank == first.naturals[j]);
        }
        const Action& first = layout[std::size_t(set_start_ + k)];
        need[std::size_t(k)].fill(0);
        for (int f : first.naturals) index->cap = std::max(index->cap, ++need[std::size_t(k)][std::size_t(f / R)]);
        index->max_wilds = std::max(index->max_wilds, first.b);
    }
    int signatures = 1;
    for (int s = 0; s < S; ++s) signatures *= index->cap + 1;
    index->offsets.resize(std::size_t(signatures * (index->max_wilds + 1)));
    for (int sig = 0; sig < signatures; ++sig)
        for (int w = 0; w <= index->max_wilds; ++w)
            for (int k = 0; k < index->per_rank; ++k) {
                bool fits = layout[std::size_t(set_start_ + k)].b <= w;
                for (int s = 0, rest = sig; s < S; ++s, rest /= index->cap + 1)
                    fits = fits && need[std::size_t(k)][std::size_t(s)] <= rest % (index->cap + 1);
                if (fits) index->offsets[std::size_t(sig * (index->max_wilds + 1) + w)].push_back(k);
            }
}

long Table::rules_id(const TableRules& r) {
    // tables of the same rules (and layout) share their turn search's memo entries (one memo per
    // thread) and their set index
    std::vector<int> key{r.num_players, r.num_suits, r.num_ranks, r.has_wild_card, r.melds.set_min, r.melds.set_max,
                         r.melds.set_distinct_suits, r.melds.run_min, r.melds.ace_high, r.melds.all_wild_melds,
                         r.max_turns_per_round, r.play.enabled, r.play.melds_after_down,
                         r.play.swap_needs_earlier_down, r.play.max_deep_draw, r.play.max_table_melds,
                         r.play.wild_penalty, r.play.contract_runs_apart, r.play.max_set_action_wilds, r.play.buying,
                         r.play.max_buys_per_round};
    key.insert(key.end(), r.cards.begin(), r.cards.end());
    for (const RoundRules& round : r.rounds)
        key.insert(key.end(), {round.hand_size, round.wild_rank, round.sets, round.runs, round.down_means_out,
                               round.out_by_melding});
    static const std::vector<Action> no_layout;
    for (const Action& act : r.layout ? *r.layout : no_layout) {
        key.insert(key.end(), {act.kind, act.a, act.b, act.c, int(act.naturals.size())});
        key.insert(key.end(), act.naturals.begin(), act.naturals.end());
    }
    static std::mutex lock;
    static std::map<std::vector<int>, long> ids;
    std::lock_guard<std::mutex> guard(lock);
    return ids.emplace(key, long(ids.size())).first->second;
}

ContractSolver& Table::solver() const {
    using Key = std::tuple<int, int, int, int, bool, int, bool, bool>;
    thread_local std::vector<std::pair<Key, std::unique_ptr<ContractSolver>>> solvers;
    const MeldRules& m = rules_.melds;
    const Key key{rules_.num_suits, rules_.num_ranks, m.set_min, m.set_max, m.set_distinct_suits, m.run_min,
                  m.ace_high, m.all_wild_melds};
    for (auto& [k, s] : solvers)
        if (k == key) return *s;
    solvers.emplace_back(key, std::make_unique<ContractSolver>(rules_.num_suits, rules_.num_ranks, m));
    return *solvers.back().second;
}

// ---------------------------------------------------------------- dealing (rules/deal.py)
void Table::reset(const std::vector<uint32_t>& seed_words) {
    State s;
    s.rng.seed(seed_words);
    s.dealer = int(s.rng.randbelow(uint32_t(rules_.num_players)));
    s.scores.assign(rules_.num_players, 0);
    state_ = std::move(s);
    deal();
    dealt_ = true;
    legal_known_ = false;
}

void Table::deal() {
    State& s = state_;
    const int n = rules_.num_players, size = rules_.rounds[s.round].hand_size;
    std::vector<int> deck = rules_.cards;
    s.rng.shuffle(deck.data(), deck.size());
    s.hands.assign(n, std::vector<int>(num_faces_, 0));
    s.known.assign(n, std::vector<int>(num_faces_, 0));
    const int dealt = n * size;
    for (int k = 0; k < dealt; ++k) ++s.hands[(s.dealer + 1 + k) % n][deck[k]];  // one at a time, from the dealer's left
    s.hand_sizes.assign(n, size);
    s.discard = {deck[dealt]};
    s.discard_counts.assign(num_faces_, 0);
    s.discard_counts[deck[dealt]] = 1;
    s.discard_seats = {-1};
    s.stock.assign(deck.rbegin(), deck.rend() - dealt - 1);  // reversed: the next card to draw is last
    s.table.clear();
    s.taken_face = s.went_out = -1;
    s.last_turns_left = s.turns = 0;
    s.down_turn.assign(n, -1);
    s.buys.assign(n, 0);
    s.sets_left = s.runs_left = s.wilds_owed = s.wilds_to_meld = 0;
    s.must_place = s.asked = -1;
    s.current = (s.dealer + 1) % n;
    s.phase = kDraw;
}

void Table::reshuffle(State& s) const {  // the discard pile but its top card becomes the stock
    s.stock.assign(s.discard.begin(), s.discard.end() - 1);
    s.discard.erase(s.discard.begin(), s.discard.end() - 1);
    s.discard_seats.erase(s.discard_seats.begin(), s.discard_seats.end() - 1);
    s.discard_counts.assign(num_faces_, 0);
    if (!s.discard.empty()) s.discard_counts[s.discard[0]] = 1;
    s.rng.shuffle(s.stock.data(), s.stock.size());
}

namespace {
void require(bool ok, const char* field) {
    if (!ok) throw std::invalid_argument(std::string("set_state: ") + field + " does not fit the rules");
}
bool all_in(const std::vector<int>& v, int lo, int hi) {
    return std::all_of(v.begin(), v.end(), [&](int x) { return x >= lo && x <= hi; });
}
}  // namespace

void Table::set_state(const State& s) {
    const int n = rules_.num_players, F = num_faces_;
    require(s.round >= 0 && s.round < int(rules_.rounds.size()), "round");
    require(s.dealer >= 0 && s.dealer < n && s.current >= 0 && s.current < n, "dealer or current");
    require(s.phase == kDraw || s.phase == kPlay || s.phase == kGameOver ||
                (contract_ && (s.phase == kGoingDown || (s.phase == kBuy && rules_.play.buying))), "phase");
    require(int(s.hands.size()) == n && int(s.known.size()) == n && int(s.hand_sizes.size()) == n, "hands");
    for (int p = 0; p < n; ++p) {  // no more of a face than the deck holds, and known cards held
        require(int(s.hands[p].size()) == F && int(s.known[p].size()) == F && s.hand_sizes[p] >= 0, "hands");
        for (int f = 0; f < F; ++f)
            require(s.hands[p][f] >= 0 && s.hands[p][f] <= copies_[f] && s.known[p][f] >= 0 &&
                        s.known[p][f] <= s.hands[p][f], "hands or known");
    }
    require(all_in(s.stock, 0, F - 1) && all_in(s.discard, 0, F - 1), "stock or discard");
    require(s.discard_seats.size() == s.discard.size() && all_in(s.discard_seats, -1, n - 1), "discard_seats");
    require(int(s.discard_counts.size()) == F, "discard_counts");
    for (int f = 0; f < F; ++f) require(s.discard_counts[f] >= 0 && s.discard_counts[f] <= copies_[f], "discard_counts");
    require(int(s.scores.size()) == n, "scores");
    for (const auto& pens : s.round_penalties) require(int(pens.size()) == n, "round_penalties");
    for (const TableMeld& t : s.table) require(t.owner >= 0 && t.owner < n && all_in(t.cards, 0, F - 1), "table");
    require(s.taken_face >= -1 && s.taken_face < F && s.went_out >= -1 && s.went_out < n, "taken_face or went_out");
    require(s.last_turns_left >= 0 && s.turns >= 0, "turns");
    require(int(s.down_turn.size()) == n && all_in(s.down_turn, -1, s.turns), "down_turn");
    require(int(s.buys.size()) == n && all_in(s.buys, 0, int(rules_.cards.size())), "buys");
    const RoundRules& r = rules_.rounds[s.round];
    require(s.sets_left >= 0 && s.runs_left >= 0 && s.sets_left <= r.sets && s.runs_left <= r.runs, "contract_left");
    require(s.must_place >= -1 && s.must_place < F && s.wilds_owed >= 0 && s.wilds_to_meld >= 0 &&
                s.wilds_to_meld <= s.wilds_owed && s.wilds_owed <= int(rules_.cards.size()), "must_place or wilds_owed");
    require(s.phase == kBuy ? s.asked >= 0 && s.asked < n && s.asked != s.current && !s.discard.empty() : s.asked == -1,
            "asked");
    require(contract_ ? int(s.table.size()) <= rules_.play.max_table_melds : true, "table");
    for (const TableMeld& t : s.table) {
        const PlacedMeld& m = t.meld;
        require(all_in(m.naturals, 0, num_naturals_ - 1) && m.wilds >= 0 &&
                    (m.is_set ? m.rank >= 0 && m.rank < rules_.num_ranks
                              : m.suit >= 0 && m.suit < rules_.num_suits && m.low >= 0 && m.low <= m.high &&
                                    m.high <= top_ && m.high - m.low + 1 == int(m.naturals.size()) + m.wilds),
                "table");
    }
    state_ = s;
    dealt_ = true;
    legal_known_ = false;
}

// ---------------------------------------------------------------- legal actions
SmallList Table::wild_faces() const {
    SmallList out;
    if (rules_.has_wild_card) {
        out.push_back(num_naturals_);
        return out;
    }
    int rank = rules_.rounds[state_.round].wild_rank;
    if (rank >= 0)
        for (int s = 0; s < rules_.num_suits; ++s) out.push_back(s * rules_.num_ranks + rank);
    return out;
}

std::pair<std::vector<int>, int> Table::split_wilds(const std::vector<int>& hand) const {
    std::vector<int> naturals(hand.begin(), hand.begin() + num_naturals_);
    int wilds = 0;
    for (int f : wild_faces()) {
        wilds += hand[f];
        if (f < num_naturals_) naturals[f] = 0;
    }
    return {naturals, wilds};
}

const std::vector<int>& Table::legal_actions() {
    if (!dealt_) throw std::logic_error("reset the table before playing it");
    if (legal_known_) return legal_;
    // built in the spare buffer, which keeps the last list's capacity, and swapped in only
    // once complete: a query that throws leaves no list
    std::vector<int>& actions = spare_legal_;
    actions.clear();
    const State& s = state_;
    if (s.phase == kDraw) {
        actions.push_back(kDrawStock);
        if (!s.discard.empty()) {
            actions.push_back(kDrawDiscard);
            if (contract_ && rules_.play.max_deep_draw >= 2) {
                std::vector<int> deep = deep_draw_legal();
                actions.insert(actions.end(), deep.begin(), deep.end());
            }
        }
    } else if (s.phase == kBuy) {
        actions = {buy_start_, buy_start_ + 1};
    } else if (s.phase != kGameOver) {
        if (contract_) actions = contract_turn_legal();
        else show_hand_legal(actions);
    }
    legal_.swap(actions);
    legal_known_ = true;
    return legal_;
}

std::vector<int> Table::discardable(const State& s) const {
    // any card held but the one just taken from the top of the pile, unless another of its face is
    std::vector<int> faces;
    const std::vector<int>& hand = s.hands[s.current];
    for (int f = 0; f < num_faces_; ++f)
        if (hand[f] && !(f == s.taken_face && hand[f] == 1)) faces.push_back(f);
    return faces;
}

void Table::show_hand_legal(std::vector<int>& actions) {  // rules/show_hand.py: discard, or go out showing the hand
    const State& s = state_;
    const std::vector<int>& hand = s.hands[s.current];
    for (int f = 0; f < num_faces_; ++f)  // discardable(s), without building its list
        if (hand[f] && !(f == s.taken_face && hand[f] == 1)) actions.push_back(2 + f);
    if (s.went_out >= 0) return;
    const int t = s.taken_face, blocked = t >= 0 && hand[t] == 1 ? t : -1;
    auto [naturals, wilds] = split_wilds(hand);
    auto [faces, wild_ok] = solver().meldable_without_one(naturals, wilds);
    if (wild_ok)
        for (int f : wild_faces())
            if (hand[f]) faces.push_back(f);
    std::sort(faces.begin(), faces.end());
    for (int f : faces)
        if (f != blocked) actions.push_back(2 + num_faces_ + f);
}

// ---------------------------------------------------------------- effects
std::optional<RoundEnd> Table::apply(int action) {
    const std::vector<int>& legal = legal_actions();
    if (!std::binary_search(legal.begin(), legal.end(), action))
        throw std::invalid_argument("illegal action " + std::to_string(action));
    legal_known_ = false;
    if (!contract_) {
        if (action == kDrawStock) return draw_stock();
        if (action == kDrawDiscard) {
            take_from_discard(state_, 1);
            return std::nullopt;
        }
        if (action < 2 + num_faces_) {
            put_on_discard(state_, action - 2);
            return end_turn(false);
        }
        return go_out(action - 2 - num_faces_);
    }
    const Action& act = layout_->actions[std::size_t(action)];
    switch (act.kind) {
        case kDrawStockKind: return rules_.play.buying ? ask_buyer(state_.current) : draw_stock();
        case kDrawDiscardKind: take_from_discard(state_, 1); return std::nullopt;
        case kDeepDrawKind: take_from_discard(state_, act.a); return std::nullopt;
        case kBuyKind: return buy();
        case kPassKind: return ask_buyer(state_.asked);
        case kDiscardKind: return contract_discard(act.a);
        default: return contract_move(action);
    }
}

void Table::start_turn(State& s) const {
    ++s.turns;
    s.phase = kPlay;
}

std::optional<RoundEnd> Table::draw_stock() {
    State& s = state_;
    if (s.stock.empty()) {
        reshuffle(s);
        if (s.stock.empty()) return end_round();  // a dead round
    }
    const int face = s.stock.back();
    s.stock.pop_back();
    ++s.hands[s.current][face];
    ++s.hand_sizes[s.current];
    start_turn(s);
    return std::nullopt;
}

// The depth-th card from the top of the pile and every card above it: the top card alone
// falls under the discard rule, a deeper one must be put on the table this turn.
void Table::take_from_discard(State& s, int depth) const {
    const int p = s.current, first = int(s.discard.size()) - depth;
    const int deepest = s.discard[std::size_t(first)];
    for (std::size_t k = std::size_t(first); k < s.discard.size(); ++k) {
        const int face = s.discard[k];
        --s.discard_counts[face];
        ++s.hands[p][face];
        ++s.known[p][face];
    }
    s.discard.resize(std::size_t(first));
    s.discard_seats.resize(std::size_t(first));
    s.hand_sizes[p] += depth;
    if (depth == 1)
        s.taken_face = deepest;
    else
        s.must_place = deepest;
    start_turn(s);
}

void Table::put_on_discard(State& s, int face) const {
    const int p = s.current;
    --s.hands[p][face];
    --s.hand_sizes[p];
    if (s.known[p][face]) --s.known[p][face];
    s.discard.push_back(face);
    s.discard_seats.push_back(p);
    ++s.discard_counts[face];
    s.taken_face = -1;
}

std::optional<RoundEnd> Table::go_out(int face) {
    State& s = state_;
    const int p = s.current;
    put_on_discard(s, face);
    std::vector<int>& hand = s.hands[p];
    auto [naturals, wilds] = split_wilds(hand);
    Arrangement best = solver().best_arrangement(naturals, wilds, natural_values_, 0);
    std::vector<int> wild_cards;
    for (int f : wild_faces())
        for (int k = 0; k < hand[f]; ++k) wild_cards.push_back(f);
    std::size_t next_wild = 0;
    for (const PlacedMeld& meld : best.melds) {  // the arrangement is shown on the table
        TableMeld shown{p, meld, meld.naturals};
        for (int k = 0; k < meld.wilds; ++k) shown.cards.push_back(wild_cards[next_wild++]);
        s.table.push_back(std::move(shown));
    }
    std::fill(s.known[p].begin(), s.known[p].end(), 0);
    std::fill(hand.begin(), hand.end(), 0);
    s.hand_sizes[p] = 0;
    s.went_out = p;
    s.last_turns_left = rules_.num_players - 1;
    return end_turn(true);
}

std::optional<RoundEnd> Table::end_turn(bool going_out) {
    State& s = state_;
    if (s.went_out >= 0 && !going_out) {
        if (--s.last_turns_left == 0) return end_round();
    }
    if (s.turns >= rules_.max_turns_per_round) return end_round();  // a dead round at the cap
    s.current = (s.current + 1) % rules_.num_players;
    s.phase = kDraw;
    return std::nullopt;
}

RoundEnd Table::end_round() {
    State& s = state_;
    RoundEnd end;
    for (int p = 0; p < rules_.num_players; ++p) end.penalties.push_back(p == s.went_out ? 0 : hand_penalty(p));
    s.round_penalties.push_back(end.penalties);
    for (int p = 0; p < rules_.num_players; ++p) s.scores[p] += end.penalties[p];
    end.game_over = s.round + 1 >= int(rules_.rounds.size());
    if (end.game_over) {
        s.phase = kGameOver;
        return end;
    }
    ++s.round;
    s.dealer = (s.dealer + 1) % rules_.num_players;
    deal();
    return end;
}

int Table::hand_penalty(int seat) {
    if (contract_) {  // CardValuePenalty: the cards' values, a wild card at its own
        const std::vector<int>& hand = state_.hands[seat];
        int total = 0;
        for (int f = 0; f < num_naturals_; ++f) total += natural_values_[f] * hand[f];
        return total + (wild_card_ >= 0 ? hand[wild_card_] * rules_.play.wild_penalty : 0);
    }
    // ArrangedPenalty: the least penalty over every arrangement
    auto [naturals, wilds] = split_wilds(state_.hands[seat]);
    if (!wilds && std::all_of(naturals.begin(), naturals.end(), [](int k) { return k == 0; })) return 0;
    const int rank = rules_.rounds[state_.round].wild_rank;
    const int wild_value = rank >= 0 ? rules_.rank_penalties[rank] : 0;
    return solver().min_penalty(naturals, wilds, natural_values_, wild_value);
}

}  // namespace rummy
