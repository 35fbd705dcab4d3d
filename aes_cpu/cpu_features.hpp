// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the CPU offers for AES, for `aesgpu info`.
#include <string>

namespace aesgpu {

struct CpuAesFeatures {
    bool aes_ni = false; // AES-NI (x86) or the ARMv8 crypto extension
    bool vaes = false;   // AES on 256/512-bit vectors (x86 VAES)
    bool avx512 = false;
};

[[nodiscard]] CpuAesFeatures detect_cpu_aes_features();
[[nodiscard]] std::string openssl_version_text();

} // namespace aesgpu
