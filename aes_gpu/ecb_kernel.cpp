// SPDX-License-Identifier: Apache-2.0
#include "aes_gpu/ecb_kernel.hpp"

#include "aes_gpu/aes_tables.hpp"
#include "aes_gpu/cuda_check.hpp"
#include "aes_gpu/gpu_backend.hpp"

#include <algorithm>
#include <string>

namespace aesgpu {

namespace {

Secret<EcbKernelParams> make_params(std::span<const std::uint8_t> key, Direction direction) {
    Secret<EcbKernelParams> params;
    params->decrypt = direction == Direction::decrypt;
    const RoundKeys keys = params->decrypt ? expand_decryption_key(key) : expand_encryption_key(key);
    std::copy(std::begin(keys->words), std::end(keys->words), params->round_keys);
    params->rounds = keys->rounds;
    const auto &primary = params->decrypt ? tables::kTd0 : tables::kTe0;
    std::copy(primary.begin(), primary.end(), params->primary_table);
    if (params->decrypt) {
        std::copy(tables::kInverseSbox.begin(), tables::kInverseSbox.end(), params->secondary_table);
    } else {
        std::copy(tables::kTe2.begin(), tables::kTe2.end(), params->secondary_table);
    }
    return params;
}

} // namespace

EcbKernel::EcbKernel(std::span<const std::uint8_t> key, Direction direction) : params_(make_params(key, direction)) {
    try {
        AESGPU_CUDA_TRY(prepare_ecb_launch(*params_, shape_));
    } catch (const CudaError &e) {
        int device = 0;
        cudaDeviceProp properties{};
        AESGPU_CUDA_TRY(cudaGetDevice(&device));
        AESGPU_CUDA_TRY(cudaGetDeviceProperties(&properties, device));
        throw GpuUnavailable(std::string("cannot run the AES kernels on ") + properties.name + ": " +
                             cudaGetErrorString(e.code()));
    }
}

void EcbKernel::launch(void *device_data, std::size_t blocks, cudaStream_t stream) const {
    AESGPU_CUDA_TRY(launch_ecb(*params_, shape_, device_data, blocks, stream));
}

} // namespace aesgpu
