#pragma once
#include "app/options.hpp"

namespace aesgpu {

// `aesgpu encrypt` / `aesgpu decrypt`: resolves input, output and key, runs the pipeline, and
// commits the output only on success. Throws UsageError (exit 2) or std::exception (exit 1).
void run_cipher_command(const CipherOptions &options);

} // namespace aesgpu
