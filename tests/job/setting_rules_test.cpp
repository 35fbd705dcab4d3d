// SPDX-License-Identifier: Apache-2.0
// Where each optional setting counts: the one statement of the rules that the command's flags and
// the public API's fields are both checked against.
#include "job/setting_rules.hpp"

#include <gtest/gtest.h>

namespace aesgpu::test {
namespace {

SettingUse use(Mode mode, bool passphrase, Direction direction = Direction::encrypt,
               BackendChoice backend = BackendChoice::automatic) {
    return {direction, mode, passphrase, backend};
}

TEST(SettingRules, TheIvIsCtrsWithARawKeyAndThenRequired) {
    EXPECT_EQ(fit_of(Setting::iv, use(Mode::ctr, false)), SettingFit::counts);
    EXPECT_EQ(fit_of(Setting::iv, use(Mode::ctr, true)), SettingFit::raw_key_only);
    EXPECT_EQ(fit_of(Setting::iv, use(Mode::ecb, false)), SettingFit::other_mode);
    EXPECT_EQ(fit_of(Setting::iv, use(Mode::gcm, true)), SettingFit::other_mode);
    EXPECT_TRUE(iv_required(use(Mode::ctr, false, Direction::decrypt)));
    EXPECT_FALSE(iv_required(use(Mode::ctr, true)));
    EXPECT_FALSE(iv_required(use(Mode::ecb, false)));
    EXPECT_FALSE(iv_required(use(Mode::gcm, false)));
}

TEST(SettingRules, NoPadIsEcbsAndGcmsSettingsAreGcms) {
    EXPECT_EQ(fit_of(Setting::no_pad, use(Mode::ecb, true)), SettingFit::counts);
    EXPECT_EQ(fit_of(Setting::no_pad, use(Mode::ctr, false)), SettingFit::other_mode);
    EXPECT_EQ(fit_of(Setting::no_pad, use(Mode::gcm, false)), SettingFit::other_mode);
    for (const Setting setting : {Setting::segment_bytes, Setting::associated_data}) {
        EXPECT_EQ(fit_of(setting, use(Mode::ecb, false)), SettingFit::other_mode);
        EXPECT_EQ(fit_of(setting, use(Mode::ctr, true)), SettingFit::other_mode);
        EXPECT_EQ(fit_of(setting, use(Mode::gcm, false, Direction::decrypt)), SettingFit::counts);
        EXPECT_EQ(fit_of(setting, use(Mode::gcm, true)), SettingFit::counts);
    }
    // A gcm passphrase file's header records its segment size; associated data is never recorded.
    EXPECT_EQ(fit_of(Setting::segment_bytes, use(Mode::gcm, true, Direction::decrypt)), SettingFit::read_from_header);
    EXPECT_EQ(fit_of(Setting::associated_data, use(Mode::gcm, true, Direction::decrypt)), SettingFit::counts);
}

TEST(SettingRules, PassphraseSettingsNeedAPassphraseAndGcmsComeFromScryptAndTheHeader) {
    for (const Mode mode : {Mode::ecb, Mode::ctr, Mode::gcm}) {
        EXPECT_EQ(fit_of(Setting::pbkdf2_iterations, use(mode, false)), SettingFit::passphrase_only);
        EXPECT_EQ(fit_of(Setting::passphrase_key_bits, use(mode, false, Direction::decrypt)),
                  SettingFit::passphrase_only);
    }
    EXPECT_EQ(fit_of(Setting::pbkdf2_iterations, use(Mode::ecb, true, Direction::decrypt)), SettingFit::counts);
    EXPECT_EQ(fit_of(Setting::pbkdf2_iterations, use(Mode::gcm, true)), SettingFit::scrypt_instead);
    EXPECT_EQ(fit_of(Setting::passphrase_key_bits, use(Mode::ctr, true, Direction::decrypt)), SettingFit::counts);
    EXPECT_EQ(fit_of(Setting::passphrase_key_bits, use(Mode::gcm, true)), SettingFit::counts);
    EXPECT_EQ(fit_of(Setting::passphrase_key_bits, use(Mode::gcm, true, Direction::decrypt)),
              SettingFit::read_from_header);
    for (const unsigned bits : {128u, 192u, 256u}) EXPECT_TRUE(passphrase_key_bits_fit(bits, Mode::ecb)) << bits;
    EXPECT_TRUE(passphrase_key_bits_fit(128, Mode::gcm));
    EXPECT_TRUE(passphrase_key_bits_fit(256, Mode::gcm));
    EXPECT_FALSE(passphrase_key_bits_fit(192, Mode::gcm)) << "Tink's keys are 16 or 32 bytes";
    for (const unsigned bits : {0u, 64u, 100u, 512u}) EXPECT_FALSE(passphrase_key_bits_fit(bits, Mode::ctr)) << bits;
}

// Removing the input needs a key proven right first: on decrypt, only GCM's tags do that.
TEST(SettingRules, RemovingTheInputAfterADecryptTakesGcm) {
    for (const Mode mode : {Mode::ecb, Mode::ctr, Mode::gcm}) {
        EXPECT_EQ(fit_of(Setting::remove_input, use(mode, false)), SettingFit::counts);
    }
    EXPECT_EQ(fit_of(Setting::remove_input, use(Mode::ecb, true, Direction::decrypt)), SettingFit::unproven_key);
    EXPECT_EQ(fit_of(Setting::remove_input, use(Mode::ctr, false, Direction::decrypt)), SettingFit::unproven_key);
    EXPECT_EQ(fit_of(Setting::remove_input, use(Mode::gcm, true, Direction::decrypt)), SettingFit::counts);
}

TEST(SettingRules, GpuChoicesCountWhereverAGpuMayRun) {
    EXPECT_EQ(fit_of(Setting::gpu_choices, use(Mode::ecb, false, Direction::encrypt, BackendChoice::cpu)),
              SettingFit::gpu_only);
    for (const BackendChoice backend : {BackendChoice::automatic, BackendChoice::gpu, BackendChoice::all}) {
        EXPECT_EQ(fit_of(Setting::gpu_choices, use(Mode::gcm, true, Direction::decrypt, backend)), SettingFit::counts);
    }
}

} // namespace
} // namespace aesgpu::test
