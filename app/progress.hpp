// SPDX-License-Identifier: Apache-2.0
#pragma once
// The progress line on stderr: bytes done, total when known, rate, ETA and backend, redrawn in
// place at most 10 times a second, and only once a job has run long enough to notice (0.3 s).
#include "common/units.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace aesgpu {

// The line appears only once a job has run this long: shorter jobs would only flicker.
inline constexpr auto kProgressAfter = std::chrono::milliseconds(300);

// One rendering of the line (no carriage return), `width` columns at most.
[[nodiscard]] std::string format_progress(std::uint64_t done, std::optional<std::uint64_t> total, double seconds,
                                          const std::string &backend, std::size_t width = 80);

class ProgressBar {
public:
    // A disabled bar does nothing; `total` is the input size when known.
    ProgressBar(bool enabled, std::optional<std::uint64_t> total, std::string backend);
    ~ProgressBar() { finish(); }
    ProgressBar(const ProgressBar &) = delete;
    ProgressBar &operator=(const ProgressBar &) = delete;

    void update(std::uint64_t done);
    void set_backend(std::string backend) { backend_ = std::move(backend); }
    // Erases the line, so what follows on stderr starts clean.
    void finish();

private:
    bool enabled_;
    bool drawn_ = false;
    std::optional<std::uint64_t> total_;
    std::string backend_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_draw_{};
};

} // namespace aesgpu
