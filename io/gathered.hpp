// SPDX-License-Identifier: Apache-2.0
#pragma once
// Several buffers taken end to end as one range of bytes: a GCM chunk's segments without their
// tags, read or written in one pass, so that the split readers and mapped writers share one
// chunk's worth of copying among their threads rather than one segment's at a time.
#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>

namespace aesgpu {

template <typename Byte>
class Gathered {
public:
    explicit Gathered(std::span<const std::span<Byte>> parts)
        : parts_(parts),
          size_(std::accumulate(parts.begin(), parts.end(), std::size_t{0},
                                [](std::size_t sum, std::span<Byte> part) { return sum + part.size(); })) {}

    [[nodiscard]] std::size_t size() const { return size_; }
    [[nodiscard]] std::span<const std::span<Byte>> parts() const { return parts_; }

    // Calls fn(piece, at) for the parts' bytes in [offset, offset + length), in order, `at` being
    // the piece's place in the whole range; stops early when fn returns false.
    template <typename Fn>
    void for_each_in(std::size_t offset, std::size_t length, Fn &&fn) const {
        std::size_t part_start = 0;
        for (const std::span<Byte> part : parts_) {
            const std::size_t part_end = part_start + part.size();
            if (length == 0) return;
            if (offset < part_end) {
                const std::size_t from = offset - part_start;
                const std::size_t take = std::min(part.size() - from, length);
                if (!fn(part.subspan(from, take), offset)) return;
                offset += take;
                length -= take;
            }
            part_start = part_end;
        }
    }

private:
    std::span<const std::span<Byte>> parts_;
    std::size_t size_;
};

} // namespace aesgpu
