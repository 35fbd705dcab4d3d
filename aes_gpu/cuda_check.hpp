#pragma once
// CUDA runtime errors as exceptions: AESGPU_CUDA_TRY(call) throws CudaError naming the error, the
// call and where it was made, and clears the thread's last error. Destructors use cuda_check_noexcept, which logs
// instead.
#include <cuda_runtime_api.h>

#include <stdexcept>

namespace aesgpu {

class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const char *call, const char *file, int line);
    [[nodiscard]] cudaError_t code() const { return code_; }

private:
    cudaError_t code_;
};

// For destructors: logs a failure (except cudaErrorCudartUnloading at process exit), never throws.
void cuda_check_noexcept(cudaError_t status, const char *call) noexcept;

} // namespace aesgpu

// A failed call also clears this thread's last error (cudaGetLastError): errors that are not
// sticky (a failed allocation or registration) would otherwise be reported again by the next
// kernel launch on the thread, as its own.
#define AESGPU_CUDA_TRY(call)                                                                                          \
    do {                                                                                                               \
        const cudaError_t aesgpu_cuda_status = (call);                                                                 \
        if (aesgpu_cuda_status != cudaSuccess) {                                                                       \
            (void)cudaGetLastError();                                                                                  \
            throw ::aesgpu::CudaError(aesgpu_cuda_status, #call, __FILE__, __LINE__);                                  \
        }                                                                                                              \
    } while (0)
