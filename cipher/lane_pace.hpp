// SPDX-License-Identifier: Apache-2.0
#pragma once
// How fast one backend of a dispatcher ("lane") gets through bytes, learnt from when its jobs
// end: the time from one job end to the next while the lane is busy (some job of it in flight),
// per byte of the job that ended, as a moving average. For a lane that overlaps several jobs (a
// GPU's streams) that is its throughput, not one job's latency. The first job that ends is not
// counted: it carries start-up costs (a GPU's first launch loads its kernels).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace aesgpu {

class LanePace {
public:
    using Clock = std::chrono::steady_clock;

    void job_started(std::uint64_t bytes, Clock::time_point now) {
        if (in_flight_ == 0) busy_since_ = now;
        ++in_flight_;
        bytes_in_flight_ += bytes;
    }

    void job_ended(std::uint64_t bytes, Clock::time_point now) {
        if (in_flight_ == 0) return; // not started: nothing to end
        // Since the last end, or since the lane got busy again if it was idle in between.
        const Clock::time_point from = last_end_ > busy_since_ ? last_end_ : busy_since_;
        if (ends_ > 0 && bytes > 0) {
            const double sample = std::chrono::duration<double>(now - from).count() / double(bytes);
            seconds_per_byte_ = seconds_per_byte_ ? *seconds_per_byte_ + kWeight * (sample - *seconds_per_byte_) : sample;
        }
        ++ends_;
        last_end_ = now;
        --in_flight_;
        bytes_in_flight_ -= bytes;
        if (in_flight_ == 0) busy_ += now - busy_since_;
    }

    // Seconds until a job of `bytes` submitted now would end, behind the bytes in flight; nothing
    // until the lane has been measured.
    [[nodiscard]] std::optional<double> seconds_until_done(std::uint64_t bytes) const {
        if (!seconds_per_byte_) return std::nullopt;
        return double(bytes_in_flight_ + bytes) * *seconds_per_byte_;
    }

    [[nodiscard]] std::size_t in_flight() const { return in_flight_; }
    [[nodiscard]] std::optional<double> seconds_per_byte() const { return seconds_per_byte_; }
    // Time with some job in flight, up to `now`.
    [[nodiscard]] double busy_seconds(Clock::time_point now) const {
        const Clock::duration busy = in_flight_ > 0 ? busy_ + (now - busy_since_) : busy_;
        return std::chrono::duration<double>(busy).count();
    }

private:
    // Each new sample moves the average a quarter of the way: recent jobs count most (the CPU
    // slows when I/O threads compete with it), and one odd job does not swing it.
    static constexpr double kWeight = 0.25;

    std::size_t in_flight_ = 0;
    std::uint64_t bytes_in_flight_ = 0;
    std::uint64_t ends_ = 0;
    Clock::time_point busy_since_{};
    Clock::time_point last_end_{};
    Clock::duration busy_{};
    std::optional<double> seconds_per_byte_;
};

} // namespace aesgpu
