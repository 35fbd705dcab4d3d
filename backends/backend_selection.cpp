// SPDX-License-Identifier: Apache-2.0
#include "backends/backend_selection.hpp"

#include "aes_cpu/openssl_backend.hpp"
#include "aes_gpu/device_probe.hpp"
#include "cipher/secret_bytes.hpp"
#include "io/pipeline.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

namespace aesgpu {

namespace {

std::unique_ptr<OpenSslBackend> make_cpu_backend(const BackendRequest &request, const CipherSpec &spec,
                                                 std::span<const std::uint8_t> key) {
    return std::make_unique<OpenSslBackend>(key, spec, request.cpu_threads);
}

SelectedBackend cpu_backend(const BackendRequest &request, const CipherSpec &spec, std::span<const std::uint8_t> key) {
    auto backend = make_cpu_backend(request, spec, key);
    // Two slots for the reader (one read ahead), one for the writer, and enough in the cipher to
    // keep every thread busy while pieces of a chunk finish unevenly.
    const std::size_t slots = std::max<std::size_t>(kMinRingSlots + 2, backend->threads() / 2 + 4);
    return {std::move(backend), slots, kFileChunkBytes};
}

GpuBackendOptions gpu_options(const BackendRequest &request) {
    return {0, request.gpu_streams};
}

// Starts the GPU backend, saying in the error what kept it from starting: no usable device, too
// little memory for its buffers (a device is there; a smaller --chunk-size may fit), or CUDA.
template <typename Start>
auto start_gpu(Start &&start) {
    try {
        return start();
    } catch (const GpuUnavailable &e) {
        throw GpuUnavailable(std::string("no usable CUDA device: ") + e.what());
    } catch (const ResourceExhausted &e) {
        throw ResourceExhausted(std::string("the GPU could not get memory for its buffers: ") + e.what());
    } catch (const std::runtime_error &e) {
        throw std::runtime_error(std::string("the GPU backend could not start: ") + e.what());
    }
}

SelectedBackend gpu_backend(const BackendRequest &request, const CipherSpec &spec, std::span<const std::uint8_t> key) {
    return start_gpu([&] {
        return SelectedBackend{make_gpu_backend(key, spec, gpu_options(request)), gpu_ring_slots(request.gpu_streams),
                               kGpuFileChunkBytes};
    });
}

SelectedBackend automatic_backend(const BackendRequest &request, const CipherSpec &spec,
                                  std::span<const std::uint8_t> key) {
    if (!gpu_driver_found()) {
        spdlog::info("backend auto: using the CPU ({})",
                     gpu_support_built_in() ? kNoDriverMessage : "this aesgpu was built without CUDA support");
        return cpu_backend(request, spec, key);
    }
    try {
        SelectedBackend selected = gpu_backend(request, spec, key);
        spdlog::info("backend auto: using {}", selected.backend->describe());
        return selected;
    } catch (const std::runtime_error &e) {
        spdlog::info("backend auto: using the CPU ({})", e.what());
        return cpu_backend(request, spec, key);
    }
}

// The CPU ciphers the first chunks while CUDA starts on another thread (about 0.3 s on the H200
// host), then the GPU takes every later chunk, in place in the same host buffers. The ring is
// sized for the GPU, since the GPU does most of the work of any input big enough for the start to
// matter.
SelectedBackend gpu_with_cpu_start(const BackendRequest &request, const CipherSpec &spec,
                                   std::span<const std::uint8_t> key, LanePolicy policy) {
    auto gpu_key = std::make_shared<SecretBytes>(key);
    LaneStart start_gpu_lane = [gpu_key, spec, gpu = gpu_options(request)](std::span<const std::span<std::byte>> ring) {
        return start_gpu([&] { return make_gpu_backend_over(gpu_key->view(), spec, gpu, ring); });
    };
    std::vector<Lane> later;
    later.push_back({"GPU", std::move(start_gpu_lane), policy});
    auto backend = std::make_unique<Dispatcher>("CPU", make_cpu_backend(request, spec, key), std::move(later));
    Dispatcher *cpu_start = backend.get();
    return {std::move(backend), gpu_ring_slots(request.gpu_streams), kGpuFileChunkBytes, cpu_start};
}

} // namespace

SelectedBackend select_backend(const BackendRequest &request, const CipherSpec &spec, std::span<const std::uint8_t> key,
                               bool output_is_withdrawable) {
    // No driver: nothing to start behind the CPU (`gpu` then fails at once, `auto` uses the CPU).
    // Asked only where a GPU may be used: finding the driver loads libcuda, which cost --backend
    // cpu 7 MiB and about 0.25 s per run on the H200 host (a 1-byte file: 9 ms without it).
    const bool cpu_start = request.choice != BackendChoice::cpu && !request.wait_for_gpu && gpu_driver_found();
    if (request.choice != BackendChoice::cpu) {
        spdlog::debug("backend {}: GPU driver {}; {}", request.choice == BackendChoice::gpu ? "gpu" : "auto",
                      gpu_driver_found() ? "found" : "not found",
                      cpu_start              ? "the CPU ciphers while the GPU starts"
                      : request.wait_for_gpu ? "waiting for the GPU (--wait-for-gpu)"
                                             : "no GPU to start");
    }
    switch (request.choice) {
    case BackendChoice::cpu: return cpu_backend(request, spec, key);
    case BackendChoice::gpu:
        return cpu_start && output_is_withdrawable ? gpu_with_cpu_start(request, spec, key, LanePolicy::required)
                                                   : gpu_backend(request, spec, key);
    case BackendChoice::automatic:
        return cpu_start ? gpu_with_cpu_start(request, spec, key, LanePolicy::optional)
                         : automatic_backend(request, spec, key);
    }
    throw std::logic_error("unknown backend choice");
}

void check_required_backend(BackendChoice choice) {
    if (choice != BackendChoice::gpu) return;
    const GpuProbe probe = probe_gpus();
    if (!probe.usable()) throw GpuUnavailable("no usable CUDA device: " + probe.unavailable_reason);
}

} // namespace aesgpu
