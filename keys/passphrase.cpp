// SPDX-License-Identifier: Apache-2.0
#include "keys/passphrase.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <stdexcept>

namespace aesgpu {

Salt random_salt() {
    Salt salt{};
    if (RAND_bytes(salt.data(), static_cast<int>(salt.size())) != 1) {
        throw std::runtime_error("OpenSSL could not produce random bytes for the salt");
    }
    return salt;
}

SecretBytes derive_key(const SecretBytes &passphrase, const Salt &salt, unsigned iterations, std::size_t key_bytes) {
    SecretBytes key(key_bytes);
    if (PKCS5_PBKDF2_HMAC(reinterpret_cast<const char *>(passphrase.view().data()), static_cast<int>(passphrase.size()),
                          salt.data(), static_cast<int>(salt.size()), static_cast<int>(iterations), EVP_sha256(),
                          static_cast<int>(key_bytes), key.mutable_view().data()) != 1) {
        throw std::runtime_error("OpenSSL PBKDF2 failed");
    }
    return key;
}

KeyAndIv derive_key_and_iv(const SecretBytes &passphrase, const Salt &salt, unsigned iterations,
                           std::size_t key_bytes) {
    KeyAndIv result;
    const SecretBytes both = derive_key(passphrase, salt, iterations, key_bytes + result.iv.size());
    result.key = SecretBytes(both.view().first(key_bytes));
    std::copy_n(both.view().begin() + static_cast<std::ptrdiff_t>(key_bytes), result.iv.size(), result.iv.begin());
    return result;
}

} // namespace aesgpu
