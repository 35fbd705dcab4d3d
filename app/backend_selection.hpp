#pragma once
// Turns --backend auto|cpu|gpu into a working cipher backend, and says why it chose it.
#include "app/options.hpp"
#include "io/cipher_backend.hpp"

#include <cstdint>
#include <memory>
#include <span>

namespace aesgpu {

struct SelectedBackend {
    std::unique_ptr<CipherBackend> backend;
    std::size_t ring_slots;
};

// Throws std::runtime_error (exit 1) when `gpu` is asked for and no GPU backend can run.
[[nodiscard]] SelectedBackend select_backend(BackendChoice choice, std::span<const std::uint8_t> key,
                                             Direction direction, unsigned threads);

} // namespace aesgpu
