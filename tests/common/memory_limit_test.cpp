// SPDX-License-Identifier: Apache-2.0
// The control group's memory limit, read from fake /proc and cgroup trees: v1 and v2, limits set
// anywhere from the process's own group up to the root, and no limit at all.
#include "common/memory_limit.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace aesgpu::test {
namespace {

void put(const std::filesystem::path &file, const std::string &text) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
}

// As on the CI machine: v1 memory beside a v2 mount without the memory controller.
constexpr const char *kHybridMounts =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "36 31 0:33 / /sys/fs/cgroup/devices rw,relatime shared:9 - cgroup cgroup rw,devices\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
constexpr const char *kHybridGroups = "5:devices:/\n4:memory:/jobs/one\n0::/\n";

TEST(CgroupMemoryLimit, TheLowestLimitFromTheGroupUpToTheRootInV1) {
    TempDir dir;
    const std::filesystem::path memory = dir.path() / "sys/fs/cgroup/memory";
    put(memory / "memory.limit_in_bytes", "9223372036854771712\n"); // v1's "no limit"
    put(memory / "jobs/memory.limit_in_bytes", "104857600\n");
    put(memory / "jobs/one/memory.limit_in_bytes", "9223372036854771712\n");
    const CgroupSources sources{kHybridGroups, kHybridMounts, dir.path()};
    EXPECT_EQ(cgroup_memory_limit(sources), std::optional<std::uint64_t>(100u << 20)) << "the parent's limit holds";
    put(memory / "jobs/one/memory.limit_in_bytes", "16777216\n");
    EXPECT_EQ(cgroup_memory_limit(sources), std::optional<std::uint64_t>(16u << 20));
    put(memory / "jobs/memory.limit_in_bytes", "9223372036854771712\n");
    put(memory / "jobs/one/memory.limit_in_bytes", "9223372036854771712\n");
    EXPECT_EQ(cgroup_memory_limit(sources), std::nullopt);
}

TEST(CgroupMemoryLimit, V2sMemoryMaxAndAMountWhoseRootIsNotTheHierarchysRoot) {
    TempDir dir;
    const std::filesystem::path unified = dir.path() / "sys/fs/cgroup";
    put(unified / "user.slice/memory.max", "max\n");
    put(unified / "user.slice/job/memory.max", "16777216\n");
    put(unified / "user.slice/job/leaf/memory.max", "max\n");
    const std::string mounts = "30 23 0:27 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n";
    EXPECT_EQ(cgroup_memory_limit({"0::/user.slice/job/leaf\n", mounts, dir.path()}),
              std::optional<std::uint64_t>(16u << 20));
    // A container's view: its group is the mount's root, which shows the group's own files.
    const std::string container = "30 23 0:27 /user.slice/job /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
    put(unified / "memory.max", "33554432\n");
    EXPECT_EQ(cgroup_memory_limit({"0::/user.slice/job\n", container, dir.path()}),
              std::optional<std::uint64_t>(32u << 20));
    // Nothing mounted, nothing readable, a group outside the mount: no limit known.
    EXPECT_EQ(cgroup_memory_limit({"0::/user.slice/job\n", "", dir.path()}), std::nullopt);
    EXPECT_EQ(cgroup_memory_limit({"", mounts, dir.path()}), std::nullopt);
    EXPECT_EQ(cgroup_memory_limit({"0::/elsewhere\n", container, dir.path()}), std::nullopt);
    put(unified / "2/memory.max", "1048576\n"); // what a group /user.slice/job2 would wrongly read
    EXPECT_EQ(cgroup_memory_limit({"0::/user.slice/job2\n", container, dir.path()}), std::nullopt);
}

TEST(CgroupMemoryLimit, ThisProcesssOwnDoesNotFail) {
    const std::optional<std::uint64_t> limit = cgroup_memory_limit();
    if (limit) {
        EXPECT_GT(*limit, 0u);
    }
}

} // namespace
} // namespace aesgpu::test
