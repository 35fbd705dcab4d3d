// SPDX-License-Identifier: Apache-2.0
#pragma once
// The memory limit a control group puts on this process: the smallest of cgroup v2's memory.max
// and v1's memory.limit_in_bytes from the process's own group up to the hierarchy's root. Past
// it the kernel's OOM killer ends the process (status 137) rather than an allocation failing, so
// buffers must be sized to fit it before they are touched.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace aesgpu {

// Where the facts come from: /proc/self/cgroup and /proc/self/mountinfo, and the file system the
// mount points there are under ("/" but for tests, which build a fake tree).
struct CgroupSources {
    std::string cgroup;    // /proc/self/cgroup
    std::string mountinfo; // /proc/self/mountinfo
    std::filesystem::path root = "/";
};

// This process's sources.
[[nodiscard]] CgroupSources own_cgroup_sources();

// The limit in bytes; none where no group along the way sets one ("max", or a value of 2^62 or
// more, as v1 writes "no limit") or nothing can be read.
[[nodiscard]] std::optional<std::uint64_t> cgroup_memory_limit(const CgroupSources &sources = own_cgroup_sources());

} // namespace aesgpu
