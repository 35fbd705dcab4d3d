// SPDX-License-Identifier: Apache-2.0
#include "aes_cpu/openssl_backend.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace aesgpu {

namespace {

unsigned thread_count(unsigned asked) {
    return asked == 0 ? default_cpu_threads() : asked;
}

// The pool counts the caller as its thread 0; when every piece is posted, the caller ciphers
// nothing, so the pool has one worker more.
unsigned pool_threads(unsigned asked, CpuSubmit submit) {
    return thread_count(asked) + (submit == CpuSubmit::post_every_piece ? 1 : 0);
}

// One per thread, of the kind `spec` needs (none of the other kind).
template <typename Cipher>
std::vector<Cipher> make_ciphers(std::span<const std::uint8_t> key, const CipherSpec &spec, unsigned count,
                                 bool needed) {
    std::vector<Cipher> ciphers;
    if (!needed) return ciphers;
    ciphers.reserve(count);
    for (unsigned i = 0; i < count; ++i) ciphers.emplace_back(key, spec);
    return ciphers;
}

// Segments per piece of a GCM job: every thread gets some, but no piece is under kCipherPieces'
// minimum unless a segment alone is.
std::size_t segments_per_piece(std::size_t segments, std::size_t segment_bytes, unsigned threads) {
    const std::size_t least =
        std::max<std::size_t>(1, kCipherPieces.min_piece_bytes / std::max<std::size_t>(segment_bytes, 1));
    return std::max(least, (segments + threads - 1) / threads);
}

} // namespace

unsigned default_cpu_threads() {
    return std::max(1u, std::thread::hardware_concurrency());
}

OpenSslBackend::OpenSslBackend(std::span<const std::uint8_t> key, const CipherSpec &spec, unsigned threads,
                               CpuSubmit submit)
    : spec_(spec), posts_every_piece_(submit == CpuSubmit::post_every_piece),
      serial_(spec.mode == Mode::cbc && spec.direction == Direction::encrypt),
      ciphers_(make_ciphers<EvpAesCipher>(key, spec, pool_threads(threads, submit), spec.mode != Mode::gcm)),
      gcm_(make_ciphers<EvpGcmSegmentCipher>(key, spec, pool_threads(threads, submit), spec.mode == Mode::gcm)),
      pool_(pool_threads(threads, submit), "the CPU cipher") {}

OpenSslBackend::~OpenSslBackend() {
    wait_for_all();
}

void OpenSslBackend::wait_for_all() noexcept {
    std::unique_lock lock(mutex_);
    piece_done_.wait(lock, [&] {
        return std::all_of(slots_.begin(), slots_.end(), [](const Slot &slot) { return slot.pieces_left == 0; });
    });
}

std::string OpenSslBackend::describe() const {
    return std::string("cpu (") + OpenSSL_version(OPENSSL_VERSION) + ", " + std::to_string(threads()) +
           (threads() == 1 ? " thread)" : " threads)");
}

void OpenSslBackend::configure_slots(std::size_t slot_count, std::size_t slot_bytes) {
    adopt_slots({}); // checks that no job is in flight, and lets the old ring go first
    own_ring_ = {};
    own_ring_ = HostRing(slot_count, slot_bytes);
    adopt_slots(own_ring_.buffers());
}

void OpenSslBackend::adopt_slots(std::span<const std::span<std::byte>> buffers) {
    std::lock_guard lock(mutex_);
    for (const auto &slot : slots_) {
        if (slot.pieces_left != 0) throw std::logic_error("configure_slots while jobs are in flight");
    }
    slots_.clear();
    slot_bytes_ = 0;
    for (const auto &buffer : buffers) {
        slots_.push_back(Slot{buffer, 0, nullptr});
        slot_bytes_ = std::max(slot_bytes_, buffer.size());
    }
}

std::size_t cpu_jobs_at_once(unsigned threads, std::size_t slot_bytes) {
    threads = std::max(threads, 1u);
    const std::size_t piece = piece_length(std::max<std::size_t>(slot_bytes, 1), threads, kCipherPieces);
    const std::size_t pieces_per_job = std::max<std::size_t>(1, (slot_bytes + piece - 1) / piece);
    return (threads + pieces_per_job - 1) / pieces_per_job + 1;
}

std::size_t OpenSslBackend::jobs_at_once() const {
    return cpu_jobs_at_once(threads(), slot_bytes_);
}

bool OpenSslBackend::set_job_end_listener(JobEndListener listener) {
    std::lock_guard lock(mutex_);
    job_end_listener_ = std::move(listener);
    return true;
}

std::span<std::byte> OpenSslBackend::slot_buffer(std::size_t slot) {
    return ring_slot(slots_, slot).buffer;
}

std::vector<OpenSslBackend::Piece> OpenSslBackend::cut_into_pieces(const CipherJob &job,
                                                                   std::span<std::byte> buffer) const {
    std::vector<Piece> pieces;
    if (spec_.mode == Mode::gcm) {
        // Out of place, each thread moves its own segments' text as it ciphers them: no copy.
        std::vector<PlacedSegment> segments;
        for_each_segment(spec_.gcm.geometry, job.first_segment, job.segments, job.bytes, job.holds_last_segment,
                         [&](const SegmentSpan &segment) {
                             segments.push_back({segment, segment_place(job, spec_.direction, segment)});
                         });
        const std::size_t per_piece = segments_per_piece(segments.size(), spec_.gcm.geometry.segment_bytes, threads());
        for (std::size_t i = 0; i < segments.size(); i += per_piece) {
            const auto end = segments.begin() + static_cast<std::ptrdiff_t>(std::min(segments.size(), i + per_piece));
            pieces.push_back(Piece{buffer, buffer, 0, {segments.begin() + static_cast<std::ptrdiff_t>(i), end}});
        }
        if (pieces.empty()) pieces.emplace_back();
        return pieces;
    }
    const std::span<std::byte> input = buffer.subspan(job.input_offset, job.bytes);
    const std::span<std::byte> output = buffer.subspan(job.output_offset, job.bytes);
    const std::size_t piece =
        serial_ ? std::max<std::size_t>(job.bytes, 1) : piece_length(job.bytes, threads(), kCipherPieces);
    pieces.push_back(Piece{input.first(std::min(piece, job.bytes)),
                           output.first(std::min(piece, job.bytes)),
                           job.first_block,
                           {},
                           chain_block(job, spec_.iv)});
    for (std::size_t offset = piece; offset < job.bytes; offset += piece) {
        const std::size_t length = std::min(piece, job.bytes - offset);
        // CBC: the block before the piece, taken now, before the piece before it (in place) deciphers it.
        CounterBlock chain{};
        std::memcpy(chain.data(), input.data() + offset - kAesBlockBytes, kAesBlockBytes);
        pieces.push_back(Piece{input.subspan(offset, length),
                               output.subspan(offset, length),
                               job.first_block + offset / kAesBlockBytes,
                               {},
                               chain});
    }
    return pieces;
}

std::exception_ptr OpenSslBackend::run_piece(unsigned thread, const Piece &piece) noexcept {
    try {
        if (spec_.mode == Mode::gcm) {
            for (const auto &[segment, place] : piece.segments) {
                const std::size_t length = segment.plaintext_bytes();
                gcm_[thread].transform(piece.data.subspan(place.text_from, length),
                                       piece.data.subspan(place.text_to, length),
                                       piece.data.subspan(place.tag, kGcmTagBytes), segment);
            }
        } else {
            const bool chained = spec_.mode == Mode::cbc && !serial_;
            ciphers_[thread].transform(piece.data, piece.output, piece.first_block, chained ? &piece.chain : nullptr);
        }
        return nullptr;
    } catch (...) {
        return std::current_exception();
    }
}

void OpenSslBackend::submit(const CipherJob &job) {
    std::vector<Piece> pieces;
    {
        std::lock_guard lock(mutex_);
        Slot &target = ring_slot(slots_, job.slot);
        check_job_size(job, target.buffer.size(), spec_.mode);
        if (target.pieces_left != 0) throw std::logic_error("slot submitted twice");
        target.error = nullptr;
        pieces = cut_into_pieces(job, target.buffer);
        target.pieces_left = pieces.size();
    }
    // Posted without the lock: a pool with no workers runs a task at once, here. A piece that
    // cannot be posted (no memory for the queue) fails the job at wait() instead of hanging it:
    // it and the pieces after it are taken off the count, and it finishes with the error.
    const bool here = !posts_every_piece_ || serial_;
    const std::size_t first_posted = here ? 1 : 0;
    std::exception_ptr not_posted;
    for (std::size_t i = first_posted; i < pieces.size(); ++i) {
        try {
            pool_.post([this, slot = job.slot, index = i, piece = pieces[i]](unsigned worker) {
                finish_piece(slot, index, run_piece(worker, piece));
            });
        } catch (...) {
            not_posted = std::current_exception();
            {
                std::lock_guard lock(mutex_);
                slots_[job.slot].pieces_left -= pieces.size() - i - 1;
            }
            finish_piece(job.slot, i, not_posted);
            break;
        }
    }
    // The first piece runs here: no hand-off at all for jobs of one piece.
    if (here) finish_piece(job.slot, 0, not_posted ? not_posted : run_piece(0, pieces.front()));
}

void OpenSslBackend::wait(std::size_t slot) {
    std::unique_lock lock(mutex_);
    Slot &target = ring_slot(slots_, slot);
    piece_done_.wait(lock, [&] { return target.pieces_left == 0; });
    if (target.error) std::rethrow_exception(std::exchange(target.error, nullptr));
}

// The job's last piece tells the listener before it lets wait() return: it alone sees one piece
// left, and takes it off only after the listener has run (outside the lock, which the listener's
// owner may hold while it asks this backend things). Of several failing pieces, the earliest in
// the job names the failure, whichever ends first (GCM: the first segment that fails).
void OpenSslBackend::finish_piece(std::size_t slot, std::size_t piece, std::exception_ptr error) {
    JobEndListener *listener = nullptr;
    {
        std::lock_guard lock(mutex_);
        Slot &target = slots_[slot];
        if (error && (!target.error || piece < target.error_piece)) {
            target.error = error;
            target.error_piece = piece;
        }
        if (target.pieces_left > 1) {
            --target.pieces_left;
            return;
        }
        if (job_end_listener_) listener = &job_end_listener_;
    }
    if (listener) {
        try {
            (*listener)(slot);
        } catch (...) {
            // A listener must not throw; were it to, wait() must still see the job end.
        }
    }
    std::lock_guard lock(mutex_);
    slots_[slot].pieces_left = 0;
    piece_done_.notify_all();
}

} // namespace aesgpu
