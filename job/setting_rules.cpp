// SPDX-License-Identifier: Apache-2.0
#include "job/setting_rules.hpp"

#include "format/file_format.hpp"

namespace aesgpu {

namespace {

SettingFit in_mode(bool mode_has_it) {
    return mode_has_it ? SettingFit::counts : SettingFit::other_mode;
}

// A passphrase's setting: with a raw key, passphrase_only; else `with_passphrase`.
SettingFit of_passphrase(const SettingUse &use, SettingFit with_passphrase) {
    return use.passphrase ? with_passphrase : SettingFit::passphrase_only;
}

// A passphrase file whose header records its segment size and key size (decrypting).
SettingFit unless_in_header(const SettingUse &use, const FormatRules &rules) {
    const bool header = rules.header_records_sizes && use.passphrase && use.direction == Direction::decrypt;
    return header ? SettingFit::read_from_header : SettingFit::counts;
}

// Only an authenticated format proves the key right before the only copy of the data goes.
SettingFit removal_fit(const SettingUse &use, const FormatRules &rules) {
    const bool unproven = use.direction == Direction::decrypt && !rules.proves_the_key;
    return unproven ? SettingFit::unproven_key : SettingFit::counts;
}

} // namespace

SettingFit fit_of(Setting setting, const SettingUse &use) {
    const FormatRules rules = format_rules(use.mode);
    switch (setting) {
    case Setting::iv:
        if (!rules.takes_iv) return SettingFit::other_mode;
        return use.passphrase ? SettingFit::raw_key_only : SettingFit::counts;
    case Setting::no_pad: return in_mode(rules.pads);
    case Setting::pbkdf2_iterations:
    case Setting::openssl_derivation:
        return of_passphrase(use, rules.pbkdf2 ? SettingFit::counts : SettingFit::scrypt_instead);
    case Setting::passphrase_key_bits: return of_passphrase(use, unless_in_header(use, rules));
    case Setting::segment_bytes: return rules.segments ? unless_in_header(use, rules) : SettingFit::other_mode;
    case Setting::associated_data: return in_mode(rules.segments);
    case Setting::gpu_choices: return use.backend == BackendChoice::cpu ? SettingFit::gpu_only : SettingFit::counts;
    case Setting::remove_input: return removal_fit(use, rules);
    }
    return SettingFit::counts;
}

bool iv_required(const SettingUse &use) {
    return format_rules(use.mode).takes_iv && !use.passphrase;
}

bool passphrase_key_bits_fit(unsigned bits, Mode mode) {
    return bits == 128 || bits == 256 || (bits == 192 && format_rules(mode).takes_192_bit_keys);
}

} // namespace aesgpu
