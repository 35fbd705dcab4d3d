// SPDX-License-Identifier: Apache-2.0
// What a ciphertext's first bytes say before any key, from the formats' own bytes: openssl's
// Salted__ header (as openssl writes it, and base64-encoded), aesgpu's GCM passphrase header,
// base64 text, and random bytes that say nothing.
#include "format/detect.hpp"
#include "format/foreign.hpp"
#include "format/gcm_stream_header.hpp"
#include "format/openssl_enc.hpp"
#include "format/tink_gcm.hpp"
#include "keys/passphrase.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace aesgpu::test {
namespace {

std::vector<std::byte> bytes_of(std::string_view text) {
    std::vector<std::byte> bytes;
    for (const char c : text) bytes.push_back(static_cast<std::byte>(c));
    return bytes;
}

// OpenSSL's CBC decryption with its own PKCS#7 check: whether the padding fits.
bool openssl_cbc_padding_fits(const Bytes &key, const CounterBlock &iv, const Bytes &ciphertext) {
    const EVP_CIPHER *cipher = key.size() == 16   ? EVP_aes_128_cbc()
                               : key.size() == 24 ? EVP_aes_192_cbc()
                                                  : EVP_aes_256_cbc();
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    Bytes out(ciphertext.size() + 16);
    int length = 0;
    int final_length = 0;
    const bool fits =
        EVP_DecryptInit_ex(context, cipher, nullptr, key.data(), iv.data()) == 1 &&
        EVP_DecryptUpdate(context, out.data(), &length, ciphertext.data(), static_cast<int>(ciphertext.size())) == 1 &&
        EVP_DecryptFinal_ex(context, out.data() + length, &final_length) == 1;
    EVP_CIPHER_CTX_free(context);
    return fits;
}

std::vector<std::byte> random_start(std::size_t size) {
    const Bytes random = random_bytes(size);
    std::vector<std::byte> bytes;
    for (const std::uint8_t b : random) bytes.push_back(static_cast<std::byte>(b));
    return bytes;
}

TEST(Detect, OpensslsSaltedHeaderWholeOrCutShort) {
    std::vector<std::byte> file;
    for (const std::byte b : make_salted_header(random_salt())) file.push_back(b);
    const std::vector<std::byte> data = random_start(48);
    file.insert(file.end(), data.begin(), data.end());
    EXPECT_EQ(classify_ciphertext_start(file), CiphertextStart::salted);
    EXPECT_EQ(classify_ciphertext_start(std::span(file).first(kSaltedHeaderBytes)), CiphertextStart::salted);
    for (const std::size_t cut : {kSaltedMagic.size(), kSaltedHeaderBytes - 1}) {
        EXPECT_EQ(classify_ciphertext_start(std::span(file).first(cut)), CiphertextStart::salted_cut_short) << cut;
    }
}

TEST(Detect, Base64WithAndWithoutTheSaltedHeader) {
    // `openssl enc -a -pbkdf2` begins "U2FsdGVkX1" ("Salted__" in base64), even with its line breaks.
    EXPECT_EQ(classify_ciphertext_start(bytes_of("U2FsdGVkX18bJ2c8q0mJ\n")), CiphertextStart::base64_salted);
    EXPECT_EQ(classify_ciphertext_start(bytes_of("U2FsdGVkX1")), CiphertextStart::base64_salted);
    // A raw-key file's base64: text throughout, at least 16 bytes of it.
    const std::vector<std::byte> text =
        bytes_of("q1PqKm3v0x9u+Zb/ZJb5m2k8s0ZcQ0d7n1Fq7r1m0wE=\nG2h8Yb0Vq2VbS0Jr4QmVqJ3w8x2bq1Xo\n");
    EXPECT_EQ(classify_ciphertext_start(text), CiphertextStart::base64);
    EXPECT_EQ(classify_ciphertext_start(std::span(text).first(16)), CiphertextStart::base64);
    EXPECT_EQ(classify_ciphertext_start(std::span(text).first(15)), CiphertextStart::unknown) << "too short to tell";
    // Only the first kCiphertextStartBytes count: what follows them may be anything.
    std::vector<std::byte> longer(text.begin(), text.begin() + kCiphertextStartBytes);
    const std::vector<std::byte> binary = random_start(32);
    longer.insert(longer.end(), binary.begin(), binary.end());
    EXPECT_EQ(classify_ciphertext_start(longer), CiphertextStart::base64);
    // One byte out of the alphabet among them, and it is not base64.
    longer[20] = std::byte{0x01};
    EXPECT_EQ(classify_ciphertext_start(longer), CiphertextStart::unknown);
    // Short lines of the alphabet are text (seq 1 100), not openssl's 64-character lines.
    EXPECT_EQ(classify_ciphertext_start(bytes_of("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n")), CiphertextStart::unknown);
}

TEST(Detect, TheGcmPassphraseHeader) {
    std::vector<std::byte> start = bytes_of(kPassphraseMagic);
    const std::vector<std::byte> rest = random_start(40);
    start.insert(start.end(), rest.begin(), rest.end());
    EXPECT_EQ(classify_ciphertext_start(start), CiphertextStart::gcm_passphrase);
}

TEST(Detect, RandomCiphertextAndNothingSayNothing) {
    // Raw ECB, CTR or a Tink stream: random bytes (a random start that happens to be all base64
    // or to begin with a magic has odds far below one in 10^9).
    for (int i = 0; i < 100; ++i) {
        const std::vector<std::byte> start = random_start(kCiphertextStartBytes);
        EXPECT_EQ(classify_ciphertext_start(start), CiphertextStart::unknown);
    }
    EXPECT_EQ(classify_ciphertext_start({}), CiphertextStart::unknown);
}

// A Tink stream's start for a key of `key_bytes`: its header, then random ciphertext.
std::vector<std::byte> tink_start(std::size_t key_bytes) {
    std::vector<std::byte> start = new_stream_header(key_bytes).bytes();
    const std::vector<std::byte> rest = random_start(kCiphertextStartBytes - start.size());
    start.insert(start.end(), rest.begin(), rest.end());
    return start;
}

TEST(GuessMode, OurPassphraseHeaderIsGcmWhateverTheKey) {
    std::vector<std::byte> start = bytes_of(kPassphraseMagic);
    const std::vector<std::byte> rest = random_start(40);
    start.insert(start.end(), rest.begin(), rest.end());
    for (const KeyGiven key : {KeyGiven{true, 0}, KeyGiven{false, 16}, KeyGiven{false, 24}}) {
        const ModeGuess guess = guess_mode(start, 1000, key, 0);
        EXPECT_EQ(guess.mode, Mode::gcm);
        EXPECT_FALSE(guess.first_segment_decides) << "the magic says so";
    }
}

TEST(GuessMode, TinksHeaderLengthForTheKeyIsGcmThatSegmentZeroDecides) {
    const SegmentGeometry geometry16{kDefaultSegmentBytes, 24};
    const SegmentGeometry geometry32{kDefaultSegmentBytes, 40};
    for (const std::uint64_t plaintext : {0ull, 1ull, 1000ull, 3ull << 20, 5ull << 20}) {
        const ModeGuess guess16 =
            guess_mode(tink_start(16), 24 + geometry16.ciphertext_for_plaintext(plaintext), KeyGiven{false, 16}, 0);
        EXPECT_EQ(guess16.mode, Mode::gcm) << plaintext;
        EXPECT_TRUE(guess16.first_segment_decides);
        const ModeGuess guess32 =
            guess_mode(tink_start(32), 40 + geometry32.ciphertext_for_plaintext(plaintext), KeyGiven{false, 32}, 0);
        EXPECT_EQ(guess32.mode, Mode::gcm) << plaintext;
    }
    EXPECT_EQ(guess_mode(tink_start(16), std::nullopt, KeyGiven{false, 16}, 0).mode, Mode::gcm) << "a pipe";
    // Another segment size, given: the lengths are its.
    const SegmentGeometry small{4096, 24};
    EXPECT_EQ(guess_mode(tink_start(16), 24 + small.ciphertext_for_plaintext(10000), KeyGiven{false, 16}, 4096).mode,
              Mode::gcm);
}

TEST(GuessMode, EverythingElseIsEcb) {
    // The header length of the other key size, a key GCM does not take, and a passphrase.
    EXPECT_EQ(guess_mode(tink_start(32), 1000, KeyGiven{false, 16}, 0).mode, Mode::ecb);
    EXPECT_EQ(guess_mode(tink_start(16), 1000, KeyGiven{false, 32}, 0).mode, Mode::ecb);
    std::vector<std::byte> start192 = random_start(64);
    start192[0] = std::byte{32}; // 1 + 24 + 7
    EXPECT_EQ(guess_mode(start192, 1024, KeyGiven{false, 24}, 0).mode, Mode::ecb);
    EXPECT_EQ(guess_mode(tink_start(16), 1000, KeyGiven{true, 0}, 0).mode, Mode::ecb);
    // Lengths that no stream has: shorter than a header and a tag, or a last segment shorter than
    // a tag (one byte to 15 past full segments).
    EXPECT_EQ(guess_mode(tink_start(16), 24 + 15, KeyGiven{false, 16}, 0).mode, Mode::ecb);
    EXPECT_EQ(guess_mode(tink_start(16), 24 + 16, KeyGiven{false, 16}, 0).mode, Mode::gcm) << "one empty segment";
    for (const std::uint64_t past : {1ull, 8ull, 15ull}) {
        const ModeGuess cut = guess_mode(tink_start(16), kDefaultSegmentBytes + past, KeyGiven{false, 16}, 0);
        EXPECT_EQ(cut.mode, Mode::ecb) << past;
        EXPECT_TRUE(cut.starts_like_gcm) << "a GCM stream cut short reads so too";
        EXPECT_EQ(guess_mode(tink_start(16), 3 * kDefaultSegmentBytes + past, KeyGiven{false, 16}, 0).mode, Mode::ecb)
            << past;
    }
    EXPECT_EQ(guess_mode(tink_start(16), kDefaultSegmentBytes + 16, KeyGiven{false, 16}, 0).mode, Mode::gcm);
    // Random starts: 255 in 256 begin with another byte.
    int gcm = 0;
    for (int i = 0; i < 256; ++i) {
        std::vector<std::byte> start = random_start(64);
        if (start[0] == std::byte{24}) start[0] = std::byte{25};
        gcm += guess_mode(start, 1024, KeyGiven{false, 16}, 0).mode == Mode::gcm;
    }
    EXPECT_EQ(gcm, 0);
}

// openssl's passphrase format records no mode: the data's length says CTR where it is not whole
// blocks (or none), and otherwise leaves it to the padding, which without padding cannot decide.
TEST(GuessMode, ASaltedFileIsCtrByItsLengthOrLeftToThePadding) {
    std::vector<std::byte> start;
    for (const std::byte b : make_salted_header(random_salt())) start.push_back(b);
    const KeyGiven passphrase{true, 0};
    for (const std::uint64_t data : {1u, 15u, 17u, 1000u, 0u}) {
        const ModeGuess guess = guess_mode(start, kSaltedHeaderBytes + data, passphrase, 0);
        EXPECT_EQ(guess.mode, Mode::ctr) << data;
        EXPECT_FALSE(guess.padding_decides) << data;
        EXPECT_THROW((void)guess_mode(start, kSaltedHeaderBytes + data, passphrase, 0, true), ModeNotRecorded)
            << "without padding, not CTR either: " << data;
    }
    for (const std::uint64_t data : {16u, 32u, 1024u}) {
        const ModeGuess guess = guess_mode(start, kSaltedHeaderBytes + data, passphrase, 0);
        EXPECT_TRUE(guess.padding_decides) << data;
        EXPECT_THROW((void)guess_mode(start, kSaltedHeaderBytes + data, passphrase, 0, true), ModeNotRecorded) << data;
    }
    EXPECT_THROW((void)guess_mode(start, std::nullopt, passphrase, 0), std::invalid_argument) << "a stream unread";
    EXPECT_FALSE(guess_mode(start, kSaltedHeaderBytes + 32, KeyGiven{false, 32}, 0).padding_decides)
        << "a raw key gives CBC no IV";
}

TEST(ModeByPadding, OneFitIsThatModeBothAreRefusedNeitherIsBadPadding) {
    EXPECT_EQ(mode_by_padding({.ecb = true, .cbc = false}).mode, Mode::ecb);
    EXPECT_EQ(mode_by_padding({.ecb = false, .cbc = true}).mode, Mode::cbc);
    EXPECT_THROW((void)mode_by_padding({.ecb = true, .cbc = true}), ModeNotRecorded);
    EXPECT_THROW((void)mode_by_padding({.ecb = false, .cbc = false}), BadPadding);
}

// The last block read both ways, against OpenSSL's own CBC and ECB of the same blocks.
TEST(FinalBlockPadding, EcbAndCbcReadAsOpensslDecryptsThem) {
    for (const std::size_t key_bytes : {16u, 24u, 32u}) {
        const Bytes key = random_bytes(key_bytes);
        CounterBlock iv{};
        const Bytes iv_bytes = random_bytes(16);
        std::copy(iv_bytes.begin(), iv_bytes.end(), iv.begin());
        for (int trial = 0; trial < 300; ++trial) {
            for (const std::size_t blocks : {1u, 2u}) {
                const Bytes ciphertext = random_bytes(16 * blocks);
                std::vector<std::byte> final_blocks;
                for (const std::uint8_t b : ciphertext) final_blocks.push_back(static_cast<std::byte>(b));
                Bytes ecb;
                const bool ecb_fits =
                    openssl_ecb(key, Direction::decrypt, true, Bytes(ciphertext.end() - 16, ciphertext.end()), ecb);
                const PaddingFit fit = final_block_padding(key, iv, final_blocks);
                EXPECT_EQ(fit.ecb, ecb_fits);
                EXPECT_EQ(fit.cbc, openssl_cbc_padding_fits(key, iv, ciphertext));
            }
        }
    }
}

// Other tools' files by their first bytes, as those tools write them.
TEST(ForeignFormat, OtherToolsFilesByTheirMagicAndRandomBytesAsNone) {
    const auto bytes = [](std::initializer_list<int> values) {
        std::vector<std::byte> out;
        for (const int v : values) out.push_back(static_cast<std::byte>(v));
        return out;
    };
    EXPECT_EQ(foreign_format(bytes({0x1f, 0x8b, 0x08, 0x00})), ForeignFormat::gzip);
    EXPECT_EQ(foreign_format(bytes({0x28, 0xb5, 0x2f, 0xfd, 0x04})), ForeignFormat::zstd);
    EXPECT_EQ(foreign_format(bytes({0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00})), ForeignFormat::xz);
    EXPECT_EQ(foreign_format(bytes_of("age-encryption.org/v1\n-> X25519 abc")), ForeignFormat::age);
    EXPECT_EQ(foreign_format(bytes_of("-----BEGIN AGE ENCRYPTED FILE-----\n")), ForeignFormat::age);
    EXPECT_EQ(foreign_format(bytes_of("-----BEGIN PGP MESSAGE-----\n")), ForeignFormat::openpgp_armored);
    // gpg -c (GnuPG 2.2): an old-format symmetric-key session key packet, version 4; OpenPGP's new
    // format too.
    // (AES-256, iterated and salted S2K, SHA-256.)
    EXPECT_EQ(foreign_format(bytes({0x8c, 0x0d, 0x04, 0x09, 0x03, 0x08})), ForeignFormat::openpgp_passphrase);
    EXPECT_EQ(foreign_format(bytes({0xc3, 0x0d, 0x04, 0x09, 0x03, 0x08})), ForeignFormat::openpgp_passphrase);
    EXPECT_EQ(foreign_format(bytes({0x8c, 0x0d, 0x04, 0x09, 0x07, 0x08})), std::nullopt) << "no such S2K";
    // gpg -e: a public-key encrypted session key packet, version 3 (old format, a 2-byte length),
    // an 8-byte key ID, then RSA (1).
    EXPECT_EQ(foreign_format(bytes({0x85, 0x01, 0x0c, 0x03, 1, 2, 3, 4, 5, 6, 7, 8, 0x01})),
              ForeignFormat::openpgp_public_key);
    EXPECT_EQ(foreign_format(bytes({0x85, 0x01, 0x0c, 0x09, 1, 2, 3, 4, 5, 6, 7, 8, 0x01})), std::nullopt)
        << "no such version";
    EXPECT_EQ(foreign_format(bytes_of("caf\xc3\xa9 au lait\n\tindented\r\n")), ForeignFormat::text);
    EXPECT_EQ(foreign_format(bytes_of("cut inside a character: \xc3")), ForeignFormat::text);
    EXPECT_EQ(foreign_format(bytes_of("cut inside a character: \xe2\x82")), ForeignFormat::text);
    EXPECT_EQ(foreign_format(bytes_of("not a character: \xc3"
                                      "A")),
              std::nullopt);
    EXPECT_EQ(foreign_format(bytes_of("a bell \x07")), std::nullopt);
    EXPECT_EQ(foreign_format(bytes_of("\xc0\xafoverlong")), std::nullopt);
    EXPECT_EQ(foreign_format({}), std::nullopt);
    EXPECT_EQ(foreign_format(bytes_of("ok\n")), std::nullopt) << "too short to tell from a few bytes of CTR";
    int named = 0;
    // gzip's 3 bytes match one random start in 2^24; the rest far less often.
    for (int i = 0; i < 10000; ++i) named += foreign_format(random_start(64)).has_value();
    EXPECT_LE(named, 1) << "random ciphertext is not mistaken for another tool's file";
}

TEST(CiphertextFacts, WhatEachHeaderRecordsAndNoMore) {
    const PassphraseHeader made = new_passphrase_header(16, 65536);
    const auto header = made.bytes(); // one array: begin() and end() of two temporaries would not meet
    std::vector<std::byte> start(header.begin(), header.end());
    CiphertextFacts facts = ciphertext_facts(start, 5000);
    EXPECT_EQ(facts.kind, CiphertextKind::gcm_passphrase);
    ASSERT_TRUE(facts.header);
    EXPECT_EQ(facts.key_bytes, 16u);
    EXPECT_EQ(facts.header->segment_bytes, 65536u);
    EXPECT_EQ(facts.header->cost.log2_n, made.cost.log2_n);
    start[kPassphraseMagic.size()] = std::byte{9}; // a version that does not exist
    facts = ciphertext_facts(start, 5000);
    EXPECT_EQ(facts.kind, CiphertextKind::gcm_passphrase);
    EXPECT_FALSE(facts.header);
    EXPECT_FALSE(facts.damaged.empty());

    facts = ciphertext_facts(tink_start(32), 1000);
    EXPECT_EQ(facts.kind, CiphertextKind::tink_stream);
    EXPECT_EQ(facts.key_bytes, 32u);
    EXPECT_EQ(ciphertext_facts(tink_start(32), 40 + 15).kind, CiphertextKind::unrecognised) << "no room for a tag";
    std::vector<std::byte> salted;
    for (const std::byte b : make_salted_header(random_salt())) salted.push_back(b);
    EXPECT_EQ(ciphertext_facts(salted, 1000).kind, CiphertextKind::openssl_salted);
    EXPECT_EQ(ciphertext_facts(bytes_of("U2FsdGVkX1"), 10).kind, CiphertextKind::base64);
    std::vector<std::byte> raw = random_start(64);
    raw[0] = std::byte{0x01};
    EXPECT_EQ(ciphertext_facts(raw, 1024).kind, CiphertextKind::unrecognised);
}

} // namespace
} // namespace aesgpu::test
