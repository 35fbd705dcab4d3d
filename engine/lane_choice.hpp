// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which lane of a dispatcher takes the next job: the dispatcher's policy, apart from its threads
// and locks, so that it can be tested with time points instead of sleeps.
#include "engine/lane_pace.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace aesgpu {

// What the choice needs to know of one lane.
struct LaneView {
    const LanePace *pace = nullptr;
    std::size_t room = 1;    // jobs it may hold at once
    bool takes_jobs = false; // started, and its share rule lets it work now
};

// The lane to take a job of `bytes` at `now`; none: wait for the best lane's room.
// Earliest expected finish. A lane not yet measured counts as finishing at once while it has room
// (it gets jobs, and so a measurement); ties go to the lane with fewer jobs in flight. Where the
// best lane is idle or full, an idle lane due another look goes first.
[[nodiscard]] std::optional<std::size_t> choose_lane(std::span<const LaneView> lanes, std::uint64_t bytes,
                                                     LanePace::Clock::time_point now);

} // namespace aesgpu
