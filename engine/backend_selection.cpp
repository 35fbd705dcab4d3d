// SPDX-License-Identifier: Apache-2.0
#include "engine/backend_selection.hpp"

#include "aes_cpu/openssl_backend.hpp"
#include "aes_gpu/device_probe.hpp"
#include "cipher/secret_bytes.hpp"
#include "engine/pipeline.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <stdexcept>

namespace aesgpu {

namespace {

// Two slots for the reader (one read ahead) and one for the writer, besides those in the ciphers.
constexpr std::size_t kPipelineSlots = 3;

std::unique_ptr<OpenSslBackend> make_cpu_backend(const BackendRequest &request, const CipherSpec &spec,
                                                 std::span<const std::uint8_t> key,
                                                 CpuSubmit submit = CpuSubmit::caller_runs_first_piece) {
    // CBC encryption chains every block to the one before: one thread does it all. A small input
    // has fewer pieces than the hardware threads.
    const bool serial = spec.mode == Mode::cbc && spec.direction == Direction::encrypt;
    unsigned threads = request.cpu_threads;
    if (threads == 0 && request.input_bytes) {
        const std::uint64_t pieces =
            (*request.input_bytes + kCipherPieces.min_piece_bytes - 1) / kCipherPieces.min_piece_bytes;
        if (pieces < default_cpu_threads()) threads = static_cast<unsigned>(std::max<std::uint64_t>(pieces, 1));
    }
    return std::make_unique<OpenSslBackend>(key, spec, serial ? 1 : threads, submit);
}

// The CPU's threads that cipher at the same moment: more than the hardware threads share the cores,
// and ring slots for them would only take memory (-T 4096 on 2 cores asked for an 8 GiB ring).
unsigned threads_at_work(const OpenSslBackend &cpu) {
    return std::min(cpu.threads(), default_cpu_threads());
}

SelectedBackend cpu_backend(const BackendRequest &request, const CipherSpec &spec, std::span<const std::uint8_t> key) {
    auto backend = make_cpu_backend(request, spec, key);
    // Two slots for the reader (one read ahead), one for the writer, and enough in the cipher to
    // keep every thread busy while pieces of a chunk finish unevenly.
    const std::size_t slots = std::max<std::size_t>(kMinRingSlots + 2, threads_at_work(*backend) / 2 + 4);
    return {std::move(backend), slots, kFileChunkBytes};
}

GpuBackendOptions gpu_options(const BackendRequest &request, int device, NoteSink *notes) {
    return {.device = device, .streams = request.gpu_streams, .notes = notes};
}

// Starts a GPU backend, saying in the error what kept it from starting: no usable device, too
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

// --devices, or every GPU this process sees. Throws GpuUnavailable: why there is none, or which
// device asked for is not there.
std::vector<int> gpu_devices(const BackendRequest &request) {
    return start_gpu([&] { return require_gpu_devices(request.devices); });
}

SelectedBackend one_gpu(const BackendRequest &request, const CipherSpec &spec, std::span<const std::uint8_t> key,
                        int device, NoteSink *notes) {
    return start_gpu([&] {
        return SelectedBackend{make_gpu_backend(key, spec, gpu_options(request, device, notes)),
                               gpu_ring_slots(request.gpu_streams), kGpuFileChunkBytes};
    });
}

// The ring slots a CPU lane that ciphers beside the GPUs all run long adds: room for its jobs.
std::size_t cpu_lane_slots(const OpenSslBackend &cpu) {
    return cpu_jobs_at_once(threads_at_work(cpu), kGpuFileChunkBytes);
}

// Where the CPU stands beside the GPUs: while they start, all run long, only if every one fails,
// or not at all.
std::optional<LaneShare> cpu_share(const BackendRequest &request, bool output_is_withdrawable) {
    // auto --wait-for-gpu: every block through the GPUs, the CPU left free unless they all fail.
    if (request.choice == BackendChoice::automatic && request.wait_for_gpu) return LaneShare::fallback;
    if (cpu_stays_beside_gpus(request.choice)) return LaneShare::throughout;
    switch (request.choice) {
    case BackendChoice::automatic: return LaneShare::until_another_is_ready;
    case BackendChoice::gpu:
        // Bytes that reached a pipe cannot be taken back if a GPU then fails: no start on the CPU.
        if (request.wait_for_gpu || !output_is_withdrawable) return std::nullopt;
        return LaneShare::until_another_is_ready;
    case BackendChoice::all:
    case BackendChoice::cpu: break;
    }
    throw std::logic_error("no CPU lane beside the GPUs for this choice");
}

// auto with an input of one chunk, no GPU named or waited for: the CPU ciphers it before a GPU could
// start, and loading the driver for it would cost more than the file.
bool cpu_is_done_first(const BackendRequest &request) {
    return request.choice == BackendChoice::automatic && !request.wait_for_gpu && request.devices.empty() &&
           request.input_bytes && *request.input_bytes <= kFileChunkBytes;
}

// The GPUs to run on, or none and why (`why_none`) where the CPU may stand in. GPUs named
// (devices) must be there, whatever the choice, as any must for `gpu`: GpuUnavailable. No driver:
// nothing to start beside the CPU. Asked only where a GPU may be used: finding the driver loads
// libcuda, which cost --backend cpu 7 MiB and about 0.25 s per run on the H200 host (a 1-byte
// file: 9 ms without).
std::optional<std::vector<int>> usable_gpus(const BackendRequest &request, std::string &why_none) {
    const bool required = request.choice == BackendChoice::gpu || !request.devices.empty();
    if (!gpu_driver_found()) {
        why_none = gpu_support_built_in() ? kNoDriverMessage : "this aesgpu was built without CUDA support";
        if (required) throw GpuUnavailable("no usable CUDA device: " + why_none);
        return std::nullopt;
    }
    try {
        return gpu_devices(request);
    } catch (const GpuUnavailable &e) {
        if (required) throw;
        why_none = e.what();
        return std::nullopt;
    }
}

// A lane per GPU over the dispatcher's ring, each started on its own thread, and the CPU as
// `share` says. The ring has room for every GPU's streams and, where the CPU ciphers beside them,
// for its jobs too; where it only starts the run, the GPUs need the room.
SelectedBackend dispatched(const BackendRequest &request, const CipherSpec &spec, std::span<const std::uint8_t> key,
                           const std::vector<int> &devices, std::optional<LaneShare> share, NoteSink *notes) {
    auto gpu_key = std::make_shared<SecretBytes>(key);
    auto pins = std::make_shared<GpuRingPins>(devices.size() > 1);
    const LanePolicy policy = request.choice == BackendChoice::gpu ? LanePolicy::required : LanePolicy::optional;
    std::vector<DispatcherLane> lanes;
    std::size_t slots = kPipelineSlots;
    if (share) {
        const CpuSubmit submit =
            *share == LaneShare::throughout ? CpuSubmit::post_every_piece : CpuSubmit::caller_runs_first_piece;
        auto cpu = make_cpu_backend(request, spec, key, submit);
        if (*share == LaneShare::throughout) slots += cpu_lane_slots(*cpu);
        lanes.push_back({.name = "CPU", .start = {}, .ready = std::move(cpu), .share = *share});
    }
    for (const int device : devices) {
        LaneStart start = [gpu_key, pins, spec,
                           gpu = gpu_options(request, device, notes)](std::span<const std::span<std::byte>> ring) {
            return start_gpu([&] { return make_gpu_backend_over(gpu_key->view(), spec, gpu, ring, pins.get()); });
        };
        lanes.push_back({.name = gpu_lane_name(device, devices.size()),
                         .device = device,
                         .start = std::move(start),
                         .policy = policy});
        slots += request.gpu_streams;
    }
    // --wait-for-gpu with the CPU all run long (all): the CPU starts with the GPUs, not before them.
    const bool wait_for_gpus = request.wait_for_gpu && share == LaneShare::throughout;
    auto backend = std::make_unique<Dispatcher>(std::move(lanes), wait_for_gpus);
    Dispatcher *dispatcher = backend.get();
    return {std::move(backend), slots, kGpuFileChunkBytes, dispatcher};
}

// `auto` or `all` on the CPU alone, and why.
SelectedBackend cpu_instead(const BackendRequest &request, const CipherSpec &spec, std::span<const std::uint8_t> key,
                            CpuInstead why, std::string reason, SelectionNotes notes = {}) {
    SelectedBackend selected = cpu_backend(request, spec, key);
    selected.notes = std::move(notes);
    selected.notes.cpu_instead = why;
    selected.notes.cpu_reason = std::move(reason);
    return selected;
}

} // namespace

SelectedBackend cpu_lane_alone(const BackendRequest &request, const CipherSpec &spec, std::span<const std::uint8_t> key,
                               std::size_t gpus) {
    auto cpu = make_cpu_backend(request, spec, key, CpuSubmit::post_every_piece);
    const std::size_t slots = kPipelineSlots + cpu_lane_slots(*cpu) + gpus * request.gpu_streams;
    return {std::move(cpu), slots, kGpuFileChunkBytes};
}

std::string gpu_lane_name(int device, std::size_t gpu_count) {
    return gpu_count == 1 ? "GPU" : "GPU " + std::to_string(device);
}

std::string auto_lane_names(const std::vector<int> &devices) {
    // In the dispatcher's order: the CPU's lane first (dispatched() below).
    std::vector<std::string> lanes;
    if (devices.empty() || cpu_stays_beside_gpus(BackendChoice::automatic)) lanes.emplace_back("cpu");
    for (const int device : devices) lanes.push_back(lane_key(gpu_lane_name(device, devices.size())));
    std::string names;
    for (const std::string &lane : lanes) {
        if (!names.empty()) names += '+';
        names += lane;
    }
    return names;
}

std::string lane_key(const std::string &name) {
    std::string key;
    for (const unsigned char c : name) {
        if (c != ' ') key += static_cast<char>(std::tolower(c));
    }
    return key;
}

const char *backend_choice_name(BackendChoice choice) {
    switch (choice) {
    case BackendChoice::automatic: return "auto";
    case BackendChoice::cpu: return "cpu";
    case BackendChoice::gpu: return "gpu";
    case BackendChoice::all: return "all";
    }
    return "?";
}

SelectedBackend select_backend(const BackendRequest &request, const CipherSpec &spec, std::span<const std::uint8_t> key,
                               bool output_is_withdrawable, NoteSink *cleanup_notes) {
    if (request.choice == BackendChoice::cpu) return cpu_backend(request, spec, key);
    if (spec.mode == Mode::cbc && spec.direction == Direction::encrypt) {
        if (request.choice != BackendChoice::automatic) {
            throw std::invalid_argument("CBC encryption is serial: it runs on one CPU thread, not on a GPU");
        }
        return cpu_instead(request, spec, key, CpuInstead::serial_mode,
                           "CBC encryption chains every block to the one before: one CPU thread");
    }
    if (cpu_is_done_first(request)) {
        return cpu_instead(request, spec, key, CpuInstead::small_input,
                           "a file of one chunk: the CPU is done before a GPU could start");
    }
    std::string why_none;
    const std::optional<std::vector<int>> usable = usable_gpus(request, why_none);
    if (!usable) return cpu_instead(request, spec, key, CpuInstead::no_gpu, why_none);
    const std::vector<int> &devices = *usable;
    SelectionNotes notes;
    notes.gpus = devices.size();
    notes.devices = devices;
    notes.cpu_share = cpu_share(request, output_is_withdrawable);
    const std::optional<LaneShare> &share = notes.cpu_share;
    if (devices.size() == 1 && (!share || *share == LaneShare::fallback)) {
        // One GPU started here and now: its failure is this call's (auto: the CPU takes over).
        try {
            SelectedBackend selected = one_gpu(request, spec, key, devices.front(), cleanup_notes);
            selected.notes = notes;
            selected.notes.auto_started_one_gpu = share.has_value();
            return selected;
        } catch (const std::runtime_error &e) {
            if (!share) throw;
            return cpu_instead(request, spec, key, CpuInstead::gpu_failed, e.what(), notes);
        }
    }
    SelectedBackend selected = dispatched(request, spec, key, devices, share, cleanup_notes);
    selected.notes = notes;
    return selected;
}

void check_required_backend(const BackendRequest &request) {
    if (request.choice == BackendChoice::cpu || (request.choice != BackendChoice::gpu && request.devices.empty())) {
        return;
    }
    const GpuProbe probe = probe_gpus();
    if (!probe.usable()) throw GpuUnavailable("no usable CUDA device: " + probe.unavailable_reason);
    (void)gpu_devices(request); // every --devices entry there, as select_backend checks them
}

bool gpu_can_be_had(const BackendRequest &request) {
    try {
        check_required_backend(request);
        return true;
    } catch (const GpuUnavailable &) {
        return false;
    }
}

bool gpu_failure_comes_again(const std::exception_ptr &failure, const BackendRequest &request) {
    try {
        std::rethrow_exception(failure);
    } catch (const GpuUnavailable &) {
        return !gpu_can_be_had(request);
    } catch (...) {
        return false;
    }
}

} // namespace aesgpu
