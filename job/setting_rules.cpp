// SPDX-License-Identifier: Apache-2.0
#include "job/setting_rules.hpp"

namespace aesgpu {

namespace {

SettingFit in_mode(bool mode_has_it) {
    return mode_has_it ? SettingFit::counts : SettingFit::other_mode;
}

// A passphrase's setting: with a raw key, passphrase_only; else `with_passphrase`.
SettingFit of_passphrase(const SettingUse &use, SettingFit with_passphrase) {
    return use.passphrase ? with_passphrase : SettingFit::passphrase_only;
}

// A gcm passphrase file's header records its segment size and key size.
SettingFit unless_in_header(const SettingUse &use) {
    const bool header = use.mode == Mode::gcm && use.passphrase && use.direction == Direction::decrypt;
    return header ? SettingFit::read_from_header : SettingFit::counts;
}

// Only an authenticated mode proves the key right before the only copy of the data goes.
SettingFit removal_fit(const SettingUse &use) {
    const bool unproven = use.direction == Direction::decrypt && use.mode != Mode::gcm;
    return unproven ? SettingFit::unproven_key : SettingFit::counts;
}

} // namespace

SettingFit fit_of(Setting setting, const SettingUse &use) {
    switch (setting) {
    case Setting::iv:
        if (use.mode != Mode::ctr) return SettingFit::other_mode;
        return use.passphrase ? SettingFit::raw_key_only : SettingFit::counts;
    case Setting::no_pad: return in_mode(use.mode == Mode::ecb);
    case Setting::pbkdf2_iterations:
        return of_passphrase(use, use.mode == Mode::gcm ? SettingFit::scrypt_instead : SettingFit::counts);
    case Setting::passphrase_key_bits: return of_passphrase(use, unless_in_header(use));
    case Setting::segment_bytes: return use.mode == Mode::gcm ? unless_in_header(use) : SettingFit::other_mode;
    case Setting::associated_data: return in_mode(use.mode == Mode::gcm);
    case Setting::gpu_choices: return use.backend == BackendChoice::cpu ? SettingFit::gpu_only : SettingFit::counts;
    case Setting::remove_input: return removal_fit(use);
    }
    return SettingFit::counts;
}

bool iv_required(const SettingUse &use) {
    return use.mode == Mode::ctr && !use.passphrase;
}

bool passphrase_key_bits_fit(unsigned bits, Mode mode) {
    if (mode == Mode::gcm) return bits == 128 || bits == 256;
    return bits == 128 || bits == 192 || bits == 256;
}

} // namespace aesgpu
