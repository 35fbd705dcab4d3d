// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where each input's output goes: -o, -c, or the input's name with the suffix (-S, default .aes)
// added (encrypt) or taken off (decrypt), as gzip and zstd name theirs.
#include "app/options.hpp"

#include <string>

namespace aesgpu {

// The output path for `input` ("-" is standard input); empty for standard output. Throws
// UsageError when decrypting a name without the suffix and no -o or -c says where to write.
[[nodiscard]] std::string resolve_output_path(const CipherOptions &options, const std::string &input);

} // namespace aesgpu
