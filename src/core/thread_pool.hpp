// A fixed pool of worker threads that runs one indexed job at a time (EnvPool style): the
// caller's thread works too, each thread takes its own block of the items at every call and
// then helps with the others', and the first exception of any item is rethrown to the
// caller once every thread has stopped. A worker spins for a while after a job before it
// sleeps, and so does the caller waiting for the workers: a batched loop calls again within
// a fraction of a millisecond, and waking a sleeping thread costs about as long.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace rummy {

class ThreadPool {
public:
    explicit ThreadPool(int threads) : blocks_(new Block[std::size_t(std::max(threads, 1))]) {
        try {
            for (int t = 1; t < threads; ++t) workers_.emplace_back([this, t] { work_loop(t); });
        } catch (...) {  // a thread that could not start: stop those that did, then report it
            stop_all();
            throw;
        }
    }
    ~ThreadPool() { stop_all(); }
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int threads() const { return int(workers_.size()) + 1; }

    // fn(i) for every i in [0, n), on every thread of the pool; returns when all are done.
    void run(int n, const std::function<void(int)>& fn) {
        if (n <= 0) return;
        if (workers_.empty() || n == 1) {
            for (int i = 0; i < n; ++i) fn(i);
            return;
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            job_ = &fn;
            size_ = n;
            for (int t = 0; t < threads(); ++t) {
                blocks_[t].next.store(int(long(n) * t / threads()));
                blocks_[t].end = int(long(n) * (t + 1) / threads());
            }
            error_ = nullptr;
            busy_ = int(workers_.size());
            generation_.fetch_add(1);
        }
        wake_.notify_all();
        do_items(0);
        // the workers finish within moments of the caller: waiting on the condition alone
        // would add a wake-up (tens of microseconds) to every call
        const auto spin_until = std::chrono::steady_clock::now() + kSpin;
        while (busy_.load() != 0 && std::chrono::steady_clock::now() < spin_until) std::this_thread::yield();
        std::unique_lock<std::mutex> lock(mutex_);
        finished_.wait(lock, [this] { return busy_.load() == 0; });
        job_ = nullptr;
        if (error_) std::rethrow_exception(error_);
    }

private:
    void stop_all() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        for (std::thread& t : workers_) t.join();
    }

    // Thread `slot` works through its own block of the items first (the same block at every
    // call, so that an item, a table, stays with one thread: its memory with that thread's
    // allocator arena, its solver queries with that thread's memos), then helps with the
    // others' blocks, a chunk at a time, so that a block of slow items does not hold up the call.
    void do_items(int slot) {
        const int T = threads();
        for (int k = 0; k < T; ++k) {
            Block& block = blocks_[(slot + k) % T];
            for (;;) {
                const int start = block.next.fetch_add(kChunk);
                if (start >= block.end) break;
                const int end = std::min(block.end, start + kChunk);
                for (int i = start; i < end; ++i) {  // every item runs, whatever another one threw
                    try {
                        (*job_)(i);
                    } catch (...) {
                        std::lock_guard<std::mutex> lock(mutex_);
                        if (!error_) error_ = std::current_exception();
                    }
                }
            }
        }
    }

    void work_loop(int slot) {
        unsigned long seen = 0;
        for (;;) {
            const auto spin_until = std::chrono::steady_clock::now() + kSpin;
            while (generation_.load() == seen && std::chrono::steady_clock::now() < spin_until)
                std::this_thread::yield();
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return stop_ || generation_.load() != seen; });
                if (stop_) return;
                seen = generation_.load();
            }
            do_items(slot);
            std::lock_guard<std::mutex> lock(mutex_);
            if (--busy_ == 0) finished_.notify_one();
        }
    }

    struct alignas(64) Block {  // a thread's block of the items: the next chunk's start, the end
        std::atomic<int> next{0};
        int end = 0;
    };
    static constexpr int kChunk = 8;
    std::unique_ptr<Block[]> blocks_;
    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_, finished_;
    const std::function<void(int)>* job_ = nullptr;
    int size_ = 0;
    std::atomic<int> busy_{0};
    std::atomic<unsigned long> generation_{0};
    static constexpr std::chrono::microseconds kSpin{1000};
    bool stop_ = false;
    std::exception_ptr error_;
};

}  // namespace rummy
