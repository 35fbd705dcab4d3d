// SPDX-License-Identifier: Apache-2.0
#pragma once
// The two renderings of what `aesgpu bench` found: a table for people and one JSON document
// for scripts (scripts/plot-bench.py draws the README's plot from it).
#include "bench/bench.hpp"

#include <cstddef>
#include <ostream>
#include <string>

namespace aesgpu {

// Why a stage did not run, with the command's advice about --size where the size has to do with it.
[[nodiscard]] std::string stage_reason(const StageNote &note, std::size_t size_bytes);
// "stage: reason".
[[nodiscard]] std::string stage_note_text(const StageNote &note, std::size_t size_bytes);

void print_bench_table(const BenchReport &report, std::ostream &out);
void print_bench_json(const BenchReport &report, std::ostream &out);

} // namespace aesgpu
