// SPDX-License-Identifier: Apache-2.0
#pragma once
// Secrets given on the command line (-K, -p): taken out of CLI11's strings and argv as soon as
// parsing is done, and never quoted by a parse error.
#include "app/option_tables.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace aesgpu {

// Right after parsing: moves -K and -p into SecretBytes, then wipes every copy that can be
// reached (the bound strings, CLI11's own results, the argv words, which `ps` shows). Copies the
// parser made and freed on the way cannot be reached; core dumps are off (process_hardening).
// Throws UsageError when -K, --key-file, -p or -o was given empty (an unset shell variable).
void seal_secret_arguments(CLI::App &app, CommandLine &parsed, int argc, char **argv);

// `message` (a parse error) with the values given to -K/--key and -p/--pass blanked out: CLI11
// quotes arguments it did not expect, and those may be secrets (`aesgpu info -K HEX`).
// A word after a (mistyped) secret option is blanked unless it is one of `app`'s option names.
[[nodiscard]] std::string without_secret_arguments(std::string message, const CLI::App &app, int argc, char **argv);

} // namespace aesgpu
