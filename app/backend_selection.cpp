#include "app/backend_selection.hpp"

#include "aes_cpu/openssl_backend.hpp"
#include "aes_gpu/device_probe.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

namespace aesgpu {

namespace {

// The kernels and the pinned pipeline are not in this build yet; the probe still tells the user
// what hardware it sees, so that `auto` can explain itself.
std::string why_no_gpu_backend() {
    const GpuProbe probe = probe_gpus();
    if (!probe.usable()) return "no usable CUDA device: " + probe.unavailable_reason;
    return "the GPU backend is not implemented in this version";
}

std::size_t cpu_ring_slots(unsigned threads) {
    // Two slots for the reader (one read ahead), one for the writer, and enough in the cipher to
    // keep every worker busy while pieces of a chunk finish unevenly.
    return std::max<std::size_t>(kMinRingSlots + 1, threads / 2 + 4);
}

} // namespace

SelectedBackend select_backend(BackendChoice choice, std::span<const std::uint8_t> key, Direction direction,
                               unsigned threads) {
    if (choice == BackendChoice::gpu) throw std::runtime_error("--backend gpu: " + why_no_gpu_backend());
    if (choice == BackendChoice::automatic) spdlog::info("backend auto: using the CPU ({})", why_no_gpu_backend());
    auto backend = std::make_unique<OpenSslBackend>(key, direction, threads);
    const std::size_t slots = cpu_ring_slots(backend->threads());
    return {std::move(backend), slots};
}

} // namespace aesgpu
