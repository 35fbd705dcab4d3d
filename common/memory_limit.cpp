// SPDX-License-Identifier: Apache-2.0
#include "common/memory_limit.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

namespace aesgpu {

namespace {

constexpr std::uint64_t kNoLimitFrom = std::uint64_t{1} << 62; // v1 says "none" as about 2^63

std::string slurp(const std::filesystem::path &path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    for (std::size_t at = 0;;) {
        const std::size_t end = std::min(text.find(separator, at), text.size());
        parts.push_back(text.substr(at, end - at));
        if (end == text.size()) return parts;
        at = end + 1;
    }
}

// One hierarchy to look in: where it is mounted, the mount's own root within it, and this
// process's group in it.
struct Hierarchy {
    bool v2;
    std::string mount_point;
    std::string mount_root;
};

// From mountinfo: "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER_OPTIONS".
std::vector<Hierarchy> mounted_hierarchies(std::string_view mountinfo) {
    std::vector<Hierarchy> found;
    for (const std::string_view line : split(mountinfo, '\n')) {
        const std::vector<std::string_view> fields = split(line, ' ');
        const auto dash = std::find(fields.begin(), fields.end(), "-");
        if (fields.size() < 5 || dash == fields.end() || fields.end() - dash < 4) continue;
        const std::string_view type = dash[1];
        const std::vector<std::string_view> options = split(dash[3], ',');
        if (type == "cgroup2") {
            found.push_back({true, std::string(fields[4]), std::string(fields[3])});
        } else if (type == "cgroup" && std::find(options.begin(), options.end(), "memory") != options.end()) {
            found.push_back({false, std::string(fields[4]), std::string(fields[3])});
        }
    }
    return found;
}

// From /proc/self/cgroup: "0::PATH" (v2) or "N:CONTROLLERS:PATH" (v1) with memory among them.
std::optional<std::string> group_in(std::string_view cgroup, bool v2) {
    for (const std::string_view line : split(cgroup, '\n')) {
        const std::size_t first = line.find(':');
        const std::size_t second = line.find(':', first + 1);
        if (first == std::string_view::npos || second == std::string_view::npos) continue;
        const std::string_view controllers = line.substr(first + 1, second - first - 1);
        const std::vector<std::string_view> names = split(controllers, ',');
        const bool matches = v2 ? line.substr(0, first) == "0" && controllers.empty()
                                : std::find(names.begin(), names.end(), "memory") != names.end();
        if (matches) return std::string(line.substr(second + 1));
    }
    return std::nullopt;
}

std::optional<std::uint64_t> limit_in(const std::filesystem::path &file) {
    std::string text = slurp(file);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc{} || end != text.data() + text.size() || value >= kNoLimitFrom) {
        return std::nullopt; // "max", absent, or no limit
    }
    return value;
}

} // namespace

CgroupSources own_cgroup_sources() {
    return {slurp("/proc/self/cgroup"), slurp("/proc/self/mountinfo"), "/"};
}

std::optional<std::uint64_t> cgroup_memory_limit(const CgroupSources &sources) {
    std::optional<std::uint64_t> lowest;
    for (const Hierarchy &hierarchy : mounted_hierarchies(sources.mountinfo)) {
        const std::optional<std::string> group = group_in(sources.cgroup, hierarchy.v2);
        const std::string &root = hierarchy.mount_root;
        // The group must be the mount's root or below it ("/a/bc" is not below "/a/b").
        if (!group || !group->starts_with(root) ||
            (root != "/" && group->size() > root.size() && (*group)[root.size()] != '/')) {
            continue;
        }
        const char *limit_file = hierarchy.v2 ? "memory.max" : "memory.limit_in_bytes";
        // The group's path within the mount, then up to the mount point, a level at a time.
        std::string relative = hierarchy.mount_root == "/" ? *group : group->substr(hierarchy.mount_root.size());
        const std::filesystem::path top = sources.root / std::filesystem::path(hierarchy.mount_point).relative_path();
        for (;;) {
            const std::filesystem::path directory = top / std::filesystem::path(relative).relative_path();
            if (const auto limit = limit_in(directory / limit_file)) lowest = std::min(lowest.value_or(*limit), *limit);
            const std::size_t slash = relative.find_last_of('/');
            if (relative.empty() || relative == "/" || slash == std::string::npos) break;
            relative.resize(slash);
        }
    }
    return lowest;
}

} // namespace aesgpu
