// SPDX-License-Identifier: Apache-2.0
#pragma once
// One stream's GCM segment kernels on the current device: the parameters (round keys, tables,
// H's table and the nonce prefix, wiped when it goes), the device table of run weights
// H^(j * kGcmRunBlocks + 1) (cleared before it is freed), and the launch. Plain C++ over
// gcm_kernels.hpp, so host files need no nvcc.
#include "aes_gpu/cuda_resources.hpp"
#include "aes_gpu/gcm_kernels.hpp"
#include "cipher/cipher_backend.hpp"
#include "cipher/secret_bytes.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace aesgpu {

class GcmKernel {
public:
    // `key`: the stream's 16- or 32-byte segment key; `spec` a GCM spec. Throws GpuUnavailable
    // when the device cannot run the kernels, ResourceExhausted when the weights do not fit.
    GcmKernel(std::span<const std::uint8_t> key, const CipherSpec &spec);
    ~GcmKernel();
    GcmKernel(const GcmKernel &) = delete;
    GcmKernel &operator=(const GcmKernel &) = delete;

    // Bytes of partial sums a job of up to `segments` segments needs.
    [[nodiscard]] std::size_t partial_bytes(std::size_t segments) const;

    // Runs the job's segments in `device_data` on `stream`; `first_failure` must hold 0xffffffff.
    void launch(void *device_data, const CipherJob &job, void *partials, std::uint32_t *first_failure,
                cudaStream_t stream) const;

private:
    Secret<GcmKernelParams> params_;
    DeviceBuffer weights_;
};

} // namespace aesgpu
