#pragma once
#include "app/options.hpp"

namespace aesgpu {

// What a signal does once the command's last output is in place.
enum class WhenDone {
    settle_interrupts,  // nothing: every output is final, and the exit status says so (the CLI)
    stay_interruptible, // the caller runs on (the bench) and stays interruptible
};

// `aesgpu encrypt` / `aesgpu decrypt`: resolves inputs, outputs and key, runs the pipeline, and
// commits each output only on success. Everything that can fail without the key (inputs, outputs,
// terminals) is checked before a passphrase is asked for. With one input, throws UsageError
// (exit 2) or std::exception (exit 1); with several, reports each failure, goes on, prints a
// summary and returns the exit status (2 if any usage error, else 1 if any failure, else 0).
[[nodiscard]] int run_cipher_command(const CipherOptions &options, WhenDone when_done = WhenDone::settle_interrupts);

} // namespace aesgpu
