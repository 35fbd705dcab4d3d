// SPDX-License-Identifier: Apache-2.0
#include "engine/lane_choice.hpp"

#include <limits>

namespace aesgpu {

namespace {

// The lane that would end a job of `bytes` soonest (ties: the one with fewer jobs in flight); a
// lane not yet measured ends it at once where it has room.
std::optional<std::size_t> soonest_lane(std::span<const LaneView> lanes, std::uint64_t bytes) {
    std::optional<std::size_t> best;
    double best_seconds = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < lanes.size(); ++i) {
        if (!lanes[i].takes_jobs) continue;
        const LanePace &pace = *lanes[i].pace;
        const bool has_room = pace.in_flight() < lanes[i].room;
        const double seconds =
            pace.seconds_until_done(bytes).value_or(has_room ? 0.0 : std::numeric_limits<double>::infinity());
        if (!best || seconds < best_seconds ||
            (seconds == best_seconds && pace.in_flight() < lanes[*best].pace->in_flight())) {
            best = i;
            best_seconds = seconds;
        }
    }
    return best;
}

// The idle lane due another look that has been idle longest, if any.
std::optional<std::size_t> lane_due_a_look(std::span<const LaneView> lanes, std::uint64_t bytes,
                                           LanePace::Clock::time_point now) {
    std::optional<std::size_t> look;
    for (std::size_t i = 0; i < lanes.size(); ++i) {
        const LanePace &pace = *lanes[i].pace;
        if (!lanes[i].takes_jobs || lanes[i].room == 0 || !pace.due_another_look(bytes, now)) continue;
        if (!look || pace.last_end() < lanes[*look].pace->last_end()) look = i;
    }
    return look;
}

} // namespace

std::optional<std::size_t> choose_lane(std::span<const LaneView> lanes, std::uint64_t bytes,
                                       LanePace::Clock::time_point now) {
    const std::optional<std::size_t> best = soonest_lane(lanes, bytes);
    if (!best) return std::nullopt;
    const LanePace &chosen = *lanes[*best].pace;
    const bool has_room = chosen.in_flight() < lanes[*best].room;
    // Busy with room, or not yet measured: it takes the job (and is measured as it goes).
    if (has_room && (chosen.in_flight() > 0 || !chosen.seconds_per_byte())) return best;
    // The best lane is full, or idle: nothing waits anywhere (the reader is the limit), so any idle
    // lane ends the job about as soon. An idle lane due another look takes it, the one idle longest
    // first. Else the lane that lost once, to one slow job, keeps that pace while idle, and an equal
    // lane beside it takes every job (two H100s, an 8 GiB file: 71% and 9%).
    if (const std::optional<std::size_t> look = lane_due_a_look(lanes, bytes, now)) return look;
    if (has_room) return best;
    return std::nullopt;
}

} // namespace aesgpu
