#include "io/errors.hpp"

#include <cstring>
#include <string>

namespace aesgpu {

namespace {

// Length of the well-formed UTF-8 sequence at text[i] that is not a control character (C1
// controls U+0080..U+009F are encoded C2 80..C2 9F), or 0.
std::size_t printable_utf8_length(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    std::size_t length = 0;
    unsigned minimum = 0;
    unsigned code = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2, minimum = 0x80, code = lead & 0x1Fu;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3, minimum = 0x800, code = lead & 0x0Fu;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4, minimum = 0x10000, code = lead & 0x07u;
    } else {
        return 0;
    }
    if (i + length > text.size()) return 0;
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
        code = code << 6 | (byte(i + k) & 0x3Fu);
    }
    const bool surrogate = code >= 0xD800 && code <= 0xDFFF;
    // Invisible characters that reorder or hide text: zero-width ones, bidirectional controls.
    const bool invisible = (code >= 0x200B && code <= 0x200F) || (code >= 0x2028 && code <= 0x202E) ||
                           (code >= 0x2060 && code <= 0x2069) || code == 0xFEFF;
    if (code < minimum || code > 0x10FFFF || surrogate || code <= 0x9F || invisible) return 0;
    return length;
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
