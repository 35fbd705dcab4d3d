// SPDX-License-Identifier: Apache-2.0
#pragma once
// CPU time used so far, user and system, as getrusage(2) counts it: what a run cost the machine
// beside its wall time (a GPU path that frees the CPU is part of its value).
#include <sys/resource.h>

namespace aesgpu {

struct CpuTime {
    double user_seconds = 0;
    double system_seconds = 0;

    [[nodiscard]] double total() const { return user_seconds + system_seconds; }
    [[nodiscard]] CpuTime operator-(const CpuTime &earlier) const {
        return {user_seconds - earlier.user_seconds, system_seconds - earlier.system_seconds};
    }
};

// Of every thread of this process, and with `and_children` of the children it has waited for
// (cp, in the bench) too.
[[nodiscard]] inline CpuTime cpu_time_used(bool and_children = false) {
    const auto seconds = [](const timeval &t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    CpuTime time{seconds(usage.ru_utime), seconds(usage.ru_stime)};
    if (and_children) {
        ::getrusage(RUSAGE_CHILDREN, &usage);
        time.user_seconds += seconds(usage.ru_utime);
        time.system_seconds += seconds(usage.ru_stime);
    }
    return time;
}

} // namespace aesgpu
