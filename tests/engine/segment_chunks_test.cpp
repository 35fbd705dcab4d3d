// SPDX-License-Identifier: Apache-2.0
// Where an authenticated stream's segments get their numbers: chunk by chunk, and never 2^32 (the
// nonce holds 4 bytes of it; segment 2^32 would reuse segment 0's nonce). Driven from chunk
// numbers near the limit, without the 192 GiB that 64-byte segments would take to get there.
#include "common/errors.hpp"
#include "engine/segment_chunks.hpp"

#include <gtest/gtest.h>

namespace aesgpu::test {
namespace {

constexpr SegmentGeometry kSmall{64, 24}; // 48 bytes of plaintext per segment after the first

TEST(SegmentChunks, NumberSegmentsUpToTheLastOneAStreamMayHave) {
    for (const Direction direction : {Direction::encrypt, Direction::decrypt}) {
        SCOPED_TRACE(direction == Direction::encrypt ? "encrypt" : "decrypt");
        const std::size_t full = direction == Direction::encrypt ? 48 : 64;
        // One segment a chunk: chunk n is segment n.
        const SegmentChunks one(kSmall, direction, 64);
        const CipherJob last = one.job(0, kMaxSegments - 1, full, true);
        EXPECT_EQ(last.first_segment, kMaxSegments - 1);
        EXPECT_EQ(last.segments, 1u);
        EXPECT_TRUE(last.holds_last_segment);
        EXPECT_THROW((void)one.job(0, kMaxSegments - 1, full, false), TooManySegments) << "2^32 would follow";
        EXPECT_THROW((void)one.job(0, kMaxSegments, full, true), TooManySegments);
        // Four a chunk: the chunk that holds segments 2^32 - 4 to 2^32 - 1, and a short one ending there.
        const SegmentChunks four(kSmall, direction, 4 * 64);
        const std::uint64_t chunk = kMaxSegments / 4 - 1;
        EXPECT_EQ(four.job(0, chunk, 4 * full, true).first_segment, kMaxSegments - 4);
        EXPECT_EQ(four.job(0, chunk, 2 * full + 20, true).segments, 3u);
        EXPECT_THROW((void)four.job(0, chunk, 4 * full, false), TooManySegments);
        EXPECT_THROW((void)four.job(0, chunk + 1, 20, true), TooManySegments);
    }
}

} // namespace
} // namespace aesgpu::test
