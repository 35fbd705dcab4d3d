// SPDX-License-Identifier: Apache-2.0
#pragma once
// The command line's option tables (CLI11): its subcommands, their options and help texts, and
// the parse. Knows nothing of ciphers. The rules between options are option_rules', the secrets'
// handling argv_secrets', the suggestions after a wrong word suggestions'.
#include "app/options.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace aesgpu {

enum class Command { none, encrypt, decrypt, keygen, info, bench };

// Where CLI11 puts -K and -p until seal_secret_arguments() takes them out.
struct SecretArguments {
    std::string key_hex;
    std::string pass_spec;
};

struct CommandLine {
    Command command = Command::none;
    // One set per subcommand: CLI11 versions differ in what they write into the variables of a
    // subcommand that was not given, so the two never share storage.
    CipherOptions encrypt_options; // direction set by define_command_line()
    CipherOptions decrypt_options;
    SecretArguments encrypt_secrets;
    SecretArguments decrypt_secrets;
    KeygenOptions keygen_options;
    bool info_json = false;
    std::vector<std::string> info_files; // aesgpu info FILE...: what each file's start says
    BenchOptions bench_options;

    [[nodiscard]] const CipherOptions &cipher() const {
        return command == Command::decrypt ? decrypt_options : encrypt_options;
    }
    [[nodiscard]] CipherOptions &cipher() { return command == Command::decrypt ? decrypt_options : encrypt_options; }
};

// Declares every subcommand and option of `app`, bound to `parsed`. After app.parse(),
// parsed.command says which subcommand ran. With `named` (the first word of the command line)
// a command, only that command gets its options: the others' tables cost a run as much as its
// cipher of a small file, and nothing of them is used.
void define_command_line(CLI::App &app, CommandLine &parsed, std::string_view named = {});

// Parses argv. Handles `--` itself (CLI11 2.x hands the words after it to the parent command when
// a subcommand's FILE list already has one), so `aesgpu encrypt 'a b' -- -dash` takes both files.
// Throws CLI::ParseError, or UsageError for words after `--` that no FILE list takes.
void parse_command_line(CLI::App &app, CommandLine &parsed, int argc, char **argv);

// What a CUDA build carries ("80-real 90-real 90-virtual", as CMAKE_CUDA_ARCHITECTURES lists it),
// in --version's words: "GPU code for sm_80, sm_90, and PTX for compute_90 (...)".
[[nodiscard]] std::string gpu_code_text(std::string_view architectures);

// "aesgpu 0.1.0 (OpenSSL ..., CUDA ...)".
[[nodiscard]] std::string version_text();

} // namespace aesgpu
