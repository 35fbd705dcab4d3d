// SPDX-License-Identifier: Apache-2.0
#include "app/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace aesgpu {

namespace {

constexpr auto kRedrawEvery = std::chrono::milliseconds(100);

std::string clock_time(double seconds) {
    const auto total = static_cast<long long>(seconds + 0.5);
    if (total >= 3600) return fmt::format("{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60);
    return fmt::format("{}:{:02}", total / 60, total % 60);
}

} // namespace

std::string format_progress(std::uint64_t done, std::optional<std::uint64_t> total, double seconds,
                            const std::string &backend, std::size_t width) {
    const double rate = seconds > 0 ? double(done) / seconds : 0;
    std::string tail = fmt::format("{:.2f} GB/s  {}", rate / 1e9, backend);
    if (!total || *total == 0) return human_bytes(double(done)) + "  " + tail;
    const double fraction = std::min(1.0, double(done) / double(*total));
    const std::string eta = rate > 0 ? clock_time(double(*total - std::min(done, *total)) / rate) : "-:--";
    std::string numbers = fmt::format(" {:3.0f}%  {} / {}  {}  ETA {}", fraction * 100, human_bytes(double(done)),
                                      human_bytes(double(*total)), tail, eta);
    // A fixed width, so the bar does not jump as the numbers change length.
    const std::size_t bar_width = width >= 80 ? 24 : 10;
    const auto filled = static_cast<std::size_t>(fraction * double(bar_width));
    std::string line;
    line.reserve(bar_width + 2 + numbers.size());
    line.append("[").append(filled, '#').append(bar_width - filled, '.').append("]").append(numbers);
    return line;
}

ProgressBar::ProgressBar(bool enabled, std::optional<std::uint64_t> total, std::string backend)
    : enabled_(enabled), total_(total), backend_(std::move(backend)) {}

void ProgressBar::update(std::uint64_t done) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < kProgressAfter || now - last_draw_ < kRedrawEvery) return;
    last_draw_ = now;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const std::string line = format_progress(done, total_, seconds, backend_);
    std::fprintf(stderr, "\r%s\033[K", line.c_str());
    std::fflush(stderr);
    drawn_ = true;
}

void ProgressBar::finish() {
    if (!drawn_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    drawn_ = false;
}

} // namespace aesgpu
