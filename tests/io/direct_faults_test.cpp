// SPDX-License-Identifier: Apache-2.0
// A disk that fills or fails in the middle of a direct run, on either engine: no preload library
// sees io_uring's requests, so the fault comes from a queue put in front of the real one. The run
// fails with the error's own words, nothing is put in place, no temporary is left, and the input
// is as it was.
#include "aes_cpu/openssl_backend.hpp"
#include "common/errors.hpp"
#include "io/direct_io.hpp"
#include "io/direct_requests.hpp"
#include "io/file_job.hpp"
#include "support/test_support.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace aesgpu::test {
namespace {

// Runs requests on `inner` while they fit in `budget` bytes; the one that crosses it and every
// later one fail with `error` without being submitted, as a disk that filled or failed there.
class FailingQueue final : public DirectRequestQueue {
public:
    FailingQueue(std::unique_ptr<DirectRequestQueue> inner, std::size_t budget, int error)
        : inner_(std::move(inner)), budget_(budget), error_(error) {}

    void run(DirectOp op, int fd, std::span<const DirectRequest> requests, std::span<DirectResult> results) override {
        std::size_t fitting = 0;
        while (fitting < requests.size() && requests[fitting].length <= budget_) budget_ -= requests[fitting++].length;
        inner_->run(op, fd, requests.first(fitting), results.first(fitting));
        for (std::size_t i = fitting; i < requests.size(); ++i) results[i] = DirectResult{0, error_};
        if (fitting < requests.size()) budget_ = 0;
    }
    [[nodiscard]] unsigned depth() const override { return inner_->depth(); }
    [[nodiscard]] const char *engine() const override { return inner_->engine(); }

private:
    std::unique_ptr<DirectRequestQueue> inner_;
    std::size_t budget_;
    int error_;
};

struct Fault {
    DirectOp side;
    int error;
};

class DirectFaults : public testing::TestWithParam<std::tuple<DirectEngine, Fault>> {
protected:
    void SetUp() override {
        if (!make_direct_queue(engine()).queue) GTEST_SKIP() << "no io_uring here";
        write_file(dir.file("probe"), random_bytes(4096));
        if (!open_direct(dir.file("probe"), O_RDONLY).valid()) GTEST_SKIP() << "this file system refuses O_DIRECT";
    }
    [[nodiscard]] DirectEngine engine() const { return std::get<0>(GetParam()); }
    [[nodiscard]] Fault fault() const { return std::get<1>(GetParam()); }

    // The engine's queue, failing after `budget` bytes where `side` is the fault's side.
    [[nodiscard]] DirectQueueMaker maker(DirectOp side, std::size_t budget) const {
        return [this, side, budget] {
            DirectQueue made = make_direct_queue(engine());
            if (side == fault().side) {
                made.queue = std::make_unique<FailingQueue>(std::move(made.queue), budget, fault().error);
            }
            return made;
        };
    }

    TempDir dir;
};

TEST_P(DirectFaults, MidRunTheErrorIsToldAndNothingIsLeft) {
    constexpr std::size_t kChunk = 1 << 20;
    const Bytes plain = random_bytes(6 * kChunk + 4096 + 7);
    write_file(dir.file("in"), plain);

    InputSource source = InputSource::open(dir.file("in"));
    ASSERT_EQ(source.read_directly(maker(DirectOp::read, 3 * kChunk + kChunk / 2)), std::nullopt);
    bool failed = false;
    {
        OutputSink sink = OutputSink::create(dir.file("out"), {});
        ASSERT_EQ(sink.write_directly(maker(DirectOp::write, 2 * kChunk + kChunk / 2)), std::nullopt);
        EXPECT_STREQ(sink.direct_queue()->queue->engine(), engine() == DirectEngine::io_uring ? "io_uring" : "threads");
        OpenSslBackend backend(random_bytes(16), Direction::encrypt, 2);
        FileJob job{source, sink, PipelineOptions{Direction::encrypt, Framing::pkcs7, kChunk, 3}};
        try {
            (void)run_file_job(job, backend);
        } catch (const IoError &e) {
            failed = true;
            const std::string want = std::string(fault().side == DirectOp::read ? "error reading" : "error writing") +
                                     " '" + dir.file(fault().side == DirectOp::read ? "in" : "out") +
                                     "': " + std::strerror(fault().error);
            EXPECT_EQ(std::string(e.what()), want);
        }
    }
    EXPECT_TRUE(failed) << "a run whose disk failed went through";
    EXPECT_EQ(count_entries(dir.path()), 2u) << "an output or a temporary was left";
    EXPECT_TRUE(read_file(dir.file("in")) == plain);
}

INSTANTIATE_TEST_SUITE_P(
    EnginesAndFaults, DirectFaults,
    testing::Combine(testing::Values(DirectEngine::io_uring, DirectEngine::threads),
                     testing::Values(Fault{DirectOp::write, ENOSPC}, Fault{DirectOp::write, EIO},
                                     Fault{DirectOp::read, EIO})),
    [](const testing::TestParamInfo<std::tuple<DirectEngine, Fault>> &parameters) {
        const Fault fault = std::get<1>(parameters.param);
        return std::string(std::get<0>(parameters.param) == DirectEngine::io_uring ? "IoUring" : "Threads") +
               (fault.side == DirectOp::read ? "Read" : "Write") + (fault.error == ENOSPC ? "NoSpace" : "IoError");
    });

} // namespace
} // namespace aesgpu::test
