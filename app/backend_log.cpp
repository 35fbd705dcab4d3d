// SPDX-License-Identifier: Apache-2.0
#include "app/backend_log.hpp"

#include "common/units.hpp"

#include <spdlog/spdlog.h>

namespace aesgpu {

void log_cpu_start(BackendChoice choice, const std::vector<LaneReport> &lanes) {
    if (lanes.size() < 2) return;
    const LaneReport &cpu = lanes[0];
    const LaneReport &gpu = lanes[1];
    if (!gpu.ready) {
        if (choice == BackendChoice::automatic) spdlog::info("backend auto: using the CPU ({})", gpu.failure);
        return;
    }
    const std::string first = human_bytes(double(cpu.bytes));
    const std::string rest = human_bytes(double(gpu.bytes));
    const double seconds = gpu.start_seconds;
    if (gpu.bytes == 0) {
        spdlog::info("the CPU ciphered all {} while the GPU started ({:.2f} s): {} got none of it", first, seconds,
                     gpu.description);
    } else if (cpu.bytes == 0) {
        spdlog::info("the GPU started ({:.2f} s) before the first chunk was read: {} ciphered all {}", seconds,
                     gpu.description, rest);
    } else {
        spdlog::info("the CPU ciphered the first {} while the GPU started ({:.2f} s); {} ciphered the other {}", first,
                     seconds, gpu.description, rest);
    }
}

} // namespace aesgpu
