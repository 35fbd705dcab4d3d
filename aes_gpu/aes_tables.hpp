// SPDX-License-Identifier: Apache-2.0
#pragma once
// AES lookup tables, computed at compile time from the field arithmetic (nothing typed in by hand).
//
// Words are little-endian columns: byte r of a word is row r of the AES state, exactly as a
// 16-byte block loads into four 32-bit words on x86 and on the GPU, so no byte swapping is needed.
// The other round tables are byte rotations of Te0 and Td0.
#include <array>
#include <cstdint>

namespace aesgpu::tables {

constexpr std::uint8_t xtime(std::uint8_t x) {
    return static_cast<std::uint8_t>((x << 1) ^ ((x & 0x80) ? 0x1b : 0));
}

// Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1.
constexpr std::uint8_t gf_mul(std::uint8_t a, std::uint8_t b) {
    std::uint8_t product = 0;
    for (; b != 0; b >>= 1, a = xtime(a)) {
        if (b & 1) product ^= a;
    }
    return product;
}

constexpr std::uint8_t gf_inverse(std::uint8_t x) {
    if (x == 0) return 0;
    for (unsigned candidate = 1; candidate < 256; ++candidate) {
        if (gf_mul(x, static_cast<std::uint8_t>(candidate)) == 1) return static_cast<std::uint8_t>(candidate);
    }
    return 0;
}

constexpr std::uint8_t rotl8(std::uint8_t x, int n) {
    return static_cast<std::uint8_t>((x << n) | (x >> (8 - n)));
}

constexpr std::array<std::uint8_t, 256> make_sbox() {
    std::array<std::uint8_t, 256> sbox{};
    for (unsigned x = 0; x < 256; ++x) {
        const std::uint8_t b = gf_inverse(static_cast<std::uint8_t>(x));
        sbox[x] = static_cast<std::uint8_t>(b ^ rotl8(b, 1) ^ rotl8(b, 2) ^ rotl8(b, 3) ^ rotl8(b, 4) ^ 0x63);
    }
    return sbox;
}

inline constexpr std::array<std::uint8_t, 256> kSbox = make_sbox();

constexpr std::array<std::uint8_t, 256> make_inverse_sbox() {
    std::array<std::uint8_t, 256> inverse{};
    for (unsigned x = 0; x < 256; ++x) inverse[kSbox[x]] = static_cast<std::uint8_t>(x);
    return inverse;
}

inline constexpr std::array<std::uint8_t, 256> kInverseSbox = make_inverse_sbox();

constexpr std::uint32_t pack(std::uint8_t row0, std::uint8_t row1, std::uint8_t row2, std::uint8_t row3) {
    return std::uint32_t{row0} | std::uint32_t{row1} << 8 | std::uint32_t{row2} << 16 | std::uint32_t{row3} << 24;
}

// Te0[x]: SubBytes then the MixColumns column of an input byte x in row 0: (2s, s, s, 3s).
// Rows 1..3 use Te0 rotated left by 8, 16, 24 bits. Bytes 1 and 2 of Te0[x] are S[x], which the
// last round reads instead of a separate S-box table.
constexpr std::array<std::uint32_t, 256> make_te0() {
    std::array<std::uint32_t, 256> table{};
    for (unsigned x = 0; x < 256; ++x) {
        const std::uint8_t s = kSbox[x];
        table[x] = pack(gf_mul(s, 2), s, s, gf_mul(s, 3));
    }
    return table;
}

// Td0[x]: InvSubBytes then the InvMixColumns column of byte x in row 0: (14i, 9i, 13i, 11i).
constexpr std::array<std::uint32_t, 256> make_td0() {
    std::array<std::uint32_t, 256> table{};
    for (unsigned x = 0; x < 256; ++x) {
        const std::uint8_t i = kInverseSbox[x];
        table[x] = pack(gf_mul(i, 14), gf_mul(i, 9), gf_mul(i, 13), gf_mul(i, 11));
    }
    return table;
}

inline constexpr std::array<std::uint32_t, 256> kTe0 = make_te0();
inline constexpr std::array<std::uint32_t, 256> kTd0 = make_td0();

// Te2 = Te0 rotated left by 16 bits: the table for row 2, stored so that two of the three
// rotations per column disappear (Te3 is Te2 rotated by 8).
constexpr std::array<std::uint32_t, 256> make_te2() {
    std::array<std::uint32_t, 256> table{};
    for (unsigned x = 0; x < 256; ++x) table[x] = kTe0[x] << 16 | kTe0[x] >> 16;
    return table;
}

inline constexpr std::array<std::uint32_t, 256> kTe2 = make_te2();

// Spot checks against FIPS-197 Figure 7 and Figure 14, so a wrong generator fails to compile.
static_assert(kSbox[0x00] == 0x63 && kSbox[0x53] == 0xed && kSbox[0xff] == 0x16);
static_assert(kInverseSbox[0x00] == 0x52 && kInverseSbox[0xed] == 0x53 && kInverseSbox[0xff] == 0x7d);

} // namespace aesgpu::tables
