// SPDX-License-Identifier: Apache-2.0
#include "app/output_naming.hpp"

#include "common/errors.hpp"

#include <filesystem>

namespace aesgpu {

bool ends_in_suffix(const std::string &name, const std::string &suffix) {
    // "dir/.aes" would decrypt to "dir/": the name must keep something before the suffix.
    const std::size_t base = name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1;
    return name.size() > base + suffix.size() && name.ends_with(suffix);
}

namespace {

// The input's name with the suffix added (encrypt) or taken off (decrypt).
std::string suffixed_name(const CipherOptions &options, const std::string &input) {
    const std::string &suffix = options.suffix;
    if (options.direction == Direction::encrypt) return input + suffix;
    if (ends_in_suffix(input, suffix)) return input.substr(0, input.size() - suffix.size());
    if (std::filesystem::path(input).filename() == suffix) {
        throw UsageError("cannot name the output for " + quoted_name(input) + ": it is named just " +
                         quoted_name(suffix) + ", which would leave no name; give one with -o OUT, -S SUFFIX, or -c");
    }
    throw UsageError("cannot name the output for " + quoted_name(input) + " (it does not end in " +
                     quoted_name(suffix) + "); give one with -o OUT, -S SUFFIX, or -c for standard output");
}

// The input's path as it goes under the directory: "/abs/x" as "abs/x", "./tree/a" as "tree/a".
std::filesystem::path mirrored_path(const std::string &name) {
    return std::filesystem::path(name).lexically_normal().relative_path();
}

} // namespace

void refuse_unmirrorable(const std::string &input) {
    const std::filesystem::path path = mirrored_path(input);
    if (path.empty() || *path.begin() == "..") {
        throw UsageError("--output-dir-mirror cannot mirror " + quoted_name(input) + ": its path climbs out with '..'");
    }
}

std::string resolve_output_path(const CipherOptions &options, const std::string &input) {
    if (options.to_stdout || options.output == "-") return {};
    if (!options.output.empty()) return options.output;
    if (input == "-") return {};
    const std::string named = suffixed_name(options, input);
    if (options.output_dir.empty()) return named;
    if (!options.mirror_tree) {
        return (std::filesystem::path(options.output_dir) / std::filesystem::path(named).filename()).string();
    }
    refuse_unmirrorable(input);
    return (std::filesystem::path(options.output_dir) / mirrored_path(named)).string();
}

} // namespace aesgpu
