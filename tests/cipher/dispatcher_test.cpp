// SPDX-License-Identifier: Apache-2.0
// The dispatcher in its CPU-start form: jobs go to the first lane until a later lane is ready,
// then to that lane, over the dispatcher's one ring; output always matches OpenSSL. The later
// lanes here are OpenSSL too (stand-ins for the GPU, so this runs everywhere), started behind a
// gate the test opens.
#include "aes_cpu/evp_cipher.hpp"
#include "aes_cpu/openssl_backend.hpp"
#include "cipher/dispatcher.hpp"
#include "common/errors.hpp"
#include "io/pipeline.hpp"
#include "support/allocation_hooks.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <stdexcept>
#include <thread>

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

// Opens the gate before the backend goes, so a failing test cannot hang in the destructor.
struct Handover {
    Handover(const Bytes &key, Direction direction, GatedStart &gated, LanePolicy policy)
        : gate(gated), backend("CPU", std::make_unique<OpenSslBackend>(key, direction, 2),
                               lanes({"successor", gated.start(), policy})) {}
    ~Handover() { gate.open(); }
    // Lets the successor start and waits until it is ready (or failed).
    void let_successor_start() {
        gate.open();
        backend.await_lanes();
    }
    static std::vector<Lane> lanes(Lane lane) {
        std::vector<Lane> later;
        later.push_back(std::move(lane));
        return later;
    }
    GatedStart &gate;
    Dispatcher backend;
};

// Runs `input` through the pipeline; `at_progress(done)` runs on the writer thread after each chunk.
Bytes run(Dispatcher &backend, Direction direction, const Bytes &input,
          std::function<void(std::uint64_t)> at_progress) {
    PipelineOptions options{direction, Framing::pkcs7, kChunk, kSlots};
    options.on_progress = std::move(at_progress);
    return run_pipeline_on_files(backend, input, options);
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
        EXPECT_NE(handover.backend.describe().find(" until the successor is ready"), std::string::npos);
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
        Dispatcher backend("CPU", std::make_unique<OpenSslBackend>(key, Direction::encrypt, 1),
                           Handover::lanes({"successor", gate.start(), LanePolicy::optional}));
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

TEST(Dispatcher, ALaterLaneTakesOverFromAnEarlierOneAndAnyLaneTakesAnyJob) {
    // Three lanes: the first, then one, then another; each later one takes over once ready. The
    // output does not depend on which lane ciphered which job.
    const Bytes key = random_bytes(16);
    const Bytes plain = random_bytes(60 * kChunk + 9);
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, expected));
    GatedStart second(key, Direction::encrypt), third(key, Direction::encrypt);
    std::vector<Lane> later;
    later.push_back({"second", second.start(), LanePolicy::required});
    later.push_back({"third", third.start(), LanePolicy::required});
    Dispatcher backend("CPU", std::make_unique<OpenSslBackend>(key, Direction::encrypt, 1), std::move(later));
    const auto open_and_wait = [&](GatedStart &gate, std::size_t lane) {
        gate.open();
        while (!backend.report()[lane].ready) std::this_thread::yield();
    };
    const Bytes output = run(backend, Direction::encrypt, plain, [&](std::uint64_t done) {
        if (done == 2 * kChunk) open_and_wait(second, 1);
        if (done == 20 * kChunk) open_and_wait(third, 2);
    });
    third.open();
    second.open();
    EXPECT_TRUE(output == expected);
    const std::vector<LaneReport> report = backend.report();
    ASSERT_EQ(report.size(), 3u);
    EXPECT_GE(report[0].bytes, 2 * kChunk);
    EXPECT_GT(report[1].bytes, 0u);
    EXPECT_GT(report[2].bytes, 30 * kChunk);
    EXPECT_EQ(report[0].bytes + report[1].bytes + report[2].bytes, expected.size());
}

TEST(Dispatcher, ConfiguringWithoutMemoryFailsCleanly) {
    // Every allocation of configure_slots() fails in turn (the ring, the lanes' threads and their
    // bookkeeping): it throws bad_alloc or works, and the dispatcher can be destroyed either way.
    const Bytes key = random_bytes(16);
    at_every_allocation([&](int successes) {
        SCOPED_TRACE("allocation " + std::to_string(successes + 1) + " fails");
        GatedStart gate(key, Direction::encrypt);
        gate.open();
        Dispatcher backend("CPU", std::make_unique<OpenSslBackend>(key, Direction::encrypt, 1),
                           Handover::lanes({"successor", gate.start(), LanePolicy::optional}));
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

TEST(Dispatcher, RejectsAMissingBackendOrStart) {
    const Bytes key = random_bytes(16);
    EXPECT_THROW(Dispatcher("CPU", nullptr, {}), std::invalid_argument);
    EXPECT_THROW(Dispatcher("CPU", std::make_unique<OpenSslBackend>(key, Direction::encrypt, 1),
                            Handover::lanes({"x", LaneStart(), LanePolicy::optional})),
                 std::invalid_argument);
    Dispatcher alone("CPU", std::make_unique<OpenSslBackend>(key, Direction::encrypt, 1), {});
    EXPECT_THROW(alone.adopt_slots({}), std::logic_error);
}

} // namespace
} // namespace aesgpu::test
