// SPDX-License-Identifier: Apache-2.0
#pragma once
// The two renderings of what `aesgpu bench` found: a table for people and one JSON document
// for scripts (scripts/plot-bench.py draws the README's plot from it).
#include "bench/bench.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace aesgpu {

void print_bench_table(const BenchReport &report, std::ostream &out);
void print_bench_json(const BenchReport &report, std::ostream &out);

// `text` as a JSON string literal, quotes included; bytes that are not UTF-8 become U+FFFD.
[[nodiscard]] std::string json_string(const std::string &text);

} // namespace aesgpu
