// The meld solver of rummy_env/meld_solver.py in C++: the same exact searches, enumerating
// the same melds in the same order (so best_arrangement picks the same arrangement), with
// the same memos keyed on the per-face counts packed four bits a face.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace rummy {

constexpr int kMaxFaces = 64;        // naturals of any deck (Rook: 4 x 14 = 56)
constexpr int kUnlimited = 1 << 20;  // room of a set with no maximum size (melds.UNLIMITED)
constexpr std::size_t kMemoLimit = 1 << 14;  // entries a memo holds before it is cleared (it stays in cache)

struct MeldRules {
    int set_min = 3;
    int set_max = -1;  // -1: no maximum
    bool set_distinct_suits = false;
    int run_min = 3;
    bool ace_high = false;
    bool all_wild_melds = false;
};

// Counts of the naturals, four bits a face: the memo key of a hand.
struct Code {
    std::array<uint64_t, 4> w{};
    void add(int face, int k) { w[face >> 4] += uint64_t(k) << (4 * (face & 15)); }
    bool empty() const { return !(w[0] | w[1] | w[2] | w[3]); }
    bool operator==(const Code& o) const {
        return w[0] == o.w[0] && w[1] == o.w[1] && w[2] == o.w[2] && w[3] == o.w[3];
    }
};

struct Key {
    Code code;
    int32_t a = 0, b = 0;
    bool operator==(const Key& o) const { return code == o.code && a == o.a && b == o.b; }
};

struct KeyHash {
    std::size_t operator()(const Key& k) const {
        const auto& w = k.code.w;
        uint64_t h = (uint64_t(uint32_t(k.a)) << 32 | uint32_t(k.b)) * 0x9E3779B97F4A7C15ull;
        h ^= (w[0] + (w[1] * 0xC2B2AE3D27D4EB4Full) + (w[2] * 0x165667B19E3779F9ull) + (w[3] * 0xD6E8FEB86659FD93ull));
        h *= 0xBF58476D1CE4E5B9ull;
        return std::size_t(h ^ (h >> 29));
    }
};

// A memo of exact search results: open addressing, linear probing; cleared in O(1) by
// moving to a new generation, and cleared when it holds kMemoLimit entries (as the
// Python reference clears its dicts).
template <typename V>
class Memo {
public:
    Memo() { slots_.resize(1 << 8); }
    const V* find(const Key& key) const {
        std::size_t mask = slots_.size() - 1;
        for (std::size_t h = KeyHash{}(key) & mask;; h = (h + 1) & mask) {
            const Slot& s = slots_[h];
            if (s.generation != generation_) return nullptr;
            if (s.key == key) return &s.value;
        }
    }
    void put(const Key& key, const V& value) {
        if (2 * (size_ + 1) > slots_.size()) grow();
        std::size_t mask = slots_.size() - 1;
        for (std::size_t h = KeyHash{}(key) & mask;; h = (h + 1) & mask) {
            Slot& s = slots_[h];
            if (s.generation != generation_) {
                s = Slot{key, value, generation_};
                ++size_;
                return;
            }
            if (s.key == key) {
                s.value = value;
                return;
            }
        }
    }
    void clear() {
        size_ = 0;
        if (++generation_ == 0) {  // generations wrapped: forget every slot for real
            for (Slot& s : slots_) s.generation = 0;
            generation_ = 1;
        }
    }
    std::size_t size() const { return size_; }

private:
    struct Slot {
        Key key;
        V value{};
        uint32_t generation = 0;
    };
    void grow() {
        if (size_ >= kMemoLimit) {
            clear();
            return;
        }
        std::vector<Slot> old;
        old.swap(slots_);
        slots_.assign(old.size() * 2, Slot{});
        uint32_t live = generation_;
        generation_ = 1, size_ = 0;
        for (const Slot& s : old)
            if (s.generation == live) put(s.key, s.value);
    }
    std::vector<Slot> slots_;
    std::size_t size_ = 0;
    uint32_t generation_ = 1;
};

// One meld containing a given natural: its naturals, the wilds it needs, its room for more
// wilds, and where it lies (a set's rank, or a run's suit and positions low..high).
struct Option {
    std::array<uint8_t, 64> faces;  // a set holds at most 4 suits x 15 copies
    uint8_t size = 0;
    int used = 0, room = 0;
    bool is_set = false;
    int rank = -1, suit = -1, low = -1, high = -1;
};

struct PlacedMeld {
    bool is_set = false;
    std::vector<int> naturals;
    int wilds = 0;
    int rank = -1, suit = -1, low = -1, high = -1;
};

struct Arrangement {
    int penalty = 0;
    std::vector<PlacedMeld> melds;
    std::vector<int> unmatched;
    int unmatched_wilds = 0;
};

class MeldSolver {
public:
    MeldSolver(int num_suits, int num_ranks, const MeldRules& rules);

    bool can_meld_all(const std::vector<int>& counts, int wilds);
    // Which natural faces may be left out so that the rest melds, and whether a wild may.
    std::pair<std::vector<int>, bool> meldable_without_one(const std::vector<int>& counts, int wilds);
    int min_penalty(const std::vector<int>& counts, int wilds, const std::vector<int>& values, int wild_value);
    Arrangement best_arrangement(const std::vector<int>& counts, int wilds, const std::vector<int>& values,
                                 int wild_value);

    int num_naturals() const { return N_; }

protected:
    using Counts = std::array<uint8_t, kMaxFaces>;
    Code encode(const Counts& c) const;

    void meld_options(const Counts& c, int i, int wilds, std::vector<Option>& out) const;
    void set_options(const Counts& c, int i, int wilds, std::vector<Option>& out) const;
    void run_options(const Counts& c, int i, int wilds, std::vector<Option>& out) const;
    int leftover_wilds_unplaced(int wilds, int room) const;

    bool full(Counts& c, Code code, int start, int wilds, int room, int depth);
    int pen(Counts& c, Code code, int start, int wilds, int room, int depth, int bound);
    int need(Counts& c, Code code, int start, int cap, int depth);
    int group_need(Code code, const Counts& group, int cap);
    bool places_leftover(const Counts& counts, int left_out, int wilds, int leftover);
    // The hand's naturals split into groups that no meld spans, into group_faces_ (each
    // group's cards ascending, group after group) and group_starts_ (where each begins).
    void groups(const Counts& counts, int wilds);
    void set_values(const std::vector<int>& values, int wild_value);
    Counts to_counts(const std::vector<int>& counts) const;
    std::vector<Option>& options_at(int depth);
    int meld_room(const PlacedMeld& m) const;

    int R_, S_, N_, max_pos_, lone_cost_;
    MeldRules rules_;
    Memo<bool> full_memo_;
    Memo<std::pair<int, bool>> pen_memo_;  // (penalty, exact)
    Memo<std::pair<int, bool>> need_memo_;  // (need, exact)
    std::vector<int> values_;  // the penalties pen_memo_ holds values for
    int wild_value_ = -1;
    std::vector<std::vector<Option>> options_;  // one buffer per search depth
    // meldable_without_one's scratch, kept between calls so that a query allocates nothing
    std::vector<int> group_faces_, group_starts_, group_needs_;
    std::vector<Counts> group_counts_;
    std::vector<Code> group_codes_;
    struct RunEntry {  // a run being extended: its top position, wilds in its gaps, naturals
        int q, gaps;
        std::array<uint8_t, 16> faces;
        int size;
    };
    mutable std::vector<RunEntry> run_stack_;
};

}  // namespace rummy
