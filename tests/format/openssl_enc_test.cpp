// SPDX-License-Identifier: Apache-2.0
// `openssl enc`'s formats: the Salted__ header, what a file without one starts with, the framing,
// and the key and IV that `openssl enc -pbkdf2 -P` prints.
#include "format/openssl_enc.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

namespace aesgpu::test {
namespace {

TEST(SaltedHeader, RoundTripsAndRejectsOtherData) {
    const Salt salt{1, 2, 3, 4, 5, 6, 7, 8};
    const auto header = make_salted_header(salt);
    EXPECT_EQ(std::string(reinterpret_cast<const char *>(header.data()), 8), "Salted__");
    EXPECT_EQ(parse_salted_header(header), salt);
    EXPECT_FALSE(parse_salted_header(std::span(header).first(15)));
    auto other = header;
    other[7] = std::byte{'x'};
    EXPECT_FALSE(parse_salted_header(other));
}

TEST(OpensslEnc, ReadSaltTakesTheHeaderAndLeavesTheData) {
    TempDir dir;
    const Salt salt{9, 8, 7, 6, 5, 4, 3, 2};
    const auto header = make_salted_header(salt);
    Bytes file(header.size() + 4, std::uint8_t{'d'});
    std::memcpy(file.data(), header.data(), header.size());
    write_file(dir.file("f"), file);
    InputSource source = InputSource::open(dir.file("f"));
    EXPECT_EQ(read_salt(source), salt);
    std::array<std::byte, 8> rest{};
    EXPECT_EQ(source.read_full(rest), 4u) << "the data after the header is left to read";
    EXPECT_EQ(static_cast<char>(rest[0]), 'd');
}

TEST(OpensslEnc, AFileWithoutTheHeaderSaysWhatItStartsWith) {
    TempDir dir;
    const std::pair<std::string, CiphertextStart> cases[] = {
        {"U2FsdGVkX1+abcdefghijklmn", CiphertextStart::base64_salted}, // openssl enc -a
        {"Salted__abc", CiphertextStart::salted_cut_short},
        {std::string("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11", 17),
         CiphertextStart::unknown},
        {"", CiphertextStart::unknown},
    };
    for (const auto &[text, start] : cases) {
        write_file(dir.file("f"), Bytes(text.begin(), text.end()));
        InputSource source = InputSource::open(dir.file("f"));
        try {
            (void)read_salt(source);
            ADD_FAILURE() << "no header, yet a salt: " << text;
        } catch (const NoSaltedHeader &e) {
            EXPECT_EQ(e.start, start) << text;
        }
    }
}

TEST(OpensslEnc, FramingPadsEcbUnlessToldAndLetsCtrEndAnywhere) {
    EXPECT_EQ(openssl_enc_framing(Mode::ecb, false), Framing::pkcs7);
    EXPECT_EQ(openssl_enc_framing(Mode::ecb, true), Framing::whole_blocks);
    EXPECT_EQ(openssl_enc_framing(Mode::ctr, false), Framing::any_length);
}

// What `openssl enc -P` prints: "salt=...", "key=...", and "iv =..." for modes with an IV.
std::string openssl_prints(const std::string &cipher, const std::string &salt_hex) {
    const std::string command =
        "openssl enc -" + cipher + " -pbkdf2 -md sha256 -iter 1000 -pass pass:sesame -S " + salt_hex + " -P 2>&1";
    std::unique_ptr<FILE, int (*)(FILE *)> pipe(::popen(command.c_str(), "r"), ::pclose);
    std::string text;
    std::array<char, 256> buffer{};
    while (pipe && std::fgets(buffer.data(), buffer.size(), pipe.get())) text += buffer.data();
    return text;
}

TEST(OpensslEnc, KeyAndIvAreWhatOpensslEncDerives) {
    const Salt salt{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
    const std::string passphrase = "sesame";
    const SecretBytes secret(std::span(reinterpret_cast<const std::uint8_t *>(passphrase.data()), passphrase.size()));
    const auto upper = [](std::span<const std::uint8_t> bytes) {
        std::string hex = to_hex(Bytes(bytes.begin(), bytes.end()));
        for (char &c : hex) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        return hex;
    };
    const CipherKey ecb =
        openssl_enc_key(Direction::decrypt, Mode::ecb, secret, salt, {.iterations = 1000, .key_bytes = 16});
    EXPECT_EQ(ecb.spec.mode, Mode::ecb);
    EXPECT_EQ(ecb.spec.direction, Direction::decrypt);
    EXPECT_EQ(openssl_prints("aes-128-ecb", "0123456789abcdef"),
              "salt=0123456789ABCDEF\nkey=" + upper(ecb.key.view()) + "\n");
    const CipherKey ctr =
        openssl_enc_key(Direction::encrypt, Mode::ctr, secret, salt, {.iterations = 1000, .key_bytes = 32});
    EXPECT_EQ(ctr.spec.mode, Mode::ctr);
    EXPECT_EQ(openssl_prints("aes-256-ctr", "0123456789abcdef"),
              "salt=0123456789ABCDEF\nkey=" + upper(ctr.key.view()) + "\niv =" + upper(ctr.spec.iv) + "\n");
}

} // namespace
} // namespace aesgpu::test
