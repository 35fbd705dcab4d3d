// SPDX-License-Identifier: Apache-2.0
#include "app/io_path.hpp"

#include "app/output_naming.hpp"
#include "common/errors.hpp"
#include "io/direct_io.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <optional>
#include <utility>

namespace aesgpu {

namespace {

// "io_uring, 16 in flight", or "4 threads; io_uring: why not", for -v.
std::string in_flight(const DirectQueue &queue) {
    const std::string engine = queue.queue->engine();
    if (engine == "io_uring") return engine + ", " + std::to_string(queue.queue->depth()) + " in flight";
    return std::to_string(queue.queue->depth()) + " threads; io_uring: " + queue.why_not_io_uring;
}

} // namespace

namespace {

void check_direct_inputs(const std::vector<std::string> &inputs) {
    // stat(), never open(): a FIFO's open would wait for its other end.
    const auto regular_or_missing = [](const std::string &path) {
        struct stat status {};
        return ::stat(path.c_str(), &status) != 0 || S_ISREG(status.st_mode);
    };
    for (const std::string &input : inputs) {
        struct stat status {};
        const bool regular =
            input == "-" ? ::fstat(STDIN_FILENO, &status) == 0 && S_ISREG(status.st_mode) : regular_or_missing(input);
        if (!regular) {
            throw UsageError("--io direct reads regular files only; " +
                             (input == "-" ? std::string("standard input") : quoted_name(input)) + " is not one");
        }
    }
}

// Each input's own output, -o or a name made from the input's: a FIFO there (ff.aes beside ff)
// would otherwise be opened, and wait for a reader, before the refusal. A directory is left to
// the output's own check, which says so.
void check_direct_outputs(const CipherOptions &options, const std::vector<std::string> &inputs) {
    const auto written_as_it_goes = [](const std::string &path) {
        struct stat status {};
        return ::stat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode) && !S_ISDIR(status.st_mode);
    };
    for (const std::string &input : inputs) {
        std::string output;
        try {
            output = resolve_output_path(options, input);
        } catch (const UsageError &) {
            continue; // no name to write to: that input's own error, in its turn
        }
        if (output.empty() || written_as_it_goes(output)) {
            throw UsageError("--io direct writes regular files only; " +
                             (output.empty() ? std::string("standard output") : quoted_name(output)) +
                             " is written as it goes");
        }
    }
}

} // namespace

void check_direct_io_targets(const CipherOptions &options, const std::vector<std::string> &inputs) {
    if (options.io != IoChoice::direct) return;
    check_direct_inputs(inputs);
    if (!options.test_only && !options.print_key) check_direct_outputs(options, inputs);
}

namespace {

// -v's words for why both sides stay on the page cache.
const char *buffered_reason(StaysBuffered why) {
    switch (why) {
    case StaysBuffered::asked: return "--io buffered";
    case StaysBuffered::not_regular_files: return "a pipe, device or standard stream is not a regular file";
    case StaysBuffered::small_file: return "a small file";
    case StaysBuffered::small_chunk: return "a --chunk-size under 1 MiB";
    case StaysBuffered::input_cached: return "the input is in the page cache already";
    }
    return "?";
}

} // namespace

IoPath describe_io_path(const DirectIoOutcome &outcome, const InputSource &source, bool writes) {
    IoPath path{};
    path.writes = writes;
    if (outcome.stays_buffered) {
        path.reason = buffered_reason(*outcome.stays_buffered);
        return path;
    }
    if (outcome.reads_refused) {
        path.reason = "reads: " + *outcome.reads_refused;
        return path;
    }
    const std::string unseen_cache =
        outcome.cache_unseen ? "; whether the input is cached cannot be seen: it is neither ours nor writable" : "";
    path.reads_direct = true;
    path.engine = source.direct_queue()->queue->engine();
    path.reason = "reads past the page cache (" + in_flight(*source.direct_queue()) + ")";
    if (!writes) {
        path.reason += unseen_cache;
        return path;
    }
    if (outcome.writes_refused) {
        path.reason += "; writes buffered: " + *outcome.writes_refused + unseen_cache;
        return path;
    }
    path.writes_direct = true;
    path.reason += ", and so do writes, each output durable at its end" + unseen_cache;
    return path;
}

void rethrow_direct_io_refusal() {
    try {
        throw;
    } catch (const DirectIoRefused &refused) {
        if (refused.refusal) throw; // the file system's: an IoError, in the same words
        throw UsageError(refused.writing
                             ? "--io direct writes regular files only; " + refused.name + " is written as it goes"
                             : "--io direct reads regular files only; " + refused.name + " is read as it comes");
    }
}

} // namespace aesgpu
