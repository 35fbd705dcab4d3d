// SPDX-License-Identifier: Apache-2.0
#include "aes_gpu/key_schedule.hpp"

#include "aes_gpu/aes_tables.hpp"

#include <stdexcept>

namespace aesgpu {

namespace {

std::uint32_t sub_word(std::uint32_t w) {
    using tables::kSbox;
    return tables::pack(kSbox[w & 0xff], kSbox[(w >> 8) & 0xff], kSbox[(w >> 16) & 0xff], kSbox[w >> 24]);
}

// RotWord in column-word order: (a0, a1, a2, a3) -> (a1, a2, a3, a0).
std::uint32_t rot_word(std::uint32_t w) {
    return (w >> 8) | (w << 24);
}

std::uint32_t inverse_mix_column(std::uint32_t w) {
    using tables::gf_mul;
    const auto a0 = static_cast<std::uint8_t>(w), a1 = static_cast<std::uint8_t>(w >> 8),
               a2 = static_cast<std::uint8_t>(w >> 16), a3 = static_cast<std::uint8_t>(w >> 24);
    return tables::pack(gf_mul(a0, 14) ^ gf_mul(a1, 11) ^ gf_mul(a2, 13) ^ gf_mul(a3, 9),
                        gf_mul(a0, 9) ^ gf_mul(a1, 14) ^ gf_mul(a2, 11) ^ gf_mul(a3, 13),
                        gf_mul(a0, 13) ^ gf_mul(a1, 9) ^ gf_mul(a2, 14) ^ gf_mul(a3, 11),
                        gf_mul(a0, 11) ^ gf_mul(a1, 13) ^ gf_mul(a2, 9) ^ gf_mul(a3, 14));
}

} // namespace

RoundKeys expand_encryption_key(std::span<const std::uint8_t> key) {
    if (key.size() != 16 && key.size() != 24 && key.size() != 32) {
        throw std::invalid_argument("an AES key is 16, 24 or 32 bytes");
    }
    const int nk = static_cast<int>(key.size() / 4);
    RoundKeys schedule;
    schedule->rounds = nk + 6;
    const int total = 4 * (schedule->rounds + 1);
    for (int i = 0; i < nk; ++i) {
        schedule->words[i] = tables::pack(key[4 * i], key[4 * i + 1], key[4 * i + 2], key[4 * i + 3]);
    }
    std::uint8_t round_constant = 1;
    for (int i = nk; i < total; ++i) {
        std::uint32_t temp = schedule->words[i - 1];
        if (i % nk == 0) {
            temp = sub_word(rot_word(temp)) ^ round_constant;
            round_constant = tables::xtime(round_constant);
        } else if (nk > 6 && i % nk == 4) {
            temp = sub_word(temp);
        }
        schedule->words[i] = schedule->words[i - nk] ^ temp;
    }
    return schedule;
}

RoundKeys expand_decryption_key(std::span<const std::uint8_t> key) {
    RoundKeys encryption = expand_encryption_key(key);
    RoundKeys decryption;
    decryption->rounds = encryption->rounds;
    const int rounds = encryption->rounds;
    for (int round = 0; round <= rounds; ++round) {
        for (int column = 0; column < 4; ++column) {
            const std::uint32_t word = encryption->words[4 * (rounds - round) + column];
            const bool outer = round == 0 || round == rounds;
            decryption->words[4 * round + column] = outer ? word : inverse_mix_column(word);
        }
    }
    return decryption;
}

} // namespace aesgpu
