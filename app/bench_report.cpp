#include "app/bench_report.hpp"

#include <fmt/format.h>

#include <cmath>

namespace aesgpu {

namespace {

// Length of the well-formed UTF-8 sequence starting at text[i] (RFC 3629), or 0 if there is none.
std::size_t utf8_sequence_length(const std::string &text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF; // allowed range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) low = 0xA0;  // no overlong forms
        if (lead == 0xED) high = 0x9F; // no surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F; // nothing past U+10FFFF
    } else {
        return 0;
    }
    if (i + length > text.size() || byte(i + 1) < low || byte(i + 1) > high) return 0;
    for (std::size_t k = 2; k < length; ++k) {
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
    }
    return length;
}

const char *direction_name(Direction direction) {
    return direction == Direction::encrypt ? "encrypt" : "decrypt";
}

} // namespace

std::string json_string(const std::string &text) {
    std::string quoted = "\"";
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (static_cast<unsigned char>(c) >= 0x80) {
            // JSON is UTF-8: a file name in another encoding gets U+FFFD for each bad byte.
            const std::size_t length = utf8_sequence_length(text, i);
            if (length == 0) {
                quoted += "\\ufffd";
            } else {
                quoted.append(text, i, length);
                i += length - 1;
            }
            continue;
        }
        switch (c) {
        case '"': quoted += "\\\""; break;
        case '\\': quoted += "\\\\"; break;
        case '\n': quoted += "\\n"; break;
        case '\t': quoted += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                quoted += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
            } else {
                quoted += c;
            }
        }
    }
    return quoted + "\"";
}

void print_bench_table(const BenchReport &report, std::ostream &out) {
    out << fmt::format("aesgpu bench: {} MiB per in-memory measurement, median of {} after a warm-up\n",
                       report.size_bytes >> 20, report.reps);
    out << report.machine << "\n";
    if (!report.file.empty()) out << "file: " << report.file << "\n";
    out << fmt::format("\n{:<8} {:<9} {:<32} {:>9}  {}\n", "backend", "stage", "what", "GB/s", "against its ceiling");
    for (const BenchResult &r : report.results) {
        out << fmt::format("{:<8} {:<9} {:<32} {:>9.2f}  {}\n", r.backend, r.stage, r.what, r.gbps(), r.ratio_text);
    }
    for (const std::string &line : report.unavailable) out << "unavailable: " << line << "\n";
    for (const std::string &line : report.failed) out << "failed: " << line << "\n";
}

void print_bench_json(const BenchReport &report, std::ostream &out) {
    out << "{\n";
    out << fmt::format("  \"machine\": {},\n", json_string(report.machine));
    out << fmt::format("  \"size_bytes\": {},\n  \"reps\": {},\n", report.size_bytes, report.reps);
    out << fmt::format("  \"file\": {},\n", report.file.empty() ? "null" : json_string(report.file));
    out << "  \"results\": [";
    for (std::size_t i = 0; i < report.results.size(); ++i) {
        const BenchResult &r = report.results[i];
        out << (i ? ",\n    " : "\n    ");
        out << fmt::format("{{\"backend\": {}, \"stage\": {}, \"what\": {}, \"key_bits\": {}, \"direction\": {}, "
                           "\"threads\": {}, \"bytes\": {:.0f}, \"seconds\": {:.6g}, \"gbps\": {:.6g}, \"ratio\": {}, "
                           "\"ratio_text\": {}}}",
                           json_string(r.backend), json_string(r.stage), json_string(r.what),
                           r.key_bits ? std::to_string(r.key_bits) : "null",
                           r.direction ? json_string(direction_name(*r.direction)) : "null",
                           r.threads ? std::to_string(r.threads) : "null", r.bytes, r.seconds, r.gbps(),
                           std::isfinite(r.ratio) && r.ratio > 0 ? fmt::format("{:.4g}", r.ratio) : "null",
                           json_string(r.ratio_text));
    }
    out << (report.results.empty() ? "],\n" : "\n  ],\n");
    const auto string_list = [&out](const char *name, const std::vector<std::string> &lines, const char *end) {
        out << "  \"" << name << "\": [";
        for (std::size_t i = 0; i < lines.size(); ++i) out << (i ? ", " : "") << json_string(lines[i]);
        out << "]" << end;
    };
    string_list("unavailable", report.unavailable, ",\n");
    string_list("failed", report.failed, "\n}\n");
}

} // namespace aesgpu
