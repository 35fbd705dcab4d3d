// SPDX-License-Identifier: Apache-2.0
// PBKDF2 key derivation from a passphrase, as openssl enc -pbkdf2 derives it.
#include "common/errors.hpp"
#include "keys/passphrase.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cstdlib>

namespace aesgpu::test {
namespace {

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
