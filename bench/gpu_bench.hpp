// SPDX-License-Identifier: Apache-2.0
#pragma once
// What `aesgpu bench` measures on the GPU beyond the backend itself: the hardware's copy ceilings
// and the kernel alone on device-resident data. Each timing is the median of `reps` runs after
// one warm-up, timed with CUDA events. (The pinned host-to-host pipeline is timed through the
// ordinary CipherBackend interface, by the caller.) Without CUDA, create() throws GpuUnavailable.
#include "aes_gpu/gpu_backend.hpp"
#include "cipher/cipher_backend.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace aesgpu {

// Seconds to move `bytes` (each way, for both_seconds).
struct GpuCopyCeilings {
    double h2d_seconds = 0;         // pinned host to device
    double d2h_seconds = 0;         // device to pinned host
    double both_seconds = 0;        // H2D and D2H of `bytes` each, at the same time
    double device_copy_seconds = 0; // device to device (reads and writes `bytes`)
};

class GpuBench {
public:
    virtual ~GpuBench() = default;
    GpuBench() = default;
    GpuBench(const GpuBench &) = delete;
    GpuBench &operator=(const GpuBench &) = delete;

    // Pinned host and device buffers of `bytes` (a multiple of 16), two of each, on `device`.
    // Throws GpuUnavailable (no usable device), ResourceExhausted (the buffers do not fit) or
    // std::runtime_error (any other CUDA failure).
    static std::unique_ptr<GpuBench> create(std::size_t bytes, int device = 0);

    [[nodiscard]] virtual GpuCopyCeilings time_copies(int reps) = 0;
    // Queues an H2D and a D2H copy of `bytes` at once and returns; wait_for_copies() waits for
    // them. For timing every GPU's copies together, from the host.
    virtual void start_two_way_copies() = 0;
    virtual void wait_for_copies() = 0;
    // The kernel's output for `input` (at most `bytes` long, whole blocks), to check against OpenSSL.
    [[nodiscard]] virtual std::vector<std::byte>
    kernel_output(std::span<const std::uint8_t> key, const CipherSpec &spec, std::span<const std::byte> input) = 0;
    // Seconds for the kernel to transform all `bytes` in place in device memory.
    [[nodiscard]] virtual double time_kernel(std::span<const std::uint8_t> key, const CipherSpec &spec, int reps) = 0;
};

} // namespace aesgpu
