// SPDX-License-Identifier: Apache-2.0
#pragma once
// One AES block, encrypted or decrypted with T-tables. The same code runs in the CUDA kernels
// and, compiled by the host compiler, in the CPU-side tests, so the vectors test the exact round
// logic the GPU executes.
//
// State and round keys are four little-endian column words (aes_tables.hpp); `rk` points at
// 4 * (Rounds + 1) words. `Tables` supplies two 256-entry tables indexed by byte `Byte` of a word:
//   t.template primary<Byte>(w)   encrypt: Te0[x]          decrypt: Td0[x]
//   t.template secondary<Byte>(w) encrypt: Te0[x] rotl 16  decrypt: InvS[x] (low byte)
// On the GPU both live in one shared-memory array, so an index is one byte-permute away; on the
// host they are plain arrays. The other round tables are byte rotations of these.
#include <cstdint>

#if defined(__CUDACC__)
#define AESGPU_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define AESGPU_HOST_DEVICE inline
#endif

namespace aesgpu::block {

template <int Bits>
AESGPU_HOST_DEVICE std::uint32_t rotl(std::uint32_t x) {
    return (x << Bits) | (x >> (32 - Bits));
}

struct State {
    std::uint32_t c0, c1, c2, c3;
};

// Encrypt round, output column from columns (a, b, c, d) = (c, c+1, c+2, c+3):
// Te0[a0] ^ Te1[b1] ^ Te2[c2] ^ Te3[d3], with Te1 = Te0 rotl 8, Te2 = secondary, Te3 = Te2 rotl 8.
template <typename Tables>
AESGPU_HOST_DEVICE std::uint32_t encrypt_column(const Tables &t, std::uint32_t a, std::uint32_t b, std::uint32_t c,
                                                std::uint32_t d, std::uint32_t key) {
    return t.template primary<0>(a) ^ rotl<8>(t.template primary<1>(b)) ^ t.template secondary<2>(c) ^
           rotl<8>(t.template secondary<3>(d)) ^ key;
}

// Last encrypt round: SubBytes and ShiftRows only; bytes 1 and 2 of Te0[x] hold S[x].
template <typename Tables>
AESGPU_HOST_DEVICE std::uint32_t encrypt_last_column(const Tables &t, std::uint32_t a, std::uint32_t b, std::uint32_t c,
                                                     std::uint32_t d, std::uint32_t key) {
    return ((t.template primary<0>(a) >> 8) & 0xff) ^ (t.template primary<1>(b) & 0xff00) ^
           (t.template primary<2>(c) & 0xff0000) ^ ((t.template primary<3>(d) << 8) & 0xff000000) ^ key;
}

// Decrypt round (equivalent inverse cipher), columns (a, b, c, d) = (c, c-1, c-2, c-3).
template <typename Tables>
AESGPU_HOST_DEVICE std::uint32_t decrypt_column(const Tables &t, std::uint32_t a, std::uint32_t b, std::uint32_t c,
                                                std::uint32_t d, std::uint32_t key) {
    return t.template primary<0>(a) ^ rotl<8>(t.template primary<1>(b)) ^ rotl<16>(t.template primary<2>(c)) ^
           rotl<24>(t.template primary<3>(d)) ^ key;
}

template <typename Tables>
AESGPU_HOST_DEVICE std::uint32_t decrypt_last_column(const Tables &t, std::uint32_t a, std::uint32_t b, std::uint32_t c,
                                                     std::uint32_t d, std::uint32_t key) {
    return t.template secondary<0>(a) ^ (t.template secondary<1>(b) << 8) ^ (t.template secondary<2>(c) << 16) ^
           (t.template secondary<3>(d) << 24) ^ key;
}

AESGPU_HOST_DEVICE State add_round_key(State s, const std::uint32_t *k) {
    return {s.c0 ^ k[0], s.c1 ^ k[1], s.c2 ^ k[2], s.c3 ^ k[3]};
}

// One round's four columns. Output column c reads row r from column c + r (ShiftRows) or, when
// Inverse, c - r (InvShiftRows); `column` combines those four words with round key word k[c].
template <bool Inverse, typename Column>
AESGPU_HOST_DEVICE State shifted_columns(const State &s, const std::uint32_t *k, const Column &column) {
    if constexpr (Inverse) {
        return {column(s.c0, s.c3, s.c2, s.c1, k[0]), column(s.c1, s.c0, s.c3, s.c2, k[1]),
                column(s.c2, s.c1, s.c0, s.c3, k[2]), column(s.c3, s.c2, s.c1, s.c0, k[3])};
    } else {
        return {column(s.c0, s.c1, s.c2, s.c3, k[0]), column(s.c1, s.c2, s.c3, s.c0, k[1]),
                column(s.c2, s.c3, s.c0, s.c1, k[2]), column(s.c3, s.c0, s.c1, s.c2, k[3])};
    }
}

// The cipher's skeleton: whitening key, Rounds - 1 table rounds, a last round without MixColumns.
template <int Rounds, bool Inverse, typename Column, typename LastColumn>
AESGPU_HOST_DEVICE State rounds(State s, const std::uint32_t *rk, const Column &column, const LastColumn &last) {
    s = add_round_key(s, rk);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int round = 1; round < Rounds; ++round) s = shifted_columns<Inverse>(s, rk + 4 * round, column);
    return shifted_columns<Inverse>(s, rk + 4 * Rounds, last);
}

template <int Rounds, typename Tables>
AESGPU_HOST_DEVICE State encrypt(State s, const std::uint32_t *rk, const Tables &t) {
    return rounds<Rounds, false>(
        s, rk, [&t](auto... words) { return encrypt_column(t, words...); },
        [&t](auto... words) { return encrypt_last_column(t, words...); });
}

// `rk` is the decryption schedule (key_schedule.hpp).
template <int Rounds, typename Tables>
AESGPU_HOST_DEVICE State decrypt(State s, const std::uint32_t *rk, const Tables &t) {
    return rounds<Rounds, true>(
        s, rk, [&t](auto... words) { return decrypt_column(t, words...); },
        [&t](auto... words) { return decrypt_last_column(t, words...); });
}

AESGPU_HOST_DEVICE std::uint32_t byte_swap(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
    return __byte_perm(x, 0, 0x0123);
#else
    return __builtin_bswap32(x);
#endif
}

// Eight bytes as a big-endian number: CTR's IV is passed to the kernel as two of these.
AESGPU_HOST_DEVICE std::uint64_t big_endian_u64(const std::uint8_t *bytes) {
    std::uint64_t number = 0;
    for (int i = 0; i < 8; ++i) number = number << 8 | bytes[i];
    return number;
}

// CTR's counter block for stream block `n`: the 128-bit big-endian number high:low plus n (mod
// 2^128, carrying across all 16 bytes as OpenSSL does), as the four little-endian column words of
// a State.
AESGPU_HOST_DEVICE State counter_block(std::uint64_t high, std::uint64_t low, std::uint64_t n) {
    const std::uint64_t sum_low = low + n;
    const std::uint64_t sum_high = high + (sum_low < low ? 1 : 0);
    return {byte_swap(static_cast<std::uint32_t>(sum_high >> 32)), byte_swap(static_cast<std::uint32_t>(sum_high)),
            byte_swap(static_cast<std::uint32_t>(sum_low >> 32)), byte_swap(static_cast<std::uint32_t>(sum_low))};
}

} // namespace aesgpu::block
