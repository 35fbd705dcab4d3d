// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cuda_check.hpp"

#include "cipher/cipher_backend.hpp"

#include <spdlog/spdlog.h>

#include <string>

namespace aesgpu {

namespace {
std::string describe(cudaError_t code, const char *call, const char *file, int line) {
    return std::string("CUDA error ") + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ") in " + call +
           " at " + file + ":" + std::to_string(line);
}
} // namespace

CudaError::CudaError(cudaError_t code, const char *call, const char *file, int line)
    : std::runtime_error(describe(code, call, file, line)), code_(code) {}

void throw_cuda_error(cudaError_t code, const char *call, const char *file, int line) {
    (void)cudaGetLastError();
    throw CudaError(code, call, file, line);
}

void throw_cuda_alloc_error(cudaError_t code, const char *call, const char *file, int line, const std::string &what) {
    (void)cudaGetLastError();
    if (code == cudaErrorMemoryAllocation) throw ResourceExhausted(what);
    throw CudaError(code, call, file, line);
}

void cuda_check_noexcept(cudaError_t status, const char *call) noexcept {
    if (status == cudaSuccess) return;
    // As the throwing checks do: the failure is this call's, and must not be reported again by
    // the next kernel launch on the thread (bench on two GPUs: a clean-up's cudaErrorInvalidValue
    // came back out of the next GCM launch).
    (void)cudaGetLastError();
    if (status == cudaErrorCudartUnloading) return;
    try {
        spdlog::warn("{} failed during clean-up: {}", call, cudaGetErrorName(status));
    } catch (...) {
        // Logging must not throw out of a destructor.
    }
}

} // namespace aesgpu
