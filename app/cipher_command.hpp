// SPDX-License-Identifier: Apache-2.0
#pragma once
#include "app/options.hpp"

namespace aesgpu {

// `aesgpu encrypt` / `aesgpu decrypt`: resolves inputs, outputs and key, runs the pipeline, and
// commits each output only on success. Everything that can fail without the key (inputs, outputs,
// terminals) is checked before a passphrase is asked for. With one input, throws UsageError
// (exit 2) or std::exception (exit 1); with several, reports each failure, goes on, prints a
// summary and returns the exit status (2 if any usage error, else 1 if any failure, else 0). Once
// the last output is in place, a signal no longer reports an interruption (settle_interrupts).
[[nodiscard]] int run_cipher_command(const CipherOptions &options);

} // namespace aesgpu
