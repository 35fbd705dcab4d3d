// SPDX-License-Identifier: Apache-2.0
#pragma once
// Sizes as people read them.
#include <string>

namespace aesgpu {

// "512 B", "1.5 KiB", "8.0 GiB".
[[nodiscard]] std::string human_bytes(double bytes);

} // namespace aesgpu
