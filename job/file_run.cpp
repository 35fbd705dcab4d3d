// SPDX-License-Identifier: Apache-2.0
#include "job/file_run.hpp"

#include "common/errors.hpp"
#include "common/memory_limit.hpp"
#include "engine/segment_chunks.hpp"
#include "format/openssl_enc.hpp"
#include "job/file_job.hpp"
#include "job/input_checks.hpp"
#include "job/input_removal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace aesgpu {

namespace {

// The chunk a file of `bytes` fits in, in steps of kSmallChunkStep: direct I/O's alignment holds,
// and a few sizes cover every small file.
std::size_t chunk_for(std::uint64_t bytes) {
    constexpr std::size_t kSmallChunkStep = std::size_t{64} << 10;
    const std::uint64_t steps = std::max<std::uint64_t>(1, (bytes + kSmallChunkStep - 1) / kSmallChunkStep);
    return static_cast<std::size_t>(std::min<std::uint64_t>(steps, SIZE_MAX / kSmallChunkStep)) * kSmallChunkStep;
}

void tell_notes(NoteQueue &notes, CipherObserver &observer) {
    notes.tell_queued([&observer](NoteLevel level, const std::string &what) { observer.note(level, what); });
}

// cipher_file_with_key, its notes queued: they come from other threads.
PipelineStats run_with_key(InputSource &source, OutputSink &sink, const CipherSettings &settings,
                           const FileFormat &format, const CipherKey &key, CipherObserver &observer, NoteQueue &notes) {
    const CipherSpec &spec = key.spec;
    // What the output is decides whether the GPU may start behind the CPU: bytes that reached a
    // pipe or a device cannot be taken back if the GPU then fails.
    BackendRequest request = settings.backend;
    request.input_bytes = source.size();
    SelectedBackend selected = select_backend(request, spec, key.key.view(), sink.withdrawable(), &notes);
    observer.backend_selected(selected);
    // A file smaller than a chunk gets a ring of its size: each slot is page-locked or faulted in
    // whole, and a 4 MiB slot costs a small file's run more than its cipher.
    const std::size_t default_chunk =
        source.size() ? std::min(selected.file_chunk_bytes, chunk_for(*source.size())) : kStreamChunkBytes;
    FileJob job{source, sink,
                PipelineOptions{settings.direction, format.framing(),
                                settings.chunk_bytes ? settings.chunk_bytes : default_chunk, selected.ring_slots}};
    job.pipeline.segments = format.segments();
    // Past a control group's limit the OOM killer ends the run; no allocation fails first. The
    // page cache of the files counts there too, and a dirty page cannot be given back until written.
    // A file of one chunk holds a ring and page cache too small to meet a limit: not looked up.
    bool tight = false;
    const bool one_chunk = source.size() && *source.size() <= job.pipeline.chunk_bytes;
    const std::optional<std::uint64_t> limit = settings.memory_limit ? settings.memory_limit
                                               : one_chunk           ? std::nullopt
                                                                     : cgroup_memory_limit();
    if (limit && *limit != 0) {
        job.pipeline.memory_limit = *limit;
        tight = *limit < kTightMemoryLimit;
        if (tight) {
            source.drop_behind();
            sink.write_behind(*limit / kWriteBehindShareOfMemoryLimit);
        }
    }
    if (settings.direction == Direction::encrypt) {
        job.header = format.header();
    } else {
        job.header_bytes_read = format.header().size(); // read by file_format_for
    }
    // A chunk holds whole segments: with segments larger than the chunk asked for, one segment.
    const std::size_t slot_bytes =
        job.pipeline.segments
            ? SegmentChunks(*job.pipeline.segments, settings.direction, job.pipeline.chunk_bytes).slot_bytes()
            : job.pipeline.chunk_bytes;
    observer.starting(JobPlan{selected, job.pipeline.chunk_bytes, slot_bytes, job.pipeline.ring_slots,
                              job.pipeline.memory_limit, tight,
                              tight ? job.pipeline.memory_limit / kWriteBehindShareOfMemoryLimit : 0});
    job.pipeline.on_progress = [&observer, &notes](std::uint64_t done) {
        tell_notes(notes, observer);
        observer.progress(done);
    };
    job.commit = [&observer, &sink](const PipelineStats &stats) { observer.commit(sink, stats); };
    return run_file_job(job, *selected.backend);
}

} // namespace

std::unique_ptr<FileFormat> file_format_for(const CipherSettings &settings, KeySource &keys, InputSource &source) {
    // A raw key's size shapes a GCM header: asked for there only (a key file is read when first
    // needed), and never a passphrase's (it would prompt).
    const bool size_needed = !keys.passphrase_mode() && format_rules(settings.mode).header_sized_by_key;
    const KeyGiven given{keys.passphrase_mode(), size_needed ? keys.secret().size() : 0};
    return file_format_for(static_cast<const FormatSettings &>(settings), given, source);
}

namespace {

// The data's last blocks for the padding to decide with: at the end of a file, or of a stream
// held already (guess_input_mode).
std::vector<std::byte> final_blocks_of(InputSource &source, std::uint64_t length) {
    const std::uint64_t data = length - kSaltedHeaderBytes;
    std::vector<std::byte> blocks(std::min<std::uint64_t>(data, kFinalBlocksBytes));
    if (source.peek(blocks, length - blocks.size()) != blocks.size()) {
        throw IoError(source.display_name() + " changed while it was read");
    }
    return blocks;
}

} // namespace

ModeGuess guess_input_mode(InputSource &source, KeySource &keys, std::size_t segment_bytes, bool no_pad) {
    std::array<std::byte, kCiphertextStartBytes> start{};
    const auto peeked = std::span(start).first(source.peek(start));
    const KeyGiven given{keys.passphrase_mode(), keys.passphrase_mode() ? 0 : keys.secret().size()};
    std::optional<std::uint64_t> length = source.size();
    if (!length && given.passphrase && classify_ciphertext_start(peeked) == CiphertextStart::salted) {
        length = source.look_ahead(kModeLookaheadBytes + 1);
        if (*length > kModeLookaheadBytes) {
            throw ModeNotRecorded("openssl's 'Salted__' header does not record the mode, and the stream is longer "
                                  "than 64 MiB, too long to hold until its end says which");
        }
    }
    ModeGuess guess = guess_mode(peeked, length, given, segment_bytes, no_pad);
    if (guess.padding_decides) guess.final_blocks = final_blocks_of(source, *length);
    return guess;
}

namespace {

// The key from `secret`, and where the padding decides, the mode (into `guess`).
CipherKey key_from(const FileFormat &format, const SecretBytes &secret, ModeGuess *guess) {
    if (guess && guess->padding_decides) {
        const auto *openssl = dynamic_cast<const OpensslEncFile *>(&format);
        if (!openssl) throw std::invalid_argument("the padding decides the mode of openssl's format only");
        return openssl->key_by_padding(secret, std::vector<std::byte>(guess->final_blocks), *guess);
    }
    return format.key(secret);
}

} // namespace

CipherKey cipher_key(const FileFormat &format, KeySource &keys, ModeGuess *guess, InputSource *source) {
    const SecretBytes *openssl_line = keys.passphrase_mode() ? keys.openssl_line() : nullptr;
    if (openssl_line && !format.segments()) {
        keys.took_openssl_line(true, source ? source->display_name() : std::string());
        return key_from(format, *openssl_line, guess);
    }
    CipherKey key = key_from(format, keys.secret(), guess);
    if (!openssl_line || !source || key.spec.direction != Direction::decrypt) return key;
    try {
        authenticate_first_segment(*source, key.key, key.spec);
    } catch (const AuthenticationFailed &) {
        CipherKey cut = format.key(*openssl_line);
        authenticate_first_segment(*source, cut.key, cut.spec); // its failure is the line's too
        keys.took_openssl_line(false, source->display_name());
        return cut;
    }
    return key;
}

PipelineStats cipher_file_with_key(InputSource &source, OutputSink &sink, const CipherSettings &settings,
                                   const FileFormat &format, const CipherKey &key, CipherObserver &observer) {
    // Declared before anything that may note to it: the GPU backends tell their clean-up as they go.
    NoteQueue notes;
    struct Unhook {
        InputSource &source;
        OutputSink &sink;
        ~Unhook() {
            source.send_notes_to(nullptr);
            sink.send_notes_to(nullptr);
        }
    } unhook{source, sink};
    source.send_notes_to(&notes);
    sink.send_notes_to(&notes);
    PipelineStats stats;
    try {
        stats = run_with_key(source, sink, settings, format, key, observer, notes);
    } catch (...) {
        try {
            tell_notes(notes, observer);
        } catch (...) {
            // The run's own failure is the one to report.
        }
        throw;
    }
    tell_notes(notes, observer);
    return stats;
}

RangeUnreadable::RangeUnreadable(Why reason, std::string input_name)
    : std::invalid_argument(reason == Why::not_gcm
                                ? "a byte range is read from a GCM stream only"
                                : "a byte range is read from a file that can seek (a regular file or block device)"),
      why(reason), input(std::move(input_name)) {}

void check_range_input(const InputSource &source, const FileFormat &format) {
    const mode_t type = source.status().st_mode & S_IFMT;
    if (type != S_IFREG && type != S_IFBLK) {
        throw RangeUnreadable(RangeUnreadable::Why::not_seekable, source.display_name());
    }
    if (!format.segments()) throw RangeUnreadable(RangeUnreadable::Why::not_gcm, source.display_name());
}

PipelineStats decrypt_range(InputSource &source, OutputSink &sink, const FileFormat &format, const CipherKey &key,
                            const ByteRange &range, CipherObserver &observer) {
    check_range_input(source, format);
    const auto started = std::chrono::steady_clock::now();
    const std::uint64_t data_start = static_cast<std::uint64_t>(source.start_offset()) + format.header().size();
    const off_t end = ::lseek(source.fd(), 0, SEEK_END);
    if (end < 0) throw IoError(errno_message("cannot seek in", source.display_name(), errno));
    const std::uint64_t data_bytes = static_cast<std::uint64_t>(end) - std::min<std::uint64_t>(end, data_start);
    const RangeRead read = decrypt_gcm_range(source, data_start, data_bytes, key.key, key.spec, range, sink);
    PipelineStats stats;
    stats.bytes_read = format.header().size() + read.ciphertext_bytes;
    stats.bytes_ciphered = read.ciphertext_bytes;
    stats.bytes_written = read.plaintext_bytes;
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    observer.commit(sink, stats);
    return stats;
}

namespace {

// "descriptor 5", as messages name an end given as one.
std::string descriptor_name(int fd) {
    return "descriptor " + std::to_string(fd);
}

InputSource open_input(const FileRun &run) {
    if (run.input.is_descriptor()) {
        // A copy of the caller's descriptor: the source closes its own, never the caller's.
        UniqueFd copy(::fcntl(run.input.fd, F_DUPFD_CLOEXEC, 3));
        if (!copy.valid()) throw IoError(errno_message("cannot use", descriptor_name(run.input.fd), errno));
        return InputSource::adopt(std::move(copy), descriptor_name(run.input.fd));
    }
    // A FIFO's open waits for a writer: a range, which needs a file that can seek, never opens one.
    struct stat named {};
    if (run.range && run.input.path != "-" && ::stat(run.input.path.c_str(), &named) == 0 && S_ISFIFO(named.st_mode)) {
        throw RangeUnreadable(RangeUnreadable::Why::fifo, quoted_name(run.input.path));
    }
    return InputSource::open(run.input.path, run.io_threads);
}

// Hands every callback to the run's observer; the commit goes through commit_run, with the input's
// removal where asked.
class RunCommit final : public CipherObserver {
public:
    RunCommit(const FileRun &run, const InputSource &source, RunObserver &observer)
        : run_(run), source_(source), observer_(observer) {}
    void backend_selected(const SelectedBackend &selected) override { observer_.backend_selected(selected); }
    void starting(const JobPlan &plan) override { observer_.starting(plan); }
    void progress(std::uint64_t bytes_done) override { observer_.progress(bytes_done); }
    void note(NoteLevel level, std::string_view what) override { observer_.note(level, what); }
    void commit(OutputSink &sink, const PipelineStats &stats) override {
        observer_.commit_run(stats, [&] {
            if (run_.remove_input) {
                commit_removing_input(sink, source_, run_.input.path);
            } else {
                sink.commit();
            }
        });
    }

private:
    const FileRun &run_;
    const InputSource &source_;
    RunObserver &observer_;
};

} // namespace

std::optional<OutputSink> RunObserver::open_output(InputSource &source, const FileRun &run) {
    std::optional<OutputSink> sink;
    if (run.output.is_descriptor()) {
        sink.emplace(OutputSink::descriptor(run.output.fd, descriptor_name(run.output.fd), &source.status()));
    } else if (run.output.path == "-") {
        sink.emplace(OutputSink::standard_output(&source.status()));
    } else {
        sink.emplace(OutputSink::create(run.output.path, OutputPolicy{.overwrite = run.overwrite,
                                                                      .input_status = &source.status(),
                                                                      .io_threads = run.io_threads,
                                                                      .interrupt_cleanups = run.interrupt_cleanups}));
    }
    if (run.remove_input) prepare_input_removal(source, run.input.path, *sink);
    if (run.durable) sink->make_durable();
    return sink;
}

void RunObserver::choose_io(InputSource &source, OutputSink *sink, const FileRun &run) {
    // An output that keeps nothing has no writes to send past the page cache.
    io_chosen(
        choose_direct_io(run.io, run.settings.chunk_bytes, source, sink && !sink->keeps_nothing() ? sink : nullptr));
}

PipelineStats run_file(const FileRun &run, KeySource &keys, RunObserver &observer) {
    CipherSettings settings = run.settings;
    observer.step(RunStep::opening, settings);
    InputSource source = open_input(run);
    observer.input_opened(source);
    if (settings.direction == Direction::decrypt) check_ciphertext_start(source, keys.passphrase_mode());
    std::optional<ModeGuess> guess;
    if (run.mode_from_file && settings.direction == Direction::decrypt) {
        observer.step(RunStep::reading_mode, settings);
        guess = guess_input_mode(source, keys, settings.segment_bytes, settings.no_pad);
        settings.mode = guess->mode;
        observer.mode_read(source, *guess);
    }
    observer.step(RunStep::reading_header, settings);
    const std::unique_ptr<FileFormat> format = file_format_for(settings, keys, source);
    observer.header_read(source, *format);
    if (run.range) check_range_input(source, *format); // before a passphrase is asked for
    observer.step(RunStep::opening_output, settings);
    std::optional<OutputSink> sink = observer.open_output(source, run);
    observer.output_opened(source, sink ? &*sink : nullptr);
    observer.step(RunStep::checking_length, settings);
    check_input_length(*format, settings.direction, source);
    observer.step(RunStep::choosing_io, settings);
    if (!run.range) observer.choose_io(source, sink ? &*sink : nullptr, run);
    // A prompt asks only once nothing that needs no key can fail: not for a missing GPU.
    if (keys.will_prompt()) check_required_backend(settings.backend);
    observer.step(RunStep::deriving_key, settings);
    const auto started = std::chrono::steady_clock::now();
    const CipherKey key = cipher_key(*format, keys, guess ? &*guess : nullptr, &source);
    observer.key_derived(*format, key,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
                         guess ? &*guess : nullptr);
    if (guess && guess->first_segment_decides) {
        observer.step(RunStep::checking_first_segment, settings);
        authenticate_first_segment(source, key.key, key.spec);
    }
    settings.mode = key.spec.mode; // where the padding decided, the mode it says
    observer.step(RunStep::holding_key, settings);
    observer.key_in_hand(key);
    if (!sink) return {};
    observer.step(RunStep::running, settings);
    RunCommit commit(run, source, observer);
    if (run.range) return decrypt_range(source, *sink, *format, key, *run.range, commit);
    return cipher_file_with_key(source, *sink, settings, *format, key, commit);
}

} // namespace aesgpu
