// SPDX-License-Identifier: Apache-2.0
// AES kernels (ECB, CTR, CBC decryption): one 16-byte block per thread per step of a grid-stride
// loop over a persistent grid, 16-byte coalesced loads and stores, T-tables in shared memory
// replicated once per bank so the 32 lanes of a warp never conflict (and timing does not depend on
// the data). CTR encrypts the block's counter instead of the block and XORs the result in, in
// registers. CBC decryption XORs each deciphered block with the ciphertext block before it (`chain`
// before the first), so it reads `in` and writes `out` apart: in place, a thread would overwrite
// the ciphertext its neighbour still has to read.
#include "aes_gpu/kernels/aes_block.cuh"
#include "aes_gpu/kernels/aes_kernels.hpp"
#include "aes_gpu/kernels/shared_tables.cuh"

#include <cstring>

namespace aesgpu {

namespace {

constexpr unsigned kThreadsPerBlock = 1024;

template <int Rounds, KernelKind Kind>
__global__ void __launch_bounds__(kThreadsPerBlock)
    aes_kernel(const __grid_constant__ AesKernelParams params, const uint4 *in, uint4 *out, std::size_t blocks,
               std::uint64_t first_block, uint4 chain) {
    extern __shared__ std::uint32_t shared[];
    fill_shared_tables(shared, params.primary_table, params.secondary_table);
    __syncthreads();
    const SharedTables tables{reinterpret_cast<const char *>(shared), (threadIdx.x % kLanes) * 4};

    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < blocks; i += stride) {
        const uint4 text = in[i];
        if constexpr (Kind == KernelKind::ctr) {
            const block::State counter = block::counter_block(params.counter_high, params.counter_low, first_block + i);
            const block::State k = block::encrypt<Rounds>(counter, params.round_keys, tables);
            out[i] = make_uint4(text.x ^ k.c0, text.y ^ k.c1, text.z ^ k.c2, text.w ^ k.c3);
        } else if constexpr (Kind == KernelKind::cbc_decrypt) {
            const uint4 before = i == 0 ? chain : in[i - 1];
            const block::State s = block::decrypt<Rounds>({text.x, text.y, text.z, text.w}, params.round_keys, tables);
            out[i] = make_uint4(s.c0 ^ before.x, s.c1 ^ before.y, s.c2 ^ before.z, s.c3 ^ before.w);
        } else {
            block::State s{text.x, text.y, text.z, text.w};
            if constexpr (Kind == KernelKind::ecb_decrypt) {
                s = block::decrypt<Rounds>(s, params.round_keys, tables);
            } else {
                s = block::encrypt<Rounds>(s, params.round_keys, tables);
            }
            out[i] = make_uint4(s.c0, s.c1, s.c2, s.c3);
        }
    }
}

using Kernel = void (*)(AesKernelParams, const uint4 *, uint4 *, std::size_t, std::uint64_t, uint4);

template <KernelKind Kind>
Kernel pick_rounds(int rounds) {
    switch (rounds) {
    case 10: return aes_kernel<10, Kind>;
    case 12: return aes_kernel<12, Kind>;
    case 14: return aes_kernel<14, Kind>;
    default: return nullptr;
    }
}

Kernel pick_kernel(const AesKernelParams &params) {
    switch (params.kind) {
    case KernelKind::ecb_encrypt: return pick_rounds<KernelKind::ecb_encrypt>(params.rounds);
    case KernelKind::ecb_decrypt: return pick_rounds<KernelKind::ecb_decrypt>(params.rounds);
    case KernelKind::ctr: return pick_rounds<KernelKind::ctr>(params.rounds);
    case KernelKind::cbc_decrypt: return pick_rounds<KernelKind::cbc_decrypt>(params.rounds);
    }
    return nullptr;
}

} // namespace

cudaError_t prepare_aes_launch(const AesKernelParams &params, AesLaunchShape &shape) {
    const Kernel kernel = pick_kernel(params);
    if (!kernel) return cudaErrorInvalidValue;
    cudaError_t status =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kAesTableBytes));
    if (status != cudaSuccess) return status;
    int device = 0;
    int multiprocessors = 0;
    int blocks_per_multiprocessor = 0;
    if ((status = cudaGetDevice(&device)) != cudaSuccess ||
        (status = cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess ||
        (status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_multiprocessor, kernel, kThreadsPerBlock,
                                                                kAesTableBytes)) != cudaSuccess) {
        return status;
    }
    if (blocks_per_multiprocessor == 0) return cudaErrorInvalidConfiguration;
    shape.grid = static_cast<unsigned>(multiprocessors * blocks_per_multiprocessor);
    shape.block = kThreadsPerBlock;
    shape.shared_bytes = kAesTableBytes;
    return cudaSuccess;
}

cudaError_t launch_aes(const AesKernelParams &params, const AesLaunchShape &shape, const void *in, void *out,
                       std::size_t blocks, std::uint64_t first_block, const std::uint8_t (&chain)[16],
                       cudaStream_t stream) {
    const Kernel kernel = pick_kernel(params);
    if (!kernel) return cudaErrorInvalidValue;
    if (blocks == 0) return cudaSuccess;
    // No more thread blocks than there is work for: small chunks then pay no table set-up for idle blocks.
    const std::size_t needed = (blocks + shape.block - 1) / shape.block;
    const unsigned grid = static_cast<unsigned>(needed < shape.grid ? needed : shape.grid);
    uint4 chain_words{};
    std::memcpy(&chain_words, chain, sizeof chain_words); // as the block lies in memory, as `in` is read
    kernel<<<grid, shape.block, shape.shared_bytes, stream>>>(
        params, static_cast<const uint4 *>(in), static_cast<uint4 *>(out), blocks, first_block, chain_words);
    return cudaGetLastError();
}

} // namespace aesgpu
