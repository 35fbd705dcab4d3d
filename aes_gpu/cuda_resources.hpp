// SPDX-License-Identifier: Apache-2.0
#pragma once
// Move-only owners of CUDA resources: streams (non-blocking), events (no timing unless asked),
// device memory, pinned host memory, page-locked registrations, and the current device. Creation
// throws CudaError, or ResourceExhausted when memory runs out; destruction never throws.
#include "aes_gpu/cuda_check.hpp"
#include "cipher/cipher_backend.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

namespace aesgpu {

template <typename Handle, cudaError_t (*Release)(Handle), const char *ReleaseName>
class CudaOwner {
public:
    CudaOwner() = default;
    explicit CudaOwner(Handle handle) : handle_(handle) {}
    ~CudaOwner() { reset(); }
    CudaOwner(CudaOwner &&other) noexcept : handle_(std::exchange(other.handle_, Handle{})) {}
    CudaOwner &operator=(CudaOwner &&other) noexcept {
        if (this != &other) {
            reset();
            handle_ = std::exchange(other.handle_, Handle{});
        }
        return *this;
    }
    CudaOwner(const CudaOwner &) = delete;
    CudaOwner &operator=(const CudaOwner &) = delete;

    [[nodiscard]] Handle get() const { return handle_; }
    void reset() noexcept {
        if (handle_) cuda_check_noexcept(Release(std::exchange(handle_, Handle{})), ReleaseName);
    }

private:
    Handle handle_{};
};

namespace detail {
inline constexpr char kStreamDestroy[] = "cudaStreamDestroy";
inline constexpr char kEventDestroy[] = "cudaEventDestroy";
inline constexpr char kFree[] = "cudaFree";
inline constexpr char kFreeHost[] = "cudaFreeHost";
inline constexpr char kHostUnregister[] = "cudaHostUnregister";
} // namespace detail

class CudaStream : public CudaOwner<cudaStream_t, cudaStreamDestroy, detail::kStreamDestroy> {
public:
    // Non-blocking: no implicit synchronisation with the legacy default stream.
    static CudaStream create() {
        cudaStream_t stream{};
        AESGPU_CUDA_ALLOC(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cannot create a CUDA stream");
        return CudaStream(stream);
    }
    using CudaOwner::CudaOwner;
};

class CudaEvent : public CudaOwner<cudaEvent_t, cudaEventDestroy, detail::kEventDestroy> {
public:
    static CudaEvent create(bool timing = false) {
        cudaEvent_t event{};
        AESGPU_CUDA_ALLOC(cudaEventCreateWithFlags(&event, timing ? cudaEventDefault : cudaEventDisableTiming),
                          "cannot create a CUDA event");
        return CudaEvent(event);
    }
    using CudaOwner::CudaOwner;
};

template <bool Pinned>
using CudaBytesOwner = std::conditional_t<Pinned, CudaOwner<void *, cudaFreeHost, detail::kFreeHost>,
                                          CudaOwner<void *, cudaFree, detail::kFree>>;

// Device or pinned host bytes; `Pinned` picks cudaHostAlloc/cudaFreeHost over cudaMalloc/cudaFree.
template <bool Pinned>
class CudaBytes : public CudaBytesOwner<Pinned> {
public:
    CudaBytes() = default;
    explicit CudaBytes(std::size_t bytes) : CudaBytesOwner<Pinned>(allocate(bytes)), size_(bytes) {}
    [[nodiscard]] std::span<std::byte> span() const { return {static_cast<std::byte *>(this->get()), size_}; }
    [[nodiscard]] std::size_t size() const { return size_; }

private:
    static void *allocate(std::size_t bytes) {
        void *pointer = nullptr;
        const auto what = [bytes] {
            return "cannot allocate " + std::to_string(bytes >> 10) + " KiB of " + (Pinned ? "pinned host" : "GPU") +
                   " memory";
        };
        if constexpr (Pinned) {
            AESGPU_CUDA_ALLOC(cudaHostAlloc(&pointer, bytes, cudaHostAllocDefault), what());
        } else {
            AESGPU_CUDA_ALLOC(cudaMalloc(&pointer, bytes), what());
        }
        return pointer;
    }
    std::size_t size_ = 0;
};

using DeviceBuffer = CudaBytes<false>;
using PinnedBuffer = CudaBytes<true>;

// Host memory someone else owns, page-locked in place (cudaHostRegister): copies from and to it
// run as DMA, like pinned memory's. The memory must outlive the registration.
class HostRegistration : public CudaOwner<void *, cudaHostUnregister, detail::kHostUnregister> {
public:
    // `portable`: pinned for every device's context, not only the current one.
    static HostRegistration create(std::span<std::byte> bytes, bool portable = false) {
        AESGPU_CUDA_ALLOC(
            cudaHostRegister(bytes.data(), bytes.size(), portable ? cudaHostRegisterPortable : cudaHostRegisterDefault),
            "cannot page-lock " + std::to_string(bytes.size() >> 10) + " KiB of host memory");
        return HostRegistration(bytes.data());
    }
    using CudaOwner::CudaOwner;
};

// Makes `device` current for as long as it lives and then restores the device that was current
// (nvbench's device_scope): the current device is per host thread, and callers share threads.
class DeviceScope {
public:
    explicit DeviceScope(int device) : device_(device) {
        AESGPU_CUDA_TRY(cudaGetDevice(&previous_));
        if (previous_ != device_) AESGPU_CUDA_TRY(cudaSetDevice(device_));
    }
    ~DeviceScope() {
        if (previous_ != device_) cuda_check_noexcept(cudaSetDevice(previous_), "cudaSetDevice");
    }
    DeviceScope(const DeviceScope &) = delete;
    DeviceScope &operator=(const DeviceScope &) = delete;

private:
    int device_;
    int previous_ = 0;
};

} // namespace aesgpu
