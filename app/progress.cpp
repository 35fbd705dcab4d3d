// SPDX-License-Identifier: Apache-2.0
#include "app/progress.hpp"

#include "app/interrupts.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace aesgpu {

namespace {

constexpr auto kRedrawEvery = std::chrono::milliseconds(100);
constexpr auto kPlainLineEvery = std::chrono::seconds(5);
constexpr std::size_t kDefaultWidth = 80;
constexpr std::string_view kEraseLine = "\r\033[K";

std::string clock_time(double seconds) {
    const auto total = static_cast<long long>(seconds + 0.5);
    if (total >= 3600) return fmt::format("{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60);
    return fmt::format("{}:{:02}", total / 60, total % 60);
}

// Columns of stderr's terminal; 80 when it does not say.
std::size_t terminal_width() {
    winsize size{};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    return kDefaultWidth;
}

// One write(2), so that the signal thread's erase cannot land inside a line.
void write_stderr(std::string_view text) {
    while (!text.empty()) {
        const ssize_t written = ::write(STDERR_FILENO, text.data(), text.size());
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return; // a progress line is not worth failing the run for
        text.remove_prefix(static_cast<std::size_t>(written));
    }
}

} // namespace

std::string format_progress(std::uint64_t done, std::optional<std::uint64_t> total, double seconds,
                            const std::string &backend, std::size_t width) {
    const double rate = seconds > 0 ? double(done) / seconds : 0;
    const std::string done_text = human_bytes(double(done));
    const std::string rate_text = human_bytes(rate) + "/s";
    std::vector<std::string> candidates; // richest first
    if (!total || *total == 0) {
        candidates = {fmt::format("{}  {}  {}", done_text, rate_text, backend),
                      fmt::format("{}  {}", done_text, rate_text), done_text};
    } else {
        const double fraction = std::min(1.0, double(done) / double(*total));
        const std::string eta = rate > 0 ? clock_time(double(*total - std::min(done, *total)) / rate) : "-:--";
        const std::string percent = fmt::format("{:3.0f}%", fraction * 100);
        const std::string numbers = fmt::format("{}  {} / {}  {}  {}  ETA {}", percent, done_text,
                                                human_bytes(double(*total)), rate_text, backend, eta);
        // A fixed width, so the bar does not jump as the numbers change length.
        const auto bar = [fraction](std::size_t bar_width) {
            const auto filled = static_cast<std::size_t>(fraction * double(bar_width));
            return fmt::format("[{}{}] ", std::string(filled, '#'), std::string(bar_width - filled, '.'));
        };
        candidates = {
            bar(24) + numbers,
            bar(10) + numbers,
            numbers,
            fmt::format("{}  {} / {}  {}  ETA {}", percent, done_text, human_bytes(double(*total)), rate_text, eta),
            fmt::format("{}  {}  ETA {}", percent, rate_text, eta),
            percent};
    }
    for (const std::string &line : candidates) {
        if (line.size() <= width) return line;
    }
    return candidates.back().substr(0, width);
}

bool progress_shown_by_default(bool output_is_terminal, bool input_is_a_pipe) {
    // Data on the terminal (decrypt -c) would be cut by the redraws.
    return ::isatty(STDERR_FILENO) == 1 && !output_is_terminal && !input_is_a_pipe;
}

ProgressBar::ProgressBar(bool enabled, std::optional<std::uint64_t> total, std::string backend)
    : enabled_(enabled), terminal_(::isatty(STDERR_FILENO) == 1), resizes_seen_(terminal_resizes()), total_(total),
      backend_(std::move(backend)) {}

void ProgressBar::update(std::uint64_t done) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    const unsigned resizes = terminal_resizes();
    const bool resized = resizes != resizes_seen_;
    const auto every = terminal_ ? kRedrawEvery : kPlainLineEvery;
    if (now - start_ < kProgressAfter || (now - last_draw_ < every && !resized)) return;
    last_draw_ = now;
    resizes_seen_ = resizes;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    if (!terminal_) {
        write_stderr("aesgpu: " + format_progress(done, total_, seconds, backend_, std::string::npos) + "\n");
        return;
    }
    // One column short of the width: some terminals wrap as soon as the last column is written.
    const std::size_t width = std::max<std::size_t>(terminal_width(), 2) - 1;
    if (!erase_on_signal_.armed()) {
        erase_on_signal_ = InterruptCleanup::register_undo(&interrupt_cleanups(), [screen = screen_] {
            const std::lock_guard lock(screen->mutex);
            screen->stopped = true;
            if (screen->drawn) write_stderr(kEraseLine);
        });
    }
    const std::string line = fmt::format("\r{}\033[K", format_progress(done, total_, seconds, backend_, width));
    const std::lock_guard lock(screen_->mutex);
    if (screen_->stopped) return;
    write_stderr(line);
    screen_->drawn = true;
}

void ProgressBar::finish() {
    erase_on_signal_.release();
    const std::lock_guard lock(screen_->mutex);
    if (!screen_->drawn) return;
    write_stderr(kEraseLine);
    screen_->drawn = false;
}

} // namespace aesgpu
