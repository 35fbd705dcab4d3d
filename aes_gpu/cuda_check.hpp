// SPDX-License-Identifier: Apache-2.0
#pragma once
// CUDA runtime errors as exceptions: AESGPU_CUDA_TRY(call) throws CudaError naming the error, the
// call and where it was made; AESGPU_CUDA_ALLOC(call, what) does the same for an allocation, but
// throws ResourceExhausted when memory ran out (smaller buffers may fit, or the CPU can go on
// alone). Both clear this thread's last error first: errors that are not sticky (a failed
// allocation or registration) would otherwise be reported again by the next kernel launch on the
// thread, as its own. Destructors use cuda_check_noexcept, which tells a CleanupNotes scope
// instead of throwing.
#include "common/note_sink.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace aesgpu {

class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const char *call, const char *file, int line);
    [[nodiscard]] cudaError_t code() const { return code_; }

private:
    cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char *call, const char *file, int line);
// `what` is the ResourceExhausted message, e.g. "cannot allocate 8192 KiB of GPU memory".
[[noreturn]] void throw_cuda_alloc_error(cudaError_t code, const char *call, const char *file, int line,
                                         const std::string &what);

// For destructors: tells a failure (except cudaErrorCudartUnloading at process exit) to this
// thread's CleanupNotes, if one is open, and clears this thread's last error; never throws.
void cuda_check_noexcept(cudaError_t status, const char *call) noexcept;

// While it lives, the clean-up failures on this thread go to `notes` as warnings (GPU memory that
// held key or data may not have been cleared); outside one they are dropped. A backend opens one
// around its own clean-up, on whichever thread destroys it: the owners it frees cannot carry a
// sink each, and a destructor cannot throw. Scopes nest; the innermost is told.
class CleanupNotes {
public:
    explicit CleanupNotes(NoteSink *notes) noexcept;
    ~CleanupNotes();
    CleanupNotes(const CleanupNotes &) = delete;
    CleanupNotes &operator=(const CleanupNotes &) = delete;

private:
    NoteSink *previous_;
};

} // namespace aesgpu

#define AESGPU_CUDA_TRY(call)                                                                                          \
    do {                                                                                                               \
        const cudaError_t aesgpu_cuda_status = (call);                                                                 \
        if (aesgpu_cuda_status != cudaSuccess)                                                                         \
            ::aesgpu::throw_cuda_error(aesgpu_cuda_status, #call, __FILE__, __LINE__);                                 \
    } while (0)

#define AESGPU_CUDA_ALLOC(call, what)                                                                                  \
    do {                                                                                                               \
        const cudaError_t aesgpu_cuda_status = (call);                                                                 \
        if (aesgpu_cuda_status != cudaSuccess)                                                                         \
            ::aesgpu::throw_cuda_alloc_error(aesgpu_cuda_status, #call, __FILE__, __LINE__, (what));                   \
    } while (0)
