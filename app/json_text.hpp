// SPDX-License-Identifier: Apache-2.0
#pragma once
// JSON as aesgpu prints it for scripts (bench --json, info --json, encrypt/decrypt --json).
#include <nlohmann/json.hpp>

#include <string>

namespace aesgpu {

// `document` as text; bytes in its strings that are not UTF-8 (a file name in Latin-1, say)
// become U+FFFD instead of failing the whole document. `indent` < 0: one line.
[[nodiscard]] inline std::string json_text(const nlohmann::ordered_json &document, int indent = -1) {
    return document.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

} // namespace aesgpu
