// SPDX-License-Identifier: Apache-2.0
// A disk that fills or fails in the middle of a direct run, on either engine: no preload library
// sees io_uring's requests, so the fault comes from a queue put in front of the real one
// (support/budget_queue.hpp). The run
// fails with the error's own words, nothing is put in place, no temporary is left, and the input
// is as it was.
#include "aes_cpu/openssl_backend.hpp"
#include "common/errors.hpp"
#include "io/direct_io.hpp"
#include "io/direct_requests.hpp"
#include "job/file_job.hpp"
#include "support/budget_queue.hpp"
#include "support/test_support.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace aesgpu::test {
namespace {

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
                made.queue = std::make_unique<BudgetQueue>(std::move(made.queue), budget, fault().error);
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

INSTANTIATE_TEST_SUITE_P(EnginesAndFaults, DirectFaults,
                         testing::Combine(testing::Values(DirectEngine::io_uring, DirectEngine::threads),
                                          testing::Values(Fault{DirectOp::write, ENOSPC}, Fault{DirectOp::write, EIO},
                                                          Fault{DirectOp::read, EIO})),
                         [](const testing::TestParamInfo<std::tuple<DirectEngine, Fault>> &parameters) {
                             const Fault fault = std::get<1>(parameters.param);
                             return std::string(std::get<0>(parameters.param) == DirectEngine::io_uring ? "IoUring"
                                                                                                        : "Threads") +
                                    (fault.side == DirectOp::read ? "Read" : "Write") +
                                    (fault.error == ENOSPC ? "NoSpace" : "IoError");
                         });

} // namespace
} // namespace aesgpu::test
