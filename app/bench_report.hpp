// SPDX-License-Identifier: Apache-2.0
#pragma once
// The two renderings of what `aesgpu bench` found: a table for people and one JSON document
// for scripts (scripts/plot-bench.py draws the README's plot from it).
#include "bench/bench.hpp"

#include <ostream>

namespace aesgpu {

void print_bench_table(const BenchReport &report, std::ostream &out);
void print_bench_json(const BenchReport &report, std::ostream &out);

} // namespace aesgpu
