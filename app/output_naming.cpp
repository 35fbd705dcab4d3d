// SPDX-License-Identifier: Apache-2.0
#include "app/output_naming.hpp"

#include "common/errors.hpp"

namespace aesgpu {

std::string resolve_output_path(const CipherOptions &options, const std::string &input) {
    if (options.to_stdout || options.output == "-") return {};
    if (!options.output.empty()) return options.output;
    if (input == "-") return {};
    const std::string &suffix = options.suffix;
    if (options.direction == Direction::encrypt) return input + suffix;
    // "dir/.aes" would decrypt to "dir/": the name must keep something before the suffix.
    const std::size_t base = input.rfind('/') == std::string::npos ? 0 : input.rfind('/') + 1;
    if (input.size() > base + suffix.size() && input.ends_with(suffix)) {
        return input.substr(0, input.size() - suffix.size());
    }
    throw UsageError("cannot name the output for " + quoted_name(input) + " (it does not end in " +
                     quoted_name(suffix) + "); give one with -o OUT, -S SUFFIX, or -c for standard output");
}

} // namespace aesgpu
