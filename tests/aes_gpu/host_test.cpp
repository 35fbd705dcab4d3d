// SPDX-License-Identifier: Apache-2.0
// The GPU's round logic and key schedule, run on the host (no GPU needed): the same
// __host__ __device__ code the kernels execute, checked against FIPS-197 and SP 800-38A.
#include "aes_gpu/aes_tables.hpp"
#include "aes_gpu/kernels/aes_block.cuh"
#include "aes_gpu/kernels/gcm_block.cuh"
#include "aes_gpu/key_schedule.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include <cstring>
#include <openssl/evp.h>

namespace aesgpu::test {
namespace {

block::State load(const std::uint8_t *bytes) {
    std::uint32_t w[4];
    std::memcpy(w, bytes, 16); // little-endian columns, as the GPU loads them
    return {w[0], w[1], w[2], w[3]};
}

void store(const block::State &s, std::uint8_t *bytes) {
    const std::uint32_t w[4] = {s.c0, s.c1, s.c2, s.c3};
    std::memcpy(bytes, w, 16);
}

// The host's view of the two tables aes_block.cuh reads (the GPU keeps them in shared memory).
template <const std::array<std::uint32_t, 256> &Primary, typename Secondary>
struct HostTables {
    const Secondary &secondary_table;
    template <int Byte>
    std::uint32_t primary(std::uint32_t w) const {
        return Primary[(w >> (8 * Byte)) & 0xff];
    }
    template <int Byte>
    std::uint32_t secondary(std::uint32_t w) const {
        return secondary_table[(w >> (8 * Byte)) & 0xff];
    }
};
using HostEncryptTables = HostTables<tables::kTe0, std::array<std::uint32_t, 256>>;
using HostDecryptTables = HostTables<tables::kTd0, std::array<std::uint8_t, 256>>;

template <int Rounds>
block::State run_rounds(Direction direction, block::State s, const RoundKeys &keys) {
    return direction == Direction::encrypt
               ? block::encrypt<Rounds>(s, keys->words, HostEncryptTables{tables::kTe2})
               : block::decrypt<Rounds>(s, keys->words, HostDecryptTables{tables::kInverseSbox});
}

Bytes host_ecb(const Bytes &key, Direction direction, const Bytes &in) {
    const RoundKeys keys = direction == Direction::encrypt ? expand_encryption_key(key) : expand_decryption_key(key);
    Bytes out(in.size());
    for (std::size_t offset = 0; offset < in.size(); offset += 16) {
        const block::State s = load(in.data() + offset);
        const block::State r = keys->rounds == 10   ? run_rounds<10>(direction, s, keys)
                               : keys->rounds == 12 ? run_rounds<12>(direction, s, keys)
                                                    : run_rounds<14>(direction, s, keys);
        store(r, out.data() + offset);
    }
    return out;
}

// CTR as the kernel computes it: counter block `first_block + i` from the IV's two halves,
// encrypted, XORed into block i (a partial last block takes the keystream's first bytes).
Bytes host_ctr(const Bytes &key, const CounterBlock &iv, const Bytes &in, std::uint64_t first_block = 0) {
    const RoundKeys keys = expand_encryption_key(key);
    const std::uint64_t high = block::big_endian_u64(iv.data());
    const std::uint64_t low = block::big_endian_u64(iv.data() + 8);
    Bytes out(in.size());
    for (std::size_t offset = 0; offset < in.size(); offset += 16) {
        const block::State counter = block::counter_block(high, low, first_block + offset / 16);
        std::uint8_t keystream[16];
        store(keys->rounds == 10   ? run_rounds<10>(Direction::encrypt, counter, keys)
              : keys->rounds == 12 ? run_rounds<12>(Direction::encrypt, counter, keys)
                                   : run_rounds<14>(Direction::encrypt, counter, keys),
              keystream);
        for (std::size_t i = offset; i < std::min(in.size(), offset + 16); ++i) out[i] = in[i] ^ keystream[i - offset];
    }
    return out;
}

TEST(KeySchedule, MatchesFips197AppendixA) {
    const auto records = load_records("fips197_appendix_a_key_expansion.txt");
    ASSERT_EQ(records.size(), 3u);
    for (const auto &record : records) {
        const Bytes &key = record.at("KEY");
        const Bytes &words = record.at("WORDS");
        SCOPED_TRACE("key bits " + std::to_string(key.size() * 8));
        const RoundKeys keys = expand_encryption_key(key);
        EXPECT_EQ(keys->rounds, static_cast<int>(key.size() / 4 + 6));
        ASSERT_EQ(words.size(), 16u * static_cast<std::size_t>(keys->rounds + 1));
        for (std::size_t i = 0; i < words.size() / 4; ++i) {
            const std::uint32_t expected = std::uint32_t{words[4 * i]} << 24 | std::uint32_t{words[4 * i + 1]} << 16 |
                                           std::uint32_t{words[4 * i + 2]} << 8 | words[4 * i + 3];
            EXPECT_EQ(fips_word(keys->words[i]), expected) << "w[" << i << "]";
        }
    }
}

TEST(KeySchedule, DecryptionScheduleReversesTheEncryptionOne) {
    const Bytes key = random_bytes(32);
    const RoundKeys encryption = expand_encryption_key(key);
    const RoundKeys decryption = expand_decryption_key(key);
    ASSERT_EQ(decryption->rounds, 14);
    for (int column = 0; column < 4; ++column) {
        EXPECT_EQ(decryption->words[column], encryption->words[4 * 14 + column]);
        EXPECT_EQ(decryption->words[4 * 14 + column], encryption->words[column]);
    }
}

TEST(KeySchedule, RejectsBadKeyLengthsAndWipes) {
    for (const std::size_t bytes : {0u, 8u, 15u, 17u, 33u}) {
        EXPECT_THROW((void)expand_encryption_key(Bytes(bytes, 1)), std::invalid_argument) << bytes;
    }
    RoundKeys keys = expand_encryption_key(random_bytes(16));
    keys.wipe();
    for (const std::uint32_t word : keys->words) EXPECT_EQ(word, 0u);
}

TEST(GpuRoundLogicOnHost, KnownAnswersBothDirections) {
    for (const auto &answer : all_known_answers()) {
        SCOPED_TRACE(answer.name);
        EXPECT_EQ(to_hex(host_ecb(answer.key, Direction::encrypt, answer.plaintext)), to_hex(answer.ciphertext));
        EXPECT_EQ(to_hex(host_ecb(answer.key, Direction::decrypt, answer.ciphertext)), to_hex(answer.plaintext));
    }
}

TEST(GpuRoundLogicOnHost, MatchesOpenSslOnRandomBlocks) {
    for (const std::size_t key_bytes : {16u, 24u, 32u}) {
        const Bytes key = random_bytes(key_bytes);
        const Bytes plain = random_bytes(16 * 1000);
        Bytes expected;
        ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, false, plain, expected));
        EXPECT_TRUE(host_ecb(key, Direction::encrypt, plain) == expected) << key_bytes;
        EXPECT_TRUE(host_ecb(key, Direction::decrypt, expected) == plain) << key_bytes;
    }
}

TEST(GpuCtrLogicOnHost, KnownAnswers) {
    for (const auto &[answer, iv] : ctr_known_answers()) {
        SCOPED_TRACE(answer.name);
        EXPECT_EQ(to_hex(host_ctr(answer.key, iv, answer.plaintext)), to_hex(answer.ciphertext));
        EXPECT_EQ(to_hex(host_ctr(answer.key, iv, answer.ciphertext)), to_hex(answer.plaintext));
    }
}

TEST(GpuCtrLogicOnHost, CounterBlocksCarryLikeOpenSsl) {
    for (const CounterBlock &iv : carrying_ivs()) {
        const std::uint64_t high = block::big_endian_u64(iv.data());
        const std::uint64_t low = block::big_endian_u64(iv.data() + 8);
        for (const std::uint64_t n : {0ull, 1ull, 2ull, 3ull, 4ull, 0xffffffffull, 0x123456789abcdefull}) {
            std::uint8_t bytes[16];
            store(block::counter_block(high, low, n), bytes);
            const CounterBlock expected = advance_counter(iv, n);
            EXPECT_EQ(to_hex(Bytes(bytes, bytes + 16)), to_hex(Bytes(expected.begin(), expected.end()))) << n;
        }
    }
}

TEST(GpuCtrLogicOnHost, MatchesOpenSslAcrossCarriesAndOffsets) {
    for (const std::size_t key_bytes : {16u, 24u, 32u}) {
        const Bytes key = random_bytes(key_bytes);
        for (const CounterBlock &iv : carrying_ivs()) {
            const Bytes plain = random_bytes(16 * 9 + 5);
            const Bytes expected = openssl_ctr(key, iv, plain);
            EXPECT_TRUE(host_ctr(key, iv, plain) == expected) << key_bytes;
            // A job that starts 3 blocks into the stream continues the same keystream.
            const Bytes tail(plain.begin() + 48, plain.end());
            EXPECT_TRUE(host_ctr(key, iv, tail, 3) == Bytes(expected.begin() + 48, expected.end())) << key_bytes;
        }
    }
}

block::State encrypt_block(const RoundKeys &keys, block::State s) {
    return keys->rounds == 10   ? run_rounds<10>(Direction::encrypt, s, keys)
           : keys->rounds == 12 ? run_rounds<12>(Direction::encrypt, s, keys)
                                : run_rounds<14>(Direction::encrypt, s, keys);
}

// One GCM segment (no associated data) the way the GPU kernels compute it: counter blocks
// nonce || i + 2, GHASH in runs of `run` blocks counted from the end, each run by Horner's rule
// with H's table of `Bits`-bit pieces and then multiplied by H^(j * run + 1), E(J0) and the
// length block last.
template <int Bits>
Bytes gpu_style_gcm(const Bytes &key, const Bytes &nonce, const Bytes &plain, std::size_t run) {
    const RoundKeys keys = expand_encryption_key(key);
    const gcm::Block128 h = gcm::from_state(encrypt_block(keys, block::State{0, 0, 0, 0}));
    const gcm::HashTable<Bits> table = gcm::make_hash_table<Bits>(h);
    const gcm::HostHashTable<Bits> t{table};
    const auto counter = [&](std::uint32_t i) {
        std::uint8_t bytes[16];
        std::copy(nonce.begin(), nonce.end(), bytes);
        for (int k = 0; k < 4; ++k) bytes[12 + k] = static_cast<std::uint8_t>(i >> (24 - 8 * k));
        return encrypt_block(keys, load(bytes));
    };
    const std::size_t blocks = (plain.size() + 15) / 16;
    Bytes out(plain.size() + 16);
    gcm::Block128 sum;
    for (std::size_t j = 0; j * run < blocks; ++j) {
        const std::size_t end = blocks - j * run;
        const std::size_t start = end > run ? end - run : 0;
        gcm::Block128 y;
        for (std::size_t i = start; i < end; ++i) {
            std::uint8_t keystream[16];
            store(counter(static_cast<std::uint32_t>(i + 2)), keystream);
            std::uint8_t c[16] = {};
            for (std::size_t b = 0; b < 16 && 16 * i + b < plain.size(); ++b) {
                c[b] = plain[16 * i + b] ^ keystream[b];
                out[16 * i + b] = c[b];
            }
            y = gcm::multiply_by_h(y ^ gcm::from_state(load(c)), t);
        }
        gcm::Block128 power = h; // H^(j * run + 1)
        for (std::size_t k = 0; k < j * run; ++k) power = gcm::multiply(power, h);
        sum = sum ^ gcm::multiply(y, power);
    }
    const gcm::Block128 lengths{0, std::uint64_t{plain.size()} * 8};
    const gcm::Block128 tag = sum ^ gcm::multiply_by_h(lengths, t) ^ gcm::from_state(counter(1));
    store(gcm::to_state(tag), out.data() + plain.size());
    return out;
}

Bytes openssl_gcm(const Bytes &key, const Bytes &nonce, const Bytes &plain) {
    const EVP_CIPHER *cipher = key.size() == 16   ? EVP_aes_128_gcm()
                               : key.size() == 24 ? EVP_aes_192_gcm()
                                                  : EVP_aes_256_gcm();
    std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    Bytes out(plain.size() + 16);
    int written = 0;
    int final_written = 0;
    EXPECT_EQ(EVP_EncryptInit_ex(ctx.get(), cipher, nullptr, key.data(), nonce.data()), 1);
    EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), out.data(), &written, plain.data(), static_cast<int>(plain.size())), 1);
    EXPECT_EQ(EVP_EncryptFinal_ex(ctx.get(), out.data() + written, &final_written), 1);
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, 16, out.data() + plain.size()), 1);
    return out;
}

template <int Bits>
void expect_table_multiplication_matches_bitwise() {
    for (int round = 0; round < 200; ++round) {
        const Bytes a = random_bytes(16);
        const Bytes b = random_bytes(16);
        gcm::Block128 x = gcm::from_state(load(a.data()));
        if (round == 0) x = {~std::uint64_t{0}, ~std::uint64_t{0}}; // every spill bit set
        const gcm::Block128 h = gcm::from_state(load(b.data()));
        const gcm::HashTable<Bits> table = gcm::make_hash_table<Bits>(h);
        const gcm::Block128 by_table = gcm::multiply_by_h(x, gcm::HostHashTable<Bits>{table});
        const gcm::Block128 by_bits = gcm::multiply(x, h);
        EXPECT_EQ(by_table.hi, by_bits.hi) << Bits;
        EXPECT_EQ(by_table.lo, by_bits.lo) << Bits;
    }
}

TEST(GpuGcmLogicOnHost, TableAndBitwiseMultiplicationsAgree) {
    expect_table_multiplication_matches_bitwise<4>();
    expect_table_multiplication_matches_bitwise<8>();
}

TEST(GpuGcmLogicOnHost, SegmentsMatchOpenSslAesGcm) {
    for (const std::size_t key_bytes : {16u, 32u}) {
        for (const std::size_t size : {0u, 1u, 15u, 16u, 17u, 100u, 1000u, 4080u}) {
            for (const std::size_t run : {1u, 4u, 16u}) {
                const Bytes key = random_bytes(key_bytes);
                const Bytes nonce = random_bytes(12);
                const Bytes plain = random_bytes(size);
                const std::string expected = to_hex(openssl_gcm(key, nonce, plain));
                EXPECT_EQ(to_hex(gpu_style_gcm<4>(key, nonce, plain, run)), expected) << key_bytes << " " << size;
                EXPECT_EQ(to_hex(gpu_style_gcm<8>(key, nonce, plain, run)), expected) << key_bytes << " " << size;
            }
        }
    }
}

TEST(AesTables, TablesAgreeWithTheSbox) {
    for (unsigned x = 0; x < 256; ++x) {
        EXPECT_EQ((tables::kTe0[x] >> 8) & 0xff, tables::kSbox[x]);
        EXPECT_EQ((tables::kTe0[x] >> 16) & 0xff, tables::kSbox[x]);
        EXPECT_EQ(tables::kInverseSbox[tables::kSbox[x]], x);
        EXPECT_EQ(tables::kTe2[x], block::rotl<16>(tables::kTe0[x]));
    }
}

} // namespace
} // namespace aesgpu::test
