#pragma once
// Turns --backend auto|cpu|gpu into a working cipher backend, with the ring and chunk sizes that
// suit it, and says why it chose it.
#include "app/options.hpp"
#include "cipher/cipher_backend.hpp"
#include "cipher/dispatcher.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace aesgpu {

struct SelectedBackend {
    std::unique_ptr<CipherBackend> backend;
    std::size_t ring_slots;
    std::size_t file_chunk_bytes;         // default chunk for regular-file input
    HandoverBackend *cpu_start = nullptr; // `backend` itself when the CPU ciphers while the GPU starts
};

// `gpu` with no usable GPU fails with std::runtime_error ("no usable CUDA device: <reason>", exit
// 1); `auto` then uses the CPU and logs why at info level. Unless --wait-for-gpu, both start on the
// CPU while the GPU starts on another thread; `gpu` then fails at the first submit after the GPU
// failed to start, or at the end of the run. It does so only when `output_is_withdrawable` (a
// file committed at the end): output sent to a pipe cannot be taken back, so there it waits.
[[nodiscard]] SelectedBackend select_backend(const CipherOptions &options, std::span<const std::uint8_t> key,
                                             bool output_is_withdrawable);

// Fails, as select_backend would for `--backend gpu`, when no GPU is there at all; nothing for
// the other choices. Lets a run that prompts for a passphrase fail before asking.
void check_required_backend(const CipherOptions &options);

// After a run with a CPU start: logs at info level how the work was shared, or why the GPU never
// took over.
void log_cpu_start(const CipherOptions &options, const HandoverReport &report);

} // namespace aesgpu
