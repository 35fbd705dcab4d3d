// SPDX-License-Identifier: Apache-2.0
#pragma once
// The CUDA backend: each ring slot has a host buffer (pinned, or adopted and page-locked in
// place), a device buffer and an event; jobs take turns over a few non-blocking streams, in the
// order they come (a dispatcher hands this GPU any slots, not every slot), so while chunk i is in
// the kernel, chunk i+1 is on its way in and chunk i-1 on its way out. A slot's host buffer is
// handed back to the pipeline only after the event recorded behind its device-to-host copy has
// completed.
#include "aes_gpu/aes_kernel.hpp"
#include "aes_gpu/cuda_resources.hpp"
#include "aes_gpu/gcm_kernel.hpp"
#include "aes_gpu/gpu_backend.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace aesgpu {

class CudaBackend final : public CipherBackend {
public:
    CudaBackend(std::span<const std::uint8_t> key, const CipherSpec &spec, const GpuBackendOptions &options);
    ~CudaBackend() override;

    [[nodiscard]] std::string describe() const override;
    void configure_slots(std::size_t slot_count, std::size_t slot_bytes) override;
    void adopt_slots(std::span<const std::span<std::byte>> buffers) override;
    [[nodiscard]] std::span<std::byte> slot_buffer(std::size_t slot) override;
    void submit(const CipherJob &job) override;
    void wait(std::size_t slot) override;
    [[nodiscard]] std::size_t jobs_at_once() const override { return streams_.size(); }
    // Told by a host function queued behind the job's copy back, before the slot's event.
    bool set_job_end_listener(JobEndListener listener) override;

    // Like adopt_slots, with the page-locking that every GPU over these buffers shares.
    void adopt_slots_pinned_by(std::span<const std::span<std::byte>> buffers, GpuRingPins &pins);

private:
    struct Slot {
        PinnedBuffer pinned;           // the slot's own host buffer; empty for adopted memory
        HostRegistration registration; // adopted memory, page-locked in place
        std::span<std::byte> host;
        DeviceBuffer device;
        DeviceBuffer device_out; // cbc decrypting: where the kernel writes, apart from `device`
        CudaEvent done;
        // gcm: the kernels' running tag sums, and the index in the job of the first segment that
        // failed (0xffffffff: none), on the device and copied back behind the data; the job's
        // first segment, which that index counts from.
        DeviceBuffer tag_sums;
        DeviceBuffer failure;
        PinnedBuffer failure_host;
        std::uint64_t first_segment = 0;
    };
    // Sets up `slot_count` slots of up to `slot_bytes`, each with the host buffer that
    // `host_for(slot, index)` gives it.
    void build_slots(std::size_t slot_count, std::size_t slot_bytes,
                     const std::function<void(Slot &, std::size_t)> &host_for);
    // A device buffer per slot, of the largest piece that fits: halved while GPU memory is short,
    // down to kMinDevicePieceBytes. Throws ResourceExhausted below that.
    void allocate_device_buffers(std::size_t slot_bytes);
    void release_slots() noexcept;
    void release_device_state() noexcept; // with the device current: slots, kernels, streams
    void submit_blocks(Slot &slot, const CipherJob &job, cudaStream_t stream); // ecb, ctr
    void submit_gcm(Slot &slot, const CipherJob &job, cudaStream_t stream);
    // What a host function needs to tell the listener that a slot's job ended.
    struct JobEnd {
        const JobEndListener *listener;
        std::size_t slot;
    };
    static void CUDART_CB tell_job_end(void *job_end);

    int device_;
    NoteSink *notes_;
    std::string device_name_;
    std::size_t max_device_piece_bytes_;
    std::size_t device_piece_bytes_ = 0; // the most of a job on the GPU at once
    Mode mode_;
    Direction direction_;
    SegmentGeometry geometry_;        // gcm
    CounterBlock iv_;                 // cbc: what block 0 is XORed with
    std::optional<AesKernel> kernel_; // ecb, ctr, cbc decrypting; made with the device current
    std::optional<GcmKernel> gcm_;    // gcm
    std::vector<CudaStream> streams_;
    std::size_t next_stream_ = 0;
    std::vector<Slot> slots_;
    std::vector<JobEnd> job_ends_; // one per slot; stable while jobs are in flight
    JobEndListener job_end_listener_;
    std::shared_ptr<void> shared_pins_; // over a ring several GPUs share: their page-locking
};

} // namespace aesgpu
