// SPDX-License-Identifier: Apache-2.0
#pragma once
// UTF-8 as RFC 3629 defines it, for the places that must tell text from other bytes before they
// show it: file names in messages (common/errors), strings in the bench's JSON (app/bench_report).
#include <cstddef>
#include <optional>
#include <string_view>

namespace aesgpu {

struct Utf8Character {
    std::size_t length; // bytes, 1 to 4
    char32_t code;      // the code point
};

// The well-formed sequence that starts at text[i] (no overlong forms, no surrogates, nothing
// past U+10FFFF), or nothing.
[[nodiscard]] std::optional<Utf8Character> decode_utf8(std::string_view text, std::size_t i);

} // namespace aesgpu
