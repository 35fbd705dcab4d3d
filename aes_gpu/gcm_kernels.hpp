// SPDX-License-Identifier: Apache-2.0
#pragma once
// The interface between the host code and the GCM segment kernels in gcm_kernels.cu. Plain C++,
// so host files need no nvcc.
#include "aes_gpu/key_schedule.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace aesgpu {

// Data blocks each thread takes through Horner's rule: the GHASH of a segment is cut into runs
// of this many blocks, counted from the segment's end, so that run j's weight is always
// H^(j * kGcmRunBlocks + 1), whatever the segment's length.
inline constexpr unsigned kGcmRunBlocks = 32;
inline constexpr unsigned kGcmThreadsPerBlock = 256;

// Passed by value as a __grid_constant__ kernel parameter (about 2.7 KiB).
struct GcmKernelParams {
    std::uint32_t round_keys[kMaxRoundKeyWords]; // encryption schedule
    std::uint32_t te0[256];
    std::uint32_t te2[256];
    std::uint64_t hash_table_hi[16]; // n * H, gcm_block.cuh's HashTable
    std::uint64_t hash_table_lo[16];
    std::uint64_t segment_bytes;
    std::uint64_t header_bytes;
    std::uint8_t nonce_prefix[8]; // 7 used
    int rounds;
    bool decrypt;
};

// A job's segments, as CipherJob says them.
struct GcmJobShape {
    std::uint64_t first_segment;
    std::uint64_t bytes;
    std::uint32_t segments;
    bool holds_last;
};

// Runs of a segment of `segment_bytes`: the weights and partial sums the launch needs room for.
[[nodiscard]] std::size_t gcm_runs_per_segment(std::size_t segment_bytes);
// CUDA blocks per segment, and so partial sums per segment.
[[nodiscard]] std::size_t gcm_parts_per_segment(std::size_t segment_bytes);

// Sets the kernels' shared-memory limit; fails when the device cannot run them.
[[nodiscard]] cudaError_t prepare_gcm_launch(const GcmKernelParams &params);

// Encrypts (writing each tag after its segment) or decrypts and verifies, in place, the job's
// segments in `data` (device memory). `weights`: H^(j * kGcmRunBlocks + 1) for every run j, as
// (hi, lo) pairs; `partials`: room for segments * parts_per_segment 16-byte sums; `first_failure`
// receives the lowest number of a segment whose tag did not match (it must hold 0xffffffff
// before the launch).
[[nodiscard]] cudaError_t launch_gcm(const GcmKernelParams &params, void *data, const GcmJobShape &job,
                                     const void *weights, void *partials, std::uint32_t *first_failure,
                                     cudaStream_t stream);

} // namespace aesgpu
