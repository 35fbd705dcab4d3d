// SPDX-License-Identifier: Apache-2.0
// The GPU backend of a build without the CUDA toolkit: there is none, and it says so.
#include "aes_gpu/gpu_backend.hpp"

namespace aesgpu {

std::unique_ptr<CipherBackend> make_gpu_backend(std::span<const std::uint8_t>, const CipherSpec &,
                                                const GpuBackendOptions &) {
    throw GpuUnavailable("this aesgpu was built without CUDA support");
}

std::unique_ptr<CipherBackend> make_gpu_backend_over(std::span<const std::uint8_t>, const CipherSpec &,
                                                     const GpuBackendOptions &, std::span<const std::span<std::byte>>,
                                                     GpuRingPins *) {
    throw GpuUnavailable("this aesgpu was built without CUDA support");
}

struct GpuRingPins::State {};

GpuRingPins::GpuRingPins(bool portable) : portable_(portable) {}

GpuRingPins::~GpuRingPins() = default;

std::shared_ptr<void> GpuRingPins::pin(std::span<const std::span<std::byte>>) {
    throw GpuUnavailable("this aesgpu was built without CUDA support");
}

void require_gpu_device(int) {
    throw GpuUnavailable("this aesgpu was built without CUDA support");
}

int gpu_device_count() {
    return 0;
}

bool gpu_support_built_in() {
    return false;
}

bool gpu_driver_found() {
    return false;
}

} // namespace aesgpu
