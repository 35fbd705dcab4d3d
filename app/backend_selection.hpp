#pragma once
// Turns --backend auto|cpu|gpu into a working cipher backend, with the ring and chunk sizes that
// suit it, and says why it chose it.
#include "app/options.hpp"
#include "io/cipher_backend.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace aesgpu {

struct SelectedBackend {
    std::unique_ptr<CipherBackend> backend;
    std::size_t ring_slots;
    std::size_t file_chunk_bytes; // default chunk for regular-file input
};

// `gpu` with no usable GPU throws std::runtime_error ("no usable CUDA device: <reason>", exit 1);
// `auto` then falls back to the CPU and logs why at info level.
[[nodiscard]] SelectedBackend select_backend(const CipherOptions &options, std::span<const std::uint8_t> key);

} // namespace aesgpu
