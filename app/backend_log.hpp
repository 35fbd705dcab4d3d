// SPDX-License-Identifier: Apache-2.0
#pragma once
// What -v says about a run that started on the CPU while the GPU started.
#include "backends/backend_selection.hpp"
#include "cipher/dispatcher.hpp"

#include <vector>

namespace aesgpu {

// Logs at info level how the work was shared between the CPU and the GPU, or why the GPU never
// took over.
void log_cpu_start(BackendChoice choice, const std::vector<LaneReport> &lanes);

} // namespace aesgpu
