// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where each input's output goes: -o, -c, or the input's name with the suffix (-S, default .aes)
// added (encrypt) or taken off (decrypt), as gzip and zstd name theirs; --output-dir puts that
// name's last part in its directory (zstd's --output-dir-flat), --output-dir-mirror its whole
// path (zstd's --output-dir-mirror).
#include "app/options.hpp"

#include <string>

namespace aesgpu {

// Whether `name` ends in `suffix` with something before it in its last part ("x.aes", not ".aes"):
// a name decrypt can take the suffix off.
[[nodiscard]] bool ends_in_suffix(const std::string &name, const std::string &suffix);

// Throws UsageError where --output-dir-mirror cannot mirror `input`: a path that climbs out with
// '..' (an absolute one goes under the directory as a relative one).
void refuse_unmirrorable(const std::string &input);

// The output path for `input` ("-" is standard input); empty for standard output. Throws
// UsageError when decrypting a name without the suffix and no -o or -c says where to write, or
// as refuse_unmirrorable.
[[nodiscard]] std::string resolve_output_path(const CipherOptions &options, const std::string &input);

} // namespace aesgpu
