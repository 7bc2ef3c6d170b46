#include "batch.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>

namespace rummy {

std::vector<uint32_t> seed_words64(uint64_t seed) {
    if (seed >> 32) return {uint32_t(seed), uint32_t(seed >> 32)};
    return {uint32_t(seed)};
}

Batch::Batch(const TableRules& rules, int num_tables, int num_threads, int reward_mode)
    : num_players_(rules.num_players), reward_mode_(reward_mode) {
    if (num_tables < 1) throw std::invalid_argument("a batch holds at least one table");
    if (num_threads < 1 || num_threads > 256) throw std::invalid_argument("num_threads must be from 1 to 256");
    if (reward_mode < kRelative || reward_mode > kWin) throw std::invalid_argument("unknown reward mode");
    tables_.reserve(std::size_t(num_tables));
    for (int i = 0; i < num_tables; ++i) tables_.emplace_back(rules);
    pool_ = std::make_unique<ThreadPool>(std::min(num_threads, num_tables));
}

void Batch::observe(int32_t* seats, float* obs, bool* mask) {
    const std::size_t obs_size = std::size_t(tables_[0].observation_size());
    const std::size_t num_actions = std::size_t(tables_[0].num_actions());
    pool_->run(size(), [&](int i) {
        Table& t = tables_[std::size_t(i)];
        const int seat = t.to_act();
        seats[i] = seat;
        t.observe(seat, obs + std::size_t(i) * obs_size);
        bool* row = mask + std::size_t(i) * num_actions;
        std::fill(row, row + num_actions, false);
        for (int a : t.legal_actions()) row[a] = true;
    });
}

void Batch::pick_legal(const double* uniforms, int64_t* actions) {
    pool_->run(size(), [&](int i) {
        const std::vector<int>& legal = tables_[std::size_t(i)].legal_actions();
        if (legal.empty()) throw std::logic_error("table " + std::to_string(i) + " has no legal action");
        // as numpy computes (uniforms * counts).astype(int64)
        const auto k = std::size_t(int64_t(uniforms[i] * double(legal.size())));
        actions[i] = legal[std::min(k, legal.size() - 1)];
    });
}

void Batch::legal_lists(int32_t* ids, int width, int32_t* counts) {
    pool_->run(size(), [&](int i) {
        const std::vector<int>& legal = tables_[std::size_t(i)].legal_actions();
        int32_t* row = ids + std::size_t(i) * std::size_t(width);
        const int shown = std::min(int(legal.size()), width);
        std::copy(legal.begin(), legal.begin() + shown, row);
        std::fill(row + shown, row + width, -1);
        counts[i] = int32_t(legal.size());
    });
}

int Batch::step(const int64_t* actions, const bool* active, const uint64_t* next_seeds, float* rewards, bool* done,
                int32_t* final_scores) {
    // nothing changes unless every action is legal: one round of the pool checks every table
    // (computing its legal actions if no observe() has), and the first illegal one is named
    std::atomic<int> first_illegal{size()};
    pool_->run(size(), [&](int i) {
        if (active && !active[i]) return;
        const std::vector<int>& legal = tables_[std::size_t(i)].legal_actions();
        const int64_t a = actions[i];
        if (a >= 0 && a <= 0x7FFFFFFF && std::binary_search(legal.begin(), legal.end(), int(a))) return;
        int seen = first_illegal.load();
        while (i < seen && !first_illegal.compare_exchange_weak(seen, i)) {
        }
    });
    if (first_illegal.load() < size()) return first_illegal.load();
    const int n = num_players_;
    pool_->run(size(), [&](int i) {
        Table& t = tables_[std::size_t(i)];
        float* reward = rewards + std::size_t(i) * std::size_t(n);
        std::fill(reward, reward + n, 0.0f);
        done[i] = false;
        if (active && !active[i]) return;
        std::optional<RoundEnd> end = t.apply(int(actions[i]));
        if (!end) return;
        const std::vector<int>& pens = end->penalties;
        if (reward_mode_ == kRelative) {  // in double, as the env computes it
            double total = 0;
            for (int p : pens) total += p;
            const double mean = total / n;
            for (int p = 0; p < n; ++p) reward[p] = float((mean - pens[p]) / 100.0);
        } else if (reward_mode_ == kPenalty) {
            for (int p = 0; p < n; ++p) reward[p] = float(double(-pens[p]) / 100.0);
        }
        if (!end->game_over) return;
        const std::vector<int>& scores = t.state().scores;
        const int best = *std::min_element(scores.begin(), scores.end());
        for (int p = 0; p < n; ++p) {
            final_scores[std::size_t(i) * std::size_t(n) + std::size_t(p)] = scores[p];
            if (reward_mode_ == kWin) reward[p] = scores[p] == best ? 1.0f : -1.0f;
        }
        done[i] = true;
        t.reset(seed_words64(next_seeds[i]));
    });
    return -1;
}

}  // namespace rummy
