// SPDX-License-Identifier: Apache-2.0
#pragma once
// The rules between options: what one option means for another (--iter with a raw key, --streams
// with --backend cpu, -q with -v), each broken rule a UsageError before anything runs.
#include "app/option_tables.hpp"
#include "cipher/cipher_backend.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

namespace aesgpu {

// After sealing: usage errors that CLI11 cannot express, such as options the chosen mode would
// ignore (--iter with a raw key, --streams with --backend cpu, -q with -v).
void check_command_line(const CLI::App &app, const CommandLine &parsed);

// Where nothing tells a file's mode: what to do.
inline constexpr const char *kGiveTheMode = "give the mode it was made with: --mode ecb, cbc or ctr";

// Why decrypt --rm is refused where the key is not proven (`why`: the mode's reason), for the
// command line's check and a file whose mode was read alike.
[[nodiscard]] std::string unproven_decrypt_rm(std::string_view why);
// That reason for `mode` (ECB, CBC or CTR), or for whole blocks where `no_pad`.
[[nodiscard]] const char *unproven_key_reason(Mode mode, bool no_pad);

} // namespace aesgpu
