#pragma once
// One AES block, encrypted or decrypted with a single 256-entry round table. The same code runs in
// the CUDA kernels and, compiled by the host compiler, in the CPU-side tests, so the vectors test
// the exact round logic the GPU executes.
//
// State and round keys are four little-endian column words (aes_tables.hpp). `Table` is anything
// callable as table(index) -> uint32_t: a plain array on the host, a bank-replicated shared-memory
// table on the GPU. `rk` points at 4 * (Rounds + 1) words.
#include <cstdint>

#if defined(__CUDACC__)
#define AESGPU_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define AESGPU_HOST_DEVICE inline
#endif

namespace aesgpu::block {

template <int Bits> AESGPU_HOST_DEVICE std::uint32_t rotl(std::uint32_t x) {
    return (x << Bits) | (x >> (32 - Bits));
}

AESGPU_HOST_DEVICE std::uint32_t byte0(std::uint32_t x) {
    return x & 0xff;
}
AESGPU_HOST_DEVICE std::uint32_t byte1(std::uint32_t x) {
    return (x >> 8) & 0xff;
}
AESGPU_HOST_DEVICE std::uint32_t byte2(std::uint32_t x) {
    return (x >> 16) & 0xff;
}
AESGPU_HOST_DEVICE std::uint32_t byte3(std::uint32_t x) {
    return x >> 24;
}

struct State {
    std::uint32_t c0, c1, c2, c3;
};

// A table round: row r of output column c comes from column c + r (encrypt, ShiftRows) or c - r
// (decrypt, InvShiftRows); the four table lookups per column are T0 rotated by the row.
template <typename Table>
AESGPU_HOST_DEVICE std::uint32_t mix(const Table &t, std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d,
                                     std::uint32_t round_key) {
    return t(byte0(a)) ^ rotl<8>(t(byte1(b))) ^ rotl<16>(t(byte2(c))) ^ rotl<24>(t(byte3(d))) ^ round_key;
}

template <int Rounds, typename Table>
AESGPU_HOST_DEVICE State encrypt(State s, const std::uint32_t *rk, const Table &te0) {
    s.c0 ^= rk[0];
    s.c1 ^= rk[1];
    s.c2 ^= rk[2];
    s.c3 ^= rk[3];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int round = 1; round < Rounds; ++round) {
        const std::uint32_t *k = rk + 4 * round;
        s = State{mix(te0, s.c0, s.c1, s.c2, s.c3, k[0]), mix(te0, s.c1, s.c2, s.c3, s.c0, k[1]),
                  mix(te0, s.c2, s.c3, s.c0, s.c1, k[2]), mix(te0, s.c3, s.c0, s.c1, s.c2, k[3])};
    }
    // Last round: SubBytes and ShiftRows only. Bytes 1 and 2 of Te0[x] hold S[x].
    const std::uint32_t *k = rk + 4 * Rounds;
    auto last = [&](std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d, std::uint32_t key) {
        return ((te0(byte0(a)) >> 8) & 0xff) ^ (te0(byte1(b)) & 0xff00) ^ (te0(byte2(c)) & 0xff0000) ^
               ((te0(byte3(d)) << 8) & 0xff000000) ^ key;
    };
    return State{last(s.c0, s.c1, s.c2, s.c3, k[0]), last(s.c1, s.c2, s.c3, s.c0, k[1]),
                 last(s.c2, s.c3, s.c0, s.c1, k[2]), last(s.c3, s.c0, s.c1, s.c2, k[3])};
}

// Equivalent inverse cipher: `rk` is the decryption schedule (key_schedule.hpp), `td0` the Td0
// table and `inverse_sbox` the inverse S-box (one byte per entry, in the low byte).
template <int Rounds, typename Table, typename Sbox>
AESGPU_HOST_DEVICE State decrypt(State s, const std::uint32_t *rk, const Table &td0, const Sbox &inverse_sbox) {
    s.c0 ^= rk[0];
    s.c1 ^= rk[1];
    s.c2 ^= rk[2];
    s.c3 ^= rk[3];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int round = 1; round < Rounds; ++round) {
        const std::uint32_t *k = rk + 4 * round;
        s = State{mix(td0, s.c0, s.c3, s.c2, s.c1, k[0]), mix(td0, s.c1, s.c0, s.c3, s.c2, k[1]),
                  mix(td0, s.c2, s.c1, s.c0, s.c3, k[2]), mix(td0, s.c3, s.c2, s.c1, s.c0, k[3])};
    }
    const std::uint32_t *k = rk + 4 * Rounds;
    auto last = [&](std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d, std::uint32_t key) {
        return inverse_sbox(byte0(a)) ^ (inverse_sbox(byte1(b)) << 8) ^ (inverse_sbox(byte2(c)) << 16) ^
               (inverse_sbox(byte3(d)) << 24) ^ key;
    };
    return State{last(s.c0, s.c3, s.c2, s.c1, k[0]), last(s.c1, s.c0, s.c3, s.c2, k[1]),
                 last(s.c2, s.c1, s.c0, s.c3, k[2]), last(s.c3, s.c2, s.c1, s.c0, k[3])};
}

} // namespace aesgpu::block
