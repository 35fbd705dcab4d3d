// SPDX-License-Identifier: Apache-2.0
#include "app/bench_report.hpp"

#include "app/json_text.hpp"
#include "common/units.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <utility>

namespace aesgpu {

namespace {

const char *direction_name(Direction direction) {
    return direction == Direction::encrypt ? "encrypt" : "decrypt";
}

nlohmann::ordered_json lanes_json(const std::vector<BenchLane> &lanes) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const BenchLane &lane : lanes) {
        list.push_back({{"name", lane.name}, {"bytes", lane.bytes}, {"busy_seconds", lane.busy_seconds}});
    }
    return list;
}

// Rows through several lanes: what each lane took, and its pace while it had work.
void print_lanes(const BenchReport &report, std::ostream &out) {
    bool lanes_header = false;
    for (const BenchResult &r : report.results) {
        if (r.lanes.empty()) continue;
        if (!std::exchange(lanes_header, true))
            out << "\nlanes of the pipeline rows (share of the bytes, pace while busy):\n";
        out << fmt::format("{:<8} {}:", r.backend, r.what);
        double total = 0;
        for (const BenchLane &lane : r.lanes) total += lane.bytes;
        for (const BenchLane &lane : r.lanes) {
            out << fmt::format(" {} {:.0f}% at {:.1f} GB/s{}", lane.name, total > 0 ? 100 * lane.bytes / total : 0,
                               lane.bytes_per_second() / 1e9, &lane == &r.lanes.back() ? "" : ";");
        }
        out << "\n";
    }
}

} // namespace

std::string stage_reason(const StageNote &note, std::size_t size_bytes) {
    switch (note.size) {
    case SizeAdvice::none: break;
    case SizeAdvice::smaller: return note.reason + " (try a smaller --size)";
    case SizeAdvice::no_memory:
        return "not enough memory for --size " + human_bytes(double(size_bytes)) + " (try a smaller one)";
    case SizeAdvice::below_one_segment: return "--size is below one segment (1 MiB)";
    }
    return note.reason;
}

std::string stage_note_text(const StageNote &note, std::size_t size_bytes) {
    return note.stage + ": " + stage_reason(note, size_bytes);
}

void print_bench_table(const BenchReport &report, std::ostream &out) {
    out << fmt::format("aesgpu bench: {} per in-memory measurement, median of {} after a warm-up\n",
                       human_bytes(double(report.size_bytes)), report.reps);
    out << report.machine << "\n";
    if (!report.devices.empty()) {
        out << fmt::format("GPU rows: CUDA device{} {}\n", report.devices.size() > 1 ? "s" : "",
                           fmt::join(report.devices, ", "));
    }
    if (!report.file.empty()) out << "file: " << report.file << "\n";
    out << fmt::format("\n{:<8} {:<9} {:<32} {:>9}  {}\n", "backend", "stage", "what", "GB/s", "against its ceiling");
    for (const BenchResult &r : report.results) {
        out << fmt::format("{:<8} {:<9} {:<32} {:>9.2f}  {}\n", r.backend, r.stage, r.what, r.gbps(), r.ratio_text);
    }
    print_lanes(report, out);
    // Files: what each run cost the CPU, beside cp's cost for the same file.
    bool header = false;
    for (const BenchResult &r : report.results) {
        if (!r.has_cpu_time()) continue;
        if (!std::exchange(header, true)) {
            out << fmt::format("\n{:<8} {:<32} {:>8} {:>8} {:>8} {:>10}\n", "backend", "file run", "wall s", "user s",
                               "system s", "CPU s/GiB");
        }
        out << fmt::format("{:<8} {:<32} {:>8.3f} {:>8.2f} {:>8.2f} {:>10.2f}\n", r.backend, r.what, r.seconds,
                           r.user_seconds, r.system_seconds, r.cpu_seconds_per_gib());
    }
    for (const StageNote &note : report.unavailable) {
        out << "unavailable: " << stage_note_text(note, report.size_bytes) << "\n";
    }
    for (const StageNote &note : report.failed) out << "failed: " << stage_note_text(note, report.size_bytes) << "\n";
}

void print_bench_json(const BenchReport &report, std::ostream &out) {
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    const auto optional_number = [](auto value) {
        return value ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
    };
    for (const BenchResult &r : report.results) {
        results.push_back({{"backend", r.backend},
                           {"stage", r.stage},
                           {"what", r.what},
                           {"key_bits", optional_number(r.key_bits)},
                           {"mode", r.mode ? nlohmann::ordered_json(mode_name(*r.mode)) : nullptr},
                           {"direction", r.direction ? nlohmann::ordered_json(direction_name(*r.direction)) : nullptr},
                           {"threads", optional_number(r.threads)},
                           {"bytes", r.bytes},
                           {"seconds", r.seconds},
                           {"user_seconds", r.has_cpu_time() ? nlohmann::ordered_json(r.user_seconds) : nullptr},
                           {"system_seconds", r.has_cpu_time() ? nlohmann::ordered_json(r.system_seconds) : nullptr},
                           {"gbps", r.gbps()},
                           {"ratio", std::isfinite(r.ratio) && r.ratio > 0 ? nlohmann::ordered_json(r.ratio) : nullptr},
                           {"ratio_text", r.ratio_text},
                           {"lanes", lanes_json(r.lanes)}});
    }
    const auto texts = [&report](const std::vector<StageNote> &notes) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const StageNote &note : notes) list.push_back(stage_note_text(note, report.size_bytes));
        return list;
    };
    const nlohmann::ordered_json document = {
        {"machine", report.machine},
        {"size_bytes", report.size_bytes},
        {"reps", report.reps},
        {"devices", report.devices},
        {"file", report.file.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(report.file)},
        {"results", std::move(results)},
        {"unavailable", texts(report.unavailable)},
        {"failed", texts(report.failed)}};
    out << json_text(document, 2) << "\n";
}

} // namespace aesgpu
