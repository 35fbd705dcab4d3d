// SPDX-License-Identifier: Apache-2.0
#include "aes_gpu/cuda_backend.hpp"

#include "common/errors.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace aesgpu {

namespace {

// Out of place, a GCM job's plaintext lies in the slot as in the file, with no room for tags, and
// the kernel works on the segments' layout: the copy engine moves each segment's text between
// the two (`kind` says which way), consecutive segments of one length in one strided copy, so no
// CPU thread copies it.
void copy_segment_texts(const CipherJob &job, const SegmentGeometry &geometry, std::byte *host_plaintext,
                        std::byte *device_segments, cudaMemcpyKind kind, cudaStream_t stream) {
    SegmentSpan first; // of a run of segments of one length
    std::size_t count = 0;
    const auto copy_run = [&] {
        const std::size_t width = first.plaintext_bytes();
        if (count == 0 || width == 0) return;
        std::byte *const segments = device_segments + first.offset;
        std::byte *const plaintext = host_plaintext + first.plaintext_offset;
        const std::size_t pitch = first.ciphertext_bytes;
        AESGPU_CUDA_TRY(kind == cudaMemcpyHostToDevice
                            ? cudaMemcpy2DAsync(segments, pitch, plaintext, width, width, count, kind, stream)
                            : cudaMemcpy2DAsync(plaintext, width, segments, pitch, width, count, kind, stream));
    };
    for_each_segment(geometry, job.first_segment, job.segments, job.bytes, job.holds_last_segment,
                     [&](const SegmentSpan &segment) {
                         if (count > 0 && segment.ciphertext_bytes == first.ciphertext_bytes) {
                             ++count;
                             return;
                         }
                         copy_run();
                         first = segment;
                         count = 1;
                     });
    copy_run();
}

} // namespace

CudaBackend::CudaBackend(std::span<const std::uint8_t> key, const CipherSpec &spec, const GpuBackendOptions &options)
    : device_(options.device), notes_(options.notes), max_device_piece_bytes_(options.max_device_piece_bytes),
      mode_(spec.mode), direction_(spec.direction), geometry_(spec.gcm.geometry), iv_(spec.iv) {
    if (options.streams == 0) throw std::invalid_argument("the GPU backend needs at least one stream");
    const DeviceScope scope(device_);
    cudaDeviceProp properties{};
    AESGPU_CUDA_TRY(cudaGetDeviceProperties(&properties, device_));
    device_name_ = properties.name;
    if (mode_ == Mode::gcm) {
        gcm_.emplace(key, spec);
    } else {
        kernel_.emplace(key, spec);
    }
    for (unsigned i = 0; i < options.streams; ++i) streams_.push_back(CudaStream::create());
}

CudaBackend::~CudaBackend() {
    // Everything here lives on device_, and a backend may go from a thread where another GPU is
    // current (the last lane of a run), where clearing its memory would fail.
    const CleanupNotes told(notes_);
    try {
        const DeviceScope scope(device_);
        release_device_state();
    } catch (const std::exception &) {
        release_device_state(); // the device could not be made current: free what can be freed
    }
}

void CudaBackend::release_device_state() noexcept {
    // Jobs still in flight use the buffers; let them finish before anything is freed.
    for (const auto &stream : streams_)
        cuda_check_noexcept(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize");
    release_slots();
    gcm_.reset();
    kernel_.reset();
    streams_.clear();
}

std::string CudaBackend::describe() const {
    return "gpu (" + device_name_ + ", " + std::to_string(streams_.size()) +
           (streams_.size() == 1 ? " stream)" : " streams)");
}

void CudaBackend::release_slots() noexcept {
    // Device buffers held plaintext or ciphertext of the run: clear them before they are freed.
    for (auto &slot : slots_) {
        if (slot.device.get()) cuda_check_noexcept(cudaMemset(slot.device.get(), 0, slot.device.size()), "cudaMemset");
        if (slot.device_out.get()) {
            cuda_check_noexcept(cudaMemset(slot.device_out.get(), 0, slot.device_out.size()), "cudaMemset");
        }
        // GCM's running tag sums carry each segment's tag mask E(J0).
        if (slot.tag_sums.get()) {
            cuda_check_noexcept(cudaMemset(slot.tag_sums.get(), 0, slot.tag_sums.size()), "cudaMemset");
        }
    }
    slots_.clear();
    job_ends_.clear();
    shared_pins_.reset();
}

bool CudaBackend::set_job_end_listener(JobEndListener listener) {
    job_end_listener_ = std::move(listener);
    return true;
}

void CUDART_CB CudaBackend::tell_job_end(void *job_end) {
    const auto *end = static_cast<const JobEnd *>(job_end);
    (*end->listener)(end->slot);
}

void CudaBackend::configure_slots(std::size_t slot_count, std::size_t slot_bytes) {
    build_slots(slot_count, slot_bytes, [&](Slot &slot, std::size_t) {
        slot.pinned = PinnedBuffer(slot_bytes);
        slot.host = slot.pinned.span();
    });
}

void CudaBackend::adopt_slots(std::span<const std::span<std::byte>> buffers) {
    std::size_t largest = 0;
    for (const auto &buffer : buffers) {
        if (buffer.empty() || buffer.size() % kAesBlockBytes != 0) {
            throw std::invalid_argument("adopted host buffers must be whole 16-byte blocks");
        }
        largest = std::max(largest, buffer.size());
    }
    build_slots(buffers.size(), largest, [&](Slot &slot, std::size_t index) {
        slot.registration = HostRegistration::create(buffers[index]);
        slot.host = buffers[index];
    });
}

void CudaBackend::adopt_slots_pinned_by(std::span<const std::span<std::byte>> buffers, GpuRingPins &pins) {
    std::size_t largest = 0;
    for (const auto &buffer : buffers) largest = std::max(largest, buffer.size());
    const DeviceScope scope(device_);
    std::shared_ptr<void> pinned = pins.pin(buffers);
    build_slots(buffers.size(), largest, [&](Slot &slot, std::size_t index) { slot.host = buffers[index]; });
    shared_pins_ = std::move(pinned);
}

void CudaBackend::build_slots(std::size_t slot_count, std::size_t slot_bytes,
                              const std::function<void(Slot &, std::size_t)> &host_for) {
    const DeviceScope scope(device_);
    release_slots();
    try {
        slots_.reserve(slot_count);
        job_ends_.reserve(slot_count);
        for (std::size_t i = 0; i < slot_count; ++i) {
            Slot &slot = slots_.emplace_back();
            host_for(slot, i);
            slot.done = CudaEvent::create();
            job_ends_.push_back({&job_end_listener_, i});
        }
        allocate_device_buffers(slot_bytes);
    } catch (...) {
        release_slots();
        throw;
    }
}

void CudaBackend::allocate_device_buffers(std::size_t slot_bytes) {
    if (gcm_) {
        // A GCM job's segments go through the GPU whole: no pieces.
        for (auto &slot : slots_) {
            slot.device = DeviceBuffer(slot.host.size());
            slot.tag_sums = DeviceBuffer(gcm_->sum_bytes(slot.host.size() / geometry_.segment_bytes + 2));
            slot.failure = DeviceBuffer(sizeof(std::uint32_t));
            slot.failure_host = PinnedBuffer(sizeof(std::uint32_t));
        }
        device_piece_bytes_ = slot_bytes;
        return;
    }
    std::size_t piece = max_device_piece_bytes_ ? std::min(max_device_piece_bytes_, slot_bytes) : slot_bytes;
    piece = std::max(piece / kAesBlockBytes * kAesBlockBytes, kAesBlockBytes);
    const bool chained = kernel_ && kernel_->chained();
    for (;;) {
        try {
            for (auto &slot : slots_) {
                slot.device = DeviceBuffer(std::min(piece, slot.host.size()));
                if (chained) slot.device_out = DeviceBuffer(std::min(piece, slot.host.size()));
            }
            device_piece_bytes_ = piece;
            return;
        } catch (const ResourceExhausted &) {
            for (auto &slot : slots_) {
                slot.device = DeviceBuffer();
                slot.device_out = DeviceBuffer();
            }
            if (piece <= kMinDevicePieceBytes) throw;
            piece = std::max(piece / 2 / kAesBlockBytes * kAesBlockBytes, kMinDevicePieceBytes);
        }
    }
}

std::span<std::byte> CudaBackend::slot_buffer(std::size_t slot) {
    return ring_slot(slots_, slot).host;
}

void CudaBackend::submit(const CipherJob &job) {
    Slot &target = ring_slot(slots_, job.slot);
    check_job_size(job, target.host.size(), mode_);
    // The current device is per host thread, and the pipeline submits from its reader thread.
    const DeviceScope scope(device_);
    const cudaStream_t stream = streams_[next_stream_++ % streams_.size()].get();
    if (gcm_) {
        submit_gcm(target, job, stream);
    } else {
        submit_blocks(target, job, stream);
    }
    // The listener hears of the end before the event completes, so before wait() returns. (A
    // host function does not run once the context has failed; wait() then reports the failure.)
    if (job_end_listener_) {
        AESGPU_CUDA_TRY(cudaLaunchHostFunc(stream, &CudaBackend::tell_job_end, &job_ends_[job.slot]));
    }
    AESGPU_CUDA_TRY(cudaEventRecord(target.done.get(), stream));
}

void CudaBackend::submit_blocks(Slot &target, const CipherJob &job, cudaStream_t stream) {
    // CBC: each piece's block before it, taken before anything is queued (in place, the copy out
    // of the piece before it overwrites that block).
    std::vector<CounterBlock> chains;
    if (kernel_->chained()) {
        chains.push_back(chain_block(job, iv_));
        for (std::size_t offset = device_piece_bytes_; offset < job.bytes; offset += device_piece_bytes_) {
            std::memcpy(chains.emplace_back().data(), target.host.data() + job.input_offset + offset - kAesBlockBytes,
                        kAesBlockBytes);
        }
    }
    // Usually one piece. Pieces of one job share the slot's device buffer: the stream runs them in
    // order, so each copy in waits for the previous piece's copy out.
    for (std::size_t offset = 0, index = 0; offset < job.bytes; offset += device_piece_bytes_, ++index) {
        const std::size_t piece = std::min(device_piece_bytes_, job.bytes - offset);
        std::byte *const input = target.host.data() + job.input_offset + offset;
        std::byte *const output = target.host.data() + job.output_offset + offset;
        AESGPU_CUDA_TRY(cudaMemcpyAsync(target.device.get(), input, piece, cudaMemcpyHostToDevice, stream));
        void *result = target.device.get();
        if (kernel_->chained()) {
            result = target.device_out.get();
            kernel_->launch_chained(target.device.get(), result, piece / kAesBlockBytes, chains[index], stream);
        } else {
            kernel_->launch(result, piece / kAesBlockBytes, job.first_block + offset / kAesBlockBytes, stream);
        }
        AESGPU_CUDA_TRY(cudaMemcpyAsync(output, result, piece, cudaMemcpyDeviceToHost, stream));
    }
}

void CudaBackend::submit_gcm(Slot &slot, const CipherJob &job, cudaStream_t stream) {
    // A job whose bytes do not match its segments is refused before any copy is queued (the
    // kernels would take it as it comes).
    for_each_segment(geometry_, job.first_segment, job.segments, job.bytes, job.holds_last_segment,
                     [](const SegmentSpan &) {});
    slot.first_segment = job.first_segment;
    // The device holds the segments' layout; out of place the host's plaintext side does not.
    const bool in_place = job.input_offset == job.output_offset;
    std::byte *const input = slot.host.data() + job.input_offset;
    std::byte *const output = slot.host.data() + job.output_offset;
    std::byte *const device = static_cast<std::byte *>(slot.device.get());
    if (in_place || direction_ == Direction::decrypt) {
        AESGPU_CUDA_TRY(cudaMemcpyAsync(device, input, job.bytes, cudaMemcpyHostToDevice, stream));
    } else {
        copy_segment_texts(job, geometry_, input, device, cudaMemcpyHostToDevice, stream);
    }
    AESGPU_CUDA_TRY(cudaMemsetAsync(slot.failure.get(), 0xff, sizeof(std::uint32_t), stream));
    gcm_->launch(device, job, slot.tag_sums.get(), static_cast<std::uint32_t *>(slot.failure.get()), stream);
    if (in_place || direction_ == Direction::encrypt) {
        AESGPU_CUDA_TRY(cudaMemcpyAsync(output, device, job.bytes, cudaMemcpyDeviceToHost, stream));
    } else {
        copy_segment_texts(job, geometry_, output, device, cudaMemcpyDeviceToHost, stream);
    }
    AESGPU_CUDA_TRY(cudaMemcpyAsync(slot.failure_host.get(), slot.failure.get(), sizeof(std::uint32_t),
                                    cudaMemcpyDeviceToHost, stream));
}

void CudaBackend::wait(std::size_t slot) {
    Slot &target = ring_slot(slots_, slot);
    const DeviceScope scope(device_);
    AESGPU_CUDA_TRY(cudaEventSynchronize(target.done.get()));
    if (gcm_) {
        std::uint32_t failed = 0;
        std::memcpy(&failed, target.failure_host.get(), sizeof failed);
        // A checked job leaves 0xffffffff; the next submit sets it again on the device.
        std::memset(target.failure_host.get(), 0xff, sizeof failed);
        if (failed != 0xffffffffu) {
            throw AuthenticationFailed("authentication failed in segment " +
                                       std::to_string(target.first_segment + failed));
        }
    }
}

void require_gpu_device(int device) {
    int count = 0;
    try {
        AESGPU_CUDA_TRY(cudaGetDeviceCount(&count));
    } catch (const CudaError &e) {
        throw GpuUnavailable(gpu_driver_found() ? cudaGetErrorString(e.code()) : kNoDriverMessage);
    }
    if (device < 0 || device >= count) {
        throw GpuUnavailable("no CUDA device " + std::to_string(device) + " (found " + std::to_string(count) + ")");
    }
}

std::unique_ptr<CipherBackend> make_gpu_backend(std::span<const std::uint8_t> key, const CipherSpec &spec,
                                                const GpuBackendOptions &options) {
    require_gpu_device(options.device);
    return std::make_unique<CudaBackend>(key, spec, options);
}

std::unique_ptr<CipherBackend> make_gpu_backend_over(std::span<const std::uint8_t> key, const CipherSpec &spec,
                                                     const GpuBackendOptions &options,
                                                     std::span<const std::span<std::byte>> host_buffers,
                                                     GpuRingPins *pins) {
    require_gpu_device(options.device);
    auto backend = std::make_unique<CudaBackend>(key, spec, options);
    if (pins) {
        backend->adopt_slots_pinned_by(host_buffers, *pins);
    } else {
        backend->adopt_slots(host_buffers);
    }
    return backend;
}

struct GpuRingPins::State {
    std::mutex mutex;
    std::vector<HostRegistration> registrations;
    std::vector<std::span<std::byte>> ring; // which buffers, while registered
    std::size_t holders = 0;
};

GpuRingPins::GpuRingPins(bool portable) : portable_(portable), state_(std::make_shared<State>()) {}

GpuRingPins::~GpuRingPins() = default;

namespace {

bool same_ring(std::span<const std::span<std::byte>> a, std::span<const std::span<std::byte>> b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](std::span<std::byte> x, std::span<std::byte> y) {
        return x.data() == y.data() && x.size() == y.size();
    });
}

} // namespace

std::shared_ptr<void> GpuRingPins::pin(std::span<const std::span<std::byte>> buffers) {
    std::lock_guard lock(state_->mutex);
    State &state = *state_;
    if (state.holders > 0 && !same_ring(state.ring, buffers)) {
        throw std::logic_error("a ring is still page-locked for the GPUs");
    }
    if (state.holders == 0) {
        for (const auto &buffer : buffers) {
            if (buffer.empty() || buffer.size() % kAesBlockBytes != 0) {
                throw std::invalid_argument("adopted host buffers must be whole 16-byte blocks");
            }
        }
        std::vector<HostRegistration> registrations;
        registrations.reserve(buffers.size());
        for (const auto &buffer : buffers) registrations.push_back(HostRegistration::create(buffer, portable_));
        state.registrations = std::move(registrations);
        state.ring.assign(buffers.begin(), buffers.end());
    }
    ++state.holders;
    // The last hold to go unregisters, under the lock that a registration takes too.
    return std::shared_ptr<void>(nullptr, [held = state_](void *) {
        std::lock_guard held_lock(held->mutex);
        if (--held->holders > 0) return;
        held->registrations.clear();
        held->ring.clear();
    });
}

int gpu_device_count() {
    if (!gpu_driver_found()) return 0;
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess) return count;
    (void)cudaGetLastError(); // no device: that error must not meet a later call
    return 0;
}

bool gpu_support_built_in() {
    return true;
}

bool gpu_driver_found() {
    static const bool found = [] {
        int version = 0;
        return cudaDriverGetVersion(&version) == cudaSuccess && version > 0;
    }();
    return found;
}

} // namespace aesgpu
