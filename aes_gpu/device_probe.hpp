// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which CUDA devices this process can use, and why not when it cannot. Safe to call on machines
// without a GPU or driver, and in builds without CUDA.
#include <cstddef>
#include <string>
#include <vector>

namespace aesgpu {

struct GpuDeviceInfo {
    int index = 0;
    std::string name;
    int multiprocessors = 0;
    std::size_t global_memory_bytes = 0;
    int compute_major = 0;
    int compute_minor = 0;
};

struct GpuProbe {
    bool cuda_compiled_in = false;
    int driver_version = 0;  // e.g. 13000 for 13.0; 0 when unknown
    int runtime_version = 0; // the CUDA runtime this binary was built with
    std::vector<GpuDeviceInfo> devices;
    std::string unavailable_reason; // empty when at least one device is usable

    [[nodiscard]] bool usable() const { return unavailable_reason.empty() && !devices.empty(); }
};

[[nodiscard]] GpuProbe probe_gpus();

// "13.0" from 13000.
[[nodiscard]] inline std::string cuda_version_text(int version) {
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

} // namespace aesgpu
