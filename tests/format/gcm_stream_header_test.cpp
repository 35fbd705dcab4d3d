// SPDX-License-Identifier: Apache-2.0
// The key material of --mode gcm: Tink's stream header, the HKDF-SHA256 segment key, aesgpu's
// passphrase header and its scrypt main key.
#include "common/errors.hpp"
#include "format/gcm_stream_header.hpp"
#include "format/tink_gcm.hpp"
#include "keys/hkdf.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <utility>

namespace aesgpu::test {
namespace {

Bytes bytes_of(std::span<const std::byte> bytes) {
    const auto *data = reinterpret_cast<const std::uint8_t *>(bytes.data());
    return Bytes(data, data + bytes.size());
}

std::vector<std::byte> as_bytes_vector(const Bytes &bytes) {
    std::vector<std::byte> out(bytes.size());
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
}

TEST(StreamHeader, IsTinksLayoutAndReadsBack) {
    for (const std::size_t key_bytes : {16u, 32u}) {
        const StreamHeader header = new_stream_header(key_bytes);
        const std::vector<std::byte> bytes = header.bytes();
        ASSERT_EQ(bytes.size(), 1 + key_bytes + 7);
        EXPECT_EQ(std::to_integer<std::size_t>(bytes[0]), bytes.size());
        const StreamHeader back = parse_stream_header(bytes, key_bytes);
        EXPECT_EQ(back.salt, header.salt);
        EXPECT_EQ(back.nonce_prefix, header.nonce_prefix);
        EXPECT_NE(new_stream_header(key_bytes).salt, header.salt) << "fresh randomness per stream";
    }
    // The first byte is the header's length: a header for the other key size, or cut short, fails.
    const std::vector<std::byte> header128 = new_stream_header(16).bytes();
    EXPECT_THROW((void)parse_stream_header(header128, 32), FormatError);
    EXPECT_THROW((void)parse_stream_header(std::span(header128).first(10), 16), FormatError);
    EXPECT_THROW((void)new_stream_header(24), std::invalid_argument);
}

TEST(StreamHeader, SegmentKeyIsHkdfSha256OfTheMainKeySaltAndAssociatedData) {
    // RFC 5869 A.1: IKM 22 x 0x0b, salt 000102...0c, info f0...f9; the key is as long as the IKM.
    StreamHeader header;
    header.salt = from_hex("000102030405060708090a0b0c");
    const Bytes ikm(22, 0x0b);
    const Bytes info = from_hex("f0f1f2f3f4f5f6f7f8f9");
    const SecretBytes rfc = derive_segment_key(ikm, header, info);
    EXPECT_EQ(to_hex(Bytes(rfc.view().begin(), rfc.view().end())), "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a");
    // And for a real stream, what OpenSSL's other HKDF interface gives.
    const Bytes main_key = random_bytes(32);
    header = new_stream_header(32);
    const SecretBytes key = derive_segment_key(main_key, header, info);
    EXPECT_EQ(to_hex(Bytes(key.view().begin(), key.view().end())),
              to_hex(hkdf("SHA256", main_key, header.salt, info, 32)));
}

// RFC 5869 A.1-A.3 (SHA-256): an output of several blocks, long inputs, no salt and no info.
TEST(Hkdf, GivesRfc5869sVectors) {
    const auto okm = [](const Bytes &ikm, const Bytes &salt, const Bytes &info, std::size_t length) {
        Bytes out(length);
        hkdf_sha256(ikm, salt, info, out);
        return to_hex(out);
    };
    const auto run = [](std::uint8_t from, std::size_t count) {
        Bytes bytes(count);
        for (std::size_t i = 0; i < count; ++i) bytes[i] = static_cast<std::uint8_t>(from + i);
        return bytes;
    };
    EXPECT_EQ(okm(Bytes(22, 0x0b), run(0, 13), run(0xf0, 10), 42),
              "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
    EXPECT_EQ(okm(run(0, 80), run(0x60, 80), run(0xb0, 80), 82),
              "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275"
              "600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87");
    EXPECT_EQ(okm(Bytes(22, 0x0b), {}, {}, 42),
              "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8");
}

// Tink takes any associated data as HKDF's info; OpenSSL's own HKDF stops at 32 KiB. Up to there
// the two agree; beyond it, HMAC by hand (RFC 5869's two steps with the one-shot HMAC()) is the
// reference.
TEST(Hkdf, TakesInfoOfAnyLength) {
    const Bytes key = random_bytes(32);
    const Bytes salt = random_bytes(32);
    for (const std::size_t length : {std::size_t{0}, std::size_t{1}, std::size_t{32768}, std::size_t{32769},
                                     std::size_t{1} << 20}) {
        SCOPED_TRACE(length);
        const Bytes info = random_bytes(length);
        Bytes ours(32);
        hkdf_sha256(key, salt, info, ours);
        Bytes prk(32);
        unsigned prk_length = 0;
        ASSERT_NE(HMAC(EVP_sha256(), salt.data(), static_cast<int>(salt.size()), key.data(), key.size(), prk.data(),
                       &prk_length),
                  nullptr);
        Bytes expand_input = info;
        expand_input.push_back(1);
        Bytes reference(32);
        unsigned reference_length = 0;
        ASSERT_NE(HMAC(EVP_sha256(), prk.data(), static_cast<int>(prk.size()), expand_input.data(), expand_input.size(),
                       reference.data(), &reference_length),
                  nullptr);
        EXPECT_EQ(to_hex(ours), to_hex(reference));
        if (length <= 32768) {
            EXPECT_EQ(to_hex(ours), to_hex(hkdf("SHA256", key, salt, info, 32)));
        }
        StreamHeader header;
        header.salt = salt;
        const SecretBytes segment_key = derive_segment_key(key, header, info);
        EXPECT_EQ(to_hex(Bytes(segment_key.view().begin(), segment_key.view().end())), to_hex(reference));
    }
}

TEST(PassphraseHeader, ReadsBackAndRefusesWhatItDoesNotKnow) {
    const PassphraseHeader header = new_passphrase_header(32, 4096);
    const auto bytes = header.bytes();
    EXPECT_EQ(std::string(reinterpret_cast<const char *>(bytes.data()), 6), "AESGPU");
    const PassphraseHeader back = parse_passphrase_header(bytes);
    EXPECT_EQ(back.salt, header.salt);
    EXPECT_EQ(back.segment_bytes, 4096u);
    EXPECT_EQ(back.key_bytes, 32u);
    EXPECT_EQ(back.cost.log2_n, 16u);
    EXPECT_TRUE(starts_with_passphrase_magic(bytes));
    const struct {
        std::size_t at;
        std::uint8_t value;
    } damage[] = {{0, 'a'}, {6, 2}, {7, 9}, {8, 30}, {8, 5}, {9, 0}, {10, 0}, {11, 24}, {12, 0}};
    for (const auto &[at, value] : damage) {
        Bytes changed = bytes_of(bytes);
        changed[at] = value;
        changed[13] = at == 12 ? 0 : changed[13];
        changed[14] = at == 12 ? 0 : changed[14];
        changed[15] = at == 12 ? 40 : changed[15]; // segment size 40: no room for data
        EXPECT_THROW((void)parse_passphrase_header(as_bytes_vector(changed)), FormatError) << at;
    }
    EXPECT_THROW((void)parse_passphrase_header(std::span(bytes).first(31)), FormatError);
}

// Nothing authenticates the header before the stream after it, so a forged one must not make
// the reader spend without bound: segments above 64 MiB, scrypt above 1 GiB or 2^23 work.
TEST(PassphraseHeader, BoundsWhatAForgedHeaderCanCost) {
    const Bytes good = bytes_of(new_passphrase_header(32, 4096).bytes());
    const auto with = [&good](std::initializer_list<std::pair<std::size_t, std::uint8_t>> changes) {
        Bytes changed = good;
        for (const auto &[at, value] : changes) changed[at] = value;
        return as_bytes_vector(changed);
    };
    EXPECT_THROW((void)parse_passphrase_header(with({{12, 0xff}, {13, 0xff}, {14, 0xff}, {15, 0xf0}})), FormatError);
    EXPECT_THROW((void)parse_passphrase_header(with({{12, 0x04}, {13, 0}, {14, 0}, {15, 1}})),
                 FormatError);                                                                     // 64 MiB + 1
    EXPECT_NO_THROW((void)parse_passphrase_header(with({{12, 0x04}, {13, 0}, {14, 0}, {15, 0}}))); // 64 MiB
    EXPECT_THROW((void)parse_passphrase_header(with({{8, 21}})), FormatError);                     // N = 2^21
    EXPECT_THROW((void)parse_passphrase_header(with({{8, 20}, {10, 2}})), FormatError);            // work 2^24
    EXPECT_NO_THROW((void)parse_passphrase_header(with({{8, 20}})));                               // work 2^23
}

TEST(PassphraseHeader, MainKeyIsScryptAsOpenSslComputesIt) {
    PassphraseHeader header = new_passphrase_header(32, 1 << 20);
    header.cost = {10, 8, 2};
    const SecretBytes passphrase(
        std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t *>("correct horse"), 13));
    const SecretBytes key = derive_main_key(passphrase, header);
    Bytes expected(32);
    ASSERT_EQ(EVP_PBE_scrypt("correct horse", 13, header.salt.data(), header.salt.size(), 1024, 8, 2, 0,
                             expected.data(), expected.size()),
              1);
    EXPECT_EQ(to_hex(Bytes(key.view().begin(), key.view().end())), to_hex(expected));
}

TEST(TinkGcm, GcmFileForTakesOnlyWhatTinkReads) {
    TempDir dir;
    write_file(dir.file("f"), {});
    InputSource source = InputSource::open(dir.file("f"));
    EXPECT_THROW((void)gcm_file_for(Direction::encrypt, 24, kDefaultSegmentBytes, false, source), std::invalid_argument);
    for (const std::size_t key_bytes : {16u, 32u}) {
        EXPECT_THROW((void)gcm_file_for(Direction::encrypt, key_bytes, min_segment_bytes(key_bytes) - 1, false, source),
                     std::invalid_argument);
        const GcmFile file = gcm_file_for(Direction::encrypt, key_bytes, min_segment_bytes(key_bytes), false, source);
        EXPECT_EQ(file.key_bytes(), key_bytes);
        EXPECT_EQ(file.header_bytes().size(), stream_header_bytes(key_bytes));
    }
    EXPECT_EQ(min_segment_bytes(16), 24u + 16u + 1u) << "header, tag and one byte of data";
}

} // namespace
} // namespace aesgpu::test
