// SPDX-License-Identifier: Apache-2.0
#include "aes_gpu/device_probe.hpp"

#include "aes_gpu/cuda_check.hpp"
#include "aes_gpu/gpu_backend.hpp"

#include <cuda_runtime_api.h>

namespace aesgpu {

GpuProbe probe_gpus() {
    GpuProbe probe;
    probe.cuda_compiled_in = true;
    (void)cudaRuntimeGetVersion(&probe.runtime_version);
    if (cudaDriverGetVersion(&probe.driver_version) != cudaSuccess) {
        (void)cudaGetLastError();
        probe.driver_version = 0;
    }
    if (probe.driver_version == 0) {
        probe.unavailable_reason = kNoDriverMessage;
        return probe;
    }

    int count = 0;
    try {
        AESGPU_CUDA_TRY(cudaGetDeviceCount(&count)); // clears the error: it must not leak into later calls
    } catch (const CudaError &e) {
        probe.unavailable_reason = cudaGetErrorString(e.code());
        return probe;
    }
    for (int index = 0; index < count; ++index) {
        cudaDeviceProp properties{};
        if (cudaGetDeviceProperties(&properties, index) != cudaSuccess) {
            (void)cudaGetLastError(); // this device is left out; its error must not meet a later call
            continue;
        }
        probe.devices.push_back({index, properties.name, properties.multiProcessorCount, properties.totalGlobalMem,
                                 properties.major, properties.minor});
    }
    if (probe.devices.empty()) probe.unavailable_reason = "no CUDA device could be queried";
    return probe;
}

} // namespace aesgpu
