// SPDX-License-Identifier: Apache-2.0
#pragma once
// The AES round tables as every kernel keeps them in shared memory: each replicated once per
// bank, so that lane l of a warp only ever reads bank l and timing does not depend on the data.
#include <cstddef>
#include <cstdint>

namespace aesgpu {

constexpr unsigned kLanes = 32;
// Shared memory holds 256 rows of 64 words: the primary table replicated for lanes 0..31, then
// the secondary table likewise. Row x starts at byte x * 256, and lane l reads word l (bank l) of
// its half, so the byte address of an entry is (x << 8) | (l << 2) (+ 128 for the secondary).
constexpr unsigned kRowWords = 2 * kLanes;
constexpr unsigned kTableWords = 256 * kRowWords;
constexpr std::size_t kAesTableBytes = kTableWords * sizeof(std::uint32_t); // 64 KiB

struct SharedTables {
    const char *base;
    std::uint32_t lane_offset; // l << 2

    // One PRMT builds the byte offset (x << 8) | (l << 2) from byte `Byte` of w and the lane offset
    // (selector nibbles, low to high: lane byte, w's byte, zero, zero).
    template <int Byte>
    __device__ __forceinline__ std::uint32_t offset(std::uint32_t w) const {
        return __byte_perm(w, lane_offset, 0x5504 | (Byte << 4));
    }
    template <int Byte>
    __device__ __forceinline__ std::uint32_t primary(std::uint32_t w) const {
        return *reinterpret_cast<const std::uint32_t *>(base + offset<Byte>(w));
    }
    template <int Byte>
    __device__ __forceinline__ std::uint32_t secondary(std::uint32_t w) const {
        return *reinterpret_cast<const std::uint32_t *>(base + kLanes * sizeof(std::uint32_t) + offset<Byte>(w));
    }
};

// Fills the first kTableWords words of `shared` from the two 256-entry tables; all threads of the
// block take part (a __syncthreads() must follow).
__device__ __forceinline__ void fill_shared_tables(std::uint32_t *shared, const std::uint32_t *primary,
                                                   const std::uint32_t *secondary) {
    for (unsigned i = threadIdx.x; i < kTableWords; i += blockDim.x) {
        const unsigned x = i / kRowWords;
        shared[i] = i % kRowWords < kLanes ? primary[x] : secondary[x];
    }
}

} // namespace aesgpu
