// SPDX-License-Identifier: Apache-2.0
#include "app/argv_secrets.hpp"

#include "app/suggestions.hpp"
#include "cipher/secret_bytes.hpp"
#include "common/errors.hpp"

#include <array>
#include <cstring>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

namespace aesgpu {

namespace {

// Wipes what CLI11 holds of an option's value.
void wipe_results(const CLI::Option &option) {
    for (const std::string &result : option.results()) {
        auto &stored = const_cast<std::string &>(result); // CLI11 owns it and offers no mutable view
        wipe_secret(stored.data(), stored.size());
    }
}

// Blanks `secret` in every argv word that ends with it (-K HEX, -KHEX, --key=HEX, ...), so that
// `ps` and /proc/PID/cmdline no longer show it once parsing is done.
void scrub_arguments(int argc, char **argv, std::string_view secret) {
    if (secret.empty()) return;
    for (int i = 1; i < argc; ++i) {
        const std::size_t length = std::strlen(argv[i]);
        if (length >= secret.size() && std::string_view(argv[i] + length - secret.size()) == secret) {
            wipe_secret(argv[i] + length - secret.size(), secret.size());
        }
    }
}

// -K "" or -p "" is almost always an unset variable ($KEY): say so rather than fall back to a prompt.
void refuse_empty(const CLI::Option &option, bool empty) {
    if (option.count() > 0 && empty) {
        throw UsageError(option.get_name() + " was given an empty value (an unset variable?)");
    }
}

void seal_command_secrets(CLI::App &command, CipherOptions &options, SecretArguments &secrets, bool ran, int argc,
                          char **argv) {
    options.key_hex = SecretBytes::take(secrets.key_hex);
    options.pass_spec = SecretBytes::take(secrets.pass_spec);
    scrub_arguments(argc, argv, options.key_hex.text());
    scrub_arguments(argc, argv, options.pass_spec.text());
    const CLI::Option &key = *command.get_option("--key");
    const CLI::Option &pass = *command.get_option("--pass");
    wipe_results(key);
    wipe_results(pass);
    if (!ran) return;
    refuse_empty(key, options.key_hex.empty());
    refuse_empty(pass, options.pass_spec.empty());
    refuse_empty(*command.get_option("--key-file"), options.key_file.empty());
    refuse_empty(*command.get_option("--aad-file"), options.associated_data_file.empty());
    refuse_empty(*command.get_option("--output"), options.output.empty());
}

// Whether `word` may be -K, --key, -p or --pass mistyped (-k, --KEY, --kye), so that the next
// word may be a secret. Some are other options (-k is --keep): blanking their value in a parse
// error costs only a word of the message.
bool mistyped_secret_option(std::string_view word) {
    if (word == "-k" || word == "-P") return true;
    if (!word.starts_with("--") || word.find('=') != std::string_view::npos) return false;
    const std::string lower = lower_case(std::string(word));
    return !closest_name(lower, std::array<std::string_view, 2>{"--key", "--pass"}).empty();
}

// Every option name aesgpu and its commands know, as typed: "--rm", "-f".
std::set<std::string, std::less<>> option_names(const CLI::App &app) {
    std::set<std::string, std::less<>> names;
    std::vector<const CLI::App *> apps{&app};
    for (const CLI::App *command : app.get_subcommands({})) apps.push_back(command);
    for (const CLI::App *command : apps) {
        for (const CLI::Option *option : command->get_options()) {
            for (const std::string &name : option->get_lnames()) names.insert("--" + name);
            for (const std::string &name : option->get_snames()) names.insert("-" + name);
        }
    }
    return names;
}

// Replaces `word` in `message` where it stands whole (CLI11 lists arguments separated by spaces),
// so a short secret does not blank letters of the message itself. Each search goes on after what
// it put in, which may hold the word again ("shown)").
void replace_whole_words(std::string &message, std::string_view word, std::string_view replacement) {
    if (word.empty()) return;
    for (std::size_t at = message.find(word); at != std::string::npos;) {
        const std::size_t end = at + word.size();
        const bool whole = (at == 0 || message[at - 1] == ' ') && (end == message.size() || message[end] == ' ');
        if (!whole) {
            at = message.find(word, at + 1);
            continue;
        }
        message.replace(at, word.size(), replacement);
        at = message.find(word, at + replacement.size());
    }
}

// Hides in `message` what argument `word` may carry as a secret: its own value (--key=HEX, -KHEX,
// -qK HEX bundled) or the `next` word's (--key HEX, -K HEX; empty where next is an option).
void hide_secrets_of(std::string &message, std::string_view word, std::string_view next) {
    const auto blank = [&message](std::string_view secret) { replace_whole_words(message, secret, "(not shown)"); };
    if (word == "--key" || word == "--pass" || mistyped_secret_option(word)) blank(next);
    if (word.starts_with("--key=") || word.starts_with("--pass=")) {
        blank(word);
        blank(word.substr(word.find('=') + 1));
    } else if (word.starts_with("--") && word.find('=') != std::string_view::npos) {
        // A misspelt secret option (--kye=HEX) is quoted as unexpected: keep its name only.
        replace_whole_words(message, word, std::string(word.substr(0, word.find('=') + 1)) + "(value not shown)");
    }
    // Short options, alone or bundled (-K HEX, -KHEX, -qK HEX, -fppass:x): what follows K or p
    // in the word is the value, or else the next word is.
    if (word.size() < 2 || word[0] != '-' || word[1] == '-') return;
    const std::size_t at = word.find_first_of("Kp", 1);
    if (at == std::string_view::npos) return;
    if (at + 1 < word.size()) {
        blank(word);
        blank(word.substr(at + 1));
    } else {
        blank(next);
    }
}

} // namespace

std::string without_secret_arguments(std::string message, const CLI::App &app, int argc, char **argv) {
    const auto options = option_names(app);
    for (int i = 1; i < argc; ++i) {
        // An option's own name after a mistyped one is no secret (`-k --rm` must still say --rm);
        // any other word may be one, even with a dash (`-p -secret` is taken as a value).
        const std::string_view after = i + 1 < argc ? std::string_view(argv[i + 1]) : std::string_view();
        hide_secrets_of(message, argv[i], options.contains(after) ? std::string_view() : after);
    }
    return message;
}

void seal_secret_arguments(CLI::App &app, CommandLine &parsed, int argc, char **argv) {
    for (const auto &[name, ran] : {std::pair{"encrypt", Command::encrypt}, std::pair{"decrypt", Command::decrypt}}) {
        CLI::App &command = *app.get_subcommand(name);
        if (command.get_option_no_throw("--key") == nullptr) continue; // defined without its options
        const bool encrypt = ran == Command::encrypt;
        seal_command_secrets(command, encrypt ? parsed.encrypt_options : parsed.decrypt_options,
                             encrypt ? parsed.encrypt_secrets : parsed.decrypt_secrets, parsed.command == ran, argc,
                             argv);
    }
}

} // namespace aesgpu
