// SPDX-License-Identifier: Apache-2.0
#include "common/errors.hpp"
#include "keys/raw_key.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <vector>

namespace aesgpu::test {
namespace {

Bytes key_bytes(const SecretBytes &key) {
    return Bytes(key.view().begin(), key.view().end());
}

TEST(HexKey, AcceptsTheThreeAesKeyLengths) {
    for (const std::size_t bytes : {16u, 24u, 32u}) {
        const Bytes expected = random_bytes(bytes);
        EXPECT_EQ(key_bytes(parse_hex_key(to_hex(expected))), expected);
    }
    EXPECT_EQ(key_bytes(parse_hex_key("000102030405060708090A0B0C0D0E0F")),
              from_hex("000102030405060708090a0b0c0d0e0f"));
}

TEST(HexKey, RejectsOtherLengthsInsteadOfPaddingOrTruncating) {
    for (const std::size_t digits : {0u, 2u, 30u, 31u, 33u, 34u, 40u, 47u, 63u, 65u, 128u}) {
        EXPECT_THROW((void)parse_hex_key(std::string(digits, 'a')), KeyError) << digits;
    }
}

TEST(HexKey, RejectsNonHexDigits) {
    EXPECT_THROW((void)parse_hex_key("000102030405060708090a0b0c0d0e0g"), KeyError);
    EXPECT_THROW((void)parse_hex_key("0x0102030405060708090a0b0c0d0e0f"), KeyError);
    EXPECT_THROW((void)parse_hex_key("00010203040506070809 a0b0c0d0e0f"), KeyError);
}

TEST(KeyFile, ReadsRawKeys) {
    TempDir dir;
    for (const std::size_t bytes : {16u, 24u, 32u}) {
        Bytes raw = random_bytes(bytes);
        raw[0] = 0xff; // not a hex digit, so the file cannot read as hex
        write_file(dir.file("key"), raw);
        EXPECT_EQ(key_bytes(read_key_file(dir.file("key"))), raw);
    }
}

TEST(KeyFile, ReadsHexKeysWithOptionalNewline) {
    TempDir dir;
    const Bytes key = random_bytes(32);
    for (const std::string ending : {"", "\n", "\r\n"}) {
        const std::string text = to_hex(key) + ending;
        write_file(dir.file("key"), Bytes(text.begin(), text.end()));
        EXPECT_EQ(key_bytes(read_key_file(dir.file("key"))), key) << "ending size " << ending.size();
    }
    // 32 hex digits are 32 bytes too: hex wins, giving AES-128.
    const std::string hex128 = to_hex(random_bytes(16));
    write_file(dir.file("key"), Bytes(hex128.begin(), hex128.end()));
    EXPECT_EQ(read_key_file(dir.file("key")).size(), 16u);
}

TEST(KeyFile, HexMayBeSplitOverLinesAsXxdWritesIt) {
    TempDir dir;
    const Bytes key = random_bytes(32);
    const std::string hex = to_hex(key);
    // `xxd -p` breaks after 60 digits; `xxd -p -c 8` every 16; Windows editors add \r.
    for (const std::string &text : {hex.substr(0, 60) + "\n" + hex.substr(60) + "\n",
                                    hex.substr(0, 16) + "\r\n" + hex.substr(16, 16) + "\r\n" + hex.substr(32) + "\r\n",
                                    "  " + hex.substr(0, 32) + " " + hex.substr(32) + "\n\n"}) {
        write_file(dir.file("key"), Bytes(text.begin(), text.end()));
        const SecretBytes read = read_key_file(dir.file("key"));
        EXPECT_EQ(Bytes(read.view().begin(), read.view().end()), key) << text;
    }
}

TEST(KeyFile, AFileOthersCanReadIsToldToTheCallerNotLogged) {
    // The library says nothing itself: the caller hears the warning and says it (the CLI as a
    // warning line), as ssh does for a private key that others can read.
    TempDir dir;
    write_file(dir.file("key"), random_bytes(16));
    std::vector<std::string> heard;
    const SecretWarning warn = [&heard](const std::string &warning) { heard.push_back(warning); };
    for (const mode_t mode : {0600, 0400, 0640, 0604}) {
        ASSERT_EQ(::chmod(dir.file("key").c_str(), mode), 0);
        heard.clear();
        EXPECT_EQ(read_key_file(dir.file("key"), nullptr, nullptr, warn).size(), 16u);
        if ((mode & 077) == 0) {
            EXPECT_TRUE(heard.empty()) << std::oct << mode;
            continue;
        }
        ASSERT_EQ(heard.size(), 1u) << std::oct << mode;
        char digits[16];
        std::snprintf(digits, sizeof digits, "%04o", static_cast<unsigned>(mode));
        EXPECT_EQ(heard.front(), "key file '" + dir.file("key") + "' can be read or changed by group or others (mode " +
                                     digits + "); chmod 600 it");
    }
    EXPECT_EQ(read_key_file(dir.file("key")).size(), 16u) << "no one to tell: no warning, no failure";
}

TEST(KeyFile, RejectsWrongSizesAndMissingFiles) {
    TempDir dir;
    for (const std::size_t bytes : {0u, 15u, 17u, 31u, 33u, 100u}) {
        Bytes raw = random_bytes(bytes);
        if (!raw.empty()) raw[0] = 0xff;
        write_file(dir.file("key"), raw);
        EXPECT_THROW((void)read_key_file(dir.file("key")), KeyError) << bytes;
    }
    for (const std::string &text : {to_hex(random_bytes(16)) + "\nzz\n", "0x" + to_hex(random_bytes(16)),
                                    to_hex(random_bytes(16)).substr(3) + "\n", to_hex(random_bytes(20)) + "\n"}) {
        write_file(dir.file("key"), Bytes(text.begin(), text.end()));
        EXPECT_THROW((void)read_key_file(dir.file("key")), KeyError) << text;
    }
    EXPECT_THROW((void)read_key_file(dir.path().string()), KeyError) << "a directory is a usage error";
    EXPECT_THROW((void)read_key_file(dir.file("missing")), KeyError) << "the key as given: not an input's failure";
}

} // namespace
} // namespace aesgpu::test
