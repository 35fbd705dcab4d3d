// SPDX-License-Identifier: Apache-2.0
#include "job/cipher_file.hpp"

#include "common/errors.hpp"
#include "common/memory_limit.hpp"
#include "engine/segment_chunks.hpp"
#include "job/file_job.hpp"

#include <array>
#include <span>
#include <stdexcept>
#include <utility>

namespace aesgpu {

namespace {

// gcm: the main key's size: the raw key's (16 or 32 bytes, as Tink's AES*_GCM_HKDF_* keys), or
// passphrase_key_bits for a passphrase.
std::size_t gcm_key_bytes(const CipherSettings &settings, KeySource &keys) {
    if (keys.passphrase_mode()) return settings.passphrase_key_bits / 8;
    const std::size_t bytes = keys.secret().size();
    if (bytes != 16 && bytes != 32) throw std::invalid_argument("a GCM key is 16 or 32 bytes");
    return bytes;
}

GcmFile gcm_file_for(const CipherSettings &settings, KeySource &keys, InputSource &source) {
    const std::size_t segment_bytes = settings.segment_bytes ? settings.segment_bytes : kDefaultSegmentBytes;
    const std::size_t key_bytes = gcm_key_bytes(settings, keys);
    if (segment_bytes <= stream_header_bytes(key_bytes) + kGcmTagBytes) {
        throw std::invalid_argument("a GCM segment must exceed the stream header and a tag");
    }
    if (settings.direction == Direction::encrypt) return new_gcm_file(key_bytes, segment_bytes, keys.passphrase_mode());
    return read_gcm_file(source, keys.passphrase_mode() ? 0 : key_bytes, segment_bytes);
}

Salt salt_from(InputSource &source) {
    std::array<std::byte, kSaltedHeaderBytes> header{};
    const auto start = std::span(header).first(source.read_full(header));
    if (const std::optional<Salt> salt = parse_salted_header(start)) return *salt;
    throw NoSaltedHeader(source.display_name() + " has no 'Salted__' header", classify_ciphertext_start(start));
}

} // namespace

Framing framing_of(const CipherSettings &settings) {
    if (settings.mode != Mode::ecb) return Framing::any_length;
    return settings.no_pad ? Framing::whole_blocks : Framing::pkcs7;
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
        header.gcm = gcm_file_for(settings, keys, source);
    } else if (keys.passphrase_mode()) {
        header.salt = settings.direction == Direction::encrypt ? random_salt() : salt_from(source);
    }
    return header;
}

CipherKey cipher_key(const CipherSettings &settings, KeySource &keys, const FileHeader &header) {
    if (header.gcm) return {gcm_segment_key(*header.gcm, keys.secret(), settings.associated_data), {}};
    if (!header.salt) return {SecretBytes(keys.secret().view()), settings.iv};
    const std::size_t key_bytes = settings.passphrase_key_bits / 8;
    if (settings.mode == Mode::ecb) {
        return {derive_key(keys.secret(), *header.salt, settings.pbkdf2_iterations, key_bytes), {}};
    }
    KeyAndIv derived = derive_key_and_iv(keys.secret(), *header.salt, settings.pbkdf2_iterations, key_bytes);
    return {std::move(derived.key), derived.iv};
}

PipelineStats cipher_file_with_key(InputSource &source, OutputSink &sink, const CipherSettings &settings,
                                   const FileHeader &header, const CipherKey &key, CipherObserver &observer) {
    const CipherSpec spec = header.gcm ? header.gcm->spec(settings.direction)
                                       : CipherSpec(settings.direction, settings.mode, key.iv.value_or(CounterBlock{}));
    // What the output is decides whether the GPU may start behind the CPU: bytes that reached a
    // pipe or a device cannot be taken back if the GPU then fails.
    SelectedBackend selected = select_backend(settings.backend, spec, key.key.view(), sink.withdrawable());
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
    observer.starting(JobPlan{selected, job.pipeline.chunk_bytes, slot_bytes, job.pipeline.ring_slots, job.pipeline.memory_limit, tight,
                              tight ? job.pipeline.memory_limit / kWriteBehindShareOfMemoryLimit : 0});
    job.pipeline.on_progress = [&observer](std::uint64_t done) { observer.progress(done); };
    job.commit = [&observer, &sink](const PipelineStats &stats) { observer.commit(sink, stats); };
    return run_file_job(job, *selected.backend);
}

PipelineStats cipher_file(InputSource &source, OutputSink &sink, const CipherSettings &settings, KeySource &keys,
                          CipherObserver &observer) {
    const FileHeader header = file_header_for(settings, keys, source);
    const CipherKey key = cipher_key(settings, keys, header);
    return cipher_file_with_key(source, sink, settings, header, key, observer);
}

} // namespace aesgpu
