// SPDX-License-Identifier: Apache-2.0
#pragma once
// `aesgpu keygen`: a new random key, as raw bytes to a new private file or as hex on stdout.
#include "app/options.hpp"

namespace aesgpu {

// Throws IoError when the file exists (a key is never replaced) or cannot be written; a failed
// write leaves no file behind.
void run_keygen_command(const KeygenOptions &options);

} // namespace aesgpu
