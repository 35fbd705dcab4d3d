#pragma once
#include "app/bench_report.hpp"
#include "app/options.hpp"

namespace aesgpu {

// Runs the measurements `options` asks for, each on fresh random data checked against OpenSSL
// before it is timed, and returns what was found. A backend that cannot run (no GPU) is listed
// as unavailable; a wrong output throws std::runtime_error.
[[nodiscard]] BenchReport run_bench(const BenchOptions &options);

// run_bench, then the table (or with --json the JSON) on standard output; returns the exit status.
[[nodiscard]] int run_bench_command(const BenchOptions &options);

} // namespace aesgpu
