// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where each optional setting of a file job counts, stated once: what depends on the mode, each
// format states (format/file_format's FormatRules); the backend's and the job's are here. The
// command refuses a flag, and the public API a field, that would be ignored or cannot work: each
// asks these rules, and says it in its own words (a flag, a field) and its own order.
#include <aesgpu/types.hpp>

namespace aesgpu {

// The settings that count for some jobs only.
enum class Setting {
    iv,                  // ctr's first counter block
    no_pad,              // ecb without PKCS#7
    pbkdf2_iterations,   // openssl enc's -iter
    openssl_derivation,  // openssl enc's -md, and its old KDF (no -pbkdf2)
    passphrase_key_bits, // the AES key a passphrase gives
    segment_bytes,       // gcm's segment size
    associated_data,     // gcm's associated data
    gpu_choices,         // the GPUs to use, their streams, waiting for them
    remove_input,        // the input goes once the output is in place
};

// The job a setting would be used in.
struct SettingUse {
    Direction direction = Direction::encrypt;
    Mode mode = Mode::ecb;
    bool passphrase = false; // keyed by a passphrase; else by a raw key
    BackendChoice backend = BackendChoice::automatic;
};

// Whether a setting counts for a job, and if not, why.
enum class SettingFit {
    counts,
    other_mode,       // iv is ctr's; no_pad ecb's; segment_bytes and associated_data gcm's
    raw_key_only,     // iv: a passphrase derives its own
    passphrase_only,  // pbkdf2_iterations, passphrase_key_bits: a raw key is used as it is
    scrypt_instead,   // pbkdf2_iterations in gcm: scrypt derives a passphrase's key there
    read_from_header, // a gcm passphrase file's header records its segment and key size
    gpu_only,         // gpu_choices with the CPU backend
    unproven_key,     // remove_input on decrypt outside gcm: a wrong key would go unnoticed
};

[[nodiscard]] SettingFit fit_of(Setting setting, const SettingUse &use);

// ctr with a raw key needs its IV: a fixed counter would repeat the keystream across files.
[[nodiscard]] bool iv_required(const SettingUse &use);

// The AES key a passphrase may give: 128, 192 or 256 bits; gcm takes 128 or 256 (Tink's sizes).
[[nodiscard]] bool passphrase_key_bits_fit(unsigned bits, Mode mode);

} // namespace aesgpu
