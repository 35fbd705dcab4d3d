// SPDX-License-Identifier: Apache-2.0
#pragma once
// Several runs at once (the command's files, cipher_files' tasks): an output that exists now and
// is another run's input, under any name (compared by device and inode), would be replaced before
// or after that run reads it. Checked over the whole set before any run.
#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace aesgpu {

struct OutputOverInput {
    std::size_t output_of; // the run whose output it is
    std::size_t input_of;  // the run whose input it is
};

// The first such pair, or none. `outputs[i]` is run i's output ("" or "-": none to replace).
[[nodiscard]] std::optional<OutputOverInput> output_over_input(std::span<const std::string> inputs,
                                                               std::span<const std::string> outputs);

} // namespace aesgpu
