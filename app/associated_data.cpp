// SPDX-License-Identifier: Apache-2.0
#include "app/associated_data.hpp"

#include "common/errors.hpp"
#include "io/input_source.hpp"

#include <array>
#include <span>

namespace aesgpu {

AssociatedData read_associated_data(const CipherOptions &options, const struct stat *data_on_stdin) {
    if (options.associated_data_file.empty()) return {options.associated_data, std::nullopt};
    const std::string &path = options.associated_data_file;
    const std::string what = path == "-" ? std::string("the associated data (--aad-file -)")
                                         : "the associated-data file " + quoted_name(path);
    if (path == "-" && data_on_stdin) {
        throw UsageError("--aad-file - and the data cannot both come from standard input: give the associated data "
                         "a file of its own");
    }
    struct stat named {};
    if (path != "-" && ::stat(path.c_str(), &named) == 0 && S_ISDIR(named.st_mode)) {
        throw UsageError(what + " is a directory: --aad-file takes the file that holds the associated data");
    }
    InputSource source = [&] {
        try {
            return InputSource::open(path);
        } catch (const IoError &e) {
            throw IoError(std::string("cannot read ") + what + ": " + e.what());
        }
    }();
    if (data_on_stdin && same_file(source.status(), *data_on_stdin)) {
        throw UsageError(what + " is the data's standard input: the two cannot both come from there");
    }
    AssociatedData data{std::string(), source.status()};
    std::array<char, std::size_t{64} << 10> piece{};
    for (;;) {
        const std::size_t got = source.read_full(std::as_writable_bytes(std::span(piece)));
        data.bytes.append(piece.data(), got);
        if (data.bytes.size() > kMaxAssociatedDataBytes) {
            throw IoError(what + " holds more than " + std::to_string(kMaxAssociatedDataBytes >> 20) +
                          " MiB of associated data, more than aesgpu takes");
        }
        if (got < piece.size()) return data;
    }
}

} // namespace aesgpu
