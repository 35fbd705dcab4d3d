#pragma once
// What `aesgpu bench` found, and its two renderings: a table for people and one JSON document
// for scripts (scripts/plot-bench.py draws the README's plot from it).
#include "cipher/cipher_backend.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace aesgpu {

struct BenchResult {
    std::string backend;   // "cpu" or "gpu"
    std::string stage;     // "ceiling", "memory", "kernel", "pipeline" or "file"
    std::string what;      // e.g. "pinned H2D", "AES-128 encrypt, 16 threads", "file copy (cp)"
    unsigned key_bits = 0; // 0 for a ceiling
    std::optional<Direction> direction;
    unsigned threads = 0; // CPU threads, where it matters
    double bytes = 0;     // moved per run (for two-way copies, both directions together)
    double seconds = 0;   // median of the runs
    // The ceiling this result is judged against, as "ratio x ceiling"; 0 when none applies.
    double ratio = 0;
    std::string ratio_text; // e.g. "101% of half the two-way rate", "0.53x the time of cp"

    [[nodiscard]] double gbps() const { return seconds > 0 ? bytes / seconds / 1e9 : 0; }
};

struct BenchReport {
    std::string machine;        // one line: CPU threads and AES features, GPU name
    std::size_t size_bytes = 0; // data per in-memory measurement
    int reps = 0;
    std::string file; // --file, empty when not asked
    std::vector<BenchResult> results;
    std::vector<std::string> unavailable; // e.g. "gpu: no usable CUDA device: ..."
    std::vector<std::string> failed;      // stages that ran out of memory, e.g. "gpu: cannot allocate ..."
};

void print_bench_table(const BenchReport &report, std::ostream &out);
void print_bench_json(const BenchReport &report, std::ostream &out);

// `text` as a JSON string literal, quotes included; bytes that are not UTF-8 become U+FFFD.
[[nodiscard]] std::string json_string(const std::string &text);

} // namespace aesgpu
