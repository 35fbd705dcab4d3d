#pragma once
// The command-line contract (CLI11): subcommands, options, help text. Knows nothing of ciphers.
#include "app/options.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace aesgpu {

enum class Command { none, encrypt, decrypt, info, bench };

struct CommandLine {
    Command command = Command::none;
    // One set per subcommand: CLI11 versions differ in what they write into the variables of a
    // subcommand that was not given, so the two never share storage.
    CipherOptions encrypt_options; // direction set by define_command_line()
    CipherOptions decrypt_options;
    BenchOptions bench_options;

    [[nodiscard]] const CipherOptions &cipher() const {
        return command == Command::decrypt ? decrypt_options : encrypt_options;
    }
};

// Declares every subcommand and option of `app`, bound to `parsed`. After app.parse(),
// parsed.command says which subcommand ran.
void define_command_line(CLI::App &app, CommandLine &parsed);

// "aesgpu 0.1.0 (OpenSSL ..., CUDA ...)".
[[nodiscard]] std::string version_text();

} // namespace aesgpu
