// SPDX-License-Identifier: Apache-2.0
#include "app/openssl_habits.hpp"

#include <array>
#include <regex>
#include <string_view>
#include <utility>

namespace aesgpu {

namespace {

// openssl enc's option, and what aesgpu takes for it.
constexpr std::array<std::pair<std::string_view, std::string_view>, 14> kHabits{{
    {"-in", "-in is openssl's: aesgpu takes the input as a FILE argument (FILE -o OUT)"},
    {"-out", "-out is openssl's: aesgpu's output is -o OUT (or --output)"},
    {"-kfile", "-kfile is openssl's: aesgpu's is -p file:PATH"},
    {"-salt", "-salt is openssl's default: aesgpu salts every passphrase; drop it"},
    {"-pass", "-pass is openssl's: aesgpu's is -p/--pass SPEC (pass:, env:, file:, fd:, stdin as openssl's)"},
    {"-pbkdf2",
     "-pbkdf2 is openssl's: aesgpu's passphrases are PBKDF2 already (openssl enc -pbkdf2's format); drop it"},
    {"-iter", "-iter is openssl's: aesgpu's is --iter N"},
    {"-md", "-md is openssl's: aesgpu's is --md DIGEST"},
    {"-iv", "-iv is openssl's: aesgpu's is --iv HEX"},
    {"-nopad", "-nopad is openssl's: aesgpu's is --no-pad"},
    {"-nosalt",
     "-nosalt is openssl's: aesgpu takes a raw key (-K, --key-file) without a salt, or a passphrase with one"},
    {"-a", "-a is openssl's base64: aesgpu reads and writes binary; pipe through base64 (-d) as needed"},
    {"-base64", "-base64 is openssl's: aesgpu reads and writes binary; pipe through base64 (-d) as needed"},
    {"-A", "-A is openssl's base64 on one line: aesgpu reads and writes binary; pipe through base64 as needed"},
}};

// -aes-256-cbc and its kin: --mode and, for a passphrase, --key-bits.
std::optional<std::string> cipher_habit(std::string_view word) {
    static const std::regex cipher("-aes-?(128|192|256)(-(ecb|ctr|cbc|gcm))?");
    std::cmatch match;
    if (!std::regex_match(word.begin(), word.end(), match, cipher)) return std::nullopt;
    const std::string mode = match[3].matched ? match[3].str() : "cbc";
    if (mode == "gcm") {
        return std::string(word) + ": openssl enc takes no GCM; aesgpu's authenticated mode is --mode gcm (Tink's "
                                   "streaming format)";
    }
    return std::string(word) + " is openssl's: aesgpu's is --mode " + mode + " (a raw key's size gives AES-" +
           match[1].str() + "; with a passphrase, --key-bits " + match[1].str() + ")";
}

// -d and -e: the command says the direction.
std::optional<std::string> direction_habit(const std::string &command, std::string_view word) {
    if (word != "-d" && word != "-e") return std::nullopt;
    const std::string wanted = word == "-d" ? "decrypt" : "encrypt";
    if (command == wanted) return std::string(word) + " is openssl's: `aesgpu " + wanted + "` says it already; drop it";
    return std::string(word) + " is openssl's: " + wanted + "ing is `aesgpu " + wanted + " ...`";
}

std::optional<std::string> habit_of(const std::string &command, std::string_view word) {
    if (word == "--no-pbkdf2" && command == "encrypt") {
        return "--no-pbkdf2 reads openssl's old key derivation, for decrypt; aesgpu never writes it (one digest "
               "pass, no iterations: weak)";
    }
    if (std::optional<std::string> habit = direction_habit(command, word)) return habit;
    if (std::optional<std::string> habit = cipher_habit(word)) return habit;
    for (const auto &[name, instead] : kHabits) {
        if (word == name) return std::string(instead);
    }
    return std::nullopt;
}

} // namespace

std::optional<std::string> openssl_habit(const std::string &command, std::span<char *const> words) {
    std::optional<std::string> habits;
    for (const char *word : words) {
        if (std::string_view(word) == "--") break;
        if (const std::optional<std::string> habit = habit_of(command, word)) {
            habits = habits ? *habits + "; " + *habit : *habit;
        }
    }
    return habits;
}

} // namespace aesgpu
