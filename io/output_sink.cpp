// SPDX-License-Identifier: Apache-2.0
#include "io/output_sink.hpp"

#include "common/errors.hpp"
#include "io/input_source.hpp" // same_file
#include "io/output_path.hpp"

#include <unistd.h>

#include <utility>

namespace aesgpu {

namespace {

// -o /dev/stdout, or the file standard output was redirected to: the same as -c.
bool is_standard_output(const OutputPath &target) {
    struct stat standard_out {};
    return target.exists && ::fstat(STDOUT_FILENO, &standard_out) == 0 && same_file(target.status, standard_out);
}

// What is at the name (not a symbolic link) and may not be written whatever the policy says, or
// not without overwrite.
void refuse_unwritable(const struct stat &existing, const OutputPolicy &policy, const std::string &name) {
    if (policy.input_status && same_file(existing, *policy.input_status)) {
        throw IoError("refusing to write " + name + ": it is the input file");
    }
    if (S_ISDIR(existing.st_mode)) throw IoError("cannot write " + name + ": it is a directory");
    if (S_ISBLK(existing.st_mode) && !policy.overwrite) throw BlockDeviceNeedsOverwrite(name);
}

} // namespace

OutputSink::OutputSink(Target target, unsigned io_threads)
    : target_(std::move(target)),
      writer_(std::visit([](const auto &output) { return output.fd(); }, target_), display_name(), io_threads) {}

OutputSink::OutputSink(OutputSink &&other) noexcept = default;

// Each kind cleans up after itself: a new file not committed is removed with its NewFileOutput.
OutputSink::~OutputSink() = default;

OutputSink OutputSink::standard_output(const struct stat *input_status) {
    return descriptor(STDOUT_FILENO, "standard output", input_status);
}

OutputSink OutputSink::descriptor(int fd, std::string name, const struct stat *input_status) {
    return OutputSink(StreamOutput::descriptor(fd, std::move(name), input_status), 1);
}

OutputSink OutputSink::create(const std::string &path, const OutputPolicy &policy) {
    if (path == "-") return standard_output(policy.input_status);
    std::string name = quoted_name(path);
    const OutputPath target = resolve_output_path(path);
    if (is_standard_output(target)) return standard_output(policy.input_status);
    if (target.exists && !target.is_link) {
        refuse_unwritable(target.status, policy, name);
        // A FIFO, a terminal or a device: nothing to replace atomically, so write straight into it.
        if (!S_ISREG(target.status.st_mode)) return OutputSink(StreamOutput::open(path, std::move(name)), 1);
    }
    return OutputSink(NewFileOutput::create(target, std::move(name), policy), policy.io_threads);
}

OutputSink OutputSink::discard() {
    return OutputSink(Discarded{}, 1);
}

void OutputSink::write_all(std::span<const std::byte> bytes) {
    write_gathered(std::span(&bytes, 1));
}

void OutputSink::write_gathered(std::span<const std::span<const std::byte>> parts) {
    writer_.write(parts);
}

void OutputSink::write_with_room(std::span<std::byte> bytes, std::size_t room_before) {
    writer_.write_with_room(bytes, room_before);
}

void OutputSink::expect_size(std::uint64_t bytes) {
    writer_.expect_size(bytes);
}

void OutputSink::write_behind(std::uint64_t window_bytes) {
    writer_.write_behind(window_bytes);
}

std::optional<std::string> OutputSink::write_directly(DirectEngine engine) {
    return write_directly([engine] { return make_direct_queue(engine); });
}

std::optional<std::string> OutputSink::write_directly(const DirectQueueMaker &make_queue) {
    if (std::holds_alternative<Discarded>(target_)) return "nothing is written";
    if (std::holds_alternative<StreamOutput>(target_)) {
        return "it is written as it goes (standard output, a FIFO or a device)";
    }
    std::optional<std::string> refusal = writer_.write_directly(make_queue);
    if (!refusal) durable_ = true; // costs little once the data went straight to the disk
    return refusal;
}

void OutputSink::send_notes_to(NoteSink *notes) {
    writer_.send_notes_to(notes);
}

void OutputSink::commit() {
    writer_.finish();
    if (auto *file = std::get_if<NewFileOutput>(&target_)) {
        // First: giving the reservation back (ftruncate) would set the modification time to now.
        writer_.release_unwritten_reservation();
        file->apply_attributes();
        file->place(durable_);
    } else if (auto *stream = std::get_if<StreamOutput>(&target_)) {
        stream->finish(durable_);
    }
}

const std::string &OutputSink::display_name() const {
    return std::visit([](const auto &output) -> const std::string & { return output.display_name(); }, target_);
}

bool OutputSink::is_terminal() const {
    return ::isatty(writer_.fd()) == 1;
}

bool OutputSink::shares_file_with(int other_fd) const {
    struct stat ours {};
    struct stat theirs {};
    return ::fstat(writer_.fd(), &ours) == 0 && ::fstat(other_fd, &theirs) == 0 && same_file(ours, theirs) &&
           !S_ISCHR(ours.st_mode);
}

} // namespace aesgpu
