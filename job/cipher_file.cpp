// SPDX-License-Identifier: Apache-2.0
#include "job/cipher_file.hpp"

#include "common/errors.hpp"
#include "common/memory_limit.hpp"
#include "engine/segment_chunks.hpp"
#include "job/file_job.hpp"

#include <stdexcept>
#include <utility>

namespace aesgpu {

namespace {

// gcm: the main key's size: the raw key's, or the one a passphrase is to give.
std::size_t gcm_key_bytes(const CipherSettings &settings, KeySource &keys) {
    return keys.passphrase_mode() ? settings.passphrase_key_bits / 8 : keys.secret().size();
}

void tell_notes(NoteQueue &notes, CipherObserver &observer) {
    notes.tell_queued([&observer](NoteLevel level, const std::string &what) { observer.note(level, what); });
}

// cipher_file_with_key, its notes queued: they come from other threads.
PipelineStats run_with_key(InputSource &source, OutputSink &sink, const CipherSettings &settings,
                           const FileHeader &header, const CipherKey &key, CipherObserver &observer, NoteQueue &notes) {
    const CipherSpec spec = header.gcm ? header.gcm->spec(settings.direction)
                                       : CipherSpec(settings.direction, settings.mode, key.iv.value_or(CounterBlock{}));
    // What the output is decides whether the GPU may start behind the CPU: bytes that reached a
    // pipe or a device cannot be taken back if the GPU then fails.
    SelectedBackend selected = select_backend(settings.backend, spec, key.key.view(), sink.withdrawable(), &notes);
    observer.backend_selected(selected);
    const std::size_t default_chunk = source.size() ? selected.file_chunk_bytes : kStreamChunkBytes;
    FileJob job{source, sink,
                PipelineOptions{settings.direction, framing_of(settings),
                                settings.chunk_bytes ? settings.chunk_bytes : default_chunk, selected.ring_slots}};
    if (header.gcm) job.pipeline.segments = spec.gcm.geometry;
    // Past a control group's limit the OOM killer ends the run; no allocation fails first. The
    // page cache of the files counts there too, and a dirty page cannot be given back until written.
    bool tight = false;
    if (const std::optional<std::uint64_t> limit = cgroup_memory_limit()) {
        job.pipeline.memory_limit = *limit;
        tight = *limit < kTightMemoryLimit;
        if (tight) {
            source.drop_behind();
            sink.write_behind(*limit / kWriteBehindShareOfMemoryLimit);
        }
    }
    const std::vector<std::byte> header_bytes = header.bytes();
    if (settings.direction == Direction::encrypt) {
        job.header = header_bytes;
    } else {
        job.header_bytes_read = header_bytes.size(); // read by file_header_for
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

Framing framing_of(const CipherSettings &settings) {
    return settings.mode == Mode::gcm ? Framing::any_length : openssl_enc_framing(settings.mode, settings.no_pad);
}

std::vector<std::byte> FileHeader::bytes() const {
    if (gcm) return gcm->header_bytes();
    if (!salt) return {};
    const auto salted = make_salted_header(*salt);
    return {salted.begin(), salted.end()};
}

FileHeader file_header_for(const CipherSettings &settings, KeySource &keys, InputSource &source) {
    FileHeader header;
    if (settings.mode == Mode::gcm) {
        const std::size_t segment_bytes = settings.segment_bytes ? settings.segment_bytes : kDefaultSegmentBytes;
        header.gcm = gcm_file_for(settings.direction, gcm_key_bytes(settings, keys), segment_bytes,
                                  keys.passphrase_mode(), source);
    } else if (keys.passphrase_mode()) {
        header.salt = settings.direction == Direction::encrypt ? random_salt() : read_salt(source);
    }
    return header;
}

CipherKey cipher_key(const CipherSettings &settings, KeySource &keys, const FileHeader &header) {
    if (header.gcm) return {gcm_segment_key(*header.gcm, keys.secret(), settings.associated_data), {}};
    if (!header.salt) {
        // The counter a raw CTR key starts from is the caller's to give: a default would repeat it.
        if (settings.mode == Mode::ctr && !settings.iv) throw std::invalid_argument("CTR with a raw key needs an IV");
        return {SecretBytes(keys.secret().view()), settings.iv};
    }
    return openssl_enc_key(settings.mode, keys.secret(), *header.salt, settings.pbkdf2_iterations,
                           settings.passphrase_key_bits / 8);
}

PipelineStats cipher_file_with_key(InputSource &source, OutputSink &sink, const CipherSettings &settings,
                                   const FileHeader &header, const CipherKey &key, CipherObserver &observer) {
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
        stats = run_with_key(source, sink, settings, header, key, observer, notes);
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

PipelineStats cipher_file(InputSource &source, OutputSink &sink, const CipherSettings &settings, KeySource &keys,
                          CipherObserver &observer) {
    const FileHeader header = file_header_for(settings, keys, source);
    const CipherKey key = cipher_key(settings, keys, header);
    return cipher_file_with_key(source, sink, settings, header, key, observer);
}

} // namespace aesgpu
