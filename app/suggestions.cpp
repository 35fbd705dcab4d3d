// SPDX-License-Identifier: Apache-2.0
#include "app/suggestions.hpp"

#include "app/openssl_habits.hpp"
#include "common/errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>
#include <regex>
#include <span>
#include <vector>

namespace aesgpu {

namespace {

// An option first, where a command goes: a typo of aesgpu's own (--versoin), or one of a command's.
[[noreturn]] void refuse_option_before_command(std::string_view word) {
    // Echoing the word could show a key (-KHEX): name only the option's own letters.
    const std::string name(word.substr(0, std::min(word.find('='), word.starts_with("--") ? word.size() : 2)));
    const std::string closest =
        word.starts_with("--") ? closest_name(name, std::array<std::string_view, 2>{"--help", "--version"}) : "";
    if (!closest.empty()) {
        throw UsageError(fmt::format("unknown option {} (did you mean {}?)", quoted_name(name), closest));
    }
    throw UsageError(fmt::format("{} is not an option of aesgpu itself: options go after the command "
                                 "(aesgpu COMMAND {} ...; see `aesgpu --help`)",
                                 quoted_name(name), printable(name)));
}

} // namespace

void refuse_unknown_command(int argc, char **argv) {
    if (argc < 2) return;
    const std::string_view word = argv[1];
    if (word == "-h" || word == "-V" || word == "--help" || word == "--version" || word.starts_with("--help=")) return;
    if (word.starts_with("-")) refuse_option_before_command(word);
    if (std::find(kCommands.begin(), kCommands.end(), word) != kCommands.end()) return;
    if (word == "help" || word == "version") {
        throw UsageError(fmt::format("unknown command '{0}': use `aesgpu --{0}`", word));
    }
    // A prefix ("enc") is as good a hint as a typo.
    const auto prefixed = std::find_if(kCommands.begin(), kCommands.end(),
                                       [word](std::string_view command) { return command.starts_with(word); });
    const std::string closest = prefixed != kCommands.end() ? std::string(*prefixed) : closest_name(word, kCommands);
    throw UsageError(fmt::format("unknown command {}{}; the commands are encrypt, decrypt, keygen, info and bench",
                                 quoted_name(std::string(word)),
                                 closest.empty() ? "" : fmt::format(" (did you mean '{}'?)", closest)));
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        }
    }
    return d[a.size()][b.size()];
}

std::string help_hint(const CLI::App &app, int argc, char **argv) {
    if (argc < 2 || std::find(kCommands.begin(), kCommands.end(), std::string_view(argv[1])) == kCommands.end()) {
        return "see `aesgpu --help`";
    }
    const std::string see = fmt::format("see `aesgpu {} --help`", argv[1]);
    if (const std::optional<std::string> habit = openssl_habit(argv[1], std::span(argv + 2, argv + argc))) {
        return *habit + "; " + see;
    }
    // The first long option the command does not know, and its closest known one. Only the name
    // is looked at (not a value after '='), and words after `--` are files.
    const CLI::App &command = *app.get_subcommand(argv[1]);
    for (int i = 2; i < argc && std::string_view(argv[i]) != "--"; ++i) {
        const std::string_view word = argv[i];
        if (!word.starts_with("--")) continue;
        const std::string name(word.substr(0, word.find('=')));
        if (command.get_option_no_throw(name) != nullptr) continue;
        std::vector<std::string> known;
        for (const CLI::Option *option : command.get_options()) {
            for (const std::string &long_name : option->get_lnames()) known.push_back("--" + long_name);
        }
        const std::string closest = closest_name(name, known);
        if (!closest.empty()) return fmt::format("did you mean {}? {}", closest, see);
        break;
    }
    return see;
}

std::string plain_parse_error(std::string message) {
    static const std::regex repeated(R"(At Most 1 required but received (\d+))");
    // CLI11 2.3 says "not in range 1 to 64", 2.4 "not in range [1 - 64]".
    static const std::regex out_of_range(R"(Value (.*) not in range \[?([^ \]]+)(?: to | - )([^ \]]+)\]?)");
    message = std::regex_replace(message, repeated, "given $1 times; give it once");
    return std::regex_replace(message, out_of_range, "'$1' is not a number from $2 to $3");
}

std::string parse_error_text(const CLI::ParseError &error, const CLI::App &app) {
    if (dynamic_cast<const CLI::ExtrasError *>(&error) == nullptr) return error.what();
    const std::vector<std::string> extras = app.remaining(true);
    if (extras.empty()) return error.what();
    return fmt::format("The following argument{} not expected: {}", extras.size() > 1 ? "s were" : " was",
                       fmt::join(extras, " "));
}

} // namespace aesgpu
