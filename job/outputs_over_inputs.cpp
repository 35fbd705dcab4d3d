// SPDX-License-Identifier: Apache-2.0
#include "job/outputs_over_inputs.hpp"

#include "io/input_source.hpp"

#include <sys/stat.h>

#include <vector>

namespace aesgpu {

namespace {

// The file a name leads to now, where it leads to one; `follow`: through a symbolic link (an
// input is read through one; an output replaces one).
std::optional<struct stat> file_named(const std::string &name, bool follow) {
    struct stat status {};
    if (name.empty() || name == "-" || (follow ? ::stat(name.c_str(), &status) : ::lstat(name.c_str(), &status)) != 0) {
        return std::nullopt;
    }
    return status;
}

} // namespace

std::optional<OutputOverInput> output_over_input(std::span<const std::string> inputs,
                                                 std::span<const std::string> outputs) {
    if (inputs.size() < 2) return std::nullopt;
    std::vector<std::optional<struct stat>> read(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) read[i] = file_named(inputs[i], true);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const std::optional<struct stat> replaced = file_named(outputs[i], false);
        if (!replaced) continue;
        for (std::size_t j = 0; j < inputs.size(); ++j) {
            if (j != i && read[j] && same_file(*replaced, *read[j])) return OutputOverInput{i, j};
        }
    }
    return std::nullopt;
}

} // namespace aesgpu
