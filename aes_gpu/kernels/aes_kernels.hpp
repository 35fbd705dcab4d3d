// SPDX-License-Identifier: Apache-2.0
#pragma once
// The interface between the host code and the AES kernels in aes_kernels.cu (ECB in either
// direction, CTR, CBC decryption): what a launch carries, and the two calls the host makes. Plain C++, so host
// files need no nvcc.
#include "aes_gpu/key_schedule.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace aesgpu {

enum class KernelKind : std::uint8_t {
    ecb_encrypt,
    ecb_decrypt,
    ctr,         // encrypts counter blocks and XORs them into the data: the same in both directions
    cbc_decrypt, // deciphers each block and XORs in the ciphertext block before it: out of place
};

// Passed by value as a __grid_constant__ kernel parameter (about 2.3 KiB, under the 4 KiB limit):
// round keys are read as uniform constant-bank operands, and each thread block copies the tables
// into shared memory once, so no device allocation or symbol copy is needed per key.
struct AesKernelParams {
    std::uint32_t round_keys[kMaxRoundKeyWords];
    std::uint32_t primary_table[256];   // Te0 (encrypt, ctr) or Td0 (decrypt): aes_block.cuh
    std::uint32_t secondary_table[256]; // Te2 (encrypt, ctr) or the inverse S-box (decrypt)
    std::uint64_t counter_high = 0;     // ctr: the stream's first counter block, bytes 0-7 and
    std::uint64_t counter_low = 0;      // 8-15, as big-endian numbers
    int rounds;                         // 10, 12 or 14
    KernelKind kind;
};

struct AesLaunchShape {
    unsigned grid = 0;            // persistent grid: blocks resident on all SMs at once
    unsigned block = 0;           // threads per block
    std::size_t shared_bytes = 0; // dynamic shared memory per block
};

// Sets the kernel's shared-memory limit and sizes a persistent grid for the current device.
[[nodiscard]] cudaError_t prepare_aes_launch(const AesKernelParams &params, AesLaunchShape &shape);

// Transforms `blocks` 16-byte blocks of device memory (16-byte aligned) from `in` to `out`, on
// `stream`: the same place for ECB and CTR, apart for CBC decryption. `first_block` is the stream
// index of the first one (CTR's counter offset; the others ignore it); `chain` is CBC's ciphertext
// block before `in` (or the IV).
[[nodiscard]] cudaError_t launch_aes(const AesKernelParams &params, const AesLaunchShape &shape, const void *in,
                                     void *out, std::size_t blocks, std::uint64_t first_block,
                                     const std::uint8_t (&chain)[16], cudaStream_t stream);

} // namespace aesgpu
