// SPDX-License-Identifier: Apache-2.0
// Every format answers the same questions (its header, its framing, its segments, its key), and a
// header one writes is the header it reads back, with the same key.
#include "format/file_format.hpp"
#include "format/openssl_enc.hpp"
#include "format/tink_gcm.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

namespace aesgpu::test {
namespace {

SecretBytes secret_of(const std::string &text) {
    return SecretBytes(std::span(reinterpret_cast<const std::uint8_t *>(text.data()), text.size()));
}

Bytes bytes_of(std::span<const std::uint8_t> view) {
    return Bytes(view.begin(), view.end());
}

FormatSettings settings_for(Direction direction, Mode mode) {
    FormatSettings settings;
    settings.direction = direction;
    settings.mode = mode;
    settings.pbkdf2_iterations = 1000;
    return settings;
}

TEST(FileFormat, EachModeIsItsFormatWithItsFramingAndSegments) {
    TempDir dir;
    write_file(dir.file("empty"), Bytes{});
    InputSource source = InputSource::open(dir.file("empty"));
    const KeyGiven raw16{false, 16};
    FormatSettings ecb = settings_for(Direction::encrypt, Mode::ecb);
    const auto padded = file_format_for(ecb, raw16, source);
    EXPECT_NE(dynamic_cast<const OpensslEncFile *>(padded.get()), nullptr);
    EXPECT_EQ(padded->framing(), Framing::pkcs7);
    EXPECT_FALSE(padded->segments());
    EXPECT_TRUE(padded->header().empty()) << "a raw key writes the data alone";
    ecb.no_pad = true;
    EXPECT_EQ(file_format_for(ecb, raw16, source)->framing(), Framing::whole_blocks);
    EXPECT_EQ(file_format_for(settings_for(Direction::encrypt, Mode::ctr), raw16, source)->framing(),
              Framing::any_length);

    FormatSettings gcm = settings_for(Direction::encrypt, Mode::gcm);
    gcm.segment_bytes = 4096;
    const auto stream = file_format_for(gcm, raw16, source);
    EXPECT_NE(dynamic_cast<const TinkGcmFile *>(stream.get()), nullptr);
    EXPECT_EQ(stream->framing(), Framing::any_length);
    ASSERT_TRUE(stream->segments());
    EXPECT_EQ(stream->segments()->segment_bytes, 4096u);
    EXPECT_EQ(stream->segments()->header_bytes, stream->header().size()) << "segment 0 makes room for its header";
}

// What each format says of the settings before any file: job/setting_rules asks these.
TEST(FileFormat, EachFormatStatesWhichSettingsItTakes) {
    const FormatRules ecb = format_rules(Mode::ecb);
    const FormatRules ctr = format_rules(Mode::ctr);
    const FormatRules gcm = format_rules(Mode::gcm);
    EXPECT_TRUE(ecb.pads);
    EXPECT_FALSE(ecb.takes_iv);
    EXPECT_TRUE(ctr.takes_iv);
    EXPECT_FALSE(ctr.pads);
    for (const FormatRules &openssl : {ecb, ctr}) {
        EXPECT_TRUE(openssl.pbkdf2);
        EXPECT_TRUE(openssl.takes_192_bit_keys);
        EXPECT_FALSE(openssl.segments);
        EXPECT_FALSE(openssl.header_records_sizes) << "Salted__ records the salt alone";
        EXPECT_FALSE(openssl.proves_the_key) << "ECB's padding passes a wrong key about once in 256";
    }
    EXPECT_TRUE(gcm.segments);
    EXPECT_TRUE(gcm.header_records_sizes);
    EXPECT_TRUE(gcm.proves_the_key);
    EXPECT_FALSE(gcm.pbkdf2) << "scrypt";
    EXPECT_FALSE(gcm.takes_192_bit_keys) << "Tink's AES-128 and AES-256";
    EXPECT_FALSE(gcm.pads || gcm.takes_iv);
}

TEST(FileFormat, ARawKeyIsTheKeyAndCtrNeedsItsIv) {
    TempDir dir;
    write_file(dir.file("empty"), Bytes{});
    InputSource source = InputSource::open(dir.file("empty"));
    const SecretBytes raw = secret_of("0123456789abcdef");
    FormatSettings ctr = settings_for(Direction::decrypt, Mode::ctr);
    EXPECT_THROW((void)file_format_for(ctr, KeyGiven{false, 16}, source)->key(raw), std::invalid_argument)
        << "a fixed counter would give every such file the same keystream";
    ctr.iv = CounterBlock{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    const CipherKey key = file_format_for(ctr, KeyGiven{false, 16}, source)->key(raw);
    EXPECT_EQ(bytes_of(key.key.view()), bytes_of(raw.view()));
    EXPECT_EQ(key.spec.mode, Mode::ctr);
    EXPECT_EQ(key.spec.direction, Direction::decrypt);
    EXPECT_EQ(key.spec.iv, *ctr.iv);
    EXPECT_THROW((void)file_format_for(settings_for(Direction::encrypt, Mode::gcm), KeyGiven{false, 24}, source),
                 std::invalid_argument)
        << "a GCM key is 16 or 32 bytes";
}

// Encrypting makes a header; decrypting reads it from the file's start and leaves the data, and
// both give the same key and spec from the same secret.
TEST(FileFormat, TheHeaderWrittenIsTheHeaderReadAndGivesTheSameKey) {
    struct Case {
        Mode mode;
        KeyGiven key;
        std::string secret;
    };
    const Case cases[] = {
        {Mode::ecb, {true, 0}, "sesame"},
        {Mode::ctr, {true, 0}, "sesame"},
        {Mode::gcm, {false, 16}, "0123456789abcdef"},
        {Mode::gcm, {false, 32}, "0123456789abcdef0123456789abcdef"},
        {Mode::gcm, {true, 0}, "sesame"},
    };
    TempDir dir;
    for (const Case &c : cases) {
        const std::string name = std::to_string(int(c.mode)) + "/" + std::to_string(c.key.raw_key_bytes);
        write_file(dir.file("empty"), Bytes{});
        InputSource nothing = InputSource::open(dir.file("empty"));
        FormatSettings encrypting = settings_for(Direction::encrypt, c.mode);
        encrypting.segment_bytes = 4096;
        encrypting.associated_data = "context";
        const auto written = file_format_for(encrypting, c.key, nothing);
        ASSERT_FALSE(written->header().empty()) << name;
        Bytes file(written->header().size());
        std::memcpy(file.data(), written->header().data(), file.size());
        file.insert(file.end(), {'d', 'a', 't', 'a'});
        write_file(dir.file("f"), file);

        FormatSettings decrypting = encrypting;
        decrypting.direction = Direction::decrypt;
        if (c.key.passphrase) decrypting.segment_bytes = 0; // a passphrase header gives its own
        InputSource source = InputSource::open(dir.file("f"));
        const auto read = file_format_for(decrypting, c.key, source);
        ASSERT_EQ(read->header().size(), written->header().size()) << name;
        EXPECT_EQ(std::memcmp(read->header().data(), written->header().data(), read->header().size()), 0) << name;
        std::array<std::byte, 8> rest{};
        EXPECT_EQ(source.read_full(rest), 4u) << name << ": the data after the header is left to read";
        EXPECT_EQ(written->segments().has_value(), c.mode == Mode::gcm) << name;
        if (written->segments()) {
            EXPECT_EQ(read->segments()->segment_bytes, 4096u) << name;
        }

        const SecretBytes secret = secret_of(c.secret);
        const CipherKey encrypt_key = written->key(secret);
        const CipherKey decrypt_key = read->key(secret);
        EXPECT_EQ(bytes_of(encrypt_key.key.view()), bytes_of(decrypt_key.key.view())) << name;
        EXPECT_NE(bytes_of(encrypt_key.key.view()), bytes_of(secret.view())) << name << ": derived, not the secret";
        EXPECT_EQ(decrypt_key.spec.direction, Direction::decrypt) << name;
        EXPECT_EQ(decrypt_key.spec.mode, c.mode) << name;
        EXPECT_EQ(decrypt_key.spec.iv, encrypt_key.spec.iv) << name;
        EXPECT_EQ(decrypt_key.spec.gcm.nonce_prefix, encrypt_key.spec.gcm.nonce_prefix) << name;
    }
}

} // namespace
} // namespace aesgpu::test
