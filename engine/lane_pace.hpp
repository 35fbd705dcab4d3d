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
        // A pace gone stale while idle is replaced by the next sample, not averaged with it.
        if (due_another_look(bytes, now)) next_sample_replaces_ = true;
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
            seconds_per_byte_ = seconds_per_byte_ && !next_sample_replaces_
                                    ? *seconds_per_byte_ + kWeight * (sample - *seconds_per_byte_)
                                    : sample;
            next_sample_replaces_ = false;
        }
        ++ends_;
        last_end_ = now;
        --in_flight_;
        bytes_in_flight_ -= bytes;
        if (in_flight_ == 0) busy_ += now - busy_since_;
    }

    // A job that was started but never ran (its submit failed): it frees its room and is no sample.
    void job_abandoned(std::uint64_t bytes) {
        if (in_flight_ == 0) return;
        --in_flight_;
        bytes_in_flight_ -= bytes;
    }

    // Seconds until a job of `bytes` submitted now would end, behind the bytes in flight; nothing
    // until the lane has been measured.
    [[nodiscard]] std::optional<double> seconds_until_done(std::uint64_t bytes) const {
        if (!seconds_per_byte_) return std::nullopt;
        return double(bytes_in_flight_ + bytes) * *seconds_per_byte_;
    }

    // An idle lane's pace is as old as its last job end. Once it has sat idle for longer than
    // kIdleJobsBeforeAnotherLook jobs of `bytes` would take it by that pace, it is worth a job
    // again, and that job's time replaces the pace: one slow moment (a thread descheduled on a busy
    // machine, a burst of page faults) must not keep a lane measured as slow, and so idle, for the
    // rest of the run. A lane that really is that slow gets one job per that many of its job
    // times: a small share, freshly measured.
    [[nodiscard]] bool due_another_look(std::uint64_t bytes, Clock::time_point now) const {
        if (in_flight_ > 0 || !seconds_per_byte_) return false;
        const double idle = std::chrono::duration<double>(now - last_end_).count();
        return idle > kIdleJobsBeforeAnotherLook * double(bytes) * *seconds_per_byte_;
    }

    [[nodiscard]] std::size_t in_flight() const { return in_flight_; }
    // When its last job ended (the clock's epoch before any).
    [[nodiscard]] Clock::time_point last_end() const { return last_end_; }
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
    static constexpr double kIdleJobsBeforeAnotherLook = 4.0;

    std::size_t in_flight_ = 0;
    std::uint64_t bytes_in_flight_ = 0;
    std::uint64_t ends_ = 0;
    Clock::time_point busy_since_{};
    Clock::time_point last_end_{};
    Clock::duration busy_{};
    std::optional<double> seconds_per_byte_;
    bool next_sample_replaces_ = false;
};

} // namespace aesgpu
