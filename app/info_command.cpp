// SPDX-License-Identifier: Apache-2.0
#include "app/info_command.hpp"

#include "aes_cpu/cpu_features.hpp"
#include "aes_cpu/openssl_backend.hpp"
#include "aes_gpu/device_probe.hpp"

#include <fmt/format.h>

namespace aesgpu {

namespace {
const char *yes_no(bool value) {
    return value ? "yes" : "no";
}
} // namespace

void print_info(std::ostream &out) {
    const CpuAesFeatures cpu = detect_cpu_aes_features();
    out << fmt::format("aesgpu {}\n", AESGPU_VERSION);
    out << fmt::format("OpenSSL:        {}\n", openssl_version_text());
    out << fmt::format("CPU threads:    {}\n", default_cpu_threads());
    out << fmt::format("CPU AES:        AES-NI {}, VAES {}, AVX-512 {}\n", yes_no(cpu.aes_ni), yes_no(cpu.vaes),
                       yes_no(cpu.avx512));

    const GpuProbe gpu = probe_gpus();
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
    out << fmt::format("Backend auto:   {}\n", gpu.usable() ? "gpu" : "cpu");
}

} // namespace aesgpu
