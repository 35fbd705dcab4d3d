#pragma once
// Move-only owners of CUDA resources: streams (non-blocking), events (no timing unless asked),
// device memory and pinned host memory. Creation throws CudaError, or ResourceExhausted when
// memory runs out; destruction never throws.
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
        AESGPU_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        return CudaStream(stream);
    }
    using CudaOwner::CudaOwner;
};

class CudaEvent : public CudaOwner<cudaEvent_t, cudaEventDestroy, detail::kEventDestroy> {
public:
    static CudaEvent create(bool timing = false) {
        cudaEvent_t event{};
        AESGPU_CUDA_TRY(cudaEventCreateWithFlags(&event, timing ? cudaEventDefault : cudaEventDisableTiming));
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
    // Running out is classified here, as ResourceExhausted: smaller buffers may still fit.
    static void *allocate(std::size_t bytes) {
        void *pointer = nullptr;
        const cudaError_t status =
            Pinned ? cudaHostAlloc(&pointer, bytes, cudaHostAllocDefault) : cudaMalloc(&pointer, bytes);
        if (status == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError(); // not sticky: a later launch must not report it as its own
            throw ResourceExhausted(std::string("cannot allocate ") + std::to_string(bytes >> 10) + " KiB of " +
                                    (Pinned ? "pinned host" : "GPU") + " memory");
        }
        AESGPU_CUDA_TRY(status);
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
    static HostRegistration create(std::span<std::byte> bytes) {
        const cudaError_t status = cudaHostRegister(bytes.data(), bytes.size(), cudaHostRegisterDefault);
        if (status == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            throw ResourceExhausted("cannot page-lock " + std::to_string(bytes.size() >> 10) + " KiB of host memory");
        }
        AESGPU_CUDA_TRY(status);
        return HostRegistration(bytes.data());
    }
    using CudaOwner::CudaOwner;
};

} // namespace aesgpu
