// SPDX-License-Identifier: Apache-2.0
#pragma once
// One key's AES-ECB kernel on the current device: its parameters (round keys and tables, wiped
// when it goes), its launch shape, and the launch. The backend and the bench both launch through
// it. Plain C++ over ecb_kernels.hpp, so host files need no nvcc.
#include "aes_gpu/ecb_kernels.hpp"
#include "cipher/cipher_backend.hpp"
#include "cipher/secret_bytes.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace aesgpu {

class EcbKernel {
public:
    // Expands the key and sizes the launch for the current device. Throws GpuUnavailable when
    // the binary has no kernel image the device can run, so that it fails here and not mid-run.
    EcbKernel(std::span<const std::uint8_t> key, Direction direction);

    // Transforms `blocks` 16-byte blocks of device memory in place (16-byte aligned), on `stream`.
    // Throws CudaError.
    void launch(void *device_data, std::size_t blocks, cudaStream_t stream) const;

private:
    Secret<EcbKernelParams> params_;
    EcbLaunchShape shape_{};
};

} // namespace aesgpu
