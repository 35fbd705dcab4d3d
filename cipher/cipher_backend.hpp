// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one seam between the streaming pipeline (engine/) and the ciphers (aes_cpu, aes_gpu).
//
// A backend has one host buffer per ring slot (pinned memory for the GPU, aligned memory for the
// CPU, or buffers a dispatcher owns) and transforms whole 16-byte blocks of a slot's buffer in
// place, asynchronously. The pipeline fills a slot, submits it as a job, and later waits for it
// before writing it out and refilling it. io/ owns byte order, padding and files; backends own
// only blocks. A job says where it sits in the stream, so any backend can take any job.
#include "cipher/segments.hpp"

#include <aesgpu/types.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace aesgpu {

inline constexpr std::size_t kAesBlockBytes = 16;

[[nodiscard]] constexpr const char *mode_name(Mode mode) {
    return mode == Mode::gcm ? "gcm" : mode == Mode::ctr ? "ctr" : mode == Mode::cbc ? "cbc" : "ecb";
}

// A 128-bit big-endian counter block (CTR's IV, byte 15 least significant), or CBC's IV.
using CounterBlock = std::array<std::uint8_t, 16>;

// `counter` + `blocks` modulo 2^128, as OpenSSL's CTR increments its IV: one big-endian counter
// over all 16 bytes (not only the low 32 bits as GCM does).
[[nodiscard]] constexpr CounterBlock advance_counter(CounterBlock counter, std::uint64_t blocks) {
    unsigned carry = 0;
    for (int i = 15; i >= 0; --i) {
        const unsigned sum = counter[i] + static_cast<unsigned>(blocks & 0xff) + carry;
        counter[i] = static_cast<std::uint8_t>(sum);
        carry = sum >> 8;
        blocks >>= 8;
    }
    return counter;
}

using NoncePrefix = std::array<std::uint8_t, kGcmNoncePrefixBytes>;

// gcm: what every segment of one stream shares besides the key (the key a backend gets is the
// stream's segment key, derived from the main key and the header's salt).
struct GcmStream {
    NoncePrefix nonce_prefix{};
    SegmentGeometry geometry{};
};

// What a backend does to the data: the mode, the direction, and CTR's starting counter or GCM's
// stream. A Direction alone is ECB in that direction.
struct CipherSpec {
    Direction direction = Direction::encrypt;
    Mode mode = Mode::ecb;
    CounterBlock iv{}; // ctr: the counter of the stream's block 0
    GcmStream gcm{};   // gcm

    CipherSpec() = default;
    CipherSpec(Direction transform_direction, Mode cipher_mode = Mode::ecb, // NOLINT: implicit on purpose
               const CounterBlock &first_counter = {})
        : direction(transform_direction), mode(cipher_mode), iv(first_counter) {}
};

// Not enough memory of some kind (host, pinned host, device) for the buffers asked for; smaller
// ones may still fit, so the pipeline retries with smaller chunks.
class ResourceExhausted : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One job: `bytes` of a slot's buffer, and where they sit in the stream. ECB uses only the slot
// and the byte count; CTR the position (its counter is spec.iv + first_block + i for the job's
// block i); GCM the segments, laid out as cipher/segments.hpp says. The bytes start at
// `input_offset` in the slot and their result goes to `output_offset`: the same place (in place),
// or a range apart from them (out of place: direct I/O with a header or tags, whose input and
// output lie differently against the disk's alignment). GCM out of place keeps its plaintext as
// the file does, without room for tags: encrypting reads it at input_offset and writes the
// segments at output_offset; decrypting reads the segments and writes the plaintext
// (gcm_plaintext_bytes) with no tags between.
struct CipherJob {
    std::size_t slot = 0;
    std::size_t bytes = 0;           // ECB, CTR: a multiple of 16, possibly 0; GCM: the segments' ciphertext
    std::size_t input_offset = 0;    // where in the slot the job's bytes start
    std::size_t output_offset = 0;   // where their result goes
    std::uint64_t first_block = 0;   // index in the stream of the job's first 16-byte block
    std::uint64_t first_segment = 0; // authenticated modes: number of the job's first segment
    std::uint32_t segments = 0;      // authenticated modes: segments in the job
    bool holds_last_segment = false; // authenticated modes: the job ends the stream
    // CBC decrypting: the ciphertext block before the job's first block, which in-place work on the
    // job before may have overwritten by now (the pipeline keeps it as it reads). Block 0's is the
    // spec's IV, which backends take instead (chain_block).
    CounterBlock chain{};
};

// CBC decrypting: what the job's first block is XORed with.
[[nodiscard]] inline const CounterBlock &chain_block(const CipherJob &job, const CounterBlock &iv) {
    return job.first_block == 0 ? iv : job.chain;
}

// GCM: the job's plaintext, its segments' ciphertext less their tags.
[[nodiscard]] inline std::size_t gcm_plaintext_bytes(const CipherJob &job) {
    return job.bytes - std::size_t{job.segments} * kGcmTagBytes;
}

// GCM: where in the slot one of the job's segments is read from and written to, and where its tag
// is (written there encrypting, read decrypting): all in the segments' layout when the job is in
// place; out of place the plaintext side has no room for tags.
struct SegmentPlace {
    std::size_t text_from = 0;
    std::size_t text_to = 0;
    std::size_t tag = 0;
};
[[nodiscard]] inline SegmentPlace segment_place(const CipherJob &job, Direction direction, const SegmentSpan &segment) {
    const bool in_place = job.input_offset == job.output_offset;
    const std::size_t segments_at = direction == Direction::encrypt ? job.output_offset : job.input_offset;
    const std::size_t plaintext_at = direction == Direction::encrypt ? job.input_offset : job.output_offset;
    const std::size_t ciphertext = segments_at + segment.offset;
    const std::size_t plaintext = in_place ? ciphertext : plaintext_at + segment.plaintext_offset;
    return {direction == Direction::encrypt ? plaintext : ciphertext,
            direction == Direction::encrypt ? ciphertext : plaintext, ciphertext + segment.plaintext_bytes()};
}

// A GCM job of full segments over the first `bytes` of a slot (rounded down to whole segments),
// from segment 1 (segment 0 is the short one) and ending the stream: what the benches time.
[[nodiscard]] inline CipherJob full_segments_job(const SegmentGeometry &geometry, std::size_t slot, std::size_t bytes) {
    const std::size_t segments = bytes / geometry.segment_bytes;
    return {.slot = slot,
            .bytes = segments * geometry.segment_bytes,
            .first_segment = 1,
            .segments = static_cast<std::uint32_t>(segments),
            .holds_last_segment = true};
}

class CipherBackend {
public:
    virtual ~CipherBackend() = default;
    CipherBackend() = default;
    CipherBackend(const CipherBackend &) = delete;
    CipherBackend &operator=(const CipherBackend &) = delete;

    // Short human-readable description, e.g. "cpu (OpenSSL 3.0.13, 16 threads)".
    [[nodiscard]] virtual std::string describe() const = 0;

    // Sets up `slot_count` slots of `slot_bytes` each (a multiple of 16), replacing any earlier
    // set-up. Must not be called while jobs are in flight.
    virtual void configure_slots(std::size_t slot_count, std::size_t slot_bytes) = 0;

    // Like configure_slots, over `buffers` (one per slot, each whole 16-byte blocks, page-aligned)
    // that the caller owns and keeps alive while the backend uses them: a dispatcher's ring.
    virtual void adopt_slots(std::span<const std::span<std::byte>> buffers) = 0;

    // The host buffer of a slot: slot_bytes long, stable until the next configure_slots().
    [[nodiscard]] virtual std::span<std::byte> slot_buffer(std::size_t slot) = 0;

    // Starts transforming the job's bytes, in place or out of place as the job says (CipherJob).
    // Throws std::invalid_argument, before any work, for a job that does not fit its slot or its
    // segments. At most one job per slot may be in flight, and
    // one thread at a time submits. A backend may do some or all of the work before returning;
    // wait() tells when it is done.
    virtual void submit(const CipherJob &job) = 0;

    // Blocks until the slot's job has finished; rethrows the job's failure, if any.
    virtual void wait(std::size_t slot) = 0;

    // Called once after a successful run's last job has been waited for, so a backend can report a
    // failure it has not reported yet. Most have none.
    virtual void finish() {}

    // The most jobs worth having in flight at once: what keeps it busy (a GPU's streams, enough
    // jobs for a CPU's threads). A dispatcher gives a backend no more than this.
    [[nodiscard]] virtual std::size_t jobs_at_once() const { return 1; }

    // Called with a job's slot as soon as the job has ended (done or failed), once per job, from
    // any thread, before wait() for it returns; it must not call back into the backend. Lets a
    // dispatcher see which backend has room without waiting for jobs in order. Set it before
    // submitting; returns false where the backend cannot tell (wait() is then the only news).
    using JobEndListener = std::function<void(std::size_t slot)>;
    virtual bool set_job_end_listener(JobEndListener listener) {
        (void)listener;
        return false;
    }

    // The run is failing: a submit() blocked waiting for room or for a backend to start gives up
    // and throws Cancelled, now and until the next configure_slots(). Thread-safe. Most
    // backends never block there.
    virtual void cancel() {}
};

// Argument checks every backend's slot_buffer()/submit() makes: the slot exists, and the job is
// whole blocks that fit its buffer (GCM: segments numbered below 2^32).
template <typename Slot>
Slot &ring_slot(std::vector<Slot> &slots, std::size_t slot) {
    if (slot >= slots.size()) throw std::out_of_range("no such ring slot");
    return slots[slot];
}

inline void check_job_size(const CipherJob &job, std::size_t slot_bytes, Mode mode) {
    if (mode != Mode::gcm && job.bytes % kAesBlockBytes != 0) {
        throw std::invalid_argument("submit needs whole 16-byte blocks");
    }
    const auto fits = [&](std::size_t offset) { return offset <= slot_bytes && job.bytes <= slot_bytes - offset; };
    if (!fits(job.input_offset) || !fits(job.output_offset)) {
        throw std::invalid_argument("submit beyond the slot's buffer");
    }
    // Ciphers write block by block as they read: an output that overlaps its input elsewhere than
    // exactly would be overwritten before it is read. (GCM's plaintext side out of place is
    // shorter than `bytes`: apart by `bytes` is apart.)
    const bool in_place = job.input_offset == job.output_offset;
    const bool apart =
        job.input_offset + job.bytes <= job.output_offset || job.output_offset + job.bytes <= job.input_offset;
    if (!in_place && !apart) {
        throw std::invalid_argument("a job's output must be its input's place or lie apart from it");
    }
    // A segment number past 2^32 - 1 would wrap in the nonce (the GPU kernels keep 32 bits of it).
    if (mode == Mode::gcm) check_segment_numbers(job.first_segment, job.segments, job.holds_last_segment);
}

} // namespace aesgpu
