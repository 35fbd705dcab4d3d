// SPDX-License-Identifier: Apache-2.0
#pragma once
// GHASH for the GCM kernels: multiplication in GF(2^128) as GCM defines it (bit 0 is the most
// significant bit of byte 0; reduction by x^128 + x^7 + x^2 + x + 1). Hand-written because it is
// the hot path of the GPU kernels, which no library serves; the same code runs on the host, where
// the tests check it against OpenSSL's AES-GCM. Two multiplications:
// - by the hash key H through Shoup's table of H's multiples, for 4- or 8-bit pieces of the other
//   factor (16 or 256 entries; the kernels keep one copy per lane in shared memory, so a lane's
//   reads always land in the same banks and timing does not depend on the data), with the
//   reduction deferred and computed;
// - of two arbitrary values, bit by bit with masks instead of branches (constant time), for the
//   few combining steps per run of blocks.
#include "aes_gpu/kernels/aes_block.cuh"

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

// A GCM value as four big-endian 32-bit words: w0 holds bytes 0-3. multiply_by_h() works in
// these, as the GPU's registers and funnel shifts are 32 bits wide.
struct Words128 {
    std::uint32_t w0 = 0, w1 = 0, w2 = 0, w3 = 0;
};

AESGPU_HOST_DEVICE Words128 to_words(Block128 v) {
    return {static_cast<std::uint32_t>(v.hi >> 32), static_cast<std::uint32_t>(v.hi),
            static_cast<std::uint32_t>(v.lo >> 32), static_cast<std::uint32_t>(v.lo)};
}
AESGPU_HOST_DEVICE Block128 from_words(Words128 v) {
    return {std::uint64_t{v.w0} << 32 | v.w1, std::uint64_t{v.w2} << 32 | v.w3};
}

// The low 32 bits of (high:low) >> n, 0 < n < 32: one SHF on the GPU.
AESGPU_HOST_DEVICE std::uint32_t shift_in(std::uint32_t high, std::uint32_t low, unsigned n) {
#if defined(__CUDA_ARCH__)
    return __funnelshift_r(low, high, n);
#else
    return (low >> n) | (high << (32 - n));
#endif
}

// v times x: one bit towards the end of the block, reduced (OpenSSL's REDUCE1BIT).
AESGPU_HOST_DEVICE Block128 times_x(Block128 v) {
    const std::uint64_t reduce = (std::uint64_t{0} - (v.lo & 1)) & 0xe100000000000000ull;
    return {(v.hi >> 1) ^ reduce, (v.hi << 63) | (v.lo >> 1)};
}

// a * b, bit by bit: 128 steps, the same instructions whatever the values. In 32-bit words, as
// the GPU runs it once per run of blocks and 64-bit shifts cost it several instructions each.
AESGPU_HOST_DEVICE Block128 multiply(Block128 a, Block128 b) {
    const Words128 aw = to_words(a);
    const std::uint32_t factor[4] = {aw.w0, aw.w1, aw.w2, aw.w3};
    Words128 product;
    Words128 v = to_words(b);
#if defined(__CUDA_ARCH__)
#pragma unroll 1
#endif
    for (int w = 0; w < 4; ++w) {
        std::uint32_t bits = factor[w];
#if defined(__CUDA_ARCH__)
#pragma unroll 4
#endif
        for (int i = 0; i < 32; ++i, bits <<= 1) {
            const std::uint32_t mask = std::uint32_t{0} - (bits >> 31);
            product = {product.w0 ^ (v.w0 & mask), product.w1 ^ (v.w1 & mask), product.w2 ^ (v.w2 & mask),
                       product.w3 ^ (v.w3 & mask)};
            // v times x, reduced (OpenSSL's REDUCE1BIT).
            const std::uint32_t reduce = (std::uint32_t{0} - (v.w3 & 1)) & 0xe1000000u;
            v = {(v.w0 >> 1) ^ reduce, shift_in(v.w0, v.w1, 1), shift_in(v.w1, v.w2, 1), shift_in(v.w2, v.w3, 1)};
        }
    }
    return from_words(product);
}

// The multiples of H that multiply_by_h() reads, for `Bits`-bit pieces of x (4 or 8):
// entry[n] = n * H in GCM's bit order (OpenSSL's gcm_init_4bit, and its 8-bit analogue).
template <int Bits>
struct HashTable {
    static constexpr int kBits = Bits;
    Block128 entry[1 << Bits];
};

template <int Bits>
HashTable<Bits> make_hash_table(Block128 h) {
    constexpr int top = 1 << (Bits - 1); // the piece's first bit, x^0
    HashTable<Bits> t;
    t.entry[top] = h;
    for (int n = top / 2; n >= 1; n /= 2) t.entry[n] = times_x(t.entry[2 * n]);
    for (int high = 2; high <= top; high *= 2) {
        for (int low = 1; low < high; ++low) t.entry[high + low] = t.entry[high] ^ t.entry[low];
    }
    return t;
}

// x * H with `Table` giving t.entry(word, shift) = (the Table::kBits-bit piece of `word` at bit
// `shift`) * H as Words128 (host: a HashTable; GPU: a per-lane copy in shared memory). Shoup's
// method (OpenSSL's gcm_gmult_4bit), a piece at a time from the end of x, with the reduction
// deferred: each step moves z one piece towards the end and the bits that leave it (x^128 and
// up) collect in `spill`; after a word's worth of steps spill is full and
// x^(128+i) = x^i (1 + x + x^2 + x^7) folds it back in with six shifts. Only x's pieces pick
// table entries; nothing is looked up by z.
template <typename Table>
AESGPU_HOST_DEVICE Block128 multiply_by_h(Block128 x, const Table &t) {
    constexpr unsigned bits = Table::kBits;
    const Words128 xw = to_words(x);
    const std::uint32_t words[4] = {xw.w3, xw.w2, xw.w1, xw.w0}; // byte 15 first
    Words128 z;
    std::uint32_t spill = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int w = 0; w < 4; ++w) {
        // Within a big-endian word the last byte is lowest (and of 4-bit pieces, a byte's low one).
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (unsigned shift = 0; shift < 32; shift += bits) {
            const Words128 e = t.entry(words[w], shift);
            if (w == 0 && shift == 0) {
                z = e;
                continue;
            }
            spill = shift_in(z.w3, spill, bits);
            z = {(z.w0 >> bits) ^ e.w0, shift_in(z.w0, z.w1, bits) ^ e.w1, shift_in(z.w1, z.w2, bits) ^ e.w2,
                 shift_in(z.w2, z.w3, bits) ^ e.w3};
        }
        z.w0 ^= spill ^ (spill >> 1) ^ (spill >> 2) ^ (spill >> 7);
        z.w1 ^= (spill << 31) ^ (spill << 30) ^ (spill << 25);
        spill = 0;
    }
    return from_words(z);
}

// A HashTable read on the host.
template <int Bits>
struct HostHashTable {
    static constexpr int kBits = Bits;
    const HashTable<Bits> &table;
    Words128 entry(std::uint32_t word, unsigned shift) const {
        return to_words(table.entry[(word >> shift) & ((1u << Bits) - 1)]);
    }
};

} // namespace aesgpu::gcm
