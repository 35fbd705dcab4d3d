// SPDX-License-Identifier: Apache-2.0
#pragma once
// Turns a backend choice (auto, cpu, gpu, all) into a working cipher backend, with the ring and
// chunk sizes that suit it: the CPU alone, one GPU alone, or a dispatcher that spreads jobs over
// every GPU (each its own lane) and the CPU, which ciphers while the GPUs start and, for `all`,
// beside them all run long. The command line and the bench both choose through here.
#include "aes_gpu/gpu_backend.hpp"
#include "cipher/cipher_backend.hpp"
#include "engine/dispatcher.hpp"

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace aesgpu {

// BackendChoice: <aesgpu/types.hpp>.

// Whether `auto` keeps the CPU ciphering beside the GPUs once they are ready (as `all` does), not
// only while they start. On the H200 host (bench/NOTES.md, "Every GPU and the CPU") the GPU and
// the CPU together were the fastest in every run: 84.9 GB/s through the ring against 49.1 for the
// GPU and 54.9 for the CPU, and 0.86-0.96x the GPU's wall time for 4 and 8 GiB files, at 7-15%
// more CPU time. Each job goes to the lane expected to finish it first, so a CPU slower than the
// GPUs takes only the jobs it finishes sooner. --backend gpu leaves the CPU free.
inline constexpr bool kAutoKeepsTheCpuBesideTheGpus = true;

// True where the CPU keeps ciphering beside the GPUs once they are ready, not only while they start.
[[nodiscard]] constexpr bool cpu_stays_beside_gpus(BackendChoice choice) {
    return choice == BackendChoice::all || (choice == BackendChoice::automatic && kAutoKeepsTheCpuBesideTheGpus);
}

// A GPU's lane name in logs and in the --json split: "GPU" where it is the only one, "GPU 1"
// where there are several (CUDA's device number).
[[nodiscard]] std::string gpu_lane_name(int device, std::size_t gpu_count);

// The lanes `auto` runs on these GPUs, as --json names them: "cpu+gpu", "cpu+gpu0+gpu1", or "cpu"
// with none.
[[nodiscard]] std::string auto_lane_names(const std::vector<int> &devices);

// A lane's name as --json and the progress line give it: "GPU 1" is "gpu1".
[[nodiscard]] std::string lane_key(const std::string &name);

struct BackendRequest {
    BackendChoice choice = BackendChoice::automatic;
    bool wait_for_gpu = false; // no CPU start: every block goes through a GPU
    unsigned cpu_threads = 0;  // 0: all hardware threads (or as few as a small input needs: input_bytes)
    // The input's size where it is known: a small one starts only the CPU threads its pieces can
    // keep busy (a 4 KiB file, one), since starting the others costs more than its cipher; and
    // `auto` ciphers one of a chunk or less on the CPU alone, without loading the GPU driver (a
    // GPU's start cost a 4 KiB file's run 0.34 s on an H100 host).
    std::optional<std::uint64_t> input_bytes;
    unsigned gpu_streams = kDefaultGpuStreams;
    std::vector<int> devices; // --devices: empty for every GPU this process sees
};

// Why `auto` or `all` runs on the CPU alone.
enum class CpuInstead {
    no,          // it does not
    no_gpu,      // no driver, no device, or a device asked for is not there: the same for every file
    gpu_failed,  // `auto`'s one GPU, started at selection, failed to start
    serial_mode, // the mode's encryption is serial (CBC): one CPU thread; `gpu` and `all` refuse it
    small_input, // `auto`, an input of one chunk: the CPU is done before a GPU could start
};

// What the selection came to, for the caller to tell: the engine itself says nothing.
struct SelectionNotes {
    CpuInstead cpu_instead = CpuInstead::no;
    std::string cpu_reason;   // why, where cpu_instead is not `no`
    std::size_t gpus = 0;     // the GPUs found for the run (before any failed to start)
    std::vector<int> devices; // their CUDA device numbers
    // With GPUs found: how the CPU takes part (none: it waits for them).
    std::optional<LaneShare> cpu_share;
    bool auto_started_one_gpu = false; // `backend` is `auto`'s one GPU, started at selection
};

struct SelectedBackend {
    std::unique_ptr<CipherBackend> backend;
    std::size_t ring_slots;
    std::size_t file_chunk_bytes; // default chunk for regular-file input
    // `backend` itself when it spreads jobs over lanes (the CPU start, several GPUs, the CPU beside them).
    Dispatcher *dispatcher = nullptr;
    SelectionNotes notes = {};
};

// `gpu` with no usable GPU, or a --devices entry that is not there, fails with GpuUnavailable
// ("no usable CUDA device: <reason>"); `auto` and `all` then use the CPU and say why in the
// notes. Unless wait_for_gpu, the CPU ciphers while the GPUs start on other threads; `gpu` then
// fails at the first submit after a GPU failed to start, or at the end of the run. It does so only
// when `output_is_withdrawable` (a file committed at the end): output sent to a pipe cannot be
// taken back, so there it waits for every GPU to start. The GPU backends tell `notes` of a
// clean-up that failed as they go; it must outlive the selection.
[[nodiscard]] SelectedBackend select_backend(const BackendRequest &request, const CipherSpec &spec,
                                             std::span<const std::uint8_t> key, bool output_is_withdrawable,
                                             NoteSink *notes = nullptr);

// The CPU alone as a dispatcher runs it beside `gpus` GPUs (every piece posted to its workers,
// jobs overlapping), over a ring of as many slots as theirs together (the ring's size decides how
// much of it the CPU's cache holds); not as `cpu` runs it (the submitting thread ciphers a piece
// of each job). For the bench, to judge every GPU and the CPU together against their lanes alone.
[[nodiscard]] SelectedBackend cpu_lane_alone(const BackendRequest &request, const CipherSpec &spec,
                                             std::span<const std::uint8_t> key, std::size_t gpus);

// Fails, as select_backend would, for `gpu` or GPUs named in `devices` (any choice but cpu), when
// no GPU is there at all or a device named is not; nothing for the others. Lets a run that prompts for a passphrase
// fail before asking, and tells a failure that will come again (no GPU) from one that may pass.
void check_required_backend(const BackendRequest &request);

// False when `request` needs a GPU and check_required_backend finds none it could use (no driver,
// no device, a device asked for that is not there): a failure that will come again for every file.
[[nodiscard]] bool gpu_can_be_had(const BackendRequest &request);

// True when `failure` is a GPU that could not be had (GpuUnavailable) and gpu_can_be_had says it
// will not come: every later run of `request` would fail alike. False for any other failure, and
// for a GPU that may come back (in use elsewhere, short of memory).
[[nodiscard]] bool gpu_failure_comes_again(const std::exception_ptr &failure, const BackendRequest &request);

// "auto", "cpu", "gpu", "all".
[[nodiscard]] const char *backend_choice_name(BackendChoice choice);

} // namespace aesgpu
