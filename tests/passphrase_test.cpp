// Passphrase sources (openssl's -pass syntax), PBKDF2 key derivation and the Salted__ header.
#include "app/passphrase.hpp"
#include "app/usage_error.hpp"
#include "io/errors.hpp"
#include "io/salted_header.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cstdlib>

namespace aesgpu::test {
namespace {

std::string text(const SecretBytes &secret) {
    return std::string(secret.view().begin(), secret.view().end());
}

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

TEST(Passphrase, ReadsEachSource) {
    TempDir dir;
    EXPECT_EQ(text(read_passphrase("pass:open sesame", false)), "open sesame");
    EXPECT_EQ(text(read_passphrase("pass:", false)), "");
    setenv("AESGPU_TEST_PASS", "from env", 1);
    EXPECT_EQ(text(read_passphrase("env:AESGPU_TEST_PASS", false)), "from env");
    const std::string content = "first line\r\nsecond line\n";
    write_file(dir.file("p"), Bytes(content.begin(), content.end()));
    EXPECT_EQ(text(read_passphrase("file:" + dir.file("p"), false)), "first line");
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(write(fds[1], "piped\nrest", 10), 10);
    close(fds[1]);
    EXPECT_EQ(text(read_passphrase("fd:" + std::to_string(fds[0]), false)), "piped");
    close(fds[0]);
}

TEST(Passphrase, RejectsBadSpecs) {
    unsetenv("AESGPU_TEST_UNSET");
    EXPECT_THROW((void)read_passphrase("env:AESGPU_TEST_UNSET", false), UsageError);
    EXPECT_THROW((void)read_passphrase("secret", false), UsageError);
    EXPECT_THROW((void)read_passphrase("fd:x", false), UsageError);
    EXPECT_THROW((void)read_passphrase("stdin", true), UsageError);
    EXPECT_THROW((void)read_passphrase("fd:0", true), UsageError);
    EXPECT_THROW((void)read_passphrase("file:/nonexistent/pass", false), IoError);
}

TEST(Passphrase, DerivesKeysWithPbkdf2HmacSha256) {
    // Against OpenSSL's PKCS5_PBKDF2_HMAC called directly, for each key size and two iteration counts.
    const Salt salt{9, 8, 7, 6, 5, 4, 3, 2};
    const SecretBytes passphrase(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t *>("pw"), 2));
    for (const std::size_t key_bytes : {16u, 24u, 32u}) {
        for (const unsigned iterations : {1u, 10000u}) {
            Bytes expected(key_bytes);
            ASSERT_EQ(PKCS5_PBKDF2_HMAC("pw", 2, salt.data(), 8, static_cast<int>(iterations), EVP_sha256(),
                                        static_cast<int>(key_bytes), expected.data()),
                      1);
            const SecretBytes key = derive_key(passphrase, salt, iterations, key_bytes);
            EXPECT_EQ(Bytes(key.view().begin(), key.view().end()), expected) << key_bytes << " " << iterations;
        }
    }
    EXPECT_NE(random_salt(), random_salt());
}

} // namespace
} // namespace aesgpu::test
