// SPDX-License-Identifier: Apache-2.0
// The dispatcher: jobs spread over lanes that work over its one ring, each job to the lane expected
// to finish it first; a lane that only starts the run (the CPU start) gives way once another is
// ready; output always matches OpenSSL. The other lanes here are OpenSSL too (stand-ins for the
// GPUs, so this runs everywhere): started behind a gate the test opens, or paced to run at a speed
// the test sets.
#include "aes_cpu/evp_cipher.hpp"
#include "aes_cpu/openssl_backend.hpp"
#include "common/errors.hpp"
#include "engine/dispatcher.hpp"
#include "engine/pipeline.hpp"
#include "io/input_source.hpp"
#include "io/output_sink.hpp"
#include "support/allocation_hooks.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <initializer_list>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace aesgpu::test {
namespace {

// Ciphers in place in buffers someone else owns, as the GPU backend does over the CPU's ring.
class AdoptingBackend final : public CipherBackend {
public:
    AdoptingBackend(const Bytes &key, Direction direction, std::vector<std::span<std::byte>> buffers,
                    std::atomic<int> &alive)
        : cipher_(key, direction), buffers_(std::move(buffers)), alive_(alive) {
        ++alive_;
    }
    ~AdoptingBackend() override { --alive_; }

    std::string describe() const override { return "successor (test)"; }
    void configure_slots(std::size_t, std::size_t) override { throw std::logic_error("the ring is adopted"); }
    void adopt_slots(std::span<const std::span<std::byte>>) override { throw std::logic_error("adopted once"); }
    std::span<std::byte> slot_buffer(std::size_t slot) override { return ring_slot(buffers_, slot); }
    void submit(const CipherJob &job) override {
        const auto data = ring_slot(buffers_, job.slot).first(job.bytes);
        cipher_.transform(data, data);
        ++jobs;
    }
    int jobs = 0;
    void wait(std::size_t) override {}

private:
    EvpAesCipher cipher_;
    std::vector<std::span<std::byte>> buffers_;
    std::atomic<int> &alive_;
};

// A successor whose start-up blocks until open() (or fails on it, when told to).
class GatedStart {
public:
    GatedStart(Bytes key, Direction direction, bool fails = false)
        : key_(std::move(key)), direction_(direction), fails_(fails), gate_(opened_.get_future().share()) {}
    ~GatedStart() { open(); }

    LaneStart start() {
        return [this](std::span<const std::span<std::byte>> ring) -> std::unique_ptr<CipherBackend> {
            ++starts_;
            std::vector<std::span<std::byte>> buffers(ring.begin(), ring.end());
            handed_buffers_ = buffers;
            gate_.wait();
            if (fails_) throw std::runtime_error("no usable CUDA device: injected");
            ++created_;
            return std::make_unique<AdoptingBackend>(key_, direction_, std::move(buffers), alive_);
        };
    }
    void open() {
        if (!is_open_.exchange(true)) opened_.set_value();
    }

    std::atomic<int> starts_{0};
    std::atomic<int> created_{0};
    std::atomic<int> alive_{0};
    std::vector<std::span<std::byte>> handed_buffers_;

private:
    Bytes key_;
    Direction direction_;
    bool fails_;
    std::atomic<bool> is_open_{false};
    std::promise<void> opened_;
    std::shared_future<void> gate_;
};

constexpr std::size_t kChunk = 4096;
constexpr std::size_t kSlots = 3;

// The CPU, ready from the start, taking jobs as `share` says.
DispatcherLane cpu_lane(const Bytes &key, Direction direction, LaneShare share = LaneShare::until_another_is_ready,
                        unsigned threads = 2) {
    return {
        .name = "CPU", .start = {}, .ready = std::make_unique<OpenSslBackend>(key, direction, threads), .share = share};
}

std::vector<DispatcherLane> lanes_of(DispatcherLane first, DispatcherLane second) {
    std::vector<DispatcherLane> lanes;
    lanes.push_back(std::move(first));
    lanes.push_back(std::move(second));
    return lanes;
}

// The CPU lane first, then one lane per gate, named as given.
std::vector<DispatcherLane> cpu_then_gated(DispatcherLane cpu,
                                           std::initializer_list<std::pair<const char *, GatedStart *>> gated,
                                           LanePolicy policy = LanePolicy::required) {
    std::vector<DispatcherLane> lanes;
    lanes.push_back(std::move(cpu));
    for (const auto &[name, gate] : gated) lanes.push_back({.name = name, .start = gate->start(), .policy = policy});
    return lanes;
}

// The CPU start: the CPU until the successor is ready. Opens the gate before the backend goes, so
// a failing test cannot hang in the destructor.
struct Handover {
    Handover(const Bytes &key, Direction direction, GatedStart &gated, LanePolicy policy,
             LaneShare cpu_share = LaneShare::until_another_is_ready)
        : gate(gated), backend(lanes_of(cpu_lane(key, direction, cpu_share),
                                        {.name = "successor", .start = gated.start(), .policy = policy})) {}
    ~Handover() { gate.open(); }
    // Lets the successor start and waits until it is ready (or failed).
    void let_successor_start() {
        gate.open();
        backend.await_lanes();
    }
    GatedStart &gate;
    Dispatcher backend;
};

// The names of the lanes that take jobs now, or that are still to come, joined by '+'.
std::string names_where(const std::vector<LaneNow> &lanes, bool LaneNow::*flag) {
    std::string names;
    for (const LaneNow &lane : lanes) {
        if (lane.*flag) names += (names.empty() ? "" : "+") + lane.name;
    }
    return names;
}
std::string taking(const Dispatcher &backend) {
    return names_where(backend.lanes_now(), &LaneNow::takes_jobs);
}
std::string to_come(const Dispatcher &backend) {
    return names_where(backend.lanes_now(), &LaneNow::to_come);
}

// Runs `input` through the pipeline; `at_progress(done)` runs on the writer thread after each chunk.
Bytes run(Dispatcher &backend, Direction direction, const Bytes &input,
          std::function<void(std::uint64_t)> at_progress) {
    PipelineOptions options{direction, Framing::pkcs7, kChunk, kSlots};
    options.on_progress = std::move(at_progress);
    return run_pipeline_on_files(backend, input, options);
}

// With two GPUs starting, the CPU start shows both as to come: the first ready takes over (the
// x2 host said "until the GPU 0 is ready" while GPU 1 was the first).
TEST(Dispatcher, TheCpuStartShowsEveryLaneItWaitsFor) {
    const Bytes key = random_bytes(16);
    GatedStart first(key, Direction::encrypt), second(key, Direction::encrypt);
    Dispatcher backend(cpu_then_gated(cpu_lane(key, Direction::encrypt), {{"GPU 0", &first}, {"GPU 1", &second}}));
    const std::vector<LaneNow> starting = backend.lanes_now();
    ASSERT_EQ(starting.size(), 3u);
    EXPECT_TRUE(starting[0].takes_jobs && starting[0].gives_way);
    EXPECT_EQ(starting[0].description.rfind("cpu (OpenSSL", 0), 0u) << starting[0].description;
    EXPECT_EQ(backend.describe(), starting[0].description);
    EXPECT_EQ(to_come(backend), "GPU 0+GPU 1");
    backend.configure_slots(kSlots, kChunk);
    first.open();
    second.open();
    backend.await_lanes();
    EXPECT_EQ(backend.describe(), "successor (test) + successor (test)");
    EXPECT_EQ(taking(backend), "GPU 0+GPU 1");
    EXPECT_EQ(to_come(backend), "");
}

// A lane that failed to start is no longer to come; a CPU that takes jobs only if every GPU fails
// is no lane at work while they are still to start.
TEST(Dispatcher, TheLanesToComeAreTheOnesStillStarting) {
    const Bytes key = random_bytes(16);
    {
        GatedStart failing(key, Direction::encrypt, true), second(key, Direction::encrypt);
        Dispatcher backend(cpu_then_gated(cpu_lane(key, Direction::encrypt), {{"GPU 0", &failing}, {"GPU 1", &second}},
                                          LanePolicy::optional));
        backend.configure_slots(kSlots, kChunk);
        failing.open();
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (backend.report()[1].failure.empty() && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::yield();
        }
        const std::string one_left = to_come(backend);
        const std::string at_work = taking(backend);
        second.open();
        EXPECT_EQ(one_left, "GPU 1");
        EXPECT_EQ(at_work, "CPU");
        backend.await_lanes();
    }
    GatedStart first(key, Direction::encrypt), second(key, Direction::encrypt);
    Dispatcher backend(cpu_then_gated(cpu_lane(key, Direction::encrypt, LaneShare::fallback),
                                      {{"GPU 0", &first}, {"GPU 1", &second}}, LanePolicy::optional));
    EXPECT_EQ(taking(backend), "");
    EXPECT_EQ(to_come(backend), "GPU 0+GPU 1");
    EXPECT_EQ(backend.describe(), "");
}

TEST(Dispatcher, TakesOverMidRunAndTheOutputMatchesOpenSsl) {
    for (const auto direction : {Direction::encrypt, Direction::decrypt}) {
        SCOPED_TRACE(direction == Direction::encrypt ? "encrypt" : "decrypt");
        const Bytes key = random_bytes(32);
        const Bytes plain = random_bytes(40 * kChunk + 7);
        Bytes cipher;
        ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, cipher));
        const Bytes &input = direction == Direction::encrypt ? plain : cipher;
        const Bytes &expected = direction == Direction::encrypt ? cipher : plain;

        GatedStart gate(key, direction);
        Handover handover(key, direction, gate, LanePolicy::required);
        EXPECT_EQ(taking(handover.backend), handover.backend.lanes_now()[0].name);
        EXPECT_TRUE(handover.backend.lanes_now()[0].gives_way);
        EXPECT_EQ(to_come(handover.backend), "successor");
        // After the first chunk is out, let the successor start and wait until it is ready: every
        // chunk submitted from then on must go to it.
        const Bytes output = run(handover.backend, direction, input, [&](std::uint64_t done) {
            if (done == kChunk) handover.let_successor_start();
        });
        EXPECT_TRUE(output == expected);

        const std::vector<LaneReport> report = handover.backend.report();
        EXPECT_TRUE(report[1].ready);
        EXPECT_EQ(report[1].description, "successor (test)");
        EXPECT_GE(report[0].bytes, kChunk);
        EXPECT_LE(report[0].bytes, (kSlots + 1) * kChunk); // the ring's worth at most
        EXPECT_GT(report[1].bytes, 30 * kChunk);
        EXPECT_EQ(report[0].bytes + report[1].bytes, cipher.size());
        EXPECT_EQ(handover.backend.describe(), "successor (test)");
        // The successor worked in the first backend's own buffers.
        ASSERT_EQ(gate.handed_buffers_.size(), kSlots);
        for (std::size_t slot = 0; slot < kSlots; ++slot) {
            EXPECT_EQ(gate.handed_buffers_[slot].data(), handover.backend.slot_buffer(slot).data());
            EXPECT_EQ(gate.handed_buffers_[slot].size(), handover.backend.slot_buffer(slot).size());
        }
    }
}

TEST(Dispatcher, InputThatEndsFirstStaysOnTheFirstBackendAndWaitsForTheStart) {
    const Bytes key = random_bytes(16);
    const Bytes plain = random_bytes(2 * kChunk + 1);
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, expected));
    GatedStart gate(key, Direction::encrypt);
    Handover handover(key, Direction::encrypt, gate, LanePolicy::required);
    // The gate opens only once every byte is written; the run still ends with the start-up ended.
    const Bytes output = run(handover.backend, Direction::encrypt, plain, [&](std::uint64_t done) {
        if (done == plain.size()) gate.open();
    });
    EXPECT_TRUE(output == expected);
    const std::vector<LaneReport> report = handover.backend.report();
    EXPECT_TRUE(report[1].ready);
    EXPECT_EQ(report[0].bytes, expected.size());
    EXPECT_EQ(report[1].bytes, 0u);
}

TEST(Dispatcher, RequiredSuccessorThatFailsFailsTheRun) {
    const Bytes key = random_bytes(16);
    for (const std::size_t size : {std::size_t{100}, 40 * kChunk}) {
        SCOPED_TRACE("size " + std::to_string(size));
        GatedStart gate(key, Direction::encrypt, /*fails=*/true);
        Handover handover(key, Direction::encrypt, gate, LanePolicy::required);
        TempDir dir;
        write_file(dir.file("in"), random_bytes(size));
        {
            InputSource source = InputSource::open(dir.file("in"));
            OutputSink sink = OutputSink::create(dir.file("out"), {});
            PipelineOptions options{Direction::encrypt, Framing::pkcs7, kChunk, kSlots};
            // Small input: the failure shows at the end of the run. Large: at the next submit.
            options.on_progress = [&](std::uint64_t) { handover.let_successor_start(); };
            try {
                run_pipeline(source, sink, handover.backend, options);
                ADD_FAILURE() << "the run succeeded without its required successor";
            } catch (const std::runtime_error &e) {
                EXPECT_STREQ(e.what(), "no usable CUDA device: injected");
            }
        }
        EXPECT_EQ(count_entries(dir.path()), 1u) << "output left behind";
        const std::vector<LaneReport> report = handover.backend.report();
        EXPECT_FALSE(report[1].ready);
        EXPECT_EQ(report[1].failure, "no usable CUDA device: injected");
        EXPECT_EQ(report[1].bytes, 0u);
        EXPECT_LT(report[0].bytes, size + 16); // a large run stopped early
    }
}

TEST(Dispatcher, OptionalSuccessorThatFailsLeavesTheRunToTheFirstBackend) {
    const Bytes key = random_bytes(24);
    const Bytes plain = random_bytes(20 * kChunk + 5);
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, expected));
    GatedStart gate(key, Direction::encrypt, /*fails=*/true);
    Handover handover(key, Direction::encrypt, gate, LanePolicy::optional);
    const Bytes output =
        run(handover.backend, Direction::encrypt, plain, [&](std::uint64_t) { handover.let_successor_start(); });
    EXPECT_TRUE(output == expected);
    const std::vector<LaneReport> report = handover.backend.report();
    EXPECT_FALSE(report[1].ready);
    EXPECT_EQ(report[1].failure, "no usable CUDA device: injected");
    EXPECT_EQ(report[0].bytes, expected.size());
    EXPECT_EQ(handover.backend.describe().rfind("cpu (OpenSSL", 0), 0u) << handover.backend.describe();
}

TEST(Dispatcher, ReconfiguringStartsANewSuccessorOverTheNewBuffers) {
    const Bytes key = random_bytes(16);
    GatedStart gate(key, Direction::encrypt);
    gate.open();
    Handover handover(key, Direction::encrypt, gate, LanePolicy::required);
    handover.backend.configure_slots(2, kChunk);
    handover.backend.await_lanes();
    EXPECT_EQ(gate.alive_, 1);
    handover.backend.configure_slots(4, 2 * kChunk);
    handover.backend.await_lanes();
    EXPECT_EQ(gate.starts_, 2);
    EXPECT_EQ(gate.alive_, 1); // the first successor is gone with the old buffers
    ASSERT_EQ(gate.handed_buffers_.size(), 4u);
    EXPECT_EQ(gate.handed_buffers_[3].size(), 2 * kChunk);
    EXPECT_EQ(gate.handed_buffers_[3].data(), handover.backend.slot_buffer(3).data());
}

TEST(Dispatcher, DestructionWaitsForAStartStillUnderWay) {
    const Bytes key = random_bytes(16);
    GatedStart gate(key, Direction::encrypt);
    std::thread opener;
    const auto begin = std::chrono::steady_clock::now();
    {
        Dispatcher backend(lanes_of(cpu_lane(key, Direction::encrypt),
                                    {.name = "successor", .start = gate.start(), .policy = LanePolicy::optional}));
        backend.configure_slots(2, kChunk);
        opener = std::thread([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            gate.open();
        });
    }
    // The backend could only be destroyed once the gate opened; the successor it made then went
    // with it.
    EXPECT_GE(std::chrono::steady_clock::now() - begin, std::chrono::milliseconds(50));
    EXPECT_EQ(gate.created_, 1);
    EXPECT_EQ(gate.alive_, 0);
    opener.join();
}

TEST(Dispatcher, LanesReadyLaterShareTheJobsAndAnyLaneTakesAnyJob) {
    // The CPU start, then one lane, then another: once ready, each takes jobs, and the CPU none.
    // The output does not depend on which lane ciphered which job.
    const Bytes key = random_bytes(16);
    const Bytes plain = random_bytes(60 * kChunk + 9);
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, expected));
    GatedStart second(key, Direction::encrypt), third(key, Direction::encrypt);
    Dispatcher backend(cpu_then_gated(cpu_lane(key, Direction::encrypt), {{"second", &second}, {"third", &third}}));
    const auto open_and_wait = [&](GatedStart &gate, std::size_t lane) {
        gate.open();
        while (!backend.report()[lane].ready) std::this_thread::yield();
    };
    std::uint64_t cpu_bytes_at_takeover = 0;
    const Bytes output = run(backend, Direction::encrypt, plain, [&](std::uint64_t done) {
        if (done == 2 * kChunk) {
            open_and_wait(second, 1);
            cpu_bytes_at_takeover = backend.report()[0].bytes;
            EXPECT_EQ(taking(backend), "second");
        }
        if (done == 20 * kChunk) {
            open_and_wait(third, 2);
            EXPECT_EQ(taking(backend), "second+third");
        }
    });
    third.open();
    second.open();
    EXPECT_TRUE(output == expected);
    const std::vector<LaneReport> report = backend.report();
    ASSERT_EQ(report.size(), 3u);
    EXPECT_GE(report[0].bytes, 2 * kChunk);
    EXPECT_EQ(report[0].bytes, cpu_bytes_at_takeover) << "the CPU start took a job after a lane was ready";
    EXPECT_GT(report[1].bytes, 0u);
    EXPECT_GT(report[2].bytes, 0u);
    EXPECT_EQ(report[0].bytes + report[1].bytes + report[2].bytes, expected.size());
    EXPECT_EQ(report[1].jobs + report[2].jobs + report[0].jobs, 61u);
}

// Ciphers each job on a thread of its own, one job after another, `per_job` after it came, and
// tells the listener (if any) when it is done; records the most jobs it ever held at once.
class PacedBackend final : public CipherBackend {
public:
    PacedBackend(const Bytes &key, Direction direction, std::chrono::microseconds per_job, std::size_t room,
                 bool tells_job_ends = true)
        : cipher_(key, direction), per_job_(per_job), room_(room), tells_job_ends_(tells_job_ends),
          worker_([this] { work(); }) {}
    ~PacedBackend() override {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        changed_.notify_all();
        worker_.join();
    }
    std::string describe() const override { return "paced (test)"; }
    void configure_slots(std::size_t, std::size_t) override { throw std::logic_error("the ring is adopted"); }
    void adopt_slots(std::span<const std::span<std::byte>> buffers) override {
        std::lock_guard lock(mutex_);
        buffers_.assign(buffers.begin(), buffers.end());
        done_.assign(buffers.size(), true);
    }
    std::span<std::byte> slot_buffer(std::size_t slot) override { return ring_slot(buffers_, slot); }
    void submit(const CipherJob &job) override {
        {
            std::lock_guard lock(mutex_);
            done_.at(job.slot) = false;
            queue_.push_back({job, std::chrono::steady_clock::now() + per_job_});
            held_ = std::max(held_, ++holding_);
        }
        changed_.notify_all();
    }
    void wait(std::size_t slot) override {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return done_.at(slot); });
    }
    std::size_t jobs_at_once() const override { return room_; }
    bool set_job_end_listener(JobEndListener listener) override {
        listener_ = std::move(listener);
        return tells_job_ends_;
    }
    // The most jobs submitted and not yet ended at any one time.
    std::size_t most_held() {
        std::lock_guard lock(mutex_);
        return held_;
    }

private:
    struct Queued {
        CipherJob job;
        std::chrono::steady_clock::time_point due;
    };
    void work() {
        for (;;) {
            Queued next;
            {
                std::unique_lock lock(mutex_);
                changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
                if (queue_.empty()) return;
                next = queue_.front();
                queue_.erase(queue_.begin());
            }
            std::this_thread::sleep_until(next.due);
            const auto data = buffers_[next.job.slot].first(next.job.bytes);
            cipher_.transform(data, data);
            {
                std::lock_guard lock(mutex_);
                --holding_; // ended, as far as the dispatcher may know: its room is free
            }
            if (tells_job_ends_ && listener_) listener_(next.job.slot);
            {
                std::lock_guard lock(mutex_);
                done_[next.job.slot] = true;
            }
            changed_.notify_all();
        }
    }

    EvpAesCipher cipher_;
    std::chrono::microseconds per_job_;
    std::size_t room_;
    bool tells_job_ends_;
    JobEndListener listener_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::span<std::byte>> buffers_;
    std::vector<bool> done_;
    std::vector<Queued> queue_;
    std::size_t holding_ = 0;
    std::size_t held_ = 0;
    bool stopping_ = false;
    std::thread worker_;
};

DispatcherLane paced_lane(const std::string &name, std::unique_ptr<PacedBackend> backend) {
    return {.name = name, .start = {}, .ready = std::move(backend), .share = LaneShare::throughout};
}

// An ECB encryptor with room for two jobs, each taking `per_job`.
std::unique_ptr<PacedBackend> paced(const Bytes &key, std::chrono::microseconds per_job) {
    return std::make_unique<PacedBackend>(key, Direction::encrypt, per_job, 2);
}

// Encrypts `chunks` chunks of random data through `backend` as a file run would, checks the bytes
// against OpenSSL's, and gives the lanes' report.
std::vector<LaneReport> encrypt_chunks_through(Dispatcher &backend, const Bytes &key, std::size_t chunks) {
    const Bytes plain = random_bytes(chunks * kChunk);
    Bytes expected;
    EXPECT_TRUE(openssl_ecb(key, Direction::encrypt, false, plain, expected));
    PipelineOptions options{Direction::encrypt, Framing::whole_blocks, kChunk, 7};
    EXPECT_TRUE(run_pipeline_on_files(backend, plain, options) == expected);
    return backend.report();
}

TEST(Dispatcher, NoLaneHoldsMoreJobsThanItHasRoomFor) {
    // Lanes of two speeds, on threads: which lane takes how many jobs is the policy's business
    // (lane_choice_test.cpp, on a clock the test keeps); here every job ends, the output is
    // OpenSSL's, and no lane ever holds more than its room.
    const Bytes key = random_bytes(16);
    auto fast = paced(key, std::chrono::microseconds(200));
    auto slow = paced(key, std::chrono::microseconds(5000));
    PacedBackend &fast_lane = *fast;
    PacedBackend &slow_lane = *slow;
    Dispatcher backend(lanes_of(paced_lane("fast", std::move(fast)), paced_lane("slow", std::move(slow))));
    EXPECT_EQ(taking(backend), "fast+slow");
    const std::vector<LaneReport> report = encrypt_chunks_through(backend, key, 100);
    EXPECT_EQ(report[0].jobs + report[1].jobs, 100u);
    EXPECT_GT(report[0].jobs, 0u) << "the first job goes to the first lane not yet measured";
    EXPECT_LE(fast_lane.most_held(), 2u);
    EXPECT_LE(slow_lane.most_held(), 2u);
}

TEST(Dispatcher, DestroyedWithJobsInFlightLetsThemEndFirst) {
    // A run that fails between a submit and its wait leaves jobs in flight: their ends reach the
    // dispatcher while it is destroyed, which must still be whole (ASan saw a use after free).
    const Bytes key = random_bytes(16);
    for (const bool tells : {true, false}) {
        {
            std::vector<DispatcherLane> lanes;
            lanes.push_back(
                paced_lane("slow", std::make_unique<PacedBackend>(key, Direction::encrypt,
                                                                  std::chrono::microseconds(3000), 4, tells)));
            lanes.push_back(
                {.name = "CPU",
                 .start = {},
                 .ready = std::make_unique<OpenSslBackend>(key, Direction::encrypt, 2, CpuSubmit::post_every_piece),
                 .share = LaneShare::throughout});
            Dispatcher dispatcher(std::move(lanes));
            dispatcher.configure_slots(6, 4u << 20);
            for (std::size_t slot = 0; slot < 6; ++slot) dispatcher.submit({slot, 4u << 20});
        }
    }
}

TEST(Dispatcher, ASubmitThatFailsFreesItsRoomAndCountsForNothing) {
    const Bytes key = random_bytes(16);
    std::vector<DispatcherLane> lanes;
    lanes.push_back({.name = "CPU",
                     .start = {},
                     .ready = std::make_unique<OpenSslBackend>(key, Direction::encrypt, 1),
                     .share = LaneShare::throughout});
    Dispatcher backend(std::move(lanes));
    backend.configure_slots(3, 4096);
    // Not whole blocks: the CPU backend refuses the job in submit().
    EXPECT_THROW(backend.submit({0, 100}), std::invalid_argument);
    EXPECT_EQ(backend.report()[0].jobs, 0u);
    EXPECT_EQ(backend.report()[0].bytes, 0u);
    // The lane (room for 2 one-piece jobs) still takes as many as before, and the slot again.
    backend.submit({0, 4096});
    backend.submit({1, 4096});
    backend.wait(0);
    backend.wait(1);
    EXPECT_EQ(backend.report()[0].jobs, 2u);
}

TEST(Dispatcher, ASubmitWaitingForRoomGivesUpWhenTheWriterFails) {
    // The lane cannot say when its jobs end, so a full lane has room again only once the writer
    // waited for one of its jobs. The writer fails (a full disk, /dev/full) with the reader inside
    // submit(), waiting for room that will never come: the run must still end, with the writer's
    // error.
    const Bytes key = random_bytes(16);
    TempDir dir;
    write_file(dir.file("in"), random_bytes(20 * kChunk));
    std::vector<DispatcherLane> lanes;
    lanes.push_back(paced_lane(
        "mute", std::make_unique<PacedBackend>(key, Direction::encrypt, std::chrono::microseconds(0), 1, false)));
    Dispatcher backend(std::move(lanes));
    auto run = std::async(std::launch::async, [&] {
        InputSource source = InputSource::open(dir.file("in"));
        OutputSink sink = OutputSink::create("/dev/full", {true});
        PipelineOptions options{Direction::encrypt, Framing::whole_blocks, kChunk, 6};
        run_pipeline(source, sink, backend, options);
    });
    if (run.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
        ADD_FAILURE() << "the run hangs: the reader still waits for room";
        backend.cancel(); // end it here, so the test fails instead of hanging
        run.wait();
        return;
    }
    try {
        run.get();
        ADD_FAILURE() << "writing to /dev/full succeeded";
    } catch (const IoError &e) {
        EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
    }
}

TEST(Dispatcher, AFallbackLaneWorksOnlyWhenEveryOtherLaneFailed) {
    const Bytes key = random_bytes(16);
    const Bytes plain = random_bytes(20 * kChunk + 3);
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, expected));
    for (const bool fails : {false, true}) {
        SCOPED_TRACE(fails ? "the other lane fails" : "the other lane starts");
        GatedStart gate(key, Direction::encrypt, fails);
        Handover handover(key, Direction::encrypt, gate, LanePolicy::optional, LaneShare::fallback);
        // The first job waits for the start: the fallback does not take it meanwhile.
        std::thread opener([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
            gate.open();
        });
        const Bytes output = run(handover.backend, Direction::encrypt, plain, {});
        opener.join();
        EXPECT_TRUE(output == expected);
        const std::vector<LaneReport> report = handover.backend.report();
        EXPECT_EQ(report[0].bytes, fails ? expected.size() : 0u);
        EXPECT_EQ(report[1].bytes, fails ? 0u : expected.size());
    }
}

TEST(Dispatcher, AskedToWaitForEveryStartTheReadyLaneStartsWithTheOthers) {
    // --backend all --wait-for-gpu: the CPU, ready at once, takes no job before the GPU has
    // started (it would be through this input long before), then both work.
    const Bytes key = random_bytes(16);
    const Bytes plain = random_bytes(20 * kChunk);
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, expected));
    GatedStart gate(key, Direction::encrypt);
    Dispatcher backend(lanes_of(cpu_lane(key, Direction::encrypt, LaneShare::throughout),
                                {.name = "successor", .start = gate.start()}),
                       /*first_job_waits_for_every_start=*/true);
    std::thread opener([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        gate.open();
    });
    const Bytes output = run(backend, Direction::encrypt, plain, {});
    opener.join();
    EXPECT_TRUE(output == expected);
    const std::vector<LaneReport> report = backend.report();
    EXPECT_GT(report[1].jobs, 0u) << "the CPU did it all before the other lane was ready";
    EXPECT_EQ(report[0].jobs + report[1].jobs, 20u); // the padding rides in the last chunk's spare block
}

TEST(Dispatcher, WithNoLaneReadyFromTheStartARequiredFailureComesBeforeAnyJob) {
    // Two lanes that start on threads (GPUs, with output to a pipe): the first ready one does not
    // take the first job while the other may still fail, so a failure leaves nothing written.
    const Bytes key = random_bytes(16);
    GatedStart good(key, Direction::encrypt), bad(key, Direction::encrypt, /*fails=*/true);
    good.open();
    Dispatcher backend(lanes_of({.name = "good", .start = good.start()}, {.name = "bad", .start = bad.start()}));
    TempDir dir;
    write_file(dir.file("in"), random_bytes(10 * kChunk));
    std::thread opener([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        bad.open();
    });
    InputSource source = InputSource::open(dir.file("in"));
    OutputSink sink = OutputSink::create(dir.file("out"), {});
    PipelineOptions options{Direction::encrypt, Framing::pkcs7, kChunk, kSlots};
    EXPECT_THROW(run_pipeline(source, sink, backend, options), std::runtime_error);
    opener.join();
    const std::vector<LaneReport> report = backend.report();
    EXPECT_EQ(report[0].jobs, 0u);
    EXPECT_EQ(report[1].jobs, 0u);
    EXPECT_EQ(report[1].failure, "no usable CUDA device: injected");
}

TEST(Dispatcher, ConfiguringWithoutMemoryFailsCleanly) {
    // Every allocation of configure_slots() fails in turn (the ring, the lanes' threads and their
    // bookkeeping): it throws bad_alloc or works, and the dispatcher can be destroyed either way.
    const Bytes key = random_bytes(16);
    at_every_allocation([&](int successes) {
        SCOPED_TRACE("allocation " + std::to_string(successes + 1) + " fails");
        GatedStart gate(key, Direction::encrypt);
        gate.open();
        Dispatcher backend(lanes_of(cpu_lane(key, Direction::encrypt, LaneShare::until_another_is_ready, 1),
                                    {.name = "successor", .start = gate.start(), .policy = LanePolicy::optional}));
        bool reached = false;
        {
            const FailingAllocation failing(successes);
            try {
                backend.configure_slots(2, kChunk);
            } catch (const std::bad_alloc &) {
            }
            reached = failing.reached();
        }
        backend.await_lanes();
        return reached;
    });
}

TEST(Dispatcher, RejectsALaneWithoutOneBackendOrStart) {
    const Bytes key = random_bytes(16);
    EXPECT_THROW(Dispatcher({}), std::invalid_argument);
    EXPECT_THROW(Dispatcher(lanes_of(cpu_lane(key, Direction::encrypt), {.name = "x", .start = {}})),
                 std::invalid_argument);
    std::vector<DispatcherLane> both;
    both.push_back(cpu_lane(key, Direction::encrypt));
    both.back().start = [](std::span<const std::span<std::byte>>) { return std::unique_ptr<CipherBackend>(); };
    EXPECT_THROW(Dispatcher(std::move(both)), std::invalid_argument);
    // Lanes that give way or stand by need one that takes jobs all run long, or no job would go.
    EXPECT_THROW(Dispatcher(lanes_of(cpu_lane(key, Direction::encrypt), cpu_lane(key, Direction::encrypt))),
                 std::invalid_argument);
    std::vector<DispatcherLane> standing_by;
    standing_by.push_back(cpu_lane(key, Direction::encrypt, LaneShare::fallback));
    EXPECT_THROW(Dispatcher(std::move(standing_by)), std::invalid_argument);
    std::vector<DispatcherLane> one;
    one.push_back(cpu_lane(key, Direction::encrypt, LaneShare::throughout));
    Dispatcher alone(std::move(one));
    EXPECT_THROW(alone.adopt_slots({}), std::logic_error);
}

} // namespace
} // namespace aesgpu::test
