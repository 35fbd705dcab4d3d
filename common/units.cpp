// SPDX-License-Identifier: Apache-2.0
#include "common/units.hpp"

#include <cstdio>

namespace aesgpu {

std::string human_bytes(double bytes) {
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    while (bytes >= 1024 && unit < 4) {
        bytes /= 1024;
        ++unit;
    }
    // snprintf, not fmt: the library links neither spdlog nor fmt (and GCC 12 has no std::format).
    char text[48];
    if (unit == 0) {
        std::snprintf(text, sizeof text, "%.0f B", bytes);
    } else {
        std::snprintf(text, sizeof text, "%.1f %s", bytes, units[unit]);
    }
    return text;
}

std::string fixed(double value, int decimals) {
    char text[64];
    const int length = std::snprintf(text, sizeof text, "%.*f", decimals, value);
    if (length < 0) return "?";
    if (static_cast<std::size_t>(length) < sizeof text) return text;
    std::string wide(static_cast<std::size_t>(length) + 1, '\0'); // a huge value: as many digits as it has
    std::snprintf(wide.data(), wide.size(), "%.*f", decimals, value);
    wide.pop_back();
    return wide;
}

} // namespace aesgpu
