// SPDX-License-Identifier: Apache-2.0
// What -v and the progress line say about a dispatcher's lanes: the words are the app's, composed
// from where each lane stands (Dispatcher::lanes_now).
#include "app/backend_log.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace aesgpu::test {
namespace {

const LaneNow kCpuStart{
    .name = "CPU", .takes_jobs = true, .gives_way = true, .description = "cpu (OpenSSL, 16 threads)"};

LaneNow coming(const std::string &name, int device) {
    return {.name = name, .device = device, .to_come = true};
}

LaneNow at_work(const std::string &name, int device, const std::string &description) {
    return {.name = name, .device = device, .takes_jobs = true, .description = description};
}

TEST(BackendLog, TheCpuStartNamesTheLanesItGivesWayTo) {
    // One GPU: "the GPU"; a numbered one as it is; several: the first of them.
    EXPECT_EQ(describe_lanes({kCpuStart, coming("GPU", 0)}), "cpu (OpenSSL, 16 threads) until the GPU is ready");
    EXPECT_EQ(describe_lanes({kCpuStart, coming("GPU 1", 1)}), "cpu (OpenSSL, 16 threads) until GPU 1 is ready");
    EXPECT_EQ(describe_lanes({kCpuStart, coming("GPU 0", 0), coming("GPU 1", 1), coming("GPU 2", 2)}),
              "cpu (OpenSSL, 16 threads) until the first of GPU 0, GPU 1 and GPU 2 is ready");
}

TEST(BackendLog, LanesAtWorkAreJoinedAndThoseStartingBesideThemSaidSo) {
    const LaneNow cpu_throughout{.name = "CPU", .takes_jobs = true, .description = "cpu (OpenSSL, 16 threads)"};
    const LaneNow gpu0 = at_work("GPU 0", 0, "gpu (NVIDIA H200, 4 streams)");
    EXPECT_EQ(describe_lanes({cpu_throughout, gpu0}), "cpu (OpenSSL, 16 threads) + gpu (NVIDIA H200, 4 streams)");
    EXPECT_EQ(describe_lanes({cpu_throughout, gpu0, coming("GPU 1", 1)}),
              "cpu (OpenSSL, 16 threads) + gpu (NVIDIA H200, 4 streams), with GPU 1 starting");
    EXPECT_EQ(active_lane_names({cpu_throughout, gpu0, coming("GPU 1", 1)}), "CPU+GPU 0");
}

TEST(BackendLog, NoLaneAtWorkIsWaitingOrHasFailed) {
    const LaneNow fallback{.name = "CPU"}; // takes jobs only if every GPU fails
    EXPECT_EQ(describe_lanes({fallback, coming("GPU 0", 0), coming("GPU 1", 1)}),
              "waiting for GPU 0 and GPU 1 to start");
    EXPECT_EQ(describe_lanes({fallback, LaneNow{.name = "GPU", .device = 0}}),
              "no backend (every one failed to start)");
    EXPECT_EQ(active_lane_names({fallback, coming("GPU 0", 0)}), "");
}

} // namespace
} // namespace aesgpu::test
