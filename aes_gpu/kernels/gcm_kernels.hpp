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
// of R blocks, counted from the segment's end, so that run j's weight is always H^(j R + 1),
// whatever the segment's length. A launch picks R from these powers of two: 64 where the job
// has the blocks to fill the GPU that way (the weight multiply, once per run, then costs
// little), shorter for smaller jobs (an 8 MiB pipeline chunk), so that they still fill it.
inline constexpr unsigned kGcmMaxRunBlocks = 64;
inline constexpr unsigned kGcmMinRunBlocks = 4;
inline constexpr unsigned kGcmThreadsPerBlock = 1024;

// Passed by value as a __grid_constant__ kernel parameter (about 2.3 KiB).
struct GcmKernelParams {
    std::uint32_t round_keys[kMaxRoundKeyWords]; // encryption schedule
    std::uint32_t te0[256];
    std::uint32_t te2[256];
    std::uint64_t segment_bytes;
    std::uint64_t header_bytes;
    std::uint8_t nonce_prefix[8];  // 7 used
    std::uint32_t resident_blocks; // CUDA blocks the device runs at once (prepare_gcm_launch)
    int rounds;
    int table_bits; // gcm_table_bits()
    bool decrypt;
};

// A job's segments, as CipherJob says them.
struct GcmJobShape {
    std::uint64_t first_segment;
    std::uint64_t bytes;
    std::uint32_t segments;
    bool holds_last;
};

// Runs of `run_blocks` blocks in a segment of `segment_bytes`.
[[nodiscard]] std::size_t gcm_runs_per_segment(std::size_t segment_bytes, unsigned run_blocks);
// Bytes of the running tag sums a job of `segments` segments needs.
[[nodiscard]] std::size_t gcm_sum_bytes(std::size_t segments);

// The widest of H's tables (8- or 4-bit pieces, gcm_block.cuh) whose per-lane copies fit in the
// current device's shared memory beside the AES tables: 8 on Hopper, 4 on Ampere and Ada.
[[nodiscard]] cudaError_t gcm_table_bits(int *bits);
// 16-byte values in a launch's `hash_data`: H's table, then the weights of every run of
// kGcmMinRunBlocks blocks (longer runs take every 2nd, 4th... of them).
[[nodiscard]] std::size_t gcm_hash_values(int table_bits, std::size_t segment_bytes);

// Sets the kernels' shared-memory limit and params->resident_blocks; fails when the device
// cannot run them.
[[nodiscard]] cudaError_t prepare_gcm_launch(GcmKernelParams *params);

// Fills the weights part of `hash_data` (gcm_hash_values() values on the device, H's table
// already in place) from H: weight j = H^(j kGcmMinRunBlocks + 1). On the device, where the
// many multiplications are quick; each takes the same steps whatever H is.
[[nodiscard]] cudaError_t compute_gcm_weights(const GcmKernelParams &params, void *hash_data, std::uint64_t h_hi,
                                              std::uint64_t h_lo, cudaStream_t stream);

// Encrypts (writing each tag after its segment) or decrypts and verifies, in place, the job's
// segments in `data` (device memory). `hash_data`: as (hi, lo) pairs, H's table (n * H for each
// of the 2^table_bits pieces n) and then the weights (compute_gcm_weights);
// `sums`: gcm_sum_bytes(segments) of device memory for the segments' running tags;
// `first_failure` receives the lowest index in the job (0 for its first segment) of a segment whose
// tag did not match (it must hold 0xffffffff before the launch).
[[nodiscard]] cudaError_t launch_gcm(const GcmKernelParams &params, void *data, const GcmJobShape &job,
                                     const void *hash_data, void *sums, std::uint32_t *first_failure,
                                     cudaStream_t stream);

} // namespace aesgpu
