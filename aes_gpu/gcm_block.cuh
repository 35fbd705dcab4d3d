// SPDX-License-Identifier: Apache-2.0
#pragma once
// GHASH for the GCM kernels: multiplication in GF(2^128) as GCM defines it (bit 0 is the most
// significant bit of byte 0; reduction by x^128 + x^7 + x^2 + x + 1). Hand-written because it is
// the hot path of the GPU kernels, which no library serves; the same code runs on the host, where
// the tests check it against OpenSSL's AES-GCM. Two multiplications:
// - by the hash key H through Shoup's 4-bit table of H's multiples (16 entries; the kernels keep
//   one copy per lane in shared memory, so lane l always reads bank l and timing does not depend
//   on the data), as OpenSSL's gcm_gmult_4bit does, with the reduction constants computed rather
//   than looked up;
// - of two arbitrary values, bit by bit with masks instead of branches (constant time), for the
//   few combining steps per run of blocks.
#include "aes_gpu/aes_block.cuh"

#include <cstdint>

namespace aesgpu::gcm {

// A 128-bit GCM value as two big-endian halves: bytes 0-7 and 8-15.
struct Block128 {
    std::uint64_t hi = 0;
    std::uint64_t lo = 0;
};

AESGPU_HOST_DEVICE Block128 operator^(Block128 a, Block128 b) {
    return {a.hi ^ b.hi, a.lo ^ b.lo};
}

// The 16 bytes of a State (four little-endian column words) as a GCM value, and back.
AESGPU_HOST_DEVICE Block128 from_state(const block::State &s) {
    return {std::uint64_t{block::byte_swap(s.c0)} << 32 | block::byte_swap(s.c1),
            std::uint64_t{block::byte_swap(s.c2)} << 32 | block::byte_swap(s.c3)};
}
AESGPU_HOST_DEVICE block::State to_state(Block128 v) {
    return {
        block::byte_swap(static_cast<std::uint32_t>(v.hi >> 32)), block::byte_swap(static_cast<std::uint32_t>(v.hi)),
        block::byte_swap(static_cast<std::uint32_t>(v.lo >> 32)), block::byte_swap(static_cast<std::uint32_t>(v.lo))};
}

// v times x: one bit towards the end of the block, reduced (OpenSSL's REDUCE1BIT).
AESGPU_HOST_DEVICE Block128 times_x(Block128 v) {
    const std::uint64_t reduce = (std::uint64_t{0} - (v.lo & 1)) & 0xe100000000000000ull;
    return {(v.hi >> 1) ^ reduce, (v.hi << 63) | (v.lo >> 1)};
}

// a * b, bit by bit: 128 steps, the same instructions whatever the values.
AESGPU_HOST_DEVICE Block128 multiply(Block128 a, Block128 b) {
    Block128 product;
    Block128 v = b;
    for (int i = 0; i < 128; ++i) {
        const std::uint64_t word = i < 64 ? a.hi : a.lo;
        const std::uint64_t mask = std::uint64_t{0} - ((word >> (63 - (i & 63))) & 1);
        product.hi ^= v.hi & mask;
        product.lo ^= v.lo & mask;
        v = times_x(v);
    }
    return product;
}

// The 16 multiples of H that multiply_by_h() reads: table[n] = n * H in GCM's 4-bit order
// (OpenSSL's gcm_init_4bit).
struct HashTable {
    Block128 entry[16];
};

inline HashTable make_hash_table(Block128 h) {
    HashTable t;
    t.entry[8] = h;
    t.entry[4] = times_x(t.entry[8]);
    t.entry[2] = times_x(t.entry[4]);
    t.entry[1] = times_x(t.entry[2]);
    for (int high = 2; high <= 8; high *= 2) {
        for (int low = 1; low < high; ++low) t.entry[high + low] = t.entry[high] ^ t.entry[low];
    }
    return t;
}

// What the 4 bits shifted out of the low end add back at the top (OpenSSL's rem_4bit), computed.
AESGPU_HOST_DEVICE std::uint64_t reduce_4bit(std::uint64_t rem) {
    const std::uint64_t value =
        ((std::uint64_t{0} - (rem & 1)) & 0x1c20) ^ ((std::uint64_t{0} - ((rem >> 1) & 1)) & 0x3840) ^
        ((std::uint64_t{0} - ((rem >> 2) & 1)) & 0x7080) ^ ((std::uint64_t{0} - ((rem >> 3) & 1)) & 0xe100);
    return value << 48;
}

// Byte k (0-15) of a GCM value.
AESGPU_HOST_DEVICE unsigned byte_of(Block128 v, int k) {
    return static_cast<unsigned>((k < 8 ? v.hi >> (56 - 8 * k) : v.lo >> (56 - 8 * (k - 8))) & 0xff);
}

// x * H with `Table` giving t.entry(n) = n * H and t.reduce(rem) = reduce_4bit(rem) (host: a
// HashTable and the computation; GPU: per-lane shared memory for both).
template <typename Table>
AESGPU_HOST_DEVICE Block128 multiply_by_h(Block128 x, const Table &t) {
    const auto shift4 = [&t](Block128 z) {
        const std::uint64_t rem = z.lo & 0xf;
        return Block128{(z.hi >> 4) ^ t.reduce(static_cast<unsigned>(rem)), (z.hi << 60) | (z.lo >> 4)};
    };
    unsigned byte = byte_of(x, 15);
    Block128 z = t.entry(byte & 0xf);
    z = shift4(z) ^ t.entry(byte >> 4);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k = 14; k >= 0; --k) {
        byte = byte_of(x, k);
        z = shift4(z) ^ t.entry(byte & 0xf);
        z = shift4(z) ^ t.entry(byte >> 4);
    }
    return z;
}

// A HashTable read on the host.
struct HostHashTable {
    const HashTable &table;
    Block128 entry(unsigned n) const { return table.entry[n]; }
    std::uint64_t reduce(unsigned rem) const { return reduce_4bit(rem); }
};

} // namespace aesgpu::gcm
