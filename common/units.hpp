// SPDX-License-Identifier: Apache-2.0
#pragma once
// Sizes as people read them.
#include <string>

namespace aesgpu {

// "512 B", "1.5 KiB", "8.0 GiB".
[[nodiscard]] std::string human_bytes(double bytes);

// `value` with `decimals` digits after the point, as printf's %.*f: fixed(0.4567, 2) is "0.46".
[[nodiscard]] std::string fixed(double value, int decimals);

} // namespace aesgpu
