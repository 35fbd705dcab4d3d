// SPDX-License-Identifier: Apache-2.0
// Both engines of DirectRequestQueue, io_uring and threads, held to the same contract: every
// request run to its end, more of them than are in flight at once, short reads at the end of the
// file, refusals (EINVAL) and errors told per request, nothing left in flight on return.
#include "io/direct_requests.hpp"

#include "io/direct_io.hpp"
#include "support/test_support.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace aesgpu::test {
namespace {

constexpr std::size_t kPage = 4096;

struct AlignedBuffer {
    explicit AlignedBuffer(std::size_t bytes)
        : data(static_cast<std::byte *>(std::aligned_alloc(kPage, (bytes + kPage - 1) / kPage * kPage)), &std::free) {
        std::memset(data.get(), 0, bytes);
    }
    std::unique_ptr<std::byte, decltype(&std::free)> data;
};

class DirectRequests : public testing::TestWithParam<DirectEngine> {
protected:
    void SetUp() override {
        DirectQueue made = make_direct_queue(GetParam());
        if (!made.queue) GTEST_SKIP() << "no io_uring here: " << made.why_not_io_uring;
        queue = std::move(made.queue);
        write_file(dir.file("probe"), random_bytes(kPage));
        if (!open_direct(dir.file("probe"), O_RDONLY).valid()) GTEST_SKIP() << "this file system refuses O_DIRECT";
    }

    // Requests of `piece` bytes over [0, bytes) of `buffer`, at the same file offsets.
    static std::vector<DirectRequest> cut(std::byte *buffer, std::size_t bytes, std::size_t piece) {
        std::vector<DirectRequest> requests;
        for (std::size_t at = 0; at < bytes; at += piece) {
            requests.push_back({buffer + at, std::min(piece, bytes - at), static_cast<off_t>(at)});
        }
        return requests;
    }

    TempDir dir;
    std::unique_ptr<DirectRequestQueue> queue;
};

TEST_P(DirectRequests, ReadsManyMoreRequestsThanAreInFlightAndStopAtTheEndOfTheFile) {
    // 40 pieces of 16 KiB, the file ending 1000 bytes into the 31st: the rest read nothing.
    const std::size_t piece = 4 * kPage;
    const Bytes data = random_bytes(30 * piece + 1000);
    write_file(dir.file("f"), data);
    const UniqueFd fd = open_direct(dir.file("f"), O_RDONLY);
    ASSERT_TRUE(fd.valid());
    const AlignedBuffer buffer(40 * piece);
    const std::vector<DirectRequest> requests = cut(buffer.data.get(), 40 * piece, piece);
    ASSERT_GT(requests.size(), queue->depth());
    std::vector<DirectResult> results(requests.size(), DirectResult{99, 99});
    queue->run(DirectOp::read, fd.get(), requests, results);
    for (std::size_t i = 0; i < 30; ++i) {
        EXPECT_EQ(results[i].done, piece) << i;
        EXPECT_EQ(results[i].error, 0) << i;
    }
    // The piece the file ends in: what there was, then the unaligned rest refused or an end.
    EXPECT_EQ(results[30].done, 1000u);
    EXPECT_TRUE(results[30].error == 0 || results[30].error == EINVAL) << results[30].error;
    for (std::size_t i = 31; i < 40; ++i) {
        EXPECT_EQ(results[i].done, 0u) << i;
        EXPECT_EQ(results[i].error, 0) << i;
    }
    EXPECT_EQ(std::memcmp(buffer.data.get(), data.data(), data.size()), 0);
}

TEST_P(DirectRequests, WritesEveryRequestWhole) {
    const std::size_t piece = 64 * kPage;
    const Bytes data = random_bytes(37 * piece);
    const AlignedBuffer buffer(data.size());
    std::memcpy(buffer.data.get(), data.data(), data.size());
    const UniqueFd fd = open_direct(dir.file("out"), O_WRONLY | O_CREAT);
    ASSERT_TRUE(fd.valid());
    const std::vector<DirectRequest> requests = cut(buffer.data.get(), data.size(), piece);
    std::vector<DirectResult> results(requests.size());
    queue->run(DirectOp::write, fd.get(), requests, results);
    for (std::size_t i = 0; i < results.size(); ++i) {
        EXPECT_EQ(results[i].done, piece) << i;
        EXPECT_EQ(results[i].error, 0) << i;
    }
    EXPECT_TRUE(read_file(dir.file("out")) == data);
}

TEST_P(DirectRequests, ARefusedOrFailedRequestIsToldAndTheOthersStillRun) {
    const Bytes data = random_bytes(8 * kPage);
    write_file(dir.file("f"), data);
    const UniqueFd fd = open_direct(dir.file("f"), O_RDONLY);
    ASSERT_TRUE(fd.valid());
    const AlignedBuffer buffer(9 * kPage);
    std::vector<DirectRequest> requests = cut(buffer.data.get(), 8 * kPage, 2 * kPage);
    requests[1].data += 1; // a misaligned buffer: O_DIRECT refuses it
    std::vector<DirectResult> results(requests.size());
    queue->run(DirectOp::read, fd.get(), requests, results);
    EXPECT_EQ(results[1].done, 0u);
    EXPECT_EQ(results[1].error, EINVAL);
    for (const std::size_t i : {0u, 2u, 3u}) {
        EXPECT_EQ(results[i].done, 2 * kPage) << i;
        EXPECT_EQ(results[i].error, 0) << i;
        EXPECT_EQ(std::memcmp(requests[i].data, data.data() + requests[i].offset, 2 * kPage), 0) << i;
    }
    // Reads from a descriptor open for writing only: each request says so.
    const UniqueFd write_only(::open(dir.file("f").c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC));
    ASSERT_TRUE(write_only.valid());
    requests[1].data -= 1;
    queue->run(DirectOp::read, write_only.get(), requests, results);
    for (const DirectResult &result : results) EXPECT_EQ(result.error, EBADF);
}

INSTANTIATE_TEST_SUITE_P(Engines, DirectRequests, testing::Values(DirectEngine::io_uring, DirectEngine::threads),
                         [](const testing::TestParamInfo<DirectEngine> &engine) {
                             return engine.param == DirectEngine::io_uring ? "IoUring" : "Threads";
                         });

TEST(DirectQueueChoice, AutomaticTakesIoUringWhereItIsBuiltAndAllowedElseThreadsAndSaysWhy) {
    const DirectQueue automatic = make_direct_queue(DirectEngine::automatic);
    ASSERT_TRUE(automatic.queue);
    const DirectQueue only_io_uring = make_direct_queue(DirectEngine::io_uring);
    if (only_io_uring.queue) {
        EXPECT_STREQ(automatic.queue->engine(), "io_uring");
        EXPECT_EQ(automatic.queue->depth(), kDirectIoDepth);
        EXPECT_TRUE(io_uring_built());
    } else {
        EXPECT_STREQ(automatic.queue->engine(), "threads");
        EXPECT_EQ(automatic.why_not_io_uring, only_io_uring.why_not_io_uring);
        EXPECT_FALSE(automatic.why_not_io_uring.empty());
    }
    const DirectQueue threads = make_direct_queue(DirectEngine::threads);
    EXPECT_STREQ(threads.queue->engine(), "threads");
    EXPECT_EQ(threads.queue->depth(), kDirectIoStreams);
}

} // namespace
} // namespace aesgpu::test
