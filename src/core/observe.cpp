#include "table.hpp"

#include <algorithm>

namespace rummy {

// ---------------------------------------------------------------- observation (observation.py)
// The Observer's parts, in its order: hand, discard_top (discard_order with deep draws: the
// top cards, top first), discard_pile, known_held (other seats, left first), table,
// taken_face, must_place (with deep draws), table_slots (contract games), buy_offer (with
// buying); then hand_sizes, scores, gone_out (gone_down in contract games), to_act, dealer,
// round; wild_rank and phase (draw, play) without contract play, else contract,
// contract_left, wilds_owed, then turn_owner, buys and phase (draw, play, going down, buy)
// with buying or phase (draw, play, going down); stock_size, turns. Per-seat parts are
// relative to the observer.
namespace {
int slot_size(int num_players, int num_naturals) { return num_players + 2 + 2 * num_naturals + 1; }
}  // namespace

int Table::observation_size() const {
    const int n = rules_.num_players, F = num_faces_, rounds = int(rules_.rounds.size());
    if (!contract_) return (4 + n) * F + 5 * n + rounds + rules_.num_ranks + 2 + 2;
    const ContractPlay& play = rules_.play;
    const int depth = play.max_deep_draw;
    int size = (depth >= 2 ? depth : 1) * F + (n + 3) * F + (depth >= 2 ? F : 0);
    size += play.max_table_melds * slot_size(n, num_naturals_) + (play.buying ? F : 0);
    size += 5 * n + rounds + 3 + 2 + 1 + (play.buying ? 2 * n + 4 : 3) + 2;
    return size;
}

void Table::observe(int seat, float* out) const {
    if (!dealt_) throw std::logic_error("reset the table before playing it");
    const int n = rules_.num_players, F = num_faces_, N = num_naturals_, R = rules_.num_ranks;
    if (seat < 0 || seat >= n) throw std::invalid_argument("seat must be from 0 to " + std::to_string(n - 1));
    const State& s = state_;
    const ContractPlay& play = rules_.play;
    const int depth = contract_ ? play.max_deep_draw : 1;
    auto rel = [&](int other) { return ((other - seat) % n + n) % n; };
    std::fill(out, out + observation_size(), 0.0f);
    float* at = out;
    for (int f = 0; f < F; ++f) at[f] = float(s.hands[seat][f]);
    at += F;
    for (int k = 0; k < std::max(depth, 1); ++k, at += F)  // discard_top, or discard_order
        if (k < int(s.discard.size())) at[s.discard[s.discard.size() - 1 - std::size_t(k)]] = 1.0f;
    for (int f = 0; f < F; ++f) at[f] = float(s.discard_counts[f]);
    at += F;
    for (int r = 1; r < n; ++r, at += F)
        for (int f = 0; f < F; ++f) at[f] = float(s.known[(seat + r) % n][f]);
    for (const TableMeld& t : s.table)
        for (int f : t.cards) at[f] += 1.0f;
    at += F;
    if (s.taken_face >= 0) at[s.taken_face] = 1.0f;
    at += F;
    if (depth >= 2) {
        if (s.must_place >= 0) at[s.must_place] = 1.0f;
        at += F;
    }
    if (contract_) {
        const int size = slot_size(n, N);
        for (std::size_t k = 0; k < s.table.size(); ++k) {
            const TableMeld& t = s.table[k];
            float* slot = at + k * std::size_t(size);
            slot[rel(t.owner)] = 1.0f;
            slot[n + (t.meld.is_set ? 0 : 1)] = 1.0f;
            for (int f : t.meld.naturals) slot[n + 2 + f] += 1.0f;
            if (t.meld.is_set)
                slot[n + 2 + 2 * N] = float(t.meld.wilds);
            else
                for (int q : wild_positions(t.meld)) slot[n + 2 + N + t.meld.suit * R + q % R] = 1.0f;
        }
        at += play.max_table_melds * size;
        if (play.buying) {
            if (s.phase == kBuy) at[s.discard.back()] = 1.0f;
            at += F;
        }
    }
    int largest = 0;
    for (const RoundRules& r : rules_.rounds) largest = std::max(largest, r.hand_size);
    const double hand_scale = 1.0 / (largest + 1);
    for (int r = 0; r < n; ++r) at[r] = float(s.hand_sizes[(seat + r) % n] * hand_scale);
    at += n;
    for (int r = 0; r < n; ++r) at[r] = float(s.scores[(seat + r) % n] * 0.01);
    at += n;
    if (contract_) {
        for (int r = 0; r < n; ++r) at[r] = s.down_turn[(seat + r) % n] >= 0 ? 1.0f : 0.0f;  // gone_down
    } else if (s.went_out >= 0) {
        at[rel(s.went_out)] = 1.0f;  // gone_out
    }
    at += n;
    if (s.phase != kGameOver) at[rel(to_act())] = 1.0f;
    at += n;
    at[rel(s.dealer)] = 1.0f;
    at += n;
    at[s.round] = 1.0f;
    at += int(rules_.rounds.size());
    const RoundRules& round = rules_.rounds[s.round];
    if (contract_) {
        at[0] = float(round.sets / 4.0), at[1] = float(round.runs / 4.0);
        at[2] = round.down_means_out || round.out_by_melding ? 1.0f : 0.0f;
        at += 3;
        if (s.phase == kGoingDown) at[0] = float(s.sets_left / 4.0), at[1] = float(s.runs_left / 4.0);
        at += 2;
        at[0] = float(s.wilds_owed);
        at += 1;
        if (play.buying) {
            if (s.phase != kGameOver) at[rel(s.current)] = 1.0f;  // turn_owner
            at += n;
            for (int r = 0; r < n; ++r) at[r] = float(s.buys[(seat + r) % n] * 0.1);
            at += n;
            if (s.phase != kGameOver) at[s.phase] = 1.0f;
            at += 4;
        } else {
            if (s.phase != kGameOver) at[s.phase] = 1.0f;
            at += 3;
        }
    } else {
        if (round.wild_rank >= 0) at[round.wild_rank] = 1.0f;
        at += rules_.num_ranks;
        if (s.phase != kGameOver) at[s.phase] = 1.0f;
        at += 2;
    }
    at[0] = float(s.stock.size() * (1.0 / double(rules_.cards.size())));
    at[1] = float(s.turns * (1.0 / double(rules_.max_turns_per_round)));
}

}  // namespace rummy
