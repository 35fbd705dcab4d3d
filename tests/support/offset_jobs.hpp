// SPDX-License-Identifier: Apache-2.0
#pragma once
// Jobs that start elsewhere than a slot's first byte and, for ECB and CTR, put their result
// elsewhere than their input (the out-of-place ring of direct I/O with a header): what any
// backend must give for them, checked on the CPU here and against the CPU on each GPU.
#include "cipher/cipher_backend.hpp"
#include "support/test_support.hpp"

#include <algorithm>
#include <cstring>

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

} // namespace aesgpu::test
