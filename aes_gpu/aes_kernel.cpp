// SPDX-License-Identifier: Apache-2.0
#include "aes_gpu/aes_kernel.hpp"

#include "aes_gpu/aes_tables.hpp"
#include "aes_gpu/cuda_check.hpp"
#include "aes_gpu/gpu_backend.hpp"
#include "aes_gpu/kernels/aes_block.cuh"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace aesgpu {

namespace {

Secret<AesKernelParams> make_params(std::span<const std::uint8_t> key, const CipherSpec &spec) {
    Secret<AesKernelParams> params;
    if (spec.mode == Mode::cbc && spec.direction == Direction::encrypt) {
        throw std::invalid_argument("CBC encryption is serial: the GPU does not run it");
    }
    params->kind = spec.mode == Mode::ctr                 ? KernelKind::ctr
                   : spec.mode == Mode::cbc               ? KernelKind::cbc_decrypt
                   : spec.direction == Direction::decrypt ? KernelKind::ecb_decrypt
                                                          : KernelKind::ecb_encrypt;
    const bool decrypt = spec.direction == Direction::decrypt && spec.mode != Mode::ctr;
    const RoundKeys keys = decrypt ? expand_decryption_key(key) : expand_encryption_key(key);
    std::copy(std::begin(keys->words), std::end(keys->words), params->round_keys);
    params->rounds = keys->rounds;
    params->counter_high = block::big_endian_u64(spec.iv.data());
    params->counter_low = block::big_endian_u64(spec.iv.data() + 8);
    const auto &primary = decrypt ? tables::kTd0 : tables::kTe0;
    std::copy(primary.begin(), primary.end(), params->primary_table);
    if (decrypt) {
        std::copy(tables::kInverseSbox.begin(), tables::kInverseSbox.end(), params->secondary_table);
    } else {
        std::copy(tables::kTe2.begin(), tables::kTe2.end(), params->secondary_table);
    }
    return params;
}

} // namespace

AesKernel::AesKernel(std::span<const std::uint8_t> key, const CipherSpec &spec) : params_(make_params(key, spec)) {
    try {
        AESGPU_CUDA_TRY(prepare_aes_launch(*params_, shape_));
    } catch (const CudaError &e) {
        int device = 0;
        cudaDeviceProp properties{};
        AESGPU_CUDA_TRY(cudaGetDevice(&device));
        AESGPU_CUDA_TRY(cudaGetDeviceProperties(&properties, device));
        throw GpuUnavailable(std::string("cannot run the AES kernels on ") + properties.name + ": " +
                             cudaGetErrorString(e.code()));
    }
}

void AesKernel::launch(void *device_data, std::size_t blocks, std::uint64_t first_block, cudaStream_t stream) const {
    if (chained()) throw std::logic_error("CBC decryption goes out of place: launch_chained");
    const std::uint8_t no_chain[16] = {};
    AESGPU_CUDA_TRY(launch_aes(*params_, shape_, device_data, device_data, blocks, first_block, no_chain, stream));
}

void AesKernel::launch_chained(const void *in, void *out, std::size_t blocks, const CounterBlock &chain,
                               cudaStream_t stream) const {
    std::uint8_t words[16];
    std::copy(chain.begin(), chain.end(), words);
    AESGPU_CUDA_TRY(launch_aes(*params_, shape_, in, out, blocks, 0, words, stream));
}

} // namespace aesgpu
