// SPDX-License-Identifier: Apache-2.0
#include "app/bench_report.hpp"

#include "common/utf8.hpp"

#include <fmt/format.h>

#include <cmath>

namespace aesgpu {

namespace {

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
            const auto character = decode_utf8(text, i);
            if (!character) {
                quoted += "\\ufffd";
            } else {
                quoted.append(text, i, character->length);
                i += character->length - 1;
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
    for (const StageNote &note : report.unavailable) out << "unavailable: " << note.text() << "\n";
    for (const StageNote &note : report.failed) out << "failed: " << note.text() << "\n";
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
    const auto string_list = [&out](const char *name, const std::vector<StageNote> &notes, const char *end) {
        out << "  \"" << name << "\": [";
        for (std::size_t i = 0; i < notes.size(); ++i) out << (i ? ", " : "") << json_string(notes[i].text());
        out << "]" << end;
    };
    string_list("unavailable", report.unavailable, ",\n");
    string_list("failed", report.failed, "\n}\n");
}

} // namespace aesgpu
