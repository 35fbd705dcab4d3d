// SPDX-License-Identifier: Apache-2.0
#pragma once
// gcm's associated data: --aad TEXT, or --aad-file PATH for what a command line cannot carry (more
// than 128 KiB, a NUL byte): Tink's associated data is any bytes.
#include "app/options.hpp"

#include <sys/stat.h>

#include <cstddef>
#include <optional>
#include <string>

namespace aesgpu {

// More is refused: the whole of it is held in memory and hashed for every file.
inline constexpr std::size_t kMaxAssociatedDataBytes = std::size_t{64} << 20;

struct AssociatedData {
    std::string bytes;
    std::optional<struct stat> read_from; // --aad-file's file, which no input may be
};

// --aad, or --aad-file read whole ("-": standard input, unless the data comes from there, when
// `data_on_stdin` is its status). Throws UsageError (the data's own standard input, a directory)
// or IoError, each naming the associated data.
[[nodiscard]] AssociatedData read_associated_data(const CipherOptions &options, const struct stat *data_on_stdin);

} // namespace aesgpu
