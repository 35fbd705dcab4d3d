// SPDX-License-Identifier: Apache-2.0
#include "keys/scrypt.hpp"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace aesgpu {

namespace {

struct KdfFree {
    void operator()(EVP_KDF *kdf) const { EVP_KDF_free(kdf); }
    void operator()(EVP_KDF_CTX *ctx) const { EVP_KDF_CTX_free(ctx); }
};

void *mutable_data(std::span<const std::uint8_t> bytes) {
    return const_cast<std::uint8_t *>(bytes.data()); // OSSL_PARAM takes void *; the KDF only reads
}

} // namespace

SecretBytes scrypt(const SecretBytes &passphrase, std::span<const std::uint8_t> salt, ScryptCost cost,
                   std::size_t key_bytes) {
    SecretBytes key(key_bytes);
    std::uint64_t n = std::uint64_t{1} << cost.log2_n;
    std::uint32_t r = cost.r;
    std::uint32_t p = cost.p;
    std::uint64_t max_memory = kMaxScryptBytes + (std::uint64_t{1} << 20);
    const OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PASSWORD, mutable_data(passphrase.view()), passphrase.size()),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, mutable_data(salt), salt.size()),
        OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_N, &n),
        OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_R, &r),
        OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_P, &p),
        OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_MAXMEM, &max_memory),
        OSSL_PARAM_construct_end()};
    std::unique_ptr<EVP_KDF, KdfFree> kdf(EVP_KDF_fetch(nullptr, "SCRYPT", nullptr));
    std::unique_ptr<EVP_KDF_CTX, KdfFree> ctx(kdf ? EVP_KDF_CTX_new(kdf.get()) : nullptr);
    if (!ctx || EVP_KDF_derive(ctx.get(), key.mutable_view().data(), key.size(), params) != 1) {
        const unsigned long code = ERR_get_error();
        char reason[256] = "unknown reason";
        if (code) ERR_error_string_n(code, reason, sizeof reason);
        throw std::runtime_error(std::string("OpenSSL SCRYPT failed: ") + reason);
    }
    return key;
}

} // namespace aesgpu
