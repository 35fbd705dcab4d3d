// SPDX-License-Identifier: Apache-2.0
#pragma once
// The CUDA backend as the rest of the program sees it: a factory with no CUDA types in sight, so
// app/ builds the same with and without the CUDA toolkit.
#include "cipher/cipher_backend.hpp"
#include "common/note_sink.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

namespace aesgpu {

inline constexpr unsigned kDefaultGpuStreams = 4;
// Regular files go through the GPU in 8 MiB chunks. With the CPU start (the CPU ciphers while
// CUDA starts), an 8 GiB file on the H200 host's /dev/shm took, as medians of 7-9 interleaved
// runs, 2.04-2.07 s at 8 MiB against 2.06 s at 4 MiB, 2.01 s at 12 MiB and 2.29 s at 16 MiB (the
// best size before the CPU start). bench/NOTES.md has more.
inline constexpr std::size_t kGpuFileChunkBytes = std::size_t{8} << 20;

struct GpuBackendOptions {
    int device = 0;
    unsigned streams = kDefaultGpuStreams; // CUDA streams the ring slots are spread over
    // The most bytes of a job the GPU holds at once (0: a whole slot). The backend goes below it
    // by itself when GPU memory is short; tests set it to take a job in pieces.
    std::size_t max_device_piece_bytes = 0;
    // Told when a clean-up call fails as the backend goes (none: nobody hears). Must outlive it.
    NoteSink *notes = nullptr;
};

// When GPU memory is short, a slot's job goes through the GPU in pieces no smaller than this.
inline constexpr std::size_t kMinDevicePieceBytes = std::size_t{1} << 20;

// No GPU can serve: no device or driver, no CUDA in this build, no kernel image for the device.
class GpuUnavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws GpuUnavailable (with the reason), ResourceExhausted or CudaError.
[[nodiscard]] std::unique_ptr<CipherBackend> make_gpu_backend(std::span<const std::uint8_t> key, const CipherSpec &spec,
                                                              const GpuBackendOptions &options = {});

// The page-locking of one host ring that several GPU backends work over (a dispatcher's ring, one
// lane per GPU). The memory can be registered with CUDA only once, so the first backend to ask
// registers it, portable to every GPU when `portable` (a portable registration of 45 slots of
// 8 MiB took 128 ms on the H200 host, a plain one 18 ms), and the registration goes with the
// last backend that holds it.
class GpuRingPins {
public:
    explicit GpuRingPins(bool portable);
    ~GpuRingPins();
    GpuRingPins(const GpuRingPins &) = delete;
    GpuRingPins &operator=(const GpuRingPins &) = delete;

    // Keeps `buffers` registered while any copy of it lives: the registration is made by the
    // first call for a ring and undone when the last hold goes, both under one lock, so that a
    // GPU starting over the next ring never meets the old registration. Throws ResourceExhausted
    // or CudaError; std::logic_error for another ring while this one is held.
    [[nodiscard]] std::shared_ptr<void> pin(std::span<const std::span<std::byte>> buffers);

    struct State; // in the CUDA build: the registrations, their holders and the lock

private:
    bool portable_;
    std::shared_ptr<State> state_; // shared with the holds, which may outlive this object
};

// The same backend with its ring over `host_buffers` (one per slot, each a multiple of 16 bytes,
// in pages of its own, owned by the caller and alive while the backend lives), page-locked in
// place instead of allocated pinned: the GPU can take over a ring another backend filled. With
// `pins`, the page-locking is the one all GPUs share (several GPUs over one ring).
[[nodiscard]] std::unique_ptr<CipherBackend>
make_gpu_backend_over(std::span<const std::uint8_t> key, const CipherSpec &spec, const GpuBackendOptions &options,
                      std::span<const std::span<std::byte>> host_buffers, GpuRingPins *pins = nullptr);

// Throws GpuUnavailable unless CUDA device `device` is there ("no CUDA device 2 (found 1)"), or
// with CUDA's reason why none is.
void require_gpu_device(int device);

// The CUDA devices this process sees (CUDA_VISIBLE_DEVICES applies), 0 when none or no driver.
// Cheap once the driver is loaded (gpu_driver_found()): 0.0 ms on the H200 host.
[[nodiscard]] int gpu_device_count();

// `asked` where each of them is there, or with none asked, every device this process sees (0, 1,
// ...). Throws GpuUnavailable as require_gpu_device does, or with CUDA's reason where there is none.
[[nodiscard]] inline std::vector<int> require_gpu_devices(const std::vector<int> &asked) {
    for (const int device : asked) require_gpu_device(device);
    if (!asked.empty()) return asked;
    const int count = gpu_device_count();
    if (count == 0) require_gpu_device(0); // throws, with the reason
    std::vector<int> every(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) every[static_cast<std::size_t>(i)] = i;
    return every;
}

// False in a build without the CUDA toolkit, where every GPU backend throws GpuUnavailable.
[[nodiscard]] bool gpu_support_built_in();

// False in a build without CUDA, or where no NVIDIA driver is installed (the CUDA runtime finds
// no libcuda). Asked once per process, without initialising CUDA; `auto` then goes straight to
// the CPU instead of trying (and sizing its ring for) a GPU for every file.
[[nodiscard]] bool gpu_driver_found();

// What GPU failures say where gpu_driver_found() is false, instead of CUDA's "CUDA driver version
// is insufficient for CUDA runtime version", which misleads on a machine with no driver at all.
inline constexpr const char *kNoDriverMessage = "no NVIDIA driver found";

// Ring slots that keep `streams` streams busy: one in flight per stream, plus two held by the
// reader (one read ahead) and one by the writer.
[[nodiscard]] inline std::size_t gpu_ring_slots(unsigned streams) {
    return std::size_t{streams} + 3;
}

} // namespace aesgpu
