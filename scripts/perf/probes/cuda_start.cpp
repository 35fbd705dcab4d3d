// SPDX-License-Identifier: Apache-2.0
// Probe: what CUDA's start costs on the main thread, step by step (device count, context, a
// portable page-lock of a ring). Built only when asked for: cmake --build BUILD --target probe_cuda_start.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main() {
    using Clock = std::chrono::steady_clock;
    auto t = Clock::now();
    const auto lap = [&](const char *what, cudaError_t e) {
        const auto now = Clock::now();
        std::printf("%-40s %8.1f ms  (%s)\n", what, std::chrono::duration<double, std::milli>(now - t).count(),
                    cudaGetErrorName(e));
        t = Clock::now();
    };
    int version = 0;
    lap("cudaDriverGetVersion", cudaDriverGetVersion(&version));
    int count = 0;
    lap("cudaGetDeviceCount", cudaGetDeviceCount(&count));
    std::printf("devices: %d\n", count);
    lap("cudaSetDevice(0)", cudaSetDevice(0));
    lap("cudaFree(0): context", cudaFree(nullptr));
    std::vector<void *> slots;
    for (int i = 0; i < 45; ++i) slots.push_back(std::aligned_alloc(4096, 8 << 20));
    for (void *s : slots) cudaHostRegister(s, 8 << 20, cudaHostRegisterPortable);
    lap("cudaHostRegister portable, 45 x 8 MiB", cudaGetLastError());
    for (void *s : slots) cudaHostUnregister(s);
    lap("cudaHostUnregister, 45", cudaGetLastError());
    for (void *s : slots) cudaHostRegister(s, 8 << 20, cudaHostRegisterDefault);
    lap("cudaHostRegister default, 45 x 8 MiB", cudaGetLastError());
    return 0;
}
