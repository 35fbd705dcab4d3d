// SPDX-License-Identifier: Apache-2.0
#include "keys/passphrase.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace aesgpu {

Salt random_salt() {
    Salt salt{};
    if (RAND_bytes(salt.data(), static_cast<int>(salt.size())) != 1) {
        throw std::runtime_error("OpenSSL could not produce random bytes for the salt");
    }
    return salt;
}

namespace {

constexpr std::array kDigestNames{"md5", "sha1", "sha224", "sha256", "sha384", "sha512"};

const EVP_MD *evp_digest(Digest digest) {
    switch (digest) {
    case Digest::md5: return EVP_md5();
    case Digest::sha1: return EVP_sha1();
    case Digest::sha224: return EVP_sha224();
    case Digest::sha256: return EVP_sha256();
    case Digest::sha384: return EVP_sha384();
    case Digest::sha512: return EVP_sha512();
    }
    throw std::invalid_argument("no such digest");
}

// openssl enc without -pbkdf2: EVP_BytesToKey over the CBC cipher of the key's size, whose key
// and IV lengths are every mode's here (ECB takes the key alone, its prefix).
KeyAndIv one_pass_key_and_iv(const SecretBytes &passphrase, const Salt &salt, std::size_t key_bytes, Digest digest) {
    const EVP_CIPHER *cipher = key_bytes == 16   ? EVP_aes_128_cbc()
                               : key_bytes == 24 ? EVP_aes_192_cbc()
                               : key_bytes == 32 ? EVP_aes_256_cbc()
                                                 : nullptr;
    if (!cipher) throw std::invalid_argument("an AES key has 16, 24 or 32 bytes");
    KeyAndIv result;
    result.key = SecretBytes(key_bytes);
    if (EVP_BytesToKey(cipher, evp_digest(digest), salt.data(), passphrase.view().data(),
                       static_cast<int>(passphrase.size()), 1, result.key.mutable_view().data(),
                       result.iv.data()) != static_cast<int>(key_bytes)) {
        throw std::runtime_error("OpenSSL EVP_BytesToKey failed");
    }
    return result;
}

} // namespace

const char *digest_name(Digest digest) {
    return kDigestNames.at(static_cast<std::size_t>(digest));
}

std::optional<Digest> digest_named(std::string_view name) {
    for (std::size_t i = 0; i < kDigestNames.size(); ++i) {
        if (name == kDigestNames[i]) return static_cast<Digest>(i);
    }
    return std::nullopt;
}

SecretBytes derive_key(const SecretBytes &passphrase, const Salt &salt, unsigned iterations, std::size_t key_bytes,
                       Digest digest) {
    SecretBytes key(key_bytes);
    if (PKCS5_PBKDF2_HMAC(reinterpret_cast<const char *>(passphrase.view().data()), static_cast<int>(passphrase.size()),
                          salt.data(), static_cast<int>(salt.size()), static_cast<int>(iterations), evp_digest(digest),
                          static_cast<int>(key_bytes), key.mutable_view().data()) != 1) {
        throw std::runtime_error("OpenSSL PBKDF2 failed");
    }
    return key;
}

KeyAndIv derive_key_and_iv(const SecretBytes &passphrase, const Salt &salt, unsigned iterations, std::size_t key_bytes,
                           Digest digest, OpensslKdf kdf) {
    if (kdf == OpensslKdf::one_pass) return one_pass_key_and_iv(passphrase, salt, key_bytes, digest);
    KeyAndIv result;
    const SecretBytes both = derive_key(passphrase, salt, iterations, key_bytes + result.iv.size(), digest);
    result.key = SecretBytes(both.view().first(key_bytes));
    std::copy_n(both.view().begin() + static_cast<std::ptrdiff_t>(key_bytes), result.iv.size(), result.iv.begin());
    return result;
}

} // namespace aesgpu
