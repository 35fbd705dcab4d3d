// SPDX-License-Identifier: Apache-2.0
#include "io/io_threads.hpp"

#include <algorithm>
#include <thread>

namespace aesgpu {

unsigned default_io_threads() {
    const unsigned hardware = std::thread::hardware_concurrency();
    return hardware < 8 ? 1u : std::min(hardware / 2, 8u);
}

} // namespace aesgpu
