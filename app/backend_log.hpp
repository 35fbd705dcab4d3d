// SPDX-License-Identifier: Apache-2.0
#pragma once
// What -v says about a run whose jobs a dispatcher spread over several backends ("lanes": the
// CPU, each GPU).
#include "engine/backend_selection.hpp"
#include "engine/dispatcher.hpp"

#include <string>
#include <vector>

namespace aesgpu {

// Logs at info level which GPUs failed to start and why (the run went on without them), how the
// CPU start of --backend gpu went (how much the CPU ciphered while the GPUs started), then one
// line per lane that did work: its bytes and share, jobs, busy time and pace.
void log_lanes(BackendChoice choice, const std::vector<LaneReport> &lanes);

// Says what each backend selection came to (SelectionNotes; the engine says nothing itself): with
// -v, the GPUs found and the CPU's part, and `auto` on its one GPU; why `auto` or `all` runs on the
// CPU alone. Where no GPU could be had, that is said once a command at info level (a warning where
// --devices named a device that is not there: a mistake to point out; no GPU at all is what `auto`
// is for), then at debug level: a run over many files selects a backend for each, with the same reason.
class SelectionLog {
public:
    void tell(const BackendRequest &request, const SelectedBackend &selected);

private:
    bool said_no_gpu_ = false;
};

// What the selected backend does now, for -v's "encrypting ... with ..." line: its backend's own
// description, or with a dispatcher its lanes at work, and those still to come ("cpu (OpenSSL, 16
// threads) until the GPU is ready", "... until the first of GPU 0 and GPU 1 is ready", "waiting
// for GPU 0 and GPU 1 to start").
[[nodiscard]] std::string describe_backend(const SelectedBackend &selected);
[[nodiscard]] std::string describe_lanes(const std::vector<LaneNow> &lanes);

// The names of the lanes that take the next job, joined by '+' ("CPU+GPU"): the progress line's label.
[[nodiscard]] std::string active_lane_names(const std::vector<LaneNow> &lanes);

// One lane's line: "GPU 1: 4.0 GiB (52%) in 512 jobs, busy 0.80 s, 5.4 GB/s; gpu (NVIDIA H200, 4 streams)".
[[nodiscard]] std::string lane_line(const LaneReport &lane, std::uint64_t total_bytes);

} // namespace aesgpu
