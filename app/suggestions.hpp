// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the command line suggests where a word is wrong: the command meant by a typo ("decrpyt"),
// the option meant (--versoin, --kye), the help to see, and CLI11's errors in plain words.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>

namespace aesgpu {

inline constexpr std::array kCommands{"encrypt", "decrypt", "keygen", "info", "bench"};

// Typed names and choice values compare case-insensitively: --mode GCM is --mode gcm.
inline std::string lower_case(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

// Edits (insert, delete, replace, swap two neighbours) from `a` to `b`: "decrpyt" is 1 from
// "decrypt". Command names are short, so the quadratic table costs nothing.
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, if one is a typo of it (at most two edits away).
template <typename Names>
std::string closest_name(std::string_view word, const Names &candidates) {
    std::string closest;
    std::size_t best = 3;
    for (const auto &candidate : candidates) {
        const std::size_t distance = edit_distance(word, candidate);
        if (distance < best) {
            best = distance;
            closest = candidate;
        }
    }
    return closest;
}

// The first word, when it names no command: an option that belongs after one, or a typo
// (UsageError, with the command meant where one is near).
void refuse_unknown_command(int argc, char **argv);

// "see `aesgpu encrypt --help`" for a parse error in the encrypt command, else the main help;
// with "did you mean --key-file?" first when an unknown long option is a typo of a known one
// (or an openssl habit's translation, openssl_habits).
[[nodiscard]] std::string help_hint(const CLI::App &app, int argc, char **argv);

// `message` (a parse error) in plain words where CLI11's own are terse: "--devices: given 2 times;
// give it once" for "At Most 1 required but received 2", "'abc' is not a number from 1 to 64" for
// "Value abc not in range 1 to 64". Other messages are left as they are.
[[nodiscard]] std::string plain_parse_error(std::string message);

// The message of `error` as CLI11 wrote it, but for the arguments it did not expect (ExtrasError),
// which are listed as they were given: CLI11 lists them last first ("0 --devices").
[[nodiscard]] std::string parse_error_text(const CLI::ParseError &error, const CLI::App &app);

} // namespace aesgpu
