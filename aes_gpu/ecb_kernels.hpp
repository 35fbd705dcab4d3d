// SPDX-License-Identifier: Apache-2.0
#pragma once
// The interface between the host code and the AES-ECB kernels in ecb_kernels.cu: what a launch
// carries, and the two calls the host makes. Plain C++, so host files need no nvcc.
#include "aes_gpu/key_schedule.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace aesgpu {

// Passed by value as a __grid_constant__ kernel parameter (about 2.3 KiB, under the 4 KiB limit):
// round keys are read as uniform constant-bank operands, and each thread block copies the tables
// into shared memory once, so no device allocation or symbol copy is needed per key.
struct EcbKernelParams {
    std::uint32_t round_keys[kMaxRoundKeyWords];
    std::uint32_t primary_table[256];   // Te0 (encrypt) or Td0 (decrypt): aes_block.cuh
    std::uint32_t secondary_table[256]; // Te2 (encrypt) or the inverse S-box (decrypt)
    int rounds;                         // 10, 12 or 14
    bool decrypt;
};

struct EcbLaunchShape {
    unsigned grid = 0;            // persistent grid: blocks resident on all SMs at once
    unsigned block = 0;           // threads per block
    std::size_t shared_bytes = 0; // dynamic shared memory per block
};

// Sets the kernel's shared-memory limit and sizes a persistent grid for the current device.
[[nodiscard]] cudaError_t prepare_ecb_launch(const EcbKernelParams &params, EcbLaunchShape &shape);

// Transforms `blocks` 16-byte blocks of device memory in place (16-byte aligned), on `stream`.
[[nodiscard]] cudaError_t launch_ecb(const EcbKernelParams &params, const EcbLaunchShape &shape, void *data,
                                     std::size_t blocks, cudaStream_t stream);

} // namespace aesgpu
