#pragma once
// The CUDA backend as the rest of the program sees it: a factory with no CUDA types in sight, so
// app/ builds the same with and without the CUDA toolkit.
#include "io/cipher_backend.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>

namespace aesgpu {

inline constexpr unsigned kDefaultGpuStreams = 4;
// Regular files go through the GPU in 4 MiB chunks. PCIe copies of that size still run near full
// rate; on the H200 host an 8 GiB tmpfs file encrypted fastest with them (2.85 s median, against
// 3.08 s at 8 MiB and 3.12 s at 16 MiB), since the writer then copies data still warm in cache.
inline constexpr std::size_t kGpuFileChunkBytes = std::size_t{4} << 20;

struct GpuBackendOptions {
    int device = 0;
    unsigned streams = kDefaultGpuStreams; // CUDA streams the ring slots are spread over
};

// No GPU can serve: no device or driver, no CUDA in this build, no kernel image for the device.
class GpuUnavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws GpuUnavailable (with the reason) or CudaError.
[[nodiscard]] std::unique_ptr<CipherBackend> make_gpu_backend(std::span<const std::uint8_t> key, Direction direction,
                                                              const GpuBackendOptions &options = {});

// Ring slots that keep `streams` streams busy: one in flight per stream, plus two held by the
// reader (one read ahead) and one by the writer.
[[nodiscard]] inline std::size_t gpu_ring_slots(unsigned streams) {
    return std::size_t{streams} + 3;
}

} // namespace aesgpu
