// SPDX-License-Identifier: Apache-2.0
#pragma once
// One stream's GCM segment kernels on the device current when it is made: the parameters (round
// keys, tables, the nonce prefix, wiped when it goes), the device copy of H's table and of the
// run weights (cleared on that device before it is freed, whichever device is current then), and
// the launch. Plain C++ over
// gcm_kernels.hpp, so host files need no nvcc.
#include "aes_gpu/cuda_resources.hpp"
#include "aes_gpu/kernels/gcm_block.cuh"
#include "aes_gpu/kernels/gcm_kernels.hpp"
#include "cipher/cipher_backend.hpp"
#include "cipher/secret_bytes.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace aesgpu {

class GcmKernel {
public:
    // `key`: the stream's 16- or 32-byte segment key; `spec` a GCM spec. H's table takes 8-bit
    // pieces where the device has the shared memory, else 4-bit ones; `widest_table_bits` = 4
    // forces the narrow one (for tests). Throws GpuUnavailable when the device cannot run the
    // kernels, ResourceExhausted when the weights do not fit.
    GcmKernel(std::span<const std::uint8_t> key, const CipherSpec &spec, int widest_table_bits = 8);
    ~GcmKernel();
    GcmKernel(const GcmKernel &) = delete;
    GcmKernel &operator=(const GcmKernel &) = delete;

    // Bytes of running tag sums a job of up to `segments` segments needs.
    [[nodiscard]] std::size_t sum_bytes(std::size_t segments) const;
    // The width of the pieces H's table takes: 8 or 4.
    [[nodiscard]] int table_bits() const { return params_->table_bits; }

    // Runs the job's segments in `device_data` on `stream`; `first_failure` must hold 0xffffffff, and
    // gets the index in the job of the first segment that failed.
    void launch(void *device_data, const CipherJob &job, void *sums, std::uint32_t *first_failure,
                cudaStream_t stream) const;

private:
    template <int Bits>
    void upload_table(const gcm::Block128 &h);
    void clear_hash_data() noexcept;

    int device_ = 0; // where hash_data_ lives
    Secret<GcmKernelParams> params_;
    DeviceBuffer hash_data_; // gcm_kernels.hpp's hash_data
};

} // namespace aesgpu
