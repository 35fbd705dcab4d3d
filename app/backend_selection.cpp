#include "app/backend_selection.hpp"

#include "aes_cpu/openssl_backend.hpp"
#include "aes_gpu/device_probe.hpp"
#include "aes_gpu/gpu_backend.hpp"
#include "app/progress.hpp"
#include "cipher/secret_bytes.hpp"
#include "common/errors.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

namespace aesgpu {

namespace {

std::unique_ptr<OpenSslBackend> make_cpu_backend(const CipherOptions &options, std::span<const std::uint8_t> key) {
    return std::make_unique<OpenSslBackend>(key, options.direction, options.threads);
}

SelectedBackend cpu_backend(const CipherOptions &options, std::span<const std::uint8_t> key) {
    auto backend = make_cpu_backend(options, key);
    // Two slots for the reader (one read ahead), one for the writer, and enough in the cipher to
    // keep every thread busy while pieces of a chunk finish unevenly.
    const std::size_t slots = std::max<std::size_t>(kMinRingSlots + 2, backend->threads() / 2 + 4);
    return {std::move(backend), slots, kFileChunkBytes};
}

GpuBackendOptions gpu_options(const CipherOptions &options) {
    return {0, options.streams};
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

SelectedBackend gpu_backend(const CipherOptions &options, std::span<const std::uint8_t> key) {
    return start_gpu([&] {
        return SelectedBackend{make_gpu_backend(key, options.direction, gpu_options(options)),
                               gpu_ring_slots(options.streams), kGpuFileChunkBytes};
    });
}

SelectedBackend automatic_backend(const CipherOptions &options, std::span<const std::uint8_t> key) {
    try {
        SelectedBackend selected = gpu_backend(options, key);
        spdlog::info("backend auto: using {}", selected.backend->describe());
        return selected;
    } catch (const std::runtime_error &e) {
        spdlog::info("backend auto: using the CPU ({})", e.what());
        return cpu_backend(options, key);
    }
}

// The CPU ciphers the first chunks while CUDA starts on another thread (about 0.3 s on the H200
// host), then the GPU takes every later chunk, in place in the same host buffers. The ring is the
// GPU's, since the GPU does most of the work of any input big enough for the start to matter.
SelectedBackend gpu_with_cpu_start(const CipherOptions &options, std::span<const std::uint8_t> key,
                                   SuccessorPolicy policy) {
    auto gpu_key = std::make_shared<SecretBytes>(key);
    SuccessorStart start_successor = [gpu_key, direction = options.direction,
                                      gpu = gpu_options(options)](std::vector<std::span<std::byte>> buffers) {
        return start_gpu([&] { return make_gpu_backend_over(gpu_key->view(), direction, gpu, buffers); });
    };
    auto backend =
        std::make_unique<HandoverBackend>(make_cpu_backend(options, key), "GPU", std::move(start_successor), policy);
    HandoverBackend *cpu_start = backend.get();
    return {std::move(backend), gpu_ring_slots(options.streams), kGpuFileChunkBytes, cpu_start};
}

} // namespace

SelectedBackend select_backend(const CipherOptions &options, std::span<const std::uint8_t> key,
                               bool output_is_withdrawable) {
    const bool cpu_start = !options.wait_for_gpu && gpu_support_built_in();
    switch (options.backend) {
    case BackendChoice::cpu: return cpu_backend(options, key);
    case BackendChoice::gpu:
        return cpu_start && output_is_withdrawable ? gpu_with_cpu_start(options, key, SuccessorPolicy::required)
                                                   : gpu_backend(options, key);
    case BackendChoice::automatic:
        return cpu_start ? gpu_with_cpu_start(options, key, SuccessorPolicy::optional)
                         : automatic_backend(options, key);
    }
    throw std::logic_error("unknown backend choice");
}

void check_required_backend(const CipherOptions &options) {
    if (options.backend != BackendChoice::gpu) return;
    const GpuProbe probe = probe_gpus();
    if (!probe.usable()) throw GpuUnavailable("no usable CUDA device: " + probe.unavailable_reason);
}

void log_cpu_start(const CipherOptions &options, const HandoverReport &report) {
    if (!report.successor_ready) {
        if (options.backend == BackendChoice::automatic) {
            spdlog::info("backend auto: using the CPU ({})", report.successor_failure);
        }
        return;
    }
    const std::string first = human_bytes(double(report.first_bytes));
    const std::string rest = human_bytes(double(report.successor_bytes));
    const double seconds = report.successor_start_seconds;
    const std::string &gpu = report.successor_description;
    if (report.successor_bytes == 0) {
        spdlog::info("the CPU ciphered all {} while the GPU started ({:.2f} s): {} got none of it", first, seconds,
                     gpu);
    } else if (report.first_bytes == 0) {
        spdlog::info("the GPU started ({:.2f} s) before the first chunk was read: {} ciphered all {}", seconds, gpu,
                     rest);
    } else {
        spdlog::info("the CPU ciphered the first {} while the GPU started ({:.2f} s); {} ciphered the other {}", first,
                     seconds, gpu, rest);
    }
}

} // namespace aesgpu
