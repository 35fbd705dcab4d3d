// SPDX-License-Identifier: Apache-2.0
// The CUDA backend on a real GPU: known answers, agreement with OpenSSL around block and chunk
// boundaries with 1, 2 and 8 streams and rings as small as 2 slots (buffer-reuse races), large
// chunks, misuse, and the GPU taking over a CPU backend's ring mid-run. Every test skips itself
// where no usable CUDA device is present.
#include "aes_cpu/openssl_backend.hpp"
#include "aes_gpu/gpu_backend.hpp"
#include "cipher/host_ring.hpp"
#include "common/errors.hpp"
#include "engine/dispatcher.hpp"
#include "support/gpu_fixture.hpp"
#include "support/offset_jobs.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#if defined(AESGPU_HAVE_CUDA)
#include "aes_gpu/cuda_check.hpp"
#include "aes_gpu/cuda_resources.hpp"
#include "aes_gpu/gcm_kernel.hpp"

#include <functional>
#include <string>
#include <string_view>
#endif

namespace aesgpu::test {
namespace {

Bytes run_slot(CipherBackend &backend, const Bytes &in) {
    backend.configure_slots(2, in.size() + 16);
    std::memcpy(backend.slot_buffer(1).data(), in.data(), in.size());
    backend.submit({1, in.size()});
    backend.wait(1);
    const auto *data = reinterpret_cast<const std::uint8_t *>(backend.slot_buffer(1).data());
    return Bytes(data, data + in.size());
}

TEST_F(Gpu, KnownAnswersBothDirections) {
    for (const auto &answer : all_known_answers()) {
        SCOPED_TRACE(answer.name);
        auto encrypt = make_gpu_backend(answer.key, Direction::encrypt, {0, 1});
        EXPECT_EQ(to_hex(run_slot(*encrypt, answer.plaintext)), to_hex(answer.ciphertext));
        auto decrypt = make_gpu_backend(answer.key, Direction::decrypt, {0, 1});
        EXPECT_EQ(to_hex(run_slot(*decrypt, answer.ciphertext)), to_hex(answer.plaintext));
    }
}

TEST_F(Gpu, PipelineMatchesOpenSslAcrossStreamsAndRings) {
    const std::size_t chunk = 64u << 10;
    const std::size_t sizes[] = {0, 1, 15, 16, 17, chunk - 1, chunk, chunk + 1, 37 * chunk + 7};
    for (const unsigned streams : {1u, 2u, 8u}) {
        for (const std::size_t slots : {std::size_t{2}, gpu_ring_slots(streams)}) {
            for (const std::size_t key_bytes : {16u, 24u, 32u}) {
                const Bytes key = random_bytes(key_bytes);
                auto encrypt = make_gpu_backend(key, Direction::encrypt, {0, streams});
                auto decrypt = make_gpu_backend(key, Direction::decrypt, {0, streams});
                for (const std::size_t size : sizes) {
                    SCOPED_TRACE("streams " + std::to_string(streams) + " slots " + std::to_string(slots) +
                                 " key bits " + std::to_string(key_bytes * 8) + " size " + std::to_string(size));
                    const Bytes plain = random_bytes(size);
                    Bytes expected;
                    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, expected));
                    const Bytes cipher =
                        run_pipeline_on_files(*encrypt, plain, {Direction::encrypt, Framing::pkcs7, chunk, slots});
                    ASSERT_TRUE(cipher == expected);
                    ASSERT_TRUE(run_pipeline_on_files(*decrypt, cipher,
                                                      {Direction::decrypt, Framing::pkcs7, chunk, slots}) == plain);
                }
            }
        }
    }
}

TEST_F(Gpu, DefaultChunksOnLargeInput) {
    const Bytes key = random_bytes(32);
    const Bytes plain = random_bytes((100u << 20) + 7);
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, expected));
    auto encrypt = make_gpu_backend(key, Direction::encrypt);
    const PipelineOptions options{Direction::encrypt, Framing::pkcs7, kGpuFileChunkBytes,
                                  gpu_ring_slots(kDefaultGpuStreams)};
    EXPECT_TRUE(run_pipeline_on_files(*encrypt, plain, options) == expected);
}

TEST_F(Gpu, WrongKeyFailsThePaddingCheckLikeOpenSsl) {
    const Bytes key = random_bytes(16);
    const Bytes plain = random_bytes(300000);
    Bytes cipher;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, cipher));
    for (int attempt = 0; attempt < 4; ++attempt) {
        const Bytes wrong = random_bytes(16);
        Bytes ignored;
        const bool openssl_accepts = openssl_ecb(wrong, Direction::decrypt, true, cipher, ignored);
        auto decrypt = make_gpu_backend(wrong, Direction::decrypt);
        if (openssl_accepts) continue;
        EXPECT_THROW(run_pipeline_on_files(*decrypt, cipher, {Direction::decrypt, Framing::pkcs7, 65536, 3}),
                     FormatError);
    }
}

TEST_F(Gpu, RejectsMisuse) {
    auto backend = make_gpu_backend(random_bytes(16), Direction::encrypt);
    backend->configure_slots(2, 64);
    EXPECT_THROW(backend->submit({0, 15}), std::invalid_argument);
    EXPECT_THROW(backend->submit({0, 80}), std::invalid_argument);
    EXPECT_THROW(backend->submit({2, 16}), std::out_of_range);
    EXPECT_THROW((void)make_gpu_backend(Bytes(20, 1), Direction::encrypt), std::invalid_argument);
    EXPECT_THROW((void)make_gpu_backend(random_bytes(16), Direction::encrypt, {999, 1}), GpuUnavailable);
    EXPECT_THROW((void)make_gpu_backend(random_bytes(16), Direction::encrypt, {0, 0}), std::invalid_argument);
    EXPECT_NE(backend->describe().find("gpu ("), std::string::npos) << backend->describe();
}

TEST_F(Gpu, RingLargerThanMemoryReportsResourceExhausted) {
    // The pipeline retries smaller chunks on ResourceExhausted, so configure must report exactly
    // that, and the backend must still work afterwards.
    const Bytes key = random_bytes(16);
    auto backend = make_gpu_backend(key, Direction::encrypt);
    EXPECT_THROW(backend->configure_slots(2, std::size_t{1} << 40), ResourceExhausted);
    const Bytes plain = random_bytes(4096);
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, false, plain, expected));
    EXPECT_TRUE(run_slot(*backend, plain) == expected);
}

TEST_F(Gpu, AdoptedHostBuffersMatchOpenSslAndAreReleasedWithTheBackend) {
    const Bytes key = random_bytes(32);
    HostRing first(1, 4096), second(1, std::size_t{1} << 20);
    std::vector<std::span<std::byte>> buffers{first.buffer(0), second.buffer(0)};
    const Bytes plain = random_bytes(buffers[1].size());
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, false, plain, expected));
    for (int round = 0; round < 2; ++round) { // the second registration works only if the first was undone
        auto backend = make_gpu_backend_over(key, Direction::encrypt, {0, 2}, buffers);
        EXPECT_EQ(backend->slot_buffer(0).data(), buffers[0].data());
        EXPECT_EQ(backend->slot_buffer(1).data(), buffers[1].data());
        EXPECT_THROW((void)backend->slot_buffer(2), std::out_of_range);
        std::memcpy(buffers[1].data(), plain.data(), plain.size());
        backend->submit({1, plain.size()});
        backend->wait(1);
        EXPECT_EQ(std::memcmp(buffers[1].data(), expected.data(), expected.size()), 0);
    }
    std::vector<std::span<std::byte>> ragged{buffers[0].first(100)};
    EXPECT_THROW((void)make_gpu_backend_over(key, Direction::encrypt, {0, 1}, ragged), std::invalid_argument);
}

TEST_F(Gpu, MemoryAdoptedTwiceFailsClearlyAndLeavesTheFirstBackendWorking) {
    const Bytes key = random_bytes(16);
    HostRing ring(1, 1u << 16);
    const std::span<std::byte> memory = ring.buffer(0);
    const std::vector<std::span<std::byte>> buffers{memory};
    auto backend = make_gpu_backend_over(key, Direction::encrypt, {0, 1}, buffers);
    try {
        (void)make_gpu_backend_over(key, Direction::encrypt, {0, 1}, buffers);
        ADD_FAILURE() << "the same memory was registered twice";
    } catch (const std::runtime_error &e) {
        EXPECT_NE(std::string(e.what()).find("cudaErrorHostMemoryAlreadyRegistered"), std::string::npos) << e.what();
    }
    // The failed registration must not linger as the "last error" that a kernel launch checks.
    const Bytes plain = random_bytes(memory.size());
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, false, plain, expected));
    std::memcpy(memory.data(), plain.data(), plain.size());
    backend->submit({0, plain.size()});
    backend->wait(0);
    EXPECT_EQ(std::memcmp(memory.data(), expected.data(), expected.size()), 0);
}

// A dispatcher that starts on 2 CPU threads and takes the GPU on as a required lane: what the
// CLI's CPU start builds.
Dispatcher cpu_then_gpu(const Bytes &key, const CipherSpec &spec) {
    std::vector<DispatcherLane> lanes;
    lanes.push_back({.name = "CPU",
                     .start = {},
                     .ready = std::make_unique<OpenSslBackend>(key, spec, 2),
                     .share = LaneShare::until_another_is_ready});
    lanes.push_back({.name = "GPU", .start = [&key, spec](std::span<const std::span<std::byte>> ring) {
                         return make_gpu_backend_over(key, spec, {}, ring);
                     }});
    return Dispatcher(std::move(lanes));
}

// What `--backend all` builds: the CPU all run long and two GPU lanes over one ring, page-locked
// once for both (portable). The second lane is GPU 1 where there is one, else a second backend on
// GPU 0 (its own streams and device buffers), so this runs on one GPU too.
struct EveryLane {
    EveryLane(const Bytes &key, const CipherSpec &spec) : pins(std::make_shared<GpuRingPins>(true)) {
        std::vector<DispatcherLane> lanes;
        lanes.push_back({.name = "CPU",
                         .start = {},
                         .ready = std::make_unique<OpenSslBackend>(key, spec, 2, CpuSubmit::post_every_piece),
                         .share = LaneShare::throughout});
        const int second = gpu_device_count() > 1 ? 1 : 0;
        for (const int device : {0, second}) {
            lanes.push_back({.name = "GPU " + std::to_string(lanes.size()),
                             .start = [&key, spec, device, pins = pins](std::span<const std::span<std::byte>> ring) {
                                 return make_gpu_backend_over(key, spec, {device, 2}, ring, pins.get());
                             }});
        }
        backend.emplace(std::move(lanes));
    }
    std::shared_ptr<GpuRingPins> pins;
    std::optional<Dispatcher> backend;
};

// Runs the pipeline one way, holding the writer after the first chunk until every lane is ready
// (so that each gets its share of the rest), and checks the output against OpenSSL's.
void expect_openssl_bytes_once_every_lane_is_up(Dispatcher &backend, PipelineOptions options, Direction direction,
                                                const Bytes &plain, const Bytes &cipher) {
    const std::size_t chunk = options.chunk_bytes;
    options.on_progress = [&](std::uint64_t done) {
        if (done == chunk) backend.await_lanes();
    };
    const Bytes &input = direction == Direction::encrypt ? plain : cipher;
    const Bytes &expected = direction == Direction::encrypt ? cipher : plain;
    EXPECT_TRUE(run_pipeline_on_files(backend, input, options) == expected);
}

TEST_F(Gpu, TwoGpuLanesAndTheCpuShareOneRingAndMatchOpenSsl) {
    const std::size_t chunk = 1u << 20;
    for (const Mode mode : {Mode::ecb, Mode::ctr}) {
        for (const auto direction : {Direction::encrypt, Direction::decrypt}) {
            SCOPED_TRACE(std::string(mode_name(mode)) + (direction == Direction::encrypt ? " encrypt" : " decrypt"));
            const Bytes key = random_bytes(32);
            const CounterBlock iv = carrying_ivs().back();
            const CipherSpec spec(direction, mode, iv);
            const Bytes plain = random_bytes(40 * chunk + 5);
            Bytes cipher;
            if (mode == Mode::ecb) {
                ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, cipher));
            } else {
                cipher = openssl_ctr(key, iv, plain);
            }
            EveryLane every(key, spec);
            Dispatcher &backend = *every.backend;
            PipelineOptions options{direction, mode == Mode::ecb ? Framing::pkcs7 : Framing::any_length, chunk, 12};
            expect_openssl_bytes_once_every_lane_is_up(backend, options, direction, plain, cipher);
            const std::vector<LaneReport> report = backend.report();
            ASSERT_EQ(report.size(), 3u);
            std::uint64_t total = 0;
            for (const LaneReport &lane : report) {
                EXPECT_TRUE(lane.ready) << lane.name << ": " << lane.failure;
                EXPECT_GT(lane.jobs, 0u) << lane.name << " took no job";
                total += lane.bytes;
            }
            // CTR ciphers whole blocks: the last job is rounded up, and the writer cuts it back.
            EXPECT_EQ(total, mode == Mode::ctr ? (plain.size() + 15) / 16 * 16 : cipher.size());
        }
    }
}

TEST_F(Gpu, TellsItsListenerOfEveryJobEndBeforeWaitReturns) {
    const Bytes key = random_bytes(16);
    auto backend = make_gpu_backend(key, Direction::encrypt, {0, 3});
    const std::size_t slots = 6;
    backend->configure_slots(slots, 1u << 20);
    EXPECT_EQ(backend->jobs_at_once(), 3u);
    std::vector<std::atomic<int>> ends(slots);
    ASSERT_TRUE(backend->set_job_end_listener([&](std::size_t slot) { ++ends.at(slot); }));
    for (int round = 1; round <= 3; ++round) {
        for (std::size_t slot = 0; slot < slots; ++slot) backend->submit({slot, 1u << 20});
        for (std::size_t slot = 0; slot < slots; ++slot) {
            backend->wait(slot);
            EXPECT_EQ(ends[slot].load(), round) << "slot " << slot;
        }
    }
}

TEST_F(Gpu, TakesOverFromTheCpuMidRunAndMatchesOpenSsl) {
    const std::size_t chunk = 1u << 20;
    const std::size_t slots = gpu_ring_slots(kDefaultGpuStreams);
    for (const auto direction : {Direction::encrypt, Direction::decrypt}) {
        const Bytes key = random_bytes(16);
        const Bytes plain = random_bytes(48 * chunk + 9);
        Bytes cipher;
        ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, cipher));
        Dispatcher backend = cpu_then_gpu(key, direction);
        // The GPU is up after the first chunk: later chunks all go to it.
        expect_openssl_bytes_once_every_lane_is_up(backend, {direction, Framing::pkcs7, chunk, slots}, direction, plain,
                                                   cipher);
        const std::vector<LaneReport> report = backend.report();
        EXPECT_TRUE(report[1].ready) << report[1].failure;
        EXPECT_NE(report[1].description.find("gpu ("), std::string::npos);
        EXPECT_GE(report[0].bytes, chunk);
        EXPECT_GE(report[1].bytes, 40 * chunk);
        EXPECT_EQ(report[0].bytes + report[1].bytes, cipher.size());
    }
}

// The out-of-place ring of direct I/O with a header: ECB and CTR jobs that read at one offset of
// a slot and write at another (in pieces through the device buffer too), and GCM jobs in place
// away from the slot's start, give what the CPU gives, and leave an out-of-place input as it was.
TEST_F(Gpu, JobsAtOffsetsAndOutOfPlaceGiveWhatTheCpuGives) {
    const Bytes key = random_bytes(16);
    const Bytes data = random_bytes((3 << 20) + 4096 + 48);
    for (const CipherSpec &spec : {CipherSpec(Direction::encrypt), CipherSpec(Direction::decrypt),
                                   CipherSpec(Direction::encrypt, Mode::ctr, CounterBlock{0xff, 0xff})}) {
        for (const std::size_t piece : {std::size_t{0}, kMinDevicePieceBytes}) {
            SCOPED_TRACE(std::string(mode_name(spec.mode)) + " piece " + std::to_string(piece));
            OpenSslBackend cpu(key, spec, 2);
            auto gpu = make_gpu_backend(key, spec, {0, 2, piece});
            const CipherJob job{.input_offset = kOffsetInput, .output_offset = kOffsetOutput, .first_block = 7};
            Bytes input_after;
            EXPECT_TRUE(run_job_at(*gpu, data, job, &input_after) == run_job_at(cpu, data, job));
            EXPECT_TRUE(input_after == data) << "the input was overwritten";
        }
    }
    CipherSpec gcm(Direction::encrypt, Mode::gcm);
    gcm.gcm.geometry = {4096, 24};
    const Bytes segments = random_bytes(40 * 4096);
    CipherJob job = full_segments_job(gcm.gcm.geometry, 0, segments.size());
    job.input_offset = job.output_offset = kOffsetInput + 8;
    OpenSslBackend cpu(key, gcm, 2);
    auto gpu = make_gpu_backend(key, gcm, {0, 2});
    const Bytes sealed = run_job_at(*gpu, segments, job);
    EXPECT_TRUE(sealed == run_job_at(cpu, segments, job));
    gcm.direction = Direction::decrypt;
    OpenSslBackend cpu_open(key, gcm, 2);
    auto gpu_open = make_gpu_backend(key, gcm, {0, 2});
    EXPECT_TRUE(run_job_at(*gpu_open, sealed, job) == run_job_at(cpu_open, sealed, job));
}

TEST_F(Gpu, CtrKnownAnswers) {
    for (const auto &[answer, iv] : ctr_known_answers()) {
        SCOPED_TRACE(answer.name);
        auto backend = make_gpu_backend(answer.key, CipherSpec(Direction::encrypt, Mode::ctr, iv), {0, 1});
        EXPECT_EQ(to_hex(run_slot(*backend, answer.plaintext)), to_hex(answer.ciphertext));
        EXPECT_EQ(to_hex(run_slot(*backend, answer.ciphertext)), to_hex(answer.plaintext));
    }
}

// CTR through the GPU pipeline equals OpenSSL's one stream: any length, every key size, counters
// carrying across 32, 64 and 128 bits, chunks going through the device buffer in pieces.
TEST_F(Gpu, CtrPipelineMatchesOpenSslAcrossCarriesStreamsAndPieces) {
    const std::size_t chunk = (3u << 20) + 4096;
    const std::size_t sizes[] = {0, 1, 15, 16, 17, chunk - 1, chunk, chunk + 1, 5 * chunk + 7};
    for (const std::size_t key_bytes : {16u, 24u, 32u}) {
        const Bytes key = random_bytes(key_bytes);
        for (const CounterBlock &iv : carrying_ivs()) {
            for (const Direction direction : {Direction::encrypt, Direction::decrypt}) {
                auto backend =
                    make_gpu_backend(key, CipherSpec(direction, Mode::ctr, iv), {0, 2, kMinDevicePieceBytes});
                for (const std::size_t size : sizes) {
                    SCOPED_TRACE("key bits " + std::to_string(key_bytes * 8) + " size " + std::to_string(size));
                    const Bytes plain = random_bytes(size);
                    const Bytes expected = openssl_ctr(key, iv, plain);
                    ASSERT_TRUE(run_pipeline_on_files(*backend, plain, {direction, Framing::any_length, chunk, 3}) ==
                                expected);
                }
            }
        }
    }
}

// The CPU ciphers the first chunks of a CTR stream and the GPU the rest: the counters must run on
// across the hand-over.
TEST_F(Gpu, CtrTakeOverFromTheCpuKeepsTheCounterRunning) {
    const std::size_t chunk = 1u << 20;
    const Bytes key = random_bytes(32);
    const CounterBlock iv = carrying_ivs().back();
    const CipherSpec spec(Direction::encrypt, Mode::ctr, iv);
    const Bytes plain = random_bytes(24 * chunk + 9);
    Dispatcher backend = cpu_then_gpu(key, spec);
    expect_openssl_bytes_once_every_lane_is_up(
        backend, {Direction::encrypt, Framing::any_length, chunk, gpu_ring_slots(kDefaultGpuStreams)},
        Direction::encrypt, plain, openssl_ctr(key, iv, plain));
    const std::vector<LaneReport> report = backend.report();
    EXPECT_GE(report[0].bytes, chunk);
    EXPECT_GE(report[1].bytes, 16 * chunk);
}

CipherSpec gcm_spec(Direction direction, std::size_t key_bytes, std::size_t segment_bytes) {
    CipherSpec spec(direction, Mode::gcm);
    const Bytes prefix = random_bytes(7);
    std::copy(prefix.begin(), prefix.end(), spec.gcm.nonce_prefix.begin());
    spec.gcm.geometry = {segment_bytes, 1 + key_bytes + 7};
    return spec;
}

Bytes gcm_on_gpu(const Bytes &key, const CipherSpec &spec, const Bytes &input, std::size_t chunk, unsigned streams = 2,
                 int device = 0) {
    auto backend = make_gpu_backend(key, spec, {device, streams});
    PipelineOptions options{spec.direction, Framing::any_length, chunk, 3};
    options.segments = spec.gcm.geometry;
    return run_pipeline_on_files(*backend, input, options);
}
// GCM out of place (direct I/O): the plaintext as the file has it goes to the device's segments
// and back in the copy engine's strided copies, no CPU copy; the segments are what the CPU's
// in-place job gives, they decrypt back, a flipped bit fails its segment by number, a job that does
// not match its segments is refused; with the device's pieces too (a GCM job goes whole whatever
// the piece size).
TEST_F(Gpu, GcmOutOfPlaceGivesWhatTheCpuGivesInPlace) {
    const Bytes key = random_bytes(32);
    OpenSslBackend cpu(key, offset_gcm_spec(Direction::encrypt), 2);
    for (const std::size_t piece : {std::size_t{0}, kMinDevicePieceBytes}) {
        SCOPED_TRACE("piece " + std::to_string(piece));
        auto seal = make_gpu_backend(key, offset_gcm_spec(Direction::encrypt), {0, 2, piece});
        auto open = make_gpu_backend(key, offset_gcm_spec(Direction::decrypt), {0, 2, piece});
        expect_gcm_apart_gives_what_in_place_gives(*seal, *open, cpu);
        // A job whose bytes do not match its segments is refused before any copy is queued, in
        // place too (the kernels would take it as it comes).
        seal->configure_slots(1, kOffsetSlotBytes);
        EXPECT_THROW(seal->submit({.slot = 0, .bytes = 3 * 4096 + 8, .segments = 2, .holds_last_segment = true}),
                     std::invalid_argument);
        CipherJob apart{.slot = 0, .bytes = 3 * 4096 + 8, .segments = 2, .holds_last_segment = true};
        apart.input_offset = kOffsetInput;
        apart.output_offset = kOffsetOutput;
        EXPECT_THROW(seal->submit(apart), std::invalid_argument);
    }
}

// GCM on the GPU equals the one-shot OpenSSL reference segment by segment, and decrypts back:
// both key sizes; segment sizes whose segments sit 16-, 8- or 1-byte aligned in the slot; sizes
// around the first segment (shortened by the header), later segments and chunks.
TEST_F(Gpu, GcmMatchesTheReferenceAndDecryptsBack) {
    for (const std::size_t key_bytes : {16u, 32u}) {
        for (const std::size_t segment :
             {std::size_t{64}, std::size_t{1001}, std::size_t{4096}, std::size_t{1} << 20}) {
            const Bytes key = random_bytes(key_bytes);
            const CipherSpec encrypt = gcm_spec(Direction::encrypt, key_bytes, segment);
            CipherSpec decrypt = encrypt;
            decrypt.direction = Direction::decrypt;
            const std::size_t first = segment - (1 + key_bytes + 7) - 16;
            const std::size_t later = segment - 16;
            const std::size_t chunk = std::max<std::size_t>(3 * segment, 64u << 10) / 16 * 16;
            for (const std::size_t size :
                 {std::size_t{0}, std::size_t{1}, first, first + 1, first + later + 15, first + 40 * later + 7}) {
                SCOPED_TRACE("key bits " + std::to_string(key_bytes * 8) + " segment " + std::to_string(segment) +
                             " size " + std::to_string(size));
                const Bytes plain = random_bytes(size);
                const Bytes expected =
                    reference_gcm_segments(key, encrypt.gcm.nonce_prefix, encrypt.gcm.geometry, plain);
                const Bytes cipher = gcm_on_gpu(key, encrypt, plain, chunk);
                ASSERT_EQ(cipher.size(), expected.size());
                ASSERT_TRUE(cipher == expected);
                ASSERT_TRUE(gcm_on_gpu(key, decrypt, cipher, chunk) == plain);
            }
        }
    }
}

#if defined(AESGPU_HAVE_CUDA)
// The segment kernels straight on device memory, with H's table in 8-bit pieces (what Hopper
// gets) and in 4-bit ones (what smaller GPUs get): segments 1 to 4 of a stream, the last one
// short, of 1001-byte segments (so segments sit at every alignment), equal the reference;
// decrypting them verifies; a flipped bit fails its segment, reported by its index in the job.
TEST_F(Gpu, GcmKernelWithEitherTableWidth) {
    const std::size_t segment = 1001;
    for (const int bits : {4, 8}) {
        for (const std::size_t key_bytes : {16u, 32u}) {
            SCOPED_TRACE("table bits " + std::to_string(bits) + " key bits " + std::to_string(key_bytes * 8));
            const Bytes key = random_bytes(key_bytes);
            const CipherSpec encrypt = gcm_spec(Direction::encrypt, key_bytes, segment);
            CipherSpec decrypt = encrypt;
            decrypt.direction = Direction::decrypt;
            const std::size_t first = segment - encrypt.gcm.geometry.header_bytes - 16;
            const Bytes plain = random_bytes(first + 3 * (segment - 16) + 100);
            const Bytes stream = reference_gcm_segments(key, encrypt.gcm.nonce_prefix, encrypt.gcm.geometry, plain);
            const Bytes expected(stream.begin() + static_cast<std::ptrdiff_t>(first + 16), stream.end());
            // The job's input: each segment's plaintext where its ciphertext goes (tags left as zeros).
            Bytes input(expected.size());
            for (std::size_t at = 0, from = first; at < input.size(); at += segment, from += segment - 16) {
                const std::size_t text = std::min(segment, input.size() - at) - 16;
                std::copy_n(plain.begin() + static_cast<std::ptrdiff_t>(from), text,
                            input.begin() + static_cast<std::ptrdiff_t>(at));
            }
            const CipherJob job{
                .slot = 0, .bytes = input.size(), .first_segment = 1, .segments = 4, .holds_last_segment = true};
            const auto run = [&](const CipherSpec &spec, const Bytes &data, std::uint32_t *failed) {
                const GcmKernel kernel(key, spec, bits);
                EXPECT_EQ(kernel.table_bits(), bits);
                DeviceBuffer device(data.size()), sums(kernel.sum_bytes(job.segments)), failure(4);
                EXPECT_EQ(cudaMemcpy(device.get(), data.data(), data.size(), cudaMemcpyHostToDevice), cudaSuccess);
                EXPECT_EQ(cudaMemset(failure.get(), 0xff, 4), cudaSuccess);
                kernel.launch(device.get(), job, sums.get(), static_cast<std::uint32_t *>(failure.get()), nullptr);
                Bytes out(data.size());
                EXPECT_EQ(cudaMemcpy(out.data(), device.get(), out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
                EXPECT_EQ(cudaMemcpy(failed, failure.get(), 4, cudaMemcpyDeviceToHost), cudaSuccess);
                return out;
            };
            std::uint32_t failed = 0;
            EXPECT_TRUE(run(encrypt, input, &failed) == expected);
            const Bytes decrypted = run(decrypt, expected, &failed);
            EXPECT_EQ(failed, 0xffffffffu);
            for (std::size_t at = 0; at < input.size(); at += segment) {
                const std::size_t text = std::min(segment, input.size() - at) - 16;
                EXPECT_TRUE(std::equal(decrypted.begin() + static_cast<std::ptrdiff_t>(at),
                                       decrypted.begin() + static_cast<std::ptrdiff_t>(at + text),
                                       input.begin() + static_cast<std::ptrdiff_t>(at)));
            }
            Bytes changed = expected;
            changed[2 * segment + 500] ^= 0x10; // segment 3, the job's third: its index 2
            (void)run(decrypt, changed, &failed);
            EXPECT_EQ(failed, 2u);
        }
    }
}

// What clean-up calls note while `work` runs on this thread.
class NotesHeard final : public NoteSink {
public:
    void note(NoteLevel level, std::string_view what) noexcept override {
        heard.emplace_back((level == NoteLevel::warning ? "warning: " : "info: ") + std::string(what));
    }
    std::vector<std::string> heard;
};

std::vector<std::string> warnings_during(const std::function<void()> &work) {
    NotesHeard notes;
    const CleanupNotes told(&notes);
    work();
    return notes.heard;
}

// A clean-up call that fails is told to the scope's notes, as a warning naming the call and the
// error, and leaves nothing behind: CUDA keeps the last error per thread, and the next launch's
// check would report it as its own. With no scope open it is dropped, and the scopes nest.
TEST_F(Gpu, AFailedCleanUpIsToldAndLeavesNoErrorForTheNextCheck) {
    const cudaError_t failed = cudaSetDevice(gpu_device_count()); // one past the last device
    ASSERT_NE(failed, cudaSuccess);
    const std::vector<std::string> warnings = warnings_during([&] {
        NotesHeard inner;
        {
            const CleanupNotes nested(&inner);
            cuda_check_noexcept(failed, "cudaSetDevice");
        }
        EXPECT_EQ(inner.heard, std::vector<std::string>{std::string("warning: cudaSetDevice failed during clean-up: ") +
                                                        cudaGetErrorName(failed)});
        cuda_check_noexcept(cudaSuccess, "cudaFree");
    });
    EXPECT_TRUE(warnings.empty()) << warnings.front();
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    cuda_check_noexcept(failed, "cudaSetDevice"); // no scope: dropped
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// A backend given notes tells them nothing when its clean-up went well: every call of it passed.
// (Its failures reach the notes through the CleanupNotes scope it opens; no test here makes
// them fail: a device reset under a live backend unmaps its pinned buffers, and the process dies.)
TEST_F(Gpu, ABackendThatGoesCleanlyTellsItsNotesNothing) {
    NotesHeard notes;
    {
        auto backend =
            make_gpu_backend(random_bytes(16), Direction::encrypt, {.device = 0, .streams = 2, .notes = &notes});
        backend->configure_slots(2, 1 << 20);
    }
    EXPECT_TRUE(notes.heard.empty()) << notes.heard.front();
}

// A GCM backend on GPU 1 that goes while GPU 0 is current (a run's last lane, from the main
// thread) clears H's multiples and its buffers on its own device, and leaves no error for the
// next launch: on the two-GPU host the bench's next GCM row failed with cudaErrorInvalidValue.
TEST_F(Gpu, AGcmBackendOnAnotherGpuGoesCleanly) {
    if (gpu_device_count() < 2) GTEST_SKIP() << "needs two GPUs";
    const Bytes key = random_bytes(32);
    const CipherSpec spec = gcm_spec(Direction::encrypt, 32, 4096);
    const Bytes plain = random_bytes(5 * 4096);
    const Bytes expected = reference_gcm_segments(key, spec.gcm.nonce_prefix, spec.gcm.geometry, plain);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    const std::vector<std::string> warnings = warnings_during([&] {
        std::optional<GcmKernel> kernel;
        {
            const DeviceScope second(1);
            kernel.emplace(key, spec);
        }
        kernel.reset();
        EXPECT_TRUE(gcm_on_gpu(key, spec, plain, 3 * 4096, 2, 1) == expected) << "on GPU 1";
        EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    });
    for (const std::string &warning : warnings) ADD_FAILURE() << warning;
    EXPECT_TRUE(gcm_on_gpu(key, spec, plain, 3 * 4096) == expected) << "GPU 0 after GPU 1's backend went";
}
#endif

// A flipped bit anywhere in a segment or its tag fails that segment on the GPU, named by number.
TEST_F(Gpu, GcmNamesTheFirstSegmentThatFails) {
    const std::size_t segment = 4096;
    const Bytes key = random_bytes(32);
    const CipherSpec encrypt = gcm_spec(Direction::encrypt, 32, segment);
    CipherSpec decrypt = encrypt;
    decrypt.direction = Direction::decrypt;
    const Bytes plain = random_bytes(10 * segment);
    const Bytes cipher = reference_gcm_segments(key, encrypt.gcm.nonce_prefix, encrypt.gcm.geometry, plain);
    const std::size_t first = segment - 40;
    for (const std::size_t at : {std::size_t{0}, first - 1, first, first + 3 * segment + 100, cipher.size() - 1}) {
        Bytes changed = cipher;
        changed[at] ^= 0x10;
        const std::size_t number = at < first ? 0 : 1 + (at - first) / segment;
        try {
            (void)gcm_on_gpu(key, decrypt, changed, 4 * segment);
            ADD_FAILURE() << "a flipped bit at " << at << " passed";
        } catch (const AuthenticationFailed &e) {
            EXPECT_EQ(std::string(e.what()), "authentication failed in segment " + std::to_string(number)) << at;
        }
    }
    EXPECT_THROW((void)gcm_on_gpu(random_bytes(32), decrypt, cipher, 4 * segment), AuthenticationFailed);
}

// The GPU keeps 32 bits of a segment's number: the last segments a stream may have still work,
// a failure in segment 2^32 - 1 is not taken for "none failed" (0xffffffff), and no job past them
// reaches the kernel.
TEST_F(Gpu, GcmJobsNearTheSegmentLimit) {
    expect_gcm_jobs_near_the_segment_limit([](const Bytes &key, const CipherSpec &spec) {
        return make_gpu_backend(key, spec, {0, 2});
    });
}

// The CPU ciphers the first chunks of a GCM stream and the GPU the rest.
TEST_F(Gpu, GcmTakeOverFromTheCpu) {
    const std::size_t segment = 1u << 20;
    const Bytes key = random_bytes(16);
    const CipherSpec spec = gcm_spec(Direction::encrypt, 16, segment);
    const Bytes plain = random_bytes(32 * segment + 9);
    Dispatcher backend = cpu_then_gpu(key, spec);
    // One segment per chunk: the reader runs a ring ahead of the writer (7 chunks) before the GPU
    // can take over, and the GPU must still get most of the stream.
    PipelineOptions options{Direction::encrypt, Framing::any_length, segment, gpu_ring_slots(kDefaultGpuStreams)};
    options.segments = spec.gcm.geometry;
    std::uint64_t first_chunk = 0;
    options.on_progress = [&](std::uint64_t done) {
        if (first_chunk == 0) {
            first_chunk = done;
            backend.await_lanes();
        }
    };
    EXPECT_TRUE(run_pipeline_on_files(backend, plain, options) ==
                reference_gcm_segments(key, spec.gcm.nonce_prefix, spec.gcm.geometry, plain));
    const std::vector<LaneReport> report = backend.report();
    EXPECT_GE(report[1].bytes, 16 * segment);
}

TEST_F(Gpu, JobsLargerThanTheDeviceBufferGoThroughInPieces) {
    // A job that does not fit the slot's device buffer goes through it piece by piece on the
    // slot's stream; the pieces must meet up byte for byte, at piece and block boundaries.
    const std::size_t chunk = (3u << 20) + 4096;
    for (const auto direction : {Direction::encrypt, Direction::decrypt}) {
        const Bytes key = random_bytes(24);
        auto backend = make_gpu_backend(key, direction, {0, 2, kMinDevicePieceBytes});
        for (const std::size_t size :
             {std::size_t{0}, kMinDevicePieceBytes - 16, kMinDevicePieceBytes + 16, chunk - 16, 7 * chunk + 5}) {
            SCOPED_TRACE(std::to_string(size));
            const Bytes plain = random_bytes(size);
            Bytes cipher;
            ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, cipher));
            const Bytes &input = direction == Direction::encrypt ? plain : cipher;
            const Bytes &expected = direction == Direction::encrypt ? cipher : plain;
            EXPECT_TRUE(run_pipeline_on_files(*backend, input, {direction, Framing::pkcs7, chunk, 3}) == expected);
        }
    }
}

// CBC decryption on the GPU: each piece of a job (device buffers of kMinDevicePieceBytes) and
// each chunk after the first starts from the ciphertext block before it, which the copy out of
// the piece before (in place on the host) overwrites: the backend and the pipeline take it first.
// Against one-shot OpenSSL at piece, chunk and block borders, over 2 streams; with PKCS#7 too.
TEST_F(Gpu, CbcDecryptionMatchesOpenSslAcrossPiecesChunksAndStreams) {
    const std::size_t chunk = (3u << 20) + 4096;
    const std::size_t sizes[] = {
        16, kMinDevicePieceBytes - 16, kMinDevicePieceBytes + 16, chunk - 16, chunk, chunk + 16, 5 * chunk + 48};
    for (const std::size_t key_bytes : {16u, 24u, 32u}) {
        const Bytes key = random_bytes(key_bytes);
        CounterBlock iv{};
        const Bytes iv_bytes = random_bytes(16);
        std::copy(iv_bytes.begin(), iv_bytes.end(), iv.begin());
        auto backend =
            make_gpu_backend(key, CipherSpec(Direction::decrypt, Mode::cbc, iv), {0, 2, kMinDevicePieceBytes});
        for (const std::size_t size : sizes) {
            SCOPED_TRACE("key bits " + std::to_string(key_bytes * 8) + " size " + std::to_string(size));
            const Bytes plain = random_bytes(size);
            const Bytes cipher = openssl_cbc(key, iv, Direction::encrypt, plain);
            ASSERT_TRUE(run_pipeline_on_files(*backend, cipher,
                                              {Direction::decrypt, Framing::whole_blocks, chunk, 3}) == plain);
            // PKCS#7: the last block's padding, checked and taken off after the GPU.
            Bytes padded = plain;
            padded.insert(padded.end(), 16, 16);
            const Bytes padded_cipher = openssl_cbc(key, iv, Direction::encrypt, padded);
            ASSERT_TRUE(run_pipeline_on_files(*backend, padded_cipher,
                                              {Direction::decrypt, Framing::pkcs7, chunk, 3}) == plain);
        }
    }
    // Encrypting chains every block to the one before: not the GPU's.
    EXPECT_THROW((void)make_gpu_backend(random_bytes(16), CipherSpec(Direction::encrypt, Mode::cbc, CounterBlock{})),
                 std::invalid_argument);
}

} // namespace
} // namespace aesgpu::test
