#include "table.hpp"

#include <algorithm>
#include <memory>
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
    solver();  // the deck and meld rules are checked here, not at the first move
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
    s.current = (s.dealer + 1) % n;
    s.phase = kDraw;
}

void Table::reshuffle() {  // the discard pile but its top card becomes the stock
    State& s = state_;
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
    require(s.phase == kDraw || s.phase == kPlay || s.phase == kGameOver, "phase");
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
    state_ = s;
    dealt_ = true;
    legal_known_ = false;
}

// ---------------------------------------------------------------- legal actions
std::vector<int> Table::wild_faces() const {
    std::vector<int> out;
    if (rules_.has_wild_card) return {num_naturals_};
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
    std::vector<int> actions;  // cached only once complete: a query that throws leaves no list
    const State& s = state_;
    if (s.phase == kDraw) {
        actions.push_back(kDrawStock);
        if (!s.discard.empty()) actions.push_back(kDrawDiscard);
    } else if (s.phase != kGameOver) {
        const std::vector<int>& hand = s.hands[s.current];
        const int t = s.taken_face;
        for (int f = 0; f < num_faces_; ++f)  // any card held but the one just taken, unless another of its face is
            if (hand[f] && !(f == t && hand[f] == 1)) actions.push_back(2 + f);
        if (s.went_out < 0) {
            const int blocked = t >= 0 && hand[t] == 1 ? t : -1;
            auto [naturals, wilds] = split_wilds(hand);
            auto [faces, wild_ok] = solver().meldable_without_one(naturals, wilds);
            if (wild_ok)
                for (int f : wild_faces())
                    if (hand[f]) faces.push_back(f);
            std::sort(faces.begin(), faces.end());
            for (int f : faces)
                if (f != blocked) actions.push_back(2 + num_faces_ + f);
        }
    }
    legal_ = std::move(actions);
    legal_known_ = true;
    return legal_;
}

// ---------------------------------------------------------------- effects
std::optional<RoundEnd> Table::apply(int action) {
    const std::vector<int>& legal = legal_actions();
    if (!std::binary_search(legal.begin(), legal.end(), action))
        throw std::invalid_argument("illegal action " + std::to_string(action));
    legal_known_ = false;
    if (action == kDrawStock) return draw_stock();
    if (action == kDrawDiscard) {
        take_from_discard();
        return std::nullopt;
    }
    if (action < 2 + num_faces_) {
        put_on_discard(action - 2);
        return end_turn(false);
    }
    return go_out(action - 2 - num_faces_);
}

void Table::start_turn() {
    ++state_.turns;
    state_.phase = kPlay;
}

std::optional<RoundEnd> Table::draw_stock() {
    State& s = state_;
    if (s.stock.empty()) {
        reshuffle();
        if (s.stock.empty()) return end_round();  // a dead round
    }
    const int face = s.stock.back();
    s.stock.pop_back();
    ++s.hands[s.current][face];
    ++s.hand_sizes[s.current];
    start_turn();
    return std::nullopt;
}

void Table::take_from_discard() {
    State& s = state_;
    const int p = s.current, face = s.discard.back();
    s.discard.pop_back();
    s.discard_seats.pop_back();
    --s.discard_counts[face];
    ++s.hands[p][face];
    ++s.known[p][face];
    ++s.hand_sizes[p];
    s.taken_face = face;
    start_turn();
}

void Table::put_on_discard(int face) {
    State& s = state_;
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
    put_on_discard(face);
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

int Table::hand_penalty(int seat) {  // the least penalty over every arrangement (ArrangedPenalty)
    auto [naturals, wilds] = split_wilds(state_.hands[seat]);
    if (!wilds && std::all_of(naturals.begin(), naturals.end(), [](int k) { return k == 0; })) return 0;
    const int rank = rules_.rounds[state_.round].wild_rank;
    const int wild_value = rank >= 0 ? rules_.rank_penalties[rank] : 0;
    return solver().min_penalty(naturals, wilds, natural_values_, wild_value);
}

// ---------------------------------------------------------------- observation (observation.py)
// Parts in the Observer's order for a game without contract play or deep draws: hand,
// discard_top, discard_pile, known_held (other seats, left first), table, taken_face, then
// hand_sizes, scores, gone_out, to_act, dealer, round, wild_rank, phase (draw, play),
// stock_size, turns. Per-seat parts are relative to the observer.
int Table::observation_size() const {
    const int n = rules_.num_players;
    return (4 + n) * num_faces_ + 5 * n + int(rules_.rounds.size()) + rules_.num_ranks + 2 + 2;
}

void Table::observe(int seat, float* out) const {
    if (!dealt_) throw std::logic_error("reset the table before playing it");
    const int n = rules_.num_players, F = num_faces_;
    if (seat < 0 || seat >= n) throw std::invalid_argument("seat must be from 0 to " + std::to_string(n - 1));
    const State& s = state_;
    std::fill(out, out + observation_size(), 0.0f);
    float* at = out;
    for (int f = 0; f < F; ++f) at[f] = float(s.hands[seat][f]);
    at += F;
    if (!s.discard.empty()) at[s.discard.back()] = 1.0f;  // discard_top
    at += F;
    for (int f = 0; f < F; ++f) at[f] = float(s.discard_counts[f]);
    at += F;
    for (int rel = 1; rel < n; ++rel, at += F)
        for (int f = 0; f < F; ++f) at[f] = float(s.known[(seat + rel) % n][f]);
    for (const TableMeld& t : s.table)
        for (int f : t.cards) at[f] += 1.0f;
    at += F;
    if (s.taken_face >= 0) at[s.taken_face] = 1.0f;
    at += F;
    int largest = 0;
    for (const RoundRules& r : rules_.rounds) largest = std::max(largest, r.hand_size);
    const double hand_scale = 1.0 / (largest + 1);
    for (int rel = 0; rel < n; ++rel) at[rel] = float(s.hand_sizes[(seat + rel) % n] * hand_scale);
    at += n;
    for (int rel = 0; rel < n; ++rel) at[rel] = float(s.scores[(seat + rel) % n] * 0.01);
    at += n;
    if (s.went_out >= 0) at[((s.went_out - seat) % n + n) % n] = 1.0f;  // gone_out
    at += n;
    if (s.phase != kGameOver) at[((s.current - seat) % n + n) % n] = 1.0f;  // to_act
    at += n;
    at[((s.dealer - seat) % n + n) % n] = 1.0f;
    at += n;
    at[s.round] = 1.0f;
    at += int(rules_.rounds.size());
    if (rules_.rounds[s.round].wild_rank >= 0) at[rules_.rounds[s.round].wild_rank] = 1.0f;
    at += rules_.num_ranks;
    if (s.phase != kGameOver) at[s.phase] = 1.0f;
    at += 2;
    at[0] = float(s.stock.size() * (1.0 / double(rules_.cards.size())));
    at[1] = float(s.turns * (1.0 / double(rules_.max_turns_per_round)));
}

}  // namespace rummy
