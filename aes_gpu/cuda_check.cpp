// SPDX-License-Identifier: Apache-2.0
#include "aes_gpu/cuda_check.hpp"

#include "cipher/cipher_backend.hpp"

#include <new>
#include <string>
#include <utility>

namespace aesgpu {

namespace {
thread_local NoteSink *cleanup_notes = nullptr;

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
    if (status == cudaErrorCudartUnloading || cleanup_notes == nullptr) return;
    try {
        cleanup_notes->note(NoteLevel::warning,
                            std::string(call) + " failed during clean-up: " + cudaGetErrorName(status));
    } catch (const std::bad_alloc &) {
        // No memory to word it; a destructor must not throw.
    }
}

CleanupNotes::CleanupNotes(NoteSink *notes) noexcept : previous_(std::exchange(cleanup_notes, notes)) {}

CleanupNotes::~CleanupNotes() {
    cleanup_notes = previous_;
}

} // namespace aesgpu
