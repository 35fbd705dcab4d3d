// SPDX-License-Identifier: Apache-2.0
#include "aes_cpu/cpu_features.hpp"

#include <openssl/crypto.h>

#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace aesgpu {

CpuAesFeatures detect_cpu_aes_features() {
    CpuAesFeatures features;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    features.aes_ni = __builtin_cpu_supports("aes");
    features.vaes = __builtin_cpu_supports("vaes");
    features.avx512 = __builtin_cpu_supports("avx512f");
#elif defined(__aarch64__) && defined(__linux__)
    features.aes_ni = (getauxval(AT_HWCAP) & HWCAP_AES) != 0;
#endif
    return features;
}

std::string openssl_version_text() {
    return OpenSSL_version(OPENSSL_VERSION);
}

} // namespace aesgpu
