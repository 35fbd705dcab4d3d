// SPDX-License-Identifier: Apache-2.0
#include "app/info_command.hpp"

#include "backends/cpu/cpu_features.hpp"
#include "backends/cpu/openssl_backend.hpp"
#include "backends/cuda/device_probe.hpp"
#include "app/json_text.hpp"
#include "engine/backend_selection.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace aesgpu {

namespace {
const char *yes_no(bool value) {
    return value ? "yes" : "no";
}

// What `--backend auto` runs on here, named as the --json summaries name lanes.
std::string auto_lanes(const GpuProbe &gpu) {
    std::vector<int> devices;
    if (gpu.usable()) {
        for (const GpuDeviceInfo &device : gpu.devices) devices.push_back(device.index);
    }
    return auto_lane_names(devices);
}

void print_info_json(std::ostream &out, const CpuAesFeatures &cpu, const GpuProbe &gpu) {
    nlohmann::ordered_json devices = nlohmann::ordered_json::array();
    for (const GpuDeviceInfo &device : gpu.devices) {
        devices.push_back({{"index", device.index},
                           {"name", device.name},
                           {"multiprocessors", device.multiprocessors},
                           {"memory_bytes", device.global_memory_bytes},
                           {"compute_capability", fmt::format("{}.{}", device.compute_major, device.compute_minor)}});
    }
    const auto version_or_null = [](int version) {
        return version ? nlohmann::ordered_json(cuda_version_text(version)) : nlohmann::ordered_json(nullptr);
    };
    const nlohmann::ordered_json document{
        {"version", AESGPU_VERSION},
        {"openssl", openssl_version_text()},
        {"cpu_threads", default_cpu_threads()},
        {"cpu_aes", {{"aes_ni", cpu.aes_ni}, {"vaes", cpu.vaes}, {"avx512", cpu.avx512}}},
        {"cuda",
         {{"compiled_in", gpu.cuda_compiled_in},
          {"runtime", gpu.cuda_compiled_in ? version_or_null(gpu.runtime_version) : nullptr},
          {"driver", version_or_null(gpu.driver_version)}}},
        {"gpus", std::move(devices)},
        {"gpu_unavailable_reason",
         gpu.usable() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(gpu.unavailable_reason)},
        {"backend_auto", auto_lanes(gpu)}};
    out << json_text(document, 2) << "\n";
}

} // namespace

void print_info(std::ostream &out, bool json) {
    const CpuAesFeatures cpu = detect_cpu_aes_features();
    const GpuProbe gpu = probe_gpus();
    if (json) {
        print_info_json(out, cpu, gpu);
        return;
    }
    out << fmt::format("aesgpu {}\n", AESGPU_VERSION);
    out << fmt::format("OpenSSL:        {}\n", openssl_version_text());
    out << fmt::format("CPU threads:    {}\n", default_cpu_threads());
    out << fmt::format("CPU AES:        AES-NI {}, VAES {}, AVX-512 {}\n", yes_no(cpu.aes_ni), yes_no(cpu.vaes),
                       yes_no(cpu.avx512));

    out << fmt::format("CUDA support:   {}\n", gpu.cuda_compiled_in ? "compiled in" : "not compiled in");
    if (gpu.cuda_compiled_in) {
        out << fmt::format("CUDA runtime:   {}\n", cuda_version_text(gpu.runtime_version));
        out << fmt::format("CUDA driver:    {}\n",
                           gpu.driver_version ? cuda_version_text(gpu.driver_version) : std::string("none"));
    }
    for (const GpuDeviceInfo &device : gpu.devices) {
        out << fmt::format("GPU {}:          {}, {} SMs, {:.1f} GiB, compute capability {}.{}\n", device.index,
                           device.name, device.multiprocessors, double(device.global_memory_bytes) / double(1 << 30),
                           device.compute_major, device.compute_minor);
    }
    if (!gpu.usable()) out << fmt::format("GPU:            unavailable ({})\n", gpu.unavailable_reason);
    out << fmt::format("Backend auto:   {}\n", auto_lanes(gpu));
}

} // namespace aesgpu
