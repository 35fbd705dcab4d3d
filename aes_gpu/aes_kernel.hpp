// SPDX-License-Identifier: Apache-2.0
#pragma once
// One key's AES kernel (ECB, CTR, or CBC decryption) on the current device: its parameters (round keys, tables and
// CTR's first counter, wiped when it goes), its launch shape, and the launch. The backend and the
// bench both launch through it. Plain C++ over aes_kernels.hpp, so host files need no nvcc.
#include "aes_gpu/kernels/aes_kernels.hpp"
#include "cipher/cipher_backend.hpp"
#include "cipher/secret_bytes.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace aesgpu {

class AesKernel {
public:
    // Expands the key and sizes the launch for the current device. Throws GpuUnavailable when
    // the binary has no kernel image the device can run, so that it fails here and not mid-run.
    AesKernel(std::span<const std::uint8_t> key, const CipherSpec &spec);

    // Transforms `blocks` 16-byte blocks of device memory in place (16-byte aligned), on `stream`.
    // `first_block` is the stream index of the first (CTR's counter). Throws CudaError. Not CBC.
    void launch(void *device_data, std::size_t blocks, std::uint64_t first_block, cudaStream_t stream) const;
    // CBC decryption: from `in` to `out` (apart), the first block XORed with `chain`.
    void launch_chained(const void *in, void *out, std::size_t blocks, const CounterBlock &chain,
                        cudaStream_t stream) const;
    // True for CBC decryption, which launch_chained does.
    [[nodiscard]] bool chained() const { return params_->kind == KernelKind::cbc_decrypt; }

private:
    Secret<AesKernelParams> params_;
    AesLaunchShape shape_{};
};

} // namespace aesgpu
