// SPDX-License-Identifier: Apache-2.0
// The backend choice, in process: what --backend cpu, gpu, auto and all build, with and without a
// GPU (this runs in CPU-only builds, in CUDA builds on machines with no GPU, and on GPU machines).
#include "aes_cpu/openssl_backend.hpp"
#include "aes_gpu/device_probe.hpp"
#include "aes_gpu/gpu_backend.hpp"
#include "engine/backend_selection.hpp"
#include "engine/pipeline.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace aesgpu::test {
namespace {

BackendRequest request(BackendChoice choice, bool wait_for_gpu = false) {
    BackendRequest r;
    r.choice = choice;
    r.wait_for_gpu = wait_for_gpu;
    r.cpu_threads = 2;
    return r;
}

bool gpu_usable() {
    static const bool usable = probe_gpus().usable();
    return usable;
}

// The lanes' names, as the selection gives them: "GPU" when there is one, "GPU 0", "GPU 1"... when
// there are several.
std::string gpu_lane(std::size_t index, std::size_t gpus) {
    return gpus == 1 ? "GPU" : "GPU " + std::to_string(index);
}

TEST(BackendSelection, CpuIsTheCpuAloneWithARingForItsThreads) {
    const Bytes key = random_bytes(16);
    for (const bool withdrawable : {true, false}) {
        const SelectedBackend selected =
            select_backend(request(BackendChoice::cpu), Direction::encrypt, key, withdrawable);
        EXPECT_EQ(selected.dispatcher, nullptr);
        EXPECT_NE(dynamic_cast<OpenSslBackend *>(selected.backend.get()), nullptr) << selected.backend->describe();
        EXPECT_EQ(selected.notes.cpu_instead, CpuInstead::no) << "asked for, not instead of a GPU";
        EXPECT_EQ(selected.notes.gpus, 0u);
        EXPECT_EQ(selected.file_chunk_bytes, kFileChunkBytes);
        EXPECT_EQ(selected.ring_slots, 5u) << "2 threads: two for the reader, one for the writer, two in the cipher";
    }
    BackendRequest many = request(BackendChoice::cpu);
    many.cpu_threads = 16;
    if (default_cpu_threads() >= 16) {
        EXPECT_EQ(select_backend(many, Direction::decrypt, key, true).ring_slots, 12u);
    }
    // Threads beyond the cores share them: they get no more ring (memory) than one thread a core.
    BackendRequest every = request(BackendChoice::cpu);
    every.cpu_threads = default_cpu_threads();
    BackendRequest too_many = request(BackendChoice::cpu);
    too_many.cpu_threads = 4 * default_cpu_threads();
    const std::size_t ring = select_backend(every, Direction::encrypt, key, true).ring_slots;
    EXPECT_EQ(select_backend(too_many, Direction::encrypt, key, true).ring_slots, ring);
    // And beside the GPUs, where the CPU's room adds to theirs.
    for (const BackendRequest &asked : {every, too_many}) {
        BackendRequest all = asked;
        all.choice = BackendChoice::all;
        const SelectedBackend selected = select_backend(all, Direction::encrypt, key, true);
        if (selected.dispatcher) {
            EXPECT_EQ(selected.ring_slots, 3 + cpu_jobs_at_once(default_cpu_threads(), kGpuFileChunkBytes) +
                                               std::size_t(gpu_device_count()) * kDefaultGpuStreams);
        }
    }
}

// What the bench judges every GPU and the CPU together against: the CPU as it runs beside them,
// alone, over the room it adds to their ring, and ciphering as OpenSSL does.
TEST(BackendSelection, TheCpuLaneAloneIsTheCpuAsItRunsBesideTheGpus) {
    const Bytes key = random_bytes(16);
    BackendRequest too_many = request(BackendChoice::all);
    too_many.cpu_threads = 4 * default_cpu_threads();
    const SelectedBackend lane = cpu_lane_alone(too_many, Direction::encrypt, key, 2);
    EXPECT_EQ(lane.dispatcher, nullptr);
    const auto *cpu = dynamic_cast<const OpenSslBackend *>(lane.backend.get());
    ASSERT_NE(cpu, nullptr) << lane.backend->describe();
    EXPECT_TRUE(cpu->posts_every_piece()) << "as the dispatcher's CPU lane: submit() returns at once";
    EXPECT_FALSE(dynamic_cast<const OpenSslBackend &>(
                     *select_backend(request(BackendChoice::cpu), Direction::encrypt, key, true).backend)
                     .posts_every_piece())
        << "--backend cpu: the submitting thread ciphers a piece";
    // The ring of the CPU and two GPUs together, as the row it is the part of.
    EXPECT_EQ(lane.ring_slots,
              3 + cpu_jobs_at_once(default_cpu_threads(), kGpuFileChunkBytes) + 2 * kDefaultGpuStreams);
    EXPECT_EQ(cpu_lane_alone(too_many, Direction::encrypt, key, 0).ring_slots,
              3 + cpu_jobs_at_once(default_cpu_threads(), kGpuFileChunkBytes));
    EXPECT_EQ(lane.file_chunk_bytes, kGpuFileChunkBytes);

    const Bytes plain = random_bytes(std::size_t{3} << 20);
    lane.backend->configure_slots(2, plain.size());
    std::memcpy(lane.backend->slot_buffer(1).data(), plain.data(), plain.size());
    lane.backend->submit({.slot = 1, .bytes = plain.size()});
    lane.backend->wait(1);
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, false, plain, expected));
    EXPECT_EQ(std::memcmp(lane.backend->slot_buffer(1).data(), expected.data(), plain.size()), 0);
}

TEST(BackendSelection, GpuStartsOnTheCpuOnlyWhereTheOutputCanBeWithdrawn) {
    if (!gpu_driver_found()) GTEST_SKIP() << "no CUDA build or no driver: see NoGpuSupportMeansTheCpuOrAClearError";
    const Bytes key = random_bytes(32);
    // To a file: the CPU ciphers while the GPUs start, over a ring sized for the GPUs' streams.
    const std::size_t gpus = static_cast<std::size_t>(gpu_device_count());
    const SelectedBackend file = select_backend(request(BackendChoice::gpu), Direction::encrypt, key, true);
    ASSERT_NE(file.dispatcher, nullptr);
    EXPECT_EQ(file.dispatcher, file.backend.get());
    if (gpus == 1) {
        EXPECT_EQ(file.ring_slots, gpu_ring_slots(kDefaultGpuStreams));
    }
    EXPECT_EQ(file.ring_slots, 3 + gpus * kDefaultGpuStreams);
    EXPECT_EQ(file.file_chunk_bytes, kGpuFileChunkBytes);
    EXPECT_EQ(file.backend->describe().rfind("cpu (OpenSSL", 0), 0u) << file.backend->describe();
    // The CPU starts the run, giving way to every GPU still to come.
    const std::vector<LaneNow> starting = file.dispatcher->lanes_now();
    ASSERT_EQ(starting.size(), 1 + gpus);
    EXPECT_TRUE(starting[0].takes_jobs && starting[0].gives_way);
    for (std::size_t i = 0; i < gpus; ++i) {
        EXPECT_EQ(starting[1 + i].name, gpu_lane(i, gpus));
        EXPECT_TRUE(starting[1 + i].to_come && !starting[1 + i].takes_jobs) << starting[1 + i].name;
    }
    // To a pipe, or asked to wait: the GPUs alone (one GPU as it is, several through a
    // dispatcher with no CPU lane), or a clear failure where there is none.
    for (const auto &[withdrawable, wait] : {std::pair{false, false}, std::pair{true, true}}) {
        if (gpu_usable()) {
            const SelectedBackend alone =
                select_backend(request(BackendChoice::gpu, wait), Direction::encrypt, key, withdrawable);
            if (gpus == 1) {
                EXPECT_EQ(alone.dispatcher, nullptr);
                EXPECT_EQ(alone.backend->describe().rfind("gpu (", 0), 0u) << alone.backend->describe();
            } else {
                ASSERT_NE(alone.dispatcher, nullptr);
                EXPECT_EQ(alone.dispatcher->report().size(), gpus) << "a CPU lane where the output cannot wait";
                EXPECT_EQ(alone.dispatcher->report().front().name, "GPU 0");
            }
        } else {
            try {
                (void)select_backend(request(BackendChoice::gpu, wait), Direction::encrypt, key, withdrawable);
                ADD_FAILURE() << "a GPU backend without a GPU";
            } catch (const GpuUnavailable &e) {
                EXPECT_EQ(std::string(e.what()).rfind("no usable CUDA device: ", 0), 0u) << e.what();
            }
        }
    }
}

TEST(BackendSelection, AutoStartsOnTheCpuAndMakesTheGpuOptional) {
    const Bytes key = random_bytes(24);
    const SelectedBackend selected = select_backend(request(BackendChoice::automatic), Direction::decrypt, key, false);
    if (!gpu_driver_found()) {
        // No CUDA build, or no NVIDIA driver: the CPU alone, with no GPU to start for every file,
        // and the reason in the notes for the caller to tell (the engine logs nothing).
        EXPECT_EQ(selected.dispatcher, nullptr);
        EXPECT_NE(dynamic_cast<OpenSslBackend *>(selected.backend.get()), nullptr);
        EXPECT_EQ(selected.notes.cpu_instead, CpuInstead::no_gpu);
        EXPECT_EQ(selected.notes.cpu_reason,
                  gpu_support_built_in() ? kNoDriverMessage : "this aesgpu was built without CUDA support");
        return;
    }
    EXPECT_EQ(selected.notes.cpu_instead, CpuInstead::no);
    EXPECT_EQ(selected.notes.gpus, static_cast<std::size_t>(gpu_device_count()));
    EXPECT_EQ(selected.notes.cpu_share, LaneShare::throughout) << "auto keeps the CPU beside the GPUs";
    // Even to a pipe: a GPU that fails to start leaves the run to the CPU, so nothing needs taking back.
    ASSERT_NE(selected.dispatcher, nullptr);
    selected.backend->configure_slots(2, 4096);
    selected.dispatcher->await_lanes();
    selected.backend->finish(); // an optional lane that failed is not the run's failure
    const std::vector<LaneReport> lanes = selected.dispatcher->report();
    ASSERT_EQ(lanes.size(), 1 + static_cast<std::size_t>(gpu_device_count()));
    EXPECT_EQ(lanes[0].name, "CPU");
    for (std::size_t i = 1; i < lanes.size(); ++i) EXPECT_EQ(lanes[i].ready, gpu_usable()) << lanes[i].failure;
}

TEST(BackendSelection, AllIsEveryGpuAndTheCpuThroughoutOrTheCpuAlone) {
    const Bytes key = random_bytes(16);
    const SelectedBackend selected = select_backend(request(BackendChoice::all), Direction::encrypt, key, false);
    if (!gpu_usable()) {
        EXPECT_EQ(selected.dispatcher, nullptr);
        EXPECT_NE(dynamic_cast<OpenSslBackend *>(selected.backend.get()), nullptr) << selected.backend->describe();
        return;
    }
    ASSERT_NE(selected.dispatcher, nullptr);
    const std::size_t gpus = static_cast<std::size_t>(gpu_device_count());
    // Room for the pipeline's own three slots, the CPU's jobs (2 threads: 8 MiB in 2 pieces, so one
    // job and one queued) and every GPU's streams.
    EXPECT_EQ(selected.ring_slots, 3 + 2 + gpus * kDefaultGpuStreams);
    selected.backend->configure_slots(selected.ring_slots, 1u << 20);
    selected.dispatcher->await_lanes();
    const std::vector<LaneReport> lanes = selected.dispatcher->report();
    ASSERT_EQ(lanes.size(), 1 + gpus);
    EXPECT_EQ(lanes[0].name, "CPU");
    std::string every = "CPU";
    for (std::size_t i = 0; i < gpus; ++i) {
        EXPECT_EQ(lanes[1 + i].name, gpu_lane(i, gpus));
        every += "+" + gpu_lane(i, gpus);
    }
    for (const LaneReport &lane : lanes) EXPECT_TRUE(lane.ready) << lane.name << ": " << lane.failure;
    // All take jobs: the CPU does not give way once the GPUs are ready.
    std::string taking;
    for (const LaneNow &lane : selected.dispatcher->lanes_now()) {
        if (lane.takes_jobs) taking += (taking.empty() ? "" : "+") + lane.name;
    }
    EXPECT_EQ(taking, every);
}

// auto and a file of one chunk: the CPU alone, without asking for a driver (a GPU's start costs
// more than the file). Not for a larger file, nor where GPUs are named or waited for.
TEST(BackendSelection, AutoCiphersAFileOfOneChunkOnTheCpuAlone) {
    const Bytes key = random_bytes(16);
    BackendRequest small = request(BackendChoice::automatic);
    small.input_bytes = kFileChunkBytes;
    const SelectedBackend selected = select_backend(small, Direction::encrypt, key, true);
    EXPECT_NE(dynamic_cast<OpenSslBackend *>(selected.backend.get()), nullptr);
    EXPECT_EQ(selected.notes.cpu_instead, CpuInstead::small_input);
    EXPECT_EQ(selected.notes.gpus, 0u);
    BackendRequest larger = small;
    larger.input_bytes = kFileChunkBytes + 1;
    EXPECT_NE(select_backend(larger, Direction::encrypt, key, true).notes.cpu_instead, CpuInstead::small_input);
    BackendRequest waited = small;
    waited.wait_for_gpu = true;
    BackendRequest named = small;
    named.devices = {0};
    BackendRequest all = small;
    all.choice = BackendChoice::all;
    for (const BackendRequest &other : {waited, all}) {
        EXPECT_NE(select_backend(other, Direction::encrypt, key, true).notes.cpu_instead, CpuInstead::small_input);
    }
    if (!gpu_usable()) {
        EXPECT_THROW((void)select_backend(named, Direction::encrypt, key, true), GpuUnavailable);
    }
}

TEST(BackendSelection, AutoIsNamedByItsLanesAsTheJsonSummariesNameThem) {
    // `aesgpu info` says what auto runs on; a run's --json says what it ran on: the same names.
    EXPECT_EQ(auto_lane_names({}), "cpu");
    EXPECT_EQ(auto_lane_names({0}), "cpu+gpu");
    EXPECT_EQ(auto_lane_names({0, 1}), "cpu+gpu0+gpu1");
    EXPECT_EQ(auto_lane_names({1, 3}), "cpu+gpu1+gpu3");
    EXPECT_EQ(lane_key(gpu_lane_name(12, 16)), "gpu12");
    EXPECT_EQ(lane_key("CPU"), "cpu");
}

TEST(BackendSelection, DevicesThatAreNotThereAreAClearError) {
    if (!gpu_driver_found()) GTEST_SKIP() << "no CUDA build or no driver: no device numbers to check";
    const Bytes key = random_bytes(16);
    BackendRequest missing = request(BackendChoice::gpu);
    missing.devices = {0, 63};
    // select_backend, and the check before a run (which says the same).
    for (const bool check_only : {false, true}) {
        try {
            if (check_only) {
                check_required_backend(missing);
            } else {
                (void)select_backend(missing, Direction::encrypt, key, true);
            }
            ADD_FAILURE() << "a GPU backend on a device that is not there";
        } catch (const GpuUnavailable &e) {
            EXPECT_EQ(std::string(e.what()).rfind("no usable CUDA device: ", 0), 0u) << e.what();
            if (gpu_usable()) {
                EXPECT_NE(std::string(e.what()).find("no CUDA device 63 (found "), std::string::npos) << e.what();
            }
        }
    }
    // auto and all too: a GPU named is required (the CPU stands in only for none named).
    for (const BackendChoice choice : {BackendChoice::all, BackendChoice::automatic}) {
        missing.choice = choice;
        EXPECT_THROW((void)select_backend(missing, Direction::encrypt, key, true), GpuUnavailable);
        EXPECT_THROW(check_required_backend(missing), GpuUnavailable);
    }
}

TEST(BackendSelection, NoGpuSupportMeansTheCpuOrAClearError) {
    if (gpu_usable()) GTEST_SKIP() << "a GPU is usable here";
    EXPECT_THROW(check_required_backend(request(BackendChoice::gpu)), GpuUnavailable);
    EXPECT_NO_THROW(check_required_backend(request(BackendChoice::cpu)));
    EXPECT_NO_THROW(check_required_backend(request(BackendChoice::automatic)));
    // A GPU named is required with any choice: here none is there to be had.
    for (const BackendChoice choice : {BackendChoice::automatic, BackendChoice::all}) {
        BackendRequest named = request(choice);
        named.devices = {0};
        EXPECT_THROW(check_required_backend(named), GpuUnavailable);
        EXPECT_THROW((void)select_backend(named, Direction::encrypt, random_bytes(16), true), GpuUnavailable);
    }
    if (gpu_driver_found()) return; // a driver but no usable device: the CPU start, covered above
    const Bytes key = random_bytes(16);
    try {
        (void)select_backend(request(BackendChoice::gpu), Direction::encrypt, key, true);
        ADD_FAILURE() << "a GPU backend in a build without CUDA";
    } catch (const GpuUnavailable &e) {
        // Says which of the two it is, not CUDA's "driver version is insufficient".
        EXPECT_STREQ(e.what(), gpu_support_built_in()
                                   ? "no usable CUDA device: no NVIDIA driver found"
                                   : "no usable CUDA device: this aesgpu was built without CUDA support");
    }
}

} // namespace
} // namespace aesgpu::test
