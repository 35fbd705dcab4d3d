// SPDX-License-Identifier: Apache-2.0
#include "common/errors.hpp"

#include "common/utf8.hpp"

#include <cstring>
#include <string>

namespace aesgpu {

namespace {

// Length of the well-formed UTF-8 sequence at text[i] if it shows as itself: not a C1 control
// (U+0080..U+009F) and not an invisible character that reorders or hides text (zero-width ones,
// bidirectional controls); else 0.
std::size_t printable_utf8_length(std::string_view text, std::size_t i) {
    const auto character = decode_utf8(text, i);
    if (!character) return 0;
    const char32_t code = character->code;
    const bool invisible = (code >= 0x200B && code <= 0x200F) || (code >= 0x2028 && code <= 0x202E) ||
                           (code >= 0x2060 && code <= 0x2069) || code == 0xFEFF;
    return code <= 0x9F || invisible ? 0 : character->length;
}

// `byte` as a $'...' escape: \n, \t, \r, \E or \xHH.
void append_escape(std::string &out, unsigned char byte) {
    switch (byte) {
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    case '\033': out += "\\E"; break;
    default:
        constexpr char kHex[] = "0123456789ABCDEF";
        out.append("\\x").append(1, kHex[byte >> 4]).append(1, kHex[byte & 15]);
    }
}

} // namespace

std::string errno_message(std::string_view action, std::string_view subject, int err) {
    const std::string_view reason = std::strerror(err);
    std::string message;
    message.reserve(action.size() + subject.size() + reason.size() + 3);
    message.append(action).append(" ").append(subject).append(": ").append(reason);
    return message;
}

std::string quoted_name(std::string_view name) {
    std::string plain = "'";
    std::string escaped = "$'";
    bool needs_escapes = false;
    for (std::size_t i = 0; i < name.size();) {
        const char c = name[i];
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7F) {
            plain += c == '\'' ? std::string_view("'\\''") : std::string_view(&name[i], 1);
            if (c == '\'' || c == '\\') escaped += '\\';
            escaped += c;
            ++i;
        } else if (const std::size_t length = byte >= 0x80 ? printable_utf8_length(name, i) : 0) {
            plain.append(name.substr(i, length));
            escaped.append(name.substr(i, length));
            i += length;
        } else {
            needs_escapes = true;
            append_escape(escaped, byte);
            ++i;
        }
    }
    return needs_escapes ? escaped + "'" : plain + "'";
}

std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7F) {
            append_escape(out, byte);
        } else {
            out += c;
        }
    }
    return out;
}

} // namespace aesgpu
