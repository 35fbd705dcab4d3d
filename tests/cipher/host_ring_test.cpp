// SPDX-License-Identifier: Apache-2.0
// The ring's host memory: large slots lie on huge-page boundaries and ask the kernel for
// transparent huge pages, so that a direct read or write pins a 2 MiB page where it pinned 512.
#include "cipher/host_ring.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

namespace aesgpu::test {
namespace {

// The VmFlags line of the mapping that holds `address`, from /proc/self/smaps; empty if none.
std::string vm_flags_at(const void *address) {
    const auto at = reinterpret_cast<std::uintptr_t>(address);
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        std::uintptr_t start = 0;
        std::uintptr_t end = 0;
        char dash = 0;
        std::istringstream header(line);
        if (header >> std::hex >> start >> dash >> end && dash == '-') {
            inside = start <= at && at < end;
        } else if (inside && line.rfind("VmFlags:", 0) == 0) {
            return line;
        }
    }
    return {};
}

TEST(HostRing, LargeSlotsLieOnHugePagesAndAskForThem) {
    constexpr std::size_t kSlot = (std::size_t{4} << 20) + 4096; // a 4 MiB chunk with its room
    HostRing ring(3, kSlot);
    for (const std::span<std::byte> slot : ring.buffers()) {
        ASSERT_EQ(slot.size(), kSlot);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(slot.data()) % (std::size_t{2} << 20), 0u);
        const std::string flags = vm_flags_at(slot.data());
        ASSERT_FALSE(flags.empty()) << "no mapping holds the slot";
        EXPECT_NE((flags + " ").find(" hg "), std::string::npos) << "not advised for huge pages: " << flags;
    }
}

// A slot too large to round up to whole pages is memory that cannot be had (the pipeline retries
// smaller), never a size that wraps to a null buffer.
TEST(HostRing, ASlotTooLargeToRoundUpIsShortMemory) {
    constexpr std::size_t kLargest = std::numeric_limits<std::size_t>::max();
    for (const std::size_t slot : {kLargest, kLargest - 4094, kLargest - 100}) {
        EXPECT_THROW(HostRing(1, slot), ResourceExhausted) << slot;
    }
}

} // namespace
} // namespace aesgpu::test
