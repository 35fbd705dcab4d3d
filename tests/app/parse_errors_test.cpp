// SPDX-License-Identifier: Apache-2.0
// CLI11's terse parse errors in plain words, in the phrasings of the CLI11 versions the supported
// distributions ship (2.3 on Debian 12, 2.4 on Ubuntu 24.04).
#include "app/argv_secrets.hpp"
#include "app/option_tables.hpp"
#include "app/suggestions.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace aesgpu::test {
namespace {

TEST(ParseErrors, RepeatsAndRangesAreSaidPlainly) {
    EXPECT_EQ(plain_parse_error("--devices: At Most 1 required but received 2"),
              "--devices: given 2 times; give it once");
    EXPECT_EQ(plain_parse_error("--io-threads: Value abc not in range 1 to 64"),
              "--io-threads: 'abc' is not a number from 1 to 64");
    EXPECT_EQ(plain_parse_error("--io-threads: Value abc not in range [1 - 64]"),
              "--io-threads: 'abc' is not a number from 1 to 64");
    EXPECT_EQ(plain_parse_error("--threads: Value -5 not in range [0 - 4096]"),
              "--threads: '-5' is not a number from 0 to 4096");
    // Anything else stays as CLI11 wrote it.
    EXPECT_EQ(plain_parse_error("The following arguments were not expected: x"),
              "The following arguments were not expected: x");
}

// without_secret_arguments over `words` as the command line (after the program name).
std::string blanked(const std::string &message, std::vector<std::string> words) {
    CLI::App app;
    CommandLine parsed;
    define_command_line(app, parsed);
    words.insert(words.begin(), "aesgpu");
    std::vector<char *> argv;
    for (auto &word : words) argv.push_back(word.data());
    return without_secret_arguments(message, app, static_cast<int>(argv.size()), argv.data());
}

TEST(ParseErrors, SecretsAreBlankedEvenWhereTheirOptionIsMistyped) {
    const std::string key = "000102030405060708090a0b0c0d0e0f";
    EXPECT_EQ(blanked("not expected: -K " + key, {"info", "-K", key}), "not expected: -K (not shown)");
    EXPECT_EQ(blanked("not expected: --pass=pass:x", {"info", "--pass=pass:x"}), "not expected: (not shown)");
    // A slip of the shift key or a typo, with the secret as the next word.
    for (const std::string option : {"-k", "-P", "--KEY", "--Pass", "--kye", "--pas"}) {
        EXPECT_EQ(blanked("not expected: " + option + " " + key, {"info", option, key}),
                  "not expected: " + option + " (not shown)");
    }
    EXPECT_EQ(blanked("not expected: --kye=" + key, {"info", "--kye=" + key}), "not expected: --kye=(value not shown)");
    // Other options' values stay.
    EXPECT_EQ(blanked("not expected: --devices 0", {"info", "--devices", "0"}), "not expected: --devices 0");
}

TEST(ParseErrors, AnOptionAfterAMistypedSecretOptionIsNamed) {
    // -k is --keep, not a mistyped -K, where an option follows: never a secret, which CLI11 would
    // not have taken as a value either.
    EXPECT_EQ(blanked("--keep excludes --rm", {"encrypt", "-k", "--rm", "p"}), "--keep excludes --rm");
    EXPECT_EQ(blanked("not expected: -P -f", {"info", "-P", "-f"}), "not expected: -P -f");
    EXPECT_EQ(blanked("not expected: -K -q", {"info", "-K", "-q"}), "not expected: -K -q");
    // Any other word is blanked, even one that starts with a dash: CLI11 takes `-p -secret` as a value.
    EXPECT_EQ(blanked("not expected: -p -5x", {"info", "-p", "-5x"}), "not expected: -p (not shown)");
    EXPECT_EQ(blanked("not expected: --keyy -MySecret", {"encrypt", "--keyy", "-MySecret"}),
              "not expected: --keyy (not shown)");
    EXPECT_EQ(blanked("not expected: -k -Secret", {"info", "-k", "-Secret"}), "not expected: -k (not shown)");
}

TEST(ParseErrors, ASecretThatTheBlankHoldsIsBlankedOnce) {
    // "(not shown)" holds "shown)" as a word: a search that went on from where it wrote would
    // find it again for ever.
    EXPECT_EQ(blanked("not expected: -p shown)", {"info", "-p", "shown)"}), "not expected: -p (not shown)");
    EXPECT_EQ(blanked("not expected: --x=(value", {"info", "--x=(value"}), "not expected: --x=(value not shown)");
}

TEST(VersionText, NamesTheGpuCodeTheBuildCarries) {
    EXPECT_EQ(gpu_code_text("80-real 86-real 90-real 90-virtual"),
              "GPU code for sm_80, sm_86, sm_90, and PTX for compute_90 (newer GPUs compile it when aesgpu first "
              "starts)");
    EXPECT_EQ(gpu_code_text("90"), "GPU code for sm_90, and PTX for compute_90 (newer GPUs compile it when aesgpu "
                                   "first starts)")
        << "a bare number is both";
    EXPECT_EQ(gpu_code_text("89-real"), "GPU code for sm_89");
}

} // namespace
} // namespace aesgpu::test
