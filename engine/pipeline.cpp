// SPDX-License-Identifier: Apache-2.0
#include "engine/pipeline.hpp"

#include "common/errors.hpp"
#include "common/threads.hpp"
#include "engine/channel.hpp"
#include "engine/out_of_place_slots.hpp"
#include "engine/segment_chunks.hpp"
#include "io/cancellation.hpp"
#include "io/pkcs7.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

namespace aesgpu {

namespace {

struct FilledChunk {
    std::size_t slot;
    std::size_t bytes; // whole blocks submitted to the backend
    bool final;
    std::size_t input_bytes; // read from the input for this chunk (before padding)
    CipherJob job;           // as submitted: its segments, and its output_offset to write from
};

// A chunk read into its slot: how many bytes, and from where in the slot.
struct ReadChunk {
    std::size_t length = 0;
    std::size_t at = 0;
};

void validate(const PipelineOptions &options) {
    if (options.chunk_bytes == 0 || options.chunk_bytes % kAesBlockBytes != 0) {
        throw std::invalid_argument("chunk size must be a positive multiple of 16 bytes");
    }
    if (options.ring_slots < kMinRingSlots) {
        throw std::invalid_argument("the ring needs at least " + std::to_string(kMinRingSlots) + " slots");
    }
}

class Pipeline {
public:
    Pipeline(InputSource &source, OutputSink &sink, CipherBackend &backend, const PipelineOptions &options)
        : source_(source), sink_(sink), backend_(backend), options_(options), chunk_bytes_(options.chunk_bytes),
          ring_slots_(options.ring_slots) {}

    PipelineStats run() {
        const auto start = std::chrono::steady_clock::now();
        // Direct I/O where chunks cannot start aligned on both sides: a header, tags, a chunk size
        // off the page grid, or standard input read partway into a page before.
        input_position_ = source_.position();
        output_position_ = sink_.position();
        out_of_place_ = (source_.reads_directly() || sink_.writes_directly()) &&
                        (options_.segments || input_position_ % OutOfPlaceSlots::kRoom != 0 ||
                         output_position_ % OutOfPlaceSlots::kRoom != 0 || chunk_bytes_ % OutOfPlaceSlots::kRoom != 0);
        // The reader starts first and waits for a free slot: where address space is short
        // (ulimit -v), the ring's retry then fits what the thread's stack leaves, and no thread
        // is refused after the ring took it all.
        std::exception_ptr reader_error;
        std::thread reader = start_thread("reading the input", [&] {
            try {
                read_all();
            } catch (const Cancelled &) {
                // The writer failed and stopped the read or the submit; its error is the one to report.
            } catch (...) {
                reader_error = std::current_exception();
            }
            filled_.close();
        });

        std::exception_ptr writer_error;
        try {
            configure_ring();
            for (std::size_t slot = 0; slot < ring_slots_; ++slot) free_slots_.push(slot);
            write_all();
        } catch (...) {
            writer_error = std::current_exception();
        }
        // A reader waiting for a slot gives up; one waiting for a pipe that may never deliver
        // again (or close), or in the backend for room (a lane whose jobs no longer end), is
        // woken too.
        free_slots_.close();
        if (writer_error) {
            cancellation_.cancel();
            backend_.cancel();
        }
        reader.join();
        // Jobs the writer never reached must finish before their buffers can be reused or freed.
        while (const auto chunk = filled_.pop()) {
            try {
                backend_.wait(chunk->slot);
            } catch (...) {
                // Already failing; the first error is the one to report.
            }
        }
        if (reader_error) std::rethrow_exception(reader_error);
        if (writer_error) std::rethrow_exception(writer_error);
        backend_.finish();

        stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        stats_.chunk_bytes = chunk_bytes_;
        stats_.ring_slots = ring_slots_;
        return stats_;
    }

private:
    // Nothing has been read yet, so a smaller chunk is a safe retry when memory is short. Last, an
    // out-of-place ring (twice the memory) goes in place: the bytes are the same, and only the
    // chunks' unaligned ends, for a shifted stream all of it, go through the page cache.
    void configure_ring() {
        for (;;) {
            try {
                fit_memory_limit();
                if (options_.segments) segments_.emplace(*options_.segments, options_.direction, chunk_bytes_);
                backend_.configure_slots(ring_slots_, slot_bytes());
                if (out_of_place_) halves_.emplace(data_bytes());
                return;
            } catch (const ResourceExhausted &) {
                // A chunk holds one segment at the least.
                const bool can_halve = chunk_bytes_ / 2 >= kMinRetryChunkBytes &&
                                       (!options_.segments || chunk_bytes_ / 2 >= options_.segments->segment_bytes);
                if (can_halve) {
                    chunk_bytes_ = halved(chunk_bytes_);
                } else if (out_of_place_) {
                    out_of_place_ = false;
                    stats_.went_in_place = true;
                    chunk_bytes_ = options_.chunk_bytes;
                    ring_slots_ = options_.ring_slots;
                } else {
                    throw;
                }
            }
        }
    }

    // What one chunk's data takes in a slot: whole segments, or the chunk and one spare block, so
    // that the padding of a full final chunk fits.
    [[nodiscard]] std::size_t data_bytes() const {
        return options_.segments ? SegmentChunks(*options_.segments, options_.direction, chunk_bytes_).slot_bytes()
                                 : chunk_bytes_ + kAesBlockBytes;
    }
    [[nodiscard]] std::size_t slot_bytes() const {
        return out_of_place_ ? OutOfPlaceSlots(data_bytes()).slot_bytes() : data_bytes();
    }

    // Half a chunk, in whole pages where there are no segments to keep whole: a chunk that direct
    // I/O takes, whose requests start where chunks do, still takes it. Before, 1028K halved to
    // 514K, and most of a "direct" run went through the page cache.
    [[nodiscard]] std::size_t halved(std::size_t chunk_bytes) const {
        constexpr std::size_t kPage = 4096;
        const std::size_t half = chunk_bytes / 2;
        return options_.segments ? half / kAesBlockBytes * kAesBlockBytes : half / kPage * kPage;
    }

    // Halves the chunk until the ring fits its share of options_.memory_limit, as far as a retry
    // would go, then (a segment is as small as a chunk gets) takes slots away, down to
    // kMinRingSlots + 1: one to read ahead into, one in the cipher, one being written.
    void fit_memory_limit() {
        if (options_.memory_limit == 0) return;
        const std::uint64_t share = options_.memory_limit / kRingShareOfMemoryLimit;
        const auto ring_bytes = [this] { return ring_slots_ * slot_bytes(); };
        while (ring_bytes() > share && chunk_bytes_ / 2 >= kMinRetryChunkBytes &&
               (!options_.segments || chunk_bytes_ / 2 >= options_.segments->segment_bytes)) {
            chunk_bytes_ = halved(chunk_bytes_);
        }
        while (ring_bytes() > share && ring_slots_ > kMinRingSlots + 1) --ring_slots_;
        if (ring_bytes() > options_.memory_limit) {
            throw ResourceExhausted("a ring of " + std::to_string(ring_slots_) + " chunks of " +
                                    std::to_string(ring_bytes() / ring_slots_ >> 10) +
                                    " KiB at the least is more than the memory limit of " +
                                    std::to_string(options_.memory_limit >> 10) + " KiB");
        }
    }

    // Reader thread. Reads one chunk ahead so that it knows which chunk is the last one, since
    // only the last chunk gets padding (encrypt) or a padding check (decrypt).
    void read_all() {
        std::optional<std::size_t> slot = free_slots_.pop();
        if (!slot) return;
        std::uint64_t chunk = 0;
        ReadChunk read = read_chunk(*slot, chunk);
        for (;;) {
            bool final = read.length < chunk_capacity(chunk);
            std::optional<std::size_t> next;
            ReadChunk next_read;
            if (!final) {
                next = free_slots_.pop();
                if (!next) return;
                next_read = read_chunk(*next, chunk + 1);
                final = next_read.length == 0;
            }
            CipherJob job{.slot = *slot, .input_offset = read.at, .output_offset = read.at};
            if (segments_) {
                job = segments_->job(*slot, chunk, read.length, final);
                job.input_offset = job.output_offset = read.at;
            } else {
                job.bytes = seal_chunk(*slot, read, final);
                job.first_block = blocks_submitted_;
                blocks_submitted_ += job.bytes / kAesBlockBytes;
                keep_chain(job);
            }
            place_output(job, read);
            backend_.submit(job);
            stats_.bytes_ciphered += job.bytes;
            filled_.push({*slot, job.bytes, final, read.length, job});
            if (final) return;
            slot = next;
            read = next_read;
            ++chunk;
        }
    }

    // CBC decrypting: the job XORs its first block with the last ciphertext block of the chunk
    // before, which that chunk's job (in place, on any lane) may overwrite at any time once it is
    // submitted: kept here as it was read. Every mode pays 16 bytes a chunk.
    void keep_chain(CipherJob &job) {
        job.chain = chain_;
        if (job.bytes < kAesBlockBytes) return;
        const std::byte *last = backend_.slot_buffer(job.slot).data() + job.input_offset + job.bytes - kAesBlockBytes;
        std::memcpy(chain_.data(), last, kAesBlockBytes);
    }

    // Out of place: where the chunk's output goes in the output half, as far into an alignment unit
    // as its place in the output file; the backend ciphers there from the input half (GCM: from
    // the plaintext as the file has it to the segments, or back).
    void place_output(CipherJob &job, const ReadChunk &read) {
        if (!halves_) return;
        job.output_offset = halves_->output_at(output_position_);
        if (!segments_) {
            output_position_ += read.length; // all chunks but the last, whose padding nothing follows
        } else {
            output_position_ += options_.direction == Direction::encrypt ? job.bytes : gcm_plaintext_bytes(job);
        }
    }

    // Input bytes a full chunk holds: a shorter read ends the stream.
    [[nodiscard]] std::size_t chunk_capacity(std::uint64_t chunk) const {
        return segments_ ? segments_->input_capacity(chunk) : chunk_bytes_;
    }

    ReadChunk read_chunk(std::size_t slot, std::uint64_t chunk) {
        const std::span<std::byte> buffer = backend_.slot_buffer(slot);
        ReadChunk read;
        if (halves_) {
            // The file as it lies, to where direct reads of the aligned range around it land.
            read.at = OutOfPlaceSlots::input_at(input_position_);
            read.length =
                source_.read_full_with_room(buffer.subspan(read.at, chunk_capacity(chunk)), OutOfPlaceSlots::kRoom);
            input_position_ += read.length;
        } else {
            read.length = segments_ ? segments_->read(source_, buffer, chunk, &cancellation_)
                                    : source_.read_full(buffer.first(chunk_bytes_), &cancellation_);
        }
        stats_.bytes_read += read.length;
        return read;
    }

    // Turns the bytes read into whole blocks: pads the last chunk when encrypting with PKCS#7, fills
    // out a partial last block with zeros for CTR (the writer cuts its keystream off again), and
    // refuses a ragged length where neither applies. Every chunk but the last is a full chunk, so
    // the last one is ragged exactly when the whole stream is.
    std::size_t seal_chunk(std::size_t slot, const ReadChunk &read, bool final) {
        const std::size_t length = read.length;
        if (!final) return length;
        check_stream_length(options_.direction, options_.framing, stats_.bytes_read);
        const std::span<std::byte> buffer = backend_.slot_buffer(slot).subspan(read.at);
        if (options_.framing == Framing::pkcs7 && options_.direction == Direction::encrypt) {
            return pkcs7_pad(buffer, length);
        }
        if (options_.framing == Framing::any_length && length % kAesBlockBytes != 0) {
            const std::size_t whole = length + kAesBlockBytes - length % kAesBlockBytes;
            std::fill(buffer.begin() + static_cast<std::ptrdiff_t>(length),
                      buffer.begin() + static_cast<std::ptrdiff_t>(whole), std::byte{0});
            return whole;
        }
        return length;
    }

    // Calling thread: in order, waits for each chunk's cipher job and writes the result.
    void write_all() {
        while (const auto chunk = filled_.pop()) {
            backend_.wait(chunk->slot);
            const std::span<std::byte> slot = backend_.slot_buffer(chunk->slot);
            if (segments_ && !halves_) {
                stats_.bytes_written += segments_->write(sink_, slot, chunk->job);
                finish_chunk(*chunk);
                continue;
            }
            if (segments_) {
                const std::size_t bytes =
                    options_.direction == Direction::encrypt ? chunk->job.bytes : gcm_plaintext_bytes(chunk->job);
                sink_.write_with_room(slot.subspan(chunk->job.output_offset, bytes),
                                      OutOfPlaceSlots::room_before_output(chunk->job.output_offset));
                stats_.bytes_written += bytes;
                finish_chunk(*chunk);
                continue;
            }
            auto bytes = slot.subspan(chunk->job.output_offset, chunk->bytes);
            if (chunk->final && options_.framing == Framing::pkcs7 && options_.direction == Direction::decrypt) {
                const auto unpadded = pkcs7_unpadded_length(bytes);
                if (!unpadded) throw BadPadding("bad decrypt (wrong key or corrupted input)");
                bytes = bytes.first(*unpadded);
            }
            if (options_.framing == Framing::any_length) bytes = bytes.first(chunk->input_bytes);
            sink_.write_with_room(bytes, halves_ ? OutOfPlaceSlots::room_before_output(chunk->job.output_offset) : 0);
            stats_.bytes_written += bytes.size();
            finish_chunk(*chunk);
        }
    }

    // A chunk is out: progress, and its slot back to the reader.
    void finish_chunk(const FilledChunk &chunk) {
        input_done_ += chunk.input_bytes;
        if (options_.on_progress) options_.on_progress(input_done_);
        free_slots_.push(chunk.slot);
    }

    InputSource &source_;
    OutputSink &sink_;
    CipherBackend &backend_;
    const PipelineOptions &options_;
    std::size_t chunk_bytes_;
    std::size_t ring_slots_;                // fewer than asked where a memory limit takes some away
    std::optional<SegmentChunks> segments_; // set for an authenticated stream
    bool out_of_place_ = false;             // direct I/O where the two sides lie apart (see run())
    std::optional<OutOfPlaceSlots> halves_; // set once the ring is, where out_of_place_
    std::uint64_t input_position_ = 0;      // reader thread: the input's file offset of the next read
    std::uint64_t output_position_ = 0;     // reader thread: the output's offset of the next chunk's output
    Channel<std::size_t> free_slots_;
    Channel<FilledChunk> filled_;
    Cancellation cancellation_;          // ends a read waiting on a pipe when the writer has failed
    PipelineStats stats_;                // bytes_read, bytes_ciphered: reader thread; bytes_written: calling thread
    std::uint64_t blocks_submitted_ = 0; // reader thread: the stream position of the next job
    CounterBlock chain_{};               // reader thread: the last block read (keep_chain)
    std::uint64_t input_done_ = 0;       // calling thread, for on_progress
};

} // namespace

void check_stream_length(Direction direction, Framing framing, std::uint64_t length) {
    if (framing == Framing::any_length) return;
    if (direction == Direction::encrypt) {
        if (framing == Framing::whole_blocks && length % kAesBlockBytes != 0) {
            throw NotWholeBlocks(length);
        }
        return;
    }
    if (length % kAesBlockBytes != 0) {
        throw FormatError("bad decrypt: input length " + std::to_string(length) +
                          " is not a multiple of 16 bytes (truncated or corrupted input)");
    }
    if (framing == Framing::pkcs7 && length == 0) {
        throw FormatError("bad decrypt: the input is empty, but padded ciphertext is at least 16 bytes");
    }
}

std::uint64_t max_output_bytes(const PipelineOptions &options, std::uint64_t input_bytes) {
    if (!options.segments) return input_bytes + kAesBlockBytes; // a padding block at most
    // Decrypting drops the tags.
    return options.direction == Direction::encrypt ? options.segments->ciphertext_for_plaintext(input_bytes)
                                                   : input_bytes;
}

PipelineStats run_pipeline(InputSource &source, OutputSink &sink, CipherBackend &backend,
                           const PipelineOptions &options) {
    validate(options);
    return Pipeline(source, sink, backend, options).run();
}

} // namespace aesgpu
