// SPDX-License-Identifier: Apache-2.0
#include "app/output_naming.hpp"

#include "common/errors.hpp"

namespace aesgpu {

std::string resolve_output_path(const CipherOptions &options, const std::string &input) {
    if (options.to_stdout || options.output == "-") return {};
    if (!options.output.empty()) return options.output;
    if (input == "-") return {};
    if (options.direction == Direction::encrypt) return input + std::string(kEncryptedSuffix);
    if (input.size() > kEncryptedSuffix.size() && std::string_view(input).ends_with(kEncryptedSuffix)) {
        return input.substr(0, input.size() - kEncryptedSuffix.size());
    }
    throw UsageError("cannot name the output for " + quoted_name(input) +
                     " (it does not end in .aes); give one with -o OUT, or -c for standard output");
}

} // namespace aesgpu
