// SPDX-License-Identifier: Apache-2.0
// The segment geometry of an authenticated stream: how many segments a plaintext makes, and how a
// job's bytes are cut into them.
#include "cipher/segments.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace aesgpu::test {
namespace {

// Tink's test vector shape: 64-byte segments, a 24-byte header (AES-128).
constexpr SegmentGeometry kSmall{64, 24};

TEST(SegmentGeometry, CountsSegmentsAsTinkWritesThem) {
    EXPECT_EQ(kSmall.plaintext_capacity(0), 24u);
    EXPECT_EQ(kSmall.plaintext_capacity(1), 48u);
    EXPECT_EQ(kSmall.segments_for_plaintext(0), 1u);  // one empty segment
    EXPECT_EQ(kSmall.segments_for_plaintext(24), 1u); // the first, full
    EXPECT_EQ(kSmall.segments_for_plaintext(25), 2u);
    EXPECT_EQ(kSmall.segments_for_plaintext(72), 2u); // full last segment, no empty one after it
    EXPECT_EQ(kSmall.segments_for_plaintext(88), 3u); // the vector's 88 bytes: 24 + 48 + 16
    EXPECT_EQ(kSmall.ciphertext_for_plaintext(0), 16u);
    EXPECT_EQ(kSmall.ciphertext_for_plaintext(88), 88u + 3 * 16);
}

std::vector<SegmentSpan> spans(std::uint64_t first, std::uint32_t count, std::size_t bytes, bool last) {
    std::vector<SegmentSpan> out;
    for_each_segment(kSmall, first, count, bytes, last, [&](const SegmentSpan &s) { out.push_back(s); });
    return out;
}

TEST(SegmentGeometry, CutsAJobIntoItsSegments) {
    const auto first_job = spans(0, 3, 40 + 64 + 32, true);
    ASSERT_EQ(first_job.size(), 3u);
    EXPECT_EQ(first_job[0].offset, 0u);
    EXPECT_EQ(first_job[0].ciphertext_bytes, 40u);
    EXPECT_FALSE(first_job[0].last);
    EXPECT_EQ(first_job[1].offset, 40u);
    EXPECT_EQ(first_job[2].offset, 104u);
    EXPECT_EQ(first_job[2].plaintext_bytes(), 16u);
    EXPECT_TRUE(first_job[2].last);
    const auto later_job = spans(5, 2, 128, false);
    EXPECT_EQ(later_job[1].number, 6u);
    EXPECT_EQ(later_job[1].offset, 64u);
    EXPECT_FALSE(later_job[1].last);
    EXPECT_EQ(spans(0, 1, 16, true)[0].plaintext_bytes(), 0u); // the empty stream's one segment
}

TEST(SegmentGeometry, CountsTheSegmentsOfACiphertext) {
    EXPECT_EQ(kSmall.segments_for_ciphertext(16), 1u); // the empty stream's one segment
    EXPECT_EQ(kSmall.segments_for_ciphertext(40), 1u); // the first, full
    EXPECT_EQ(kSmall.segments_for_ciphertext(41), 2u);
    EXPECT_EQ(kSmall.segments_for_ciphertext(40 + 64), 2u);
    EXPECT_EQ(kSmall.segments_for_ciphertext(40 + 64 + 32), 3u); // the vector's 136 bytes
    for (const std::uint64_t plaintext : {0u, 1u, 24u, 25u, 72u, 88u, 100000u}) {
        EXPECT_EQ(kSmall.segments_for_ciphertext(kSmall.ciphertext_for_plaintext(plaintext)),
                  kSmall.segments_for_plaintext(plaintext))
            << plaintext;
    }
}

// Segments 0 to 2^32 - 1, the last of them only as the stream's end (as Tink's encrypter has it).
TEST(SegmentGeometry, NumbersStopAtTwoToTheThirtySecond) {
    EXPECT_NO_THROW(check_segment_numbers(0, 1, false));
    EXPECT_NO_THROW(check_segment_numbers(kMaxSegments - 3, 3, true));
    EXPECT_NO_THROW(check_segment_numbers(kMaxSegments - 3, 2, false));
    EXPECT_NO_THROW(check_segment_numbers(0, kMaxSegments, true));
    EXPECT_THROW(check_segment_numbers(kMaxSegments - 3, 3, false), TooManySegments); // 2^32 would follow
    EXPECT_THROW(check_segment_numbers(kMaxSegments - 2, 3, true), TooManySegments);
    EXPECT_THROW(check_segment_numbers(kMaxSegments, 1, true), TooManySegments);
    EXPECT_THROW(check_segment_numbers(0, kMaxSegments + 1, true), TooManySegments);
    EXPECT_THROW(check_segment_numbers(~std::uint64_t{0}, 2, true), TooManySegments); // no wrap in the check
    try {
        check_segment_numbers(kMaxSegments - 2, 3, true);
    } catch (const TooManySegments &e) {
        EXPECT_EQ(std::string(e.what()), "a GCM stream has at most 2^32 segments (its nonce numbers them in 4 "
                                         "bytes), and this one goes on past segment 4294967295");
    }
}

TEST(SegmentGeometry, RefusesJobsThatDoNotFitTheirSegments) {
    EXPECT_THROW(spans(1, 2, 100, false), std::invalid_argument);    // not two full segments
    EXPECT_THROW(spans(1, 2, 64 + 15, true), std::invalid_argument); // last shorter than a tag
    EXPECT_THROW(spans(1, 2, 64 + 65, true), std::invalid_argument); // last longer than a segment
    EXPECT_THROW(spans(1, 3, 64, true), std::invalid_argument);      // bytes run out
    EXPECT_THROW(spans(1, 0, 16, true), std::invalid_argument);
}

} // namespace
} // namespace aesgpu::test
