// SPDX-License-Identifier: Apache-2.0
#pragma once
// The progress line on stderr: bytes done, total when known, rate, ETA and backend, in binary
// units as pv shows them. On a terminal it is redrawn in place at most 10 times a second, cut to
// the terminal's width (read again after every SIGWINCH) so that it never wraps, and erased when
// the run ends, fails or is interrupted. Forced (--progress) onto something else, it is a plain
// line every few seconds, with no carriage returns or escape codes.
#include "common/interrupt_cleanup.hpp"
#include "common/units.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace aesgpu {

// The line appears only once a job has run this long: shorter jobs would only flicker.
inline constexpr auto kProgressAfter = std::chrono::milliseconds(300);

// One rendering of the line (no carriage return), at most `width` columns: parts are dropped,
// least useful first, where the whole does not fit.
[[nodiscard]] std::string format_progress(std::uint64_t done, std::optional<std::uint64_t> total, double seconds,
                                          const std::string &backend, std::size_t width = 80);

// The default for showing the line: stderr is a terminal that is not also where the data goes
// (decrypt -c to the screen), and the input is not standard input from a pipe (`pv -f big | aesgpu`), whose
// producer may draw its own meter on the same terminal: two would fight over the line (zstd stays
// quiet there too).
[[nodiscard]] bool progress_shown_by_default(bool output_is_terminal, bool input_is_a_pipe);

class ProgressBar {
public:
    // A disabled bar does nothing; `total` is the input size when known.
    ProgressBar(bool enabled, std::optional<std::uint64_t> total, std::string backend);
    ~ProgressBar() { finish(); }
    ProgressBar(const ProgressBar &) = delete;
    ProgressBar &operator=(const ProgressBar &) = delete;

    void update(std::uint64_t done);
    void set_backend(std::string backend) { backend_ = std::move(backend); }
    // Erases the line on a terminal, so what follows on stderr starts clean.
    void finish();

private:
    // Shared with the undo action that erases the line on a signal: once it has, nothing is drawn
    // again (a chunk finishing behind it would otherwise put the line back before the process ends).
    struct Screen {
        std::mutex mutex;
        bool drawn = false;
        bool stopped = false;
    };

    bool enabled_;
    bool terminal_;
    std::shared_ptr<Screen> screen_ = std::make_shared<Screen>();
    unsigned resizes_seen_ = 0;
    std::optional<std::uint64_t> total_;
    std::string backend_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_draw_{};
    InterruptCleanup erase_on_signal_;
};

} // namespace aesgpu
