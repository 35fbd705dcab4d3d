// SPDX-License-Identifier: Apache-2.0
#pragma once
// Turns a backend choice (auto, cpu, gpu) into a working cipher backend, with the ring and chunk
// sizes that suit it: the CPU alone, the GPU alone, or a dispatcher that ciphers on the CPU while
// the GPU starts. The command line and the bench both choose through here.
#include "aes_gpu/gpu_backend.hpp"
#include "cipher/cipher_backend.hpp"
#include "cipher/dispatcher.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace aesgpu {

enum class BackendChoice { automatic, cpu, gpu };

struct BackendRequest {
    BackendChoice choice = BackendChoice::automatic;
    bool wait_for_gpu = false; // no CPU start: every block goes through the GPU
    unsigned cpu_threads = 0;  // 0: all hardware threads
    unsigned gpu_streams = kDefaultGpuStreams;
};

struct SelectedBackend {
    std::unique_ptr<CipherBackend> backend;
    std::size_t ring_slots;
    std::size_t file_chunk_bytes;    // default chunk for regular-file input
    Dispatcher *cpu_start = nullptr; // `backend` itself when the CPU ciphers while the GPU starts
};

// `gpu` with no usable GPU fails with GpuUnavailable ("no usable CUDA device: <reason>"); `auto`
// then uses the CPU and logs why at info level. Unless wait_for_gpu, both start on the CPU while
// the GPU starts on another thread; `gpu` then fails at the first submit after the GPU failed to
// start, or at the end of the run. It does so only when `output_is_withdrawable` (a file committed
// at the end): output sent to a pipe cannot be taken back, so there it waits.
[[nodiscard]] SelectedBackend select_backend(const BackendRequest &request, const CipherSpec &spec,
                                             std::span<const std::uint8_t> key, bool output_is_withdrawable);

// Fails, as select_backend would for `gpu`, when no GPU is there at all; nothing for the other
// choices. Lets a run that prompts for a passphrase fail before asking.
void check_required_backend(BackendChoice choice);

} // namespace aesgpu
