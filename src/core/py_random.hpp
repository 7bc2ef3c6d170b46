// Python's random.Random in C++, draw for draw: the Mersenne Twister (MT19937) seeded as
// CPython seeds it from an int, and the integer draws the deal uses (getrandbits, randrange,
// shuffle), so that a table dealt here is dealt exactly as the Python reference deals it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace rummy {

class PyRandom {
public:
    static constexpr int kN = 624, kM = 397;

    PyRandom() { seed({0}); }

    // random.seed(n) for an int n: init_by_array over the 32-bit words of abs(n), least
    // significant first ([0] for 0)
    void seed(const std::vector<uint32_t>& key) {
        if (key.empty()) throw std::invalid_argument("a seed key has at least one word");
        init_genrand(19650218u);
        int i = 1, j = 0;
        const int key_length = int(key.size());
        for (int k = std::max(kN, key_length); k; --k) {
            mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525u)) + key[j] + uint32_t(j);
            ++i, ++j;
            if (i >= kN) mt_[0] = mt_[kN - 1], i = 1;
            if (j >= key_length) j = 0;
        }
        for (int k = kN - 1; k; --k) {
            mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941u)) - uint32_t(i);
            ++i;
            if (i >= kN) mt_[0] = mt_[kN - 1], i = 1;
        }
        mt_[0] = 0x80000000u;
        index_ = kN;
    }

    // getstate()[1] of Python's generator: the 624 words and the position in them
    std::vector<uint32_t> state() const {
        std::vector<uint32_t> out(mt_.begin(), mt_.end());
        out.push_back(uint32_t(index_));
        return out;
    }
    void set_state(const std::vector<uint32_t>& words) {
        if (words.size() != kN + 1 || words[kN] > uint32_t(kN))
            throw std::invalid_argument("a generator state is 624 words and a position from 0 to 624");
        std::copy(words.begin(), words.begin() + kN, mt_.begin());
        index_ = int(words[kN]);
    }

    uint32_t next32() {
        if (index_ >= kN) twist();
        uint32_t y = mt_[index_++];
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c5680u;
        y ^= (y << 15) & 0xefc60000u;
        y ^= y >> 18;
        return y;
    }

    uint32_t getrandbits(int k) {  // 1 <= k <= 32
        return next32() >> (32 - k);
    }

    // randrange(n) (Python's _randbelow_with_getrandbits): uniform on 0..n-1, n >= 1
    uint32_t randbelow(uint32_t n) {
        int k = 0;
        for (uint32_t m = n; m; m >>= 1) ++k;  // n.bit_length()
        uint32_t r = getrandbits(k);
        while (r >= n) r = getrandbits(k);
        return r;
    }

    template <typename T>
    void shuffle(T* items, std::size_t size) {
        for (std::size_t i = size; i-- > 1;) {
            std::size_t j = randbelow(uint32_t(i + 1));
            std::swap(items[i], items[j]);
        }
    }

private:
    void init_genrand(uint32_t s) {
        mt_[0] = s;
        for (int i = 1; i < kN; ++i) mt_[i] = 1812433253u * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + uint32_t(i);
        index_ = kN;
    }

    void twist() {
        constexpr uint32_t upper = 0x80000000u, lower = 0x7fffffffu, matrix = 0x9908b0dfu;
        for (int k = 0; k < kN; ++k) {
            uint32_t y = (mt_[k] & upper) | (mt_[(k + 1) % kN] & lower);
            mt_[k] = mt_[(k + kM) % kN] ^ (y >> 1) ^ ((y & 1u) ? matrix : 0u);
        }
        index_ = 0;
    }

    std::array<uint32_t, kN> mt_{};
    int index_ = kN;
};

}  // namespace rummy
