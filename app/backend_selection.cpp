#include "app/backend_selection.hpp"

#include "aes_cpu/openssl_backend.hpp"
#include "aes_gpu/gpu_backend.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

namespace aesgpu {

namespace {

SelectedBackend cpu_backend(const CipherOptions &options, std::span<const std::uint8_t> key) {
    auto backend = std::make_unique<OpenSslBackend>(key, options.direction, options.threads);
    // Two slots for the reader (one read ahead), one for the writer, and enough in the cipher to
    // keep every thread busy while pieces of a chunk finish unevenly.
    const std::size_t slots = std::max<std::size_t>(kMinRingSlots + 2, backend->threads() / 2 + 4);
    return {std::move(backend), slots, kFileChunkBytes};
}

SelectedBackend gpu_backend(const CipherOptions &options, std::span<const std::uint8_t> key) {
    return {make_gpu_backend(key, options.direction, {0, options.streams}), gpu_ring_slots(options.streams),
            kGpuFileChunkBytes};
}

// --backend gpu never falls back: any failure to start the GPU backend is reported as the reason.
SelectedBackend required_gpu_backend(const CipherOptions &options, std::span<const std::uint8_t> key) {
    try {
        return gpu_backend(options, key);
    } catch (const std::runtime_error &e) {
        throw std::runtime_error(std::string("no usable CUDA device: ") + e.what());
    }
}

SelectedBackend automatic_backend(const CipherOptions &options, std::span<const std::uint8_t> key) {
    try {
        SelectedBackend selected = gpu_backend(options, key);
        spdlog::info("backend auto: using {}", selected.backend->describe());
        return selected;
    } catch (const std::runtime_error &e) {
        spdlog::info("backend auto: using the CPU (no usable CUDA device: {})", e.what());
        return cpu_backend(options, key);
    }
}

} // namespace

SelectedBackend select_backend(const CipherOptions &options, std::span<const std::uint8_t> key) {
    switch (options.backend) {
    case BackendChoice::cpu: return cpu_backend(options, key);
    case BackendChoice::gpu: return required_gpu_backend(options, key);
    case BackendChoice::automatic: return automatic_backend(options, key);
    }
    throw std::logic_error("unknown backend choice");
}

} // namespace aesgpu
