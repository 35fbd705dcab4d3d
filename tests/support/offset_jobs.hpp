// SPDX-License-Identifier: Apache-2.0
#pragma once
// Jobs that start elsewhere than a slot's first byte and put their result elsewhere than their
// input (the out-of-place ring of direct I/O with a header or GCM's tags): what any backend must
// give for them, checked on the CPU here and against the CPU on each GPU.
#include "cipher/cipher_backend.hpp"
#include "common/errors.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace aesgpu::test {

// Where the out-of-place jobs of these tests read and write: neither at a page's start nor at the
// same place in one, as a Salted__ header leaves them.
inline constexpr std::size_t kOffsetInput = 4096 + 16;
inline constexpr std::size_t kOffsetOutput = (std::size_t{4} << 20) + 4096 + 48;
inline constexpr std::size_t kOffsetSlotBytes = std::size_t{8} << 20;

// Runs `job` (its slot and bytes set here) over a one-slot ring whose bytes at job.input_offset are
// `input`, the rest filled with 0xee; returns the job.bytes at job.output_offset. With
// `input_after`, also what is left at job.input_offset afterwards.
inline Bytes run_job_at(CipherBackend &backend, const Bytes &input, CipherJob job, Bytes *input_after = nullptr) {
    const std::size_t end = std::max(job.input_offset, job.output_offset) + input.size();
    backend.configure_slots(1, std::max(kOffsetSlotBytes, (end + 15) / 16 * 16));
    const std::span<std::byte> slot = backend.slot_buffer(0);
    std::fill(slot.begin(), slot.end(), std::byte{0xee});
    std::memcpy(slot.data() + job.input_offset, input.data(), input.size());
    job.slot = 0;
    job.bytes = input.size();
    backend.submit(job);
    backend.wait(0);
    Bytes output(job.bytes);
    std::memcpy(output.data(), slot.data() + job.output_offset, job.bytes);
    if (input_after) {
        input_after->resize(job.bytes);
        std::memcpy(input_after->data(), slot.data() + job.input_offset, job.bytes);
    }
    return output;
}

// GCM jobs whose segments meet every layout case: from segment 0 (shortened by a 24-byte header)
// to a short last one that ends the stream, full segments from the middle of one, segment 0 alone,
// and a last segment of its tag alone; over 4096-byte segments, each job's `bytes` set.
inline constexpr SegmentGeometry kOffsetGcmGeometry{4096, 24};
inline std::vector<CipherJob> gcm_jobs_of_every_layout() {
    const std::size_t full = kOffsetGcmGeometry.segment_bytes;
    return {CipherJob{.bytes = (full - 24) + 38 * full + 1016, .segments = 40, .holds_last_segment = true},
            CipherJob{.bytes = 12 * full, .first_segment = 3, .segments = 12, .holds_last_segment = false},
            CipherJob{.bytes = 116, .segments = 1, .holds_last_segment = true},
            CipherJob{.bytes = 2 * full + 16, .first_segment = 7, .segments = 3, .holds_last_segment = true}};
}

// The job's plaintext (as a file has it) laid out as its segments are, a tag's room (0xee) after each:
// what an in-place job takes.
inline Bytes spread_into_segments(const CipherJob &job, const Bytes &plaintext) {
    Bytes segments(job.bytes, 0xee);
    for_each_segment(kOffsetGcmGeometry, job.first_segment, job.segments, job.bytes, job.holds_last_segment,
                     [&](const SegmentSpan &segment) {
                         std::memcpy(segments.data() + segment.offset, plaintext.data() + segment.plaintext_offset,
                                     segment.plaintext_bytes());
                     });
    return segments;
}

// Runs a GCM `job` out of place over a one-slot ring: `input` at kOffsetInput (the plaintext as a
// file has it, encrypting; the segments, decrypting), the result read at kOffsetOutput (the
// segments; the plaintext without tags). With `input_after`, what is left at kOffsetInput.
inline Bytes run_gcm_job_apart(CipherBackend &backend, Direction direction, const Bytes &input, CipherJob job,
                               Bytes *input_after = nullptr) {
    backend.configure_slots(1, kOffsetSlotBytes);
    const std::span<std::byte> slot = backend.slot_buffer(0);
    std::fill(slot.begin(), slot.end(), std::byte{0xee});
    std::memcpy(slot.data() + kOffsetInput, input.data(), input.size());
    job.slot = 0;
    job.input_offset = kOffsetInput;
    job.output_offset = kOffsetOutput;
    backend.submit(job);
    backend.wait(0);
    Bytes output(direction == Direction::encrypt ? job.bytes : gcm_plaintext_bytes(job));
    std::memcpy(output.data(), slot.data() + kOffsetOutput, output.size());
    if (input_after) {
        input_after->resize(input.size());
        std::memcpy(input_after->data(), slot.data() + kOffsetInput, input.size());
    }
    return output;
}

// Decrypting the job's `segments` out of place with one bit flipped in its last segment (its text,
// or its tag where it has no text) fails, naming that segment by its number in the stream.
inline void expect_forgery_named(CipherBackend &backend, const CipherJob &job, Bytes segments) {
    SegmentSpan last;
    for_each_segment(kOffsetGcmGeometry, job.first_segment, job.segments, job.bytes, job.holds_last_segment,
                     [&](const SegmentSpan &segment) { last = segment; });
    segments[last.offset] ^= 1;
    try {
        (void)run_gcm_job_apart(backend, Direction::decrypt, segments, job);
        ADD_FAILURE() << "a forged segment decrypted";
    } catch (const AuthenticationFailed &e) {
        EXPECT_NE(std::string(e.what()).find("segment " + std::to_string(last.number)), std::string::npos) << e.what();
    }
}

// A GCM spec over kOffsetGcmGeometry, the same stream either way.
inline CipherSpec offset_gcm_spec(Direction direction) {
    CipherSpec spec(direction, Mode::gcm);
    spec.gcm.geometry = kOffsetGcmGeometry;
    spec.gcm.nonce_prefix = {7, 6, 5, 4, 3, 2, 1};
    return spec;
}

// Every layout's job out of place through `seal` and `open` (one key, offset_gcm_spec): the segments
// `reference`'s in-place job gives, each input left as it was, the plaintext back, a forgery named.
inline void expect_gcm_apart_gives_what_in_place_gives(CipherBackend &seal, CipherBackend &open,
                                                       CipherBackend &reference) {
    for (const CipherJob &job : gcm_jobs_of_every_layout()) {
        SCOPED_TRACE("from segment " + std::to_string(job.first_segment));
        const Bytes plain = random_bytes(gcm_plaintext_bytes(job));
        CipherJob in_place = job;
        in_place.input_offset = in_place.output_offset = kOffsetInput + 8;
        const Bytes expected = run_job_at(reference, spread_into_segments(job, plain), in_place);
        Bytes input_after;
        EXPECT_TRUE(run_gcm_job_apart(seal, Direction::encrypt, plain, job, &input_after) == expected);
        EXPECT_TRUE(input_after == plain) << "the input was overwritten";
        EXPECT_TRUE(run_gcm_job_apart(open, Direction::decrypt, expected, job, &input_after) == plain);
        EXPECT_TRUE(input_after == expected) << "the input was overwritten";
        expect_forgery_named(open, job, expected);
    }
}

} // namespace aesgpu::test
