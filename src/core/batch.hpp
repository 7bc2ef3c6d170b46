// Many tables of one game stepped in one call (rummy_env.vector): observe() writes every
// table's seat to act, its observation and its mask into the caller's arrays; step() checks
// every table's action before applying any, then applies them, scores the rounds that end,
// and deals a finished table its next game at once. Tables are independent, so the work is
// split over a thread pool and the result does not depend on the thread count.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <memory>
#include <mutex>
#include <vector>

#include "table.hpp"
#include "thread_pool.hpp"

namespace rummy {

enum RewardMode { kRelative = 0, kPenalty = 1, kWin = 2 };  // the env's reward_mode

// seed_words (rummy_env/backend.py) of a seed in 0..2**64-1: how random.seed reads it.
std::vector<uint32_t> seed_words64(uint64_t seed);

class Batch {
public:
    Batch(const TableRules& rules, int num_tables, int num_threads, int reward_mode);

    // Held by each call from Python (the bindings release the interpreter while the pool
    // works): a second thread's call on the same batch is refused, not interleaved.
    std::unique_lock<std::mutex> claim() {
        std::unique_lock<std::mutex> lock(busy_, std::try_to_lock);
        if (!lock.owns_lock()) throw std::runtime_error("the batch is in use by another thread: one call at a time");
        return lock;
    }

    int size() const { return int(tables_.size()); }
    int threads() const { return pool_->threads(); }
    Table& table(int i) { return tables_.at(std::size_t(i)); }

    // seats [N], obs [N, observation_size], mask [N, num_actions] (zeroed here)
    void observe(int32_t* seats, float* obs, bool* mask);
    // actions [N]: at each table its legal action number floor(uniforms[i] * count) in
    // ascending order (uniforms [N] in [0, 1)): a uniformly random legal action per table.
    void pick_legal(const double* uniforms, int64_t* actions);
    // ids [N, width]: each table's legal actions, ascending, then -1 up to width (cut at
    // width); counts [N]: each table's number of legal actions, cut or not.
    void legal_lists(int32_t* ids, int width, int32_t* counts);
    // The first active table whose action is not legal, or -1 after applying the action of
    // every active table (active [N]; every table when null): rewards [N, num_players], done
    // [N], final_scores [N, num_players] (written where done), and next_seeds [N], the seed
    // of each table's next game, read where done. An inactive table is left as it is.
    int step(const int64_t* actions, const bool* active, const uint64_t* next_seeds, float* rewards, bool* done,
             int32_t* final_scores);

private:
    std::vector<Table> tables_;
    std::unique_ptr<ThreadPool> pool_;
    std::mutex busy_;
    int num_players_, reward_mode_;
};

}  // namespace rummy
