// SPDX-License-Identifier: Apache-2.0
#pragma once
// The command-line contract (CLI11): subcommands, options, help text. Knows nothing of ciphers.
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

// After sealing: usage errors that CLI11 cannot express, such as options the chosen mode would
// ignore (--iter with a raw key, --streams with --backend cpu, -q with -v).
void check_command_line(const CLI::App &app, const CommandLine &parsed);

// "see `aesgpu encrypt --help`" for a parse error in the encrypt command, else the main help;
// with "did you mean --key-file?" first when an unknown long option is a typo of a known one.
[[nodiscard]] std::string help_hint(const CLI::App &app, int argc, char **argv);

// Right after parsing: moves -K and -p into SecretBytes, then wipes every copy that can be
// reached (the bound strings, CLI11's own results, the argv words, which `ps` shows). Copies the
// parser made and freed on the way cannot be reached; core dumps are off (process_hardening).
// Throws UsageError when -K, --key-file, -p or -o was given empty (an unset shell variable).
void seal_secret_arguments(CLI::App &app, CommandLine &parsed, int argc, char **argv);

// `message` (a parse error) with the values given to -K/--key and -p/--pass blanked out: CLI11
// quotes arguments it did not expect, and those may be secrets (`aesgpu info -K HEX`).
// A word after a (mistyped) secret option is blanked unless it is one of `app`'s option names.
[[nodiscard]] std::string without_secret_arguments(std::string message, const CLI::App &app, int argc, char **argv);

// `message` (a parse error) in plain words where CLI11's own are terse: "--devices: given 2 times;
// give it once" for "At Most 1 required but received 2", "'abc' is not a number from 1 to 64" for
// "Value abc not in range 1 to 64". Other messages are left as they are.
[[nodiscard]] std::string plain_parse_error(std::string message);

// The message of `error` as CLI11 wrote it, but for the arguments it did not expect (ExtrasError),
// which are listed as they were given: CLI11 lists them last first ("0 --devices").
[[nodiscard]] std::string parse_error_text(const CLI::ParseError &error, const CLI::App &app);

// Where nothing tells a file's mode: what to do.
inline constexpr const char *kGiveTheMode = "give the mode it was made with: --mode ecb, cbc or ctr";

// Why decrypt --rm is refused where the key is not proven (`why`: the mode's reason), for the
// command line's check and a file whose mode was read alike.
[[nodiscard]] std::string unproven_decrypt_rm(std::string_view why);
// That reason for `mode` (ECB, CBC or CTR), or for whole blocks where `no_pad`.
[[nodiscard]] const char *unproven_key_reason(Mode mode, bool no_pad);

// What a CUDA build carries ("80-real 90-real 90-virtual", as CMAKE_CUDA_ARCHITECTURES lists it),
// in --version's words: "GPU code for sm_80, sm_90, and PTX for compute_90 (...)".
[[nodiscard]] std::string gpu_code_text(std::string_view architectures);

// "aesgpu 0.1.0 (OpenSSL ..., CUDA ...)".
[[nodiscard]] std::string version_text();

} // namespace aesgpu
