// SPDX-License-Identifier: Apache-2.0
#include "job/setting_rules.hpp"

namespace aesgpu {

SettingFit fit_of(Setting setting, const SettingUse &use) {
    const bool gcm = use.mode == Mode::gcm;
    switch (setting) {
    case Setting::iv:
        if (use.mode != Mode::ctr) return SettingFit::other_mode;
        return use.passphrase ? SettingFit::raw_key_only : SettingFit::counts;
    case Setting::no_pad: return use.mode == Mode::ecb ? SettingFit::counts : SettingFit::other_mode;
    case Setting::pbkdf2_iterations:
        if (!use.passphrase) return SettingFit::passphrase_only;
        return gcm ? SettingFit::scrypt_instead : SettingFit::counts;
    case Setting::passphrase_key_bits:
        if (!use.passphrase) return SettingFit::passphrase_only;
        return gcm && use.direction == Direction::decrypt ? SettingFit::read_from_header : SettingFit::counts;
    case Setting::segment_bytes:
        if (!gcm) return SettingFit::other_mode;
        return use.passphrase && use.direction == Direction::decrypt ? SettingFit::read_from_header
                                                                     : SettingFit::counts;
    case Setting::associated_data: return gcm ? SettingFit::counts : SettingFit::other_mode;
    case Setting::gpu_choices: return use.backend == BackendChoice::cpu ? SettingFit::gpu_only : SettingFit::counts;
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
