#include "aes_gpu/device_probe.hpp"

#include <cuda_runtime_api.h>

namespace aesgpu {

GpuProbe probe_gpus() {
    GpuProbe probe;
    probe.cuda_compiled_in = true;
    (void)cudaRuntimeGetVersion(&probe.runtime_version);
    if (cudaDriverGetVersion(&probe.driver_version) != cudaSuccess) probe.driver_version = 0;

    int count = 0;
    if (const cudaError_t status = cudaGetDeviceCount(&count); status != cudaSuccess) {
        probe.unavailable_reason = cudaGetErrorString(status);
        (void)cudaGetLastError(); // the probe's failure must not leak into later calls
        return probe;
    }
    for (int index = 0; index < count; ++index) {
        cudaDeviceProp properties{};
        if (cudaGetDeviceProperties(&properties, index) != cudaSuccess) continue;
        probe.devices.push_back({index, properties.name, properties.multiProcessorCount, properties.totalGlobalMem,
                                 properties.major, properties.minor});
    }
    if (probe.devices.empty()) probe.unavailable_reason = "no CUDA device could be queried";
    return probe;
}

} // namespace aesgpu
