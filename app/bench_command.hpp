// SPDX-License-Identifier: Apache-2.0
#pragma once
#include "app/options.hpp"
#include "bench/bench.hpp"

namespace aesgpu {

// What `aesgpu bench` options ask the bench library for. Throws UsageError for a --size below a
// block.
[[nodiscard]] BenchSettings bench_settings(const BenchOptions &options);

// Runs the bench, then prints the table (or with --json the JSON) on standard output; returns the
// exit status.
[[nodiscard]] int run_bench_command(const BenchOptions &options);

} // namespace aesgpu
