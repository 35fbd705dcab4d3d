// SPDX-License-Identifier: Apache-2.0
// decrypt --range OFFSET:LENGTH: the plaintext bytes of a GCM file's range, from the segments that
// hold them only, each checked against its tag. The reference is Python tink's full decrypt,
// sliced (tink's Python library has no seekable stream): random ranges, ranges across segment
// borders and in the header-shortened segment 0, ranges to the end and past it; a changed segment
// inside the range fails, one outside it does not; and what --range cannot take is refused.
#include "support/cli_fixture.hpp"
#include "support/tink.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace aesgpu::test {
namespace {

constexpr std::size_t kSegment = 4096;

class Range : public Cli {
protected:
    void SetUp() override {
        write_file(file("k16"), random_bytes(16));
        write_file(file("k32"), random_bytes(32));
        run("chmod 600 k16 k32");
    }

    // aesgpu's --range of `file` against the slice of `whole`: both equal, or the failure's output.
    std::string compare_range(const std::string &options, const std::string &file, const std::string &whole,
                              std::uint64_t offset, std::uint64_t length) {
        const std::string range = std::to_string(offset) + ":" + std::to_string(length);
        const Outcome r =
            run("rm -f part; $AESGPU decrypt --range " + range + options + " " + file + " -o part && tail -c +" +
                std::to_string(offset + 1) + " " + whole + " | head -c " + std::to_string(length) + " | cmp - part");
        return r.status == 0 ? "" : "range " + range + ": " + r.err + r.out;
    }
};

// The ranges worth trying in a stream of `size` plaintext bytes whose segment 0 holds `first`.
std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges_for(std::uint64_t size, std::uint64_t first) {
    const std::uint64_t later = kSegment - 16;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges = {
        {0, 0},           {0, 1},         {0, size},
        {first - 1, 2},   {first, later}, {first - 5, later + 10},
        {size - 1, 1},    {size, 0},      {first + later - 1, 1},
        {7, 3 * kSegment}};
    std::mt19937_64 random(test_seed());
    for (int i = 0; i < 12; ++i) {
        const std::uint64_t offset = random() % size;
        ranges.emplace_back(offset, random() % (size - offset + 1));
    }
    return ranges;
}

TEST_F(Range, RangesAreTinksDecryptSliced) {
    REQUIRE_TINK();
    const std::uint64_t size = 5 * kSegment + 77;
    write_file(file("p"), random_bytes(size));
    for (const std::string key : {"k16", "k32"}) {
        SCOPED_TRACE(key);
        const std::string tink = tink_command() + " {} " + key + " " + std::to_string(kSegment) + " '' ";
        std::string encrypt = tink;
        encrypt.replace(encrypt.find("{}"), 2, "encrypt");
        std::string decrypt = tink;
        decrypt.replace(decrypt.find("{}"), 2, "decrypt");
        ASSERT_EQ(run(encrypt + "p theirs && " + decrypt + "theirs whole && cmp whole p").status, 0);
        const std::uint64_t first = kSegment - (key == "k16" ? 24 : 40) - 16;
        for (const auto &[offset, length] : ranges_for(size, first)) {
            EXPECT_EQ(
                compare_range(" --mode gcm --segment-size 4K --key-file " + key, "theirs", "whole", offset, length),
                "");
        }
        // Without --mode the file says GCM (segment 0 decides); suffixes in the range.
        EXPECT_EQ(run("$AESGPU decrypt --range 4K:1K --mode gcm --segment-size 4K --key-file " + key +
                      " theirs -c | cmp - <(tail -c +4097 whole | head -c 1024)")
                      .status,
                  0);
    }
}

TEST_F(Range, PassphraseFilesAndTestOnly) {
    write_file(file("p"), random_bytes(3 * kSegment + 5));
    ASSERT_EQ(run("$AESGPU encrypt -q --mode gcm --segment-size 4K -p pass:pw p -o c").status, 0);
    EXPECT_EQ(compare_range(" -p pass:pw", "c", "p", 5000, 6000), "") << "no --mode: the header says GCM";
    EXPECT_EQ(compare_range(" --mode gcm -p pass:pw", "c", "p", 0, 3 * kSegment + 5), "");
    const Outcome test_only = run("$AESGPU decrypt -t --range 100:100 -p pass:pw c");
    EXPECT_EQ(test_only.status, 0) << test_only.err;
    EXPECT_EQ(test_only.out, "");
}

// OFFSET: with no LENGTH reads to the end, as tail -c +N does; past the end it is refused.
TEST_F(Range, AnOffsetAloneReadsToTheEnd) {
    const std::size_t size = 3 * kSegment + 5;
    write_file(file("p"), random_bytes(size));
    const std::string options = " --mode gcm --segment-size 4K --key-file k16";
    ASSERT_EQ(run("$AESGPU encrypt -q" + options + " p -o c").status, 0);
    for (const std::size_t offset : {std::size_t{0}, std::size_t{5000}, size - 1, size}) {
        SCOPED_TRACE(offset);
        const Outcome r = run("rm -f part; $AESGPU decrypt --json --range " + std::to_string(offset) + ":" + options +
                              " c -o part && tail -c +" + std::to_string(offset + 1) + " p | cmp - part");
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_NE(r.out.find("\"bytes_out\":" + std::to_string(size - offset) + ","), std::string::npos) << r.out;
    }
    const Outcome k = run("$AESGPU decrypt --range 8K:" + options + " c -o part2 && tail -c +8193 p | cmp - part2");
    EXPECT_EQ(k.status, 0) << k.err;
    const Outcome past = run("$AESGPU decrypt --range " + std::to_string(size + 1) + ":" + options + " c -o part3");
    EXPECT_EQ(past.status, 1) << past.err;
    EXPECT_NE(past.err.find("past the plaintext's end"), std::string::npos) << past.err;
    EXPECT_FALSE(std::filesystem::exists(file("part3")));
}

TEST_F(Range, OnlyTheSegmentsOfTheRangeAreCheckedAndAStreamCutShortFailsAtItsEnd) {
    write_file(file("p"), random_bytes(6 * kSegment));
    const std::string options = " --mode gcm --segment-size 4K --key-file k16";
    ASSERT_EQ(run("$AESGPU encrypt -q" + options + " p -o c").status, 0);
    // A byte of segment 4's ciphertext changed. Segment 0 holds 4096 - 24 - 16 plaintext bytes, the
    // others 4096 - 16: segment 4's plaintext starts at byte 16296.
    Bytes changed = read_file(file("c"));
    const std::size_t segment_4 = (kSegment - 24) + 3 * kSegment + 100;
    changed[segment_4] ^= 0x01;
    write_file(file("d"), changed);
    EXPECT_EQ(compare_range(options, "d", "p", 100, 2 * kSegment), "") << "segments 0 to 2 are untouched";
    const Outcome inside = run("rm -f part; $AESGPU decrypt --range 16300:100" + options + " d -o part");
    EXPECT_EQ(inside.status, 1);
    EXPECT_NE(inside.err.find("authentication failed in segment 4"), std::string::npos) << inside.err;
    EXPECT_FALSE(std::filesystem::exists(file("part")));
    // Cut after segment 3: the new last segment was not made as the last, and its tag says so
    // where the range reaches the end; a range before it still reads.
    const std::size_t kept = (kSegment - 24) + 3 * kSegment + 24;
    write_file(file("cut"), Bytes(changed.begin(), changed.begin() + static_cast<std::ptrdiff_t>(kept)));
    const Outcome to_end = run("rm -f part; $AESGPU decrypt --range 10000:6296" + options + " cut -o part");
    EXPECT_EQ(to_end.status, 1) << to_end.err;
    EXPECT_NE(to_end.err.find("authentication failed in segment 3"), std::string::npos) << to_end.err;
    EXPECT_EQ(compare_range(options, "cut", "p", 10, 5000), "");
}

TEST_F(Range, WhatARangeCannotTakeIsRefusedBeforeAnyWork) {
    write_file(file("p"), Bytes(10000, 0x41)); // fixed: a random ECB file starts as GCM once in 256
    ASSERT_EQ(run("mkfifo fifo && $AESGPU encrypt -q --mode gcm --key-file k16 p -o c && $AESGPU encrypt -q -K " +
                  kKey128 + " p -o e")
                  .status,
              0);
    const struct {
        std::string arguments;
        int status;
        std::string message;
    } cases[] = {
        {"--range 9000:1001 --key-file k16 c -o part", 1,
         "past the plaintext's end (10000 bytes); nothing was written"},
        {"--range 0:10 --key-file k16 - -o part < <(cat c)", 2, "--range needs a file it can seek in"},
        {"--range 0:10 --key-file k16 c", 2, "give -o FILE or -c"},
        {"--range 0:10 --rm --key-file k16 c -o part", 2, "--rm would remove the rest"},
        {"--range 0:10 --mode ecb -K " + kKey128 + " e -o part", 2, "--range reads GCM files only, not --mode ecb"},
        {"--range 0:10 -K " + kKey128 + " e -o part", 2, "'e' reads as ECB"},
        {"--range 10 --key-file k16 c -o part", 2, "--range takes OFFSET:LENGTH"},
        {"--range 1Q:5 --key-file k16 c -o part", 2, "--range takes OFFSET:LENGTH"},
        {"--range 99999999999999999999999:1 --key-file k16 c -o part", 2, "below 2^64"},
        {"--range 18446744073709551615:2 --key-file k16 c -o part", 1,
         "the range 18446744073709551615:2 goes past the plaintext's end (10000 bytes)"},
        {"--range 0:10 --key-file k16 fifo -o part", 2, "'fifo' is a FIFO"},
    };
    for (const auto &[arguments, status, message] : cases) {
        SCOPED_TRACE(arguments);
        const Outcome r = run("timeout 20 $AESGPU decrypt " + arguments); // a FIFO's open would wait
        EXPECT_EQ(r.status, status) << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(file("part")));
    }
    EXPECT_NE(run("$AESGPU encrypt --range 0:1 --key-file k16 p -o x").err.find("--range"), std::string::npos)
        << "decrypt only";
}

} // namespace
} // namespace aesgpu::test
