// SPDX-License-Identifier: Apache-2.0
#include "app/backend_log.hpp"

#include "common/units.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>

namespace aesgpu {

namespace {

bool is_cpu(const LaneReport &lane) {
    return lane.device < 0; // a GPU lane has its device's number
}

// The lanes still to come, as -v names them: "the GPU", "GPU 1", or "GPU 0 and GPU 1".
std::string names_of(const std::vector<std::string> &coming) {
    if (coming.size() == 1) {
        const std::string &name = coming.front();
        const bool numbered = !name.empty() && std::isdigit(static_cast<unsigned char>(name.back()));
        return numbered ? name : "the " + name;
    }
    std::string names;
    for (std::size_t i = 0; i < coming.size(); ++i) {
        names += (i == 0 ? "" : i + 1 == coming.size() ? " and " : ", ") + coming[i];
    }
    return names;
}

// GPUs that failed to start: the run went on without them (a required one fails the run, and
// its error says why).
void log_failed_starts(BackendChoice choice, const std::vector<LaneReport> &lanes) {
    std::string failures;
    bool any_gpu_ready = false;
    for (const LaneReport &lane : lanes) {
        if (is_cpu(lane)) continue;
        any_gpu_ready = any_gpu_ready || lane.ready;
        if (!lane.ready && !lane.failure.empty()) failures += (failures.empty() ? "" : "; ") + lane.failure;
    }
    if (failures.empty() || choice == BackendChoice::gpu) return;
    spdlog::info("backend {}: {} ({})", backend_choice_name(choice),
                 any_gpu_ready ? "not every GPU started" : "using the CPU", failures);
}

// The CPU start: the CPU as the first lane, the GPUs after it, which take over once ready.
void log_cpu_start(const std::vector<LaneReport> &lanes) {
    const LaneReport &cpu = lanes.front();
    std::uint64_t gpu_bytes = 0;
    const LaneReport *first_ready = nullptr;
    for (std::size_t i = 1; i < lanes.size(); ++i) {
        const LaneReport &gpu = lanes[i];
        gpu_bytes += gpu.bytes;
        if (gpu.ready && (!first_ready || gpu.start_seconds < first_ready->start_seconds)) first_ready = &gpu;
    }
    if (!first_ready) return;
    const bool several = lanes.size() > 2;
    const double ready_after = first_ready->start_seconds;
    const std::string first = human_bytes(double(cpu.bytes));
    const std::string rest = human_bytes(double(gpu_bytes));
    const std::string gpus = several ? "the GPUs" : first_ready->description;
    const char *started = several ? "the first GPU started" : "the GPU started";
    if (gpu_bytes == 0) {
        spdlog::info("the CPU ciphered all {} while {} ({:.2f} s): {} got none of it", first,
                     several ? "the GPUs started" : "the GPU started", ready_after, gpus);
    } else if (cpu.bytes == 0) {
        spdlog::info("{} ({:.2f} s) before the first chunk was read: {} ciphered all {}", started, ready_after, gpus,
                     rest);
    } else {
        spdlog::info("the CPU ciphered the first {} while {} ({:.2f} s); {} ciphered the other {}", first, started,
                     ready_after, gpus, rest);
    }
}

} // namespace

void SelectionLog::tell(const BackendRequest &request, const SelectedBackend &selected) {
    const SelectionNotes &notes = selected.notes;
    const char *choice = backend_choice_name(request.choice);
    if (notes.gpus > 0) {
        const std::optional<LaneShare> &share = notes.cpu_share;
        spdlog::debug("backend {}: {} GPU{}; {}", choice, notes.gpus, notes.gpus == 1 ? "" : "s",
                      !share                                        ? "no CPU start (waiting for the GPUs)"
                      : *share == LaneShare::throughout             ? "the CPU ciphers beside them, all run long"
                      : *share == LaneShare::until_another_is_ready ? "the CPU ciphers while they start"
                                                                    : "the CPU only if every GPU fails to start");
    }
    if (notes.auto_started_one_gpu) spdlog::info("backend {}: using {}", choice, selected.backend->describe());
    switch (notes.cpu_instead) {
    case CpuInstead::no: break;
    case CpuInstead::gpu_failed:
    case CpuInstead::small_input:
    case CpuInstead::serial_mode: spdlog::info("backend {}: using the CPU ({})", choice, notes.cpu_reason); break;
    case CpuInstead::no_gpu: {
        const auto level = said_no_gpu_              ? spdlog::level::debug
                           : request.devices.empty() ? spdlog::level::info
                                                     : spdlog::level::warn;
        said_no_gpu_ = true;
        spdlog::log(level, "backend {}: using the CPU ({})", choice, notes.cpu_reason);
        break;
    }
    }
}

std::string lane_line(const LaneReport &lane, std::uint64_t total_bytes) {
    const double share = total_bytes ? 100.0 * double(lane.bytes) / double(total_bytes) : 0;
    return fmt::format("{}: {} ({:.0f}%) in {} job{}, busy {:.2f} s, {:.1f} GB/s; {}", lane.name,
                       human_bytes(double(lane.bytes)), share, lane.jobs, lane.jobs == 1 ? "" : "s", lane.busy_seconds,
                       lane.bytes_per_second() / 1e9, lane.description);
}

void log_lanes(BackendChoice choice, const std::vector<LaneReport> &lanes) {
    if (lanes.empty()) return;
    log_failed_starts(choice, lanes);
    if (is_cpu(lanes.front()) && lanes.size() > 1 && choice == BackendChoice::gpu) log_cpu_start(lanes);
    std::uint64_t total = 0;
    std::size_t working = 0;
    for (const LaneReport &lane : lanes) {
        total += lane.bytes;
        working += lane.bytes > 0 ? 1 : 0;
    }
    if (working < 2) return;
    for (const LaneReport &lane : lanes) {
        if (lane.bytes > 0) spdlog::info("{}", lane_line(lane, total));
    }
}

std::string describe_lanes(const std::vector<LaneNow> &lanes) {
    std::string text;
    bool all_give_way = true; // every lane taking jobs now stops once another is ready
    std::vector<std::string> coming;
    for (const LaneNow &lane : lanes) {
        if (lane.to_come) coming.push_back(lane.name);
        if (!lane.takes_jobs) continue;
        if (!text.empty()) text += " + ";
        text += lane.description;
        all_give_way = all_give_way && lane.gives_way;
    }
    if (coming.empty()) return text.empty() ? "no backend (every one failed to start)" : text;
    const std::string names = names_of(coming);
    if (text.empty()) return "waiting for " + names + " to start";
    if (!all_give_way) return text + ", with " + names + " starting";
    return text + " until " + (coming.size() == 1 ? names : "the first of " + names) + " is ready";
}

std::string describe_backend(const SelectedBackend &selected) {
    return selected.dispatcher ? describe_lanes(selected.dispatcher->lanes_now()) : selected.backend->describe();
}

std::string active_lane_names(const std::vector<LaneNow> &lanes) {
    std::string names;
    for (const LaneNow &lane : lanes) {
        if (!lane.takes_jobs) continue;
        if (!names.empty()) names += '+';
        names += lane.name;
    }
    return names;
}

} // namespace aesgpu
