// SPDX-License-Identifier: Apache-2.0
#include "app/io_path.hpp"

#include "common/errors.hpp"
#include "io/direct_io.hpp"

#include <optional>

namespace aesgpu {

IoPath choose_io_path(IoChoice choice, bool shifted, InputSource &source, OutputSink *sink) {
    if (choice == IoChoice::buffered) return {false, false, "--io buffered"};
    const bool forced = choice == IoChoice::direct;
    if (shifted) {
        if (forced) {
            throw UsageError(kDirectIoShiftRefusal);
        }
        return {false, false, "a passphrase or GCM header shifts the output against the input"};
    }
    if (forced && !source.size()) {
        throw UsageError("--io direct reads regular files only; " + source.display_name() + " is read as it comes");
    }
    if (forced && sink && !sink->withdrawable()) {
        throw UsageError("--io direct writes regular files only; " + sink->display_name() + " is written as it goes");
    }
    if (!forced) {
        if (!source.size() || (sink && !sink->withdrawable())) {
            return {false, false, "a pipe, device or standard stream is not a regular file"};
        }
        if (*source.size() < kDirectIoMinBytes) return {false, false, "a small file"};
        if (mostly_in_page_cache(source.fd(), source.start_offset(), *source.size())) {
            return {false, false, "the input is in the page cache already"};
        }
    }
    IoPath path{};
    if (const std::optional<std::string> refusal = source.read_directly()) {
        if (forced) throw IoError("cannot read " + source.display_name() + " directly: " + *refusal);
        return {false, false, "reads: " + *refusal};
    }
    path.reads_direct = true;
    path.reason = "reads past the page cache";
    if (!sink) return path;
    if (const std::optional<std::string> refusal = sink->write_directly()) {
        if (forced) throw IoError("cannot write " + sink->display_name() + " directly: " + *refusal);
        path.reason += "; writes buffered: " + *refusal;
        return path;
    }
    path.writes_direct = true;
    path.reason += ", and so do writes, each output durable at its end";
    return path;
}

} // namespace aesgpu
