// AES-ECB kernels: one 16-byte block per thread per step of a grid-stride loop over a persistent
// grid, 16-byte coalesced loads and stores, round tables in shared memory replicated once per
// bank so the 32 lanes of a warp never conflict (and timing does not depend on the data).
#include "aes_gpu/aes_block.cuh"
#include "aes_gpu/ecb_kernels.hpp"

namespace aesgpu {

namespace {

constexpr unsigned kLanes = 32;
constexpr unsigned kThreadsPerBlock = 256;
constexpr unsigned kTableWords = 256 * kLanes; // one table, [value][lane]

template <int Rounds, bool Decrypt>
__global__ void __launch_bounds__(kThreadsPerBlock)
    ecb_kernel(const __grid_constant__ EcbKernelParams params, uint4 *data, std::size_t blocks) {
    extern __shared__ std::uint32_t shared[]; // round table, then (decrypt) the inverse S-box
    for (unsigned i = threadIdx.x; i < kTableWords; i += blockDim.x) {
        shared[i] = params.round_table[i / kLanes];
        if constexpr (Decrypt) shared[kTableWords + i] = params.inverse_sbox[i / kLanes];
    }
    __syncthreads();

    // Lane l reads column l of each table: word x * 32 + l sits in bank l.
    const std::uint32_t *table = shared + threadIdx.x % kLanes;
    const auto round_table = [table](std::uint32_t x) { return table[x * kLanes]; };
    const auto inverse_sbox = [table](std::uint32_t x) { return table[kTableWords + x * kLanes]; };

    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < blocks; i += stride) {
        const uint4 in = data[i];
        block::State s{in.x, in.y, in.z, in.w};
        if constexpr (Decrypt) {
            s = block::decrypt<Rounds>(s, params.round_keys, round_table, inverse_sbox);
        } else {
            s = block::encrypt<Rounds>(s, params.round_keys, round_table);
        }
        data[i] = make_uint4(s.c0, s.c1, s.c2, s.c3);
    }
}

using Kernel = void (*)(EcbKernelParams, uint4 *, std::size_t);

Kernel pick_kernel(const EcbKernelParams &params) {
    switch (params.rounds) {
    case 10: return params.decrypt ? ecb_kernel<10, true> : ecb_kernel<10, false>;
    case 12: return params.decrypt ? ecb_kernel<12, true> : ecb_kernel<12, false>;
    case 14: return params.decrypt ? ecb_kernel<14, true> : ecb_kernel<14, false>;
    default: return nullptr;
    }
}

} // namespace

cudaError_t prepare_ecb_launch(const EcbKernelParams &params, EcbLaunchShape &shape) {
    const Kernel kernel = pick_kernel(params);
    if (!kernel) return cudaErrorInvalidValue;
    const std::size_t shared_bytes = (params.decrypt ? 2 : 1) * kTableWords * sizeof(std::uint32_t);
    cudaError_t status =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes));
    if (status != cudaSuccess) return status;
    int device = 0;
    int multiprocessors = 0;
    int blocks_per_multiprocessor = 0;
    if ((status = cudaGetDevice(&device)) != cudaSuccess ||
        (status = cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess ||
        (status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_multiprocessor, kernel, kThreadsPerBlock,
                                                                shared_bytes)) != cudaSuccess) {
        return status;
    }
    if (blocks_per_multiprocessor == 0) return cudaErrorInvalidConfiguration;
    shape.grid = static_cast<unsigned>(multiprocessors * blocks_per_multiprocessor);
    shape.block = kThreadsPerBlock;
    shape.shared_bytes = shared_bytes;
    return cudaSuccess;
}

cudaError_t launch_ecb(const EcbKernelParams &params, const EcbLaunchShape &shape, void *data, std::size_t blocks,
                       cudaStream_t stream) {
    const Kernel kernel = pick_kernel(params);
    if (!kernel) return cudaErrorInvalidValue;
    if (blocks == 0) return cudaSuccess;
    // No more blocks than there is work for: small chunks then pay no table set-up for idle blocks.
    const std::size_t needed = (blocks + shape.block - 1) / shape.block;
    const unsigned grid = static_cast<unsigned>(needed < shape.grid ? needed : shape.grid);
    kernel<<<grid, shape.block, shape.shared_bytes, stream>>>(params, static_cast<uint4 *>(data), blocks);
    return cudaGetLastError();
}

} // namespace aesgpu
