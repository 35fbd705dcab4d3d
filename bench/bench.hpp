// SPDX-License-Identifier: Apache-2.0
#pragma once
// `aesgpu bench` as a library over the library API (as zstd's benchzstd.c): the CPU backend in
// memory, the GPU's copy ceilings, kernel and pinned pipeline, and file to file through
// run_file_job() next to cp. Every output is checked against OpenSSL on fresh random data before
// it is timed.
#include "cipher/cipher_backend.hpp"
#include "common/interrupt_cleanup.hpp"
#include "common/note_sink.hpp"
#include "engine/backend_selection.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace aesgpu {

inline constexpr std::size_t kDefaultBenchBytes = std::size_t{1} << 30;
inline constexpr int kDefaultBenchReps = 5;

// What to measure.
struct BenchSettings {
    bool cpu = true;
    bool gpu = true;
    std::vector<unsigned> key_bits = {128, 192, 256};
    std::vector<Mode> modes = {Mode::ecb, Mode::ctr, Mode::gcm}; // gcm: segments of kDefaultSegmentBytes
    std::vector<Direction> directions = {Direction::encrypt, Direction::decrypt};
    std::size_t size_bytes = kDefaultBenchBytes;           // data per in-memory measurement, whole blocks
    int reps = kDefaultBenchReps;                          // timed runs per measurement, after a warm-up
    unsigned threads = 0;                                  // CPU threads for the all-threads rows; 0: all
    std::string file;                                      // also time file to file on this file, next to cp
    std::function<void(const std::string &)> on_step = {}; // told each step as it starts (a status line)
    // Runs the file stage's commits: the CLI holds signals off meanwhile (run_uninterrupted), so
    // a Ctrl-C never removes the scratch directory while an output is being linked into it.
    std::function<void(const std::function<void()> &)> run_commit = {};
    // Told what each backend selection came to (why `auto` or `all` runs on the CPU alone, ...),
    // for the caller to say: the bench says nothing itself.
    std::function<void(const BackendRequest &, const SelectedBackend &)> on_backend_selected = {};
    // Where the file stage registers what a signal must undo (its scratch directory, a running
    // cp, its outputs): the CLI's process registry. Must outlive the bench.
    CleanupRegistry *interrupt_cleanups = nullptr;
    // Told, from any thread, what went otherwise without failing (fewer threads, a GPU clean-up
    // that failed). Must outlive the bench.
    NoteSink *notes = nullptr;
    // The GPUs the GPU and file rows run on (CUDA device numbers, no repeats): empty for every GPU
    // this process sees. One GPU's rows run on the first; the rows of several, on all of them.
    std::vector<int> devices;
};

// What the data size asked for (BenchSettings::size_bytes) has to do with a stage note, for the
// caller to advise in its own words.
enum class SizeAdvice {
    none,
    smaller,           // the stage's memory ran out: a smaller size may fit
    no_memory,         // not even the buffers for that size could be had
    below_one_segment, // gcm: the size is under one segment, so no GCM rows
};

// A stage that did not run, and why.
struct StageNote {
    std::string stage;  // "cpu", "gpu", "file", "bench"
    std::string reason; // what happened, without advice about the size
    SizeAdvice size = SizeAdvice::none;
};

// One lane of a pipeline row that ran through a dispatcher (several GPUs, the CPU beside them):
// what it took of the row's runs, warm-up included.
struct BenchLane {
    std::string name;        // "CPU", "GPU 1"
    double bytes = 0;        // submitted to it
    double busy_seconds = 0; // with some job of it in flight

    // Its pace while busy, bytes per second; 0 when it did nothing.
    [[nodiscard]] double bytes_per_second() const { return busy_seconds > 0 ? bytes / busy_seconds : 0; }
};

struct BenchResult {
    std::string backend;   // "cpu" or "gpu"
    std::string stage;     // "ceiling", "memory", "kernel", "pipeline" or "file"
    std::string what;      // e.g. "pinned H2D", "AES-128-ECB encrypt, 16 threads", "file copy (cp)"
    unsigned key_bits = 0; // 0 for a ceiling
    std::optional<Mode> mode;
    std::optional<Direction> direction;
    unsigned threads = 0; // CPU threads, where it matters
    double bytes = 0;     // moved per run (for two-way copies, both directions together)
    double seconds = 0;   // median of the runs
    // The file stage (and cp): CPU time of the process and its children, user and system, median
    // of the runs; what the cipher costs the CPU beside the copy. Negative where not measured.
    double user_seconds = -1;
    double system_seconds = -1;
    // The ceiling this result is judged against, as "ratio x ceiling"; 0 when none applies.
    double ratio = 0;
    std::string ratio_text;       // e.g. "101% of half the two-way rate", "0.53x the time of cp"
    std::vector<BenchLane> lanes; // a pipeline row through a dispatcher: its lanes; else empty

    [[nodiscard]] double gbps() const { return seconds > 0 ? bytes / seconds / 1e9 : 0; }
    [[nodiscard]] bool has_cpu_time() const { return user_seconds >= 0 && system_seconds >= 0; }
    [[nodiscard]] double cpu_seconds() const { return user_seconds + system_seconds; }
    // CPU seconds (user + system) per GiB moved.
    [[nodiscard]] double cpu_seconds_per_gib() const {
        return bytes > 0 ? cpu_seconds() / (bytes / double(1u << 30)) : 0;
    }
};

struct BenchReport {
    std::string machine;        // one line: CPU threads and AES features, GPU name
    std::size_t size_bytes = 0; // data per in-memory measurement
    int reps = 0;
    std::string file;         // the file timed, empty when not asked
    std::vector<int> devices; // the GPUs the GPU rows ran on (CUDA device numbers); empty: none ran
    std::vector<BenchResult> results;
    std::vector<StageNote> unavailable; // e.g. gpu: no usable CUDA device: ...
    std::vector<StageNote> failed;      // stages that ran out of memory or threads
};

// Runs the measurements `settings` asks for and returns what was found. A backend that cannot
// run (no GPU) is listed as unavailable, a stage that runs out of memory or threads as failed; a
// wrong output throws std::runtime_error. Bad settings (a size that is not whole blocks, a file
// that is not a regular one, devices without the GPU, a device named twice or negative) throw
// std::invalid_argument, and a file that cannot be opened IoError, before any stage runs. A GPU
// in `devices` that is not there makes the GPU stage unavailable, as no GPU at all does.
[[nodiscard]] BenchReport run_bench(const BenchSettings &settings);

} // namespace aesgpu
