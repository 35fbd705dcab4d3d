// SPDX-License-Identifier: Apache-2.0
// The streaming pipeline with the CPU backend, checked against one-shot OpenSSL: every size
// around block and chunk boundaries, several chunk sizes and thread counts, files and pipes with
// odd read/write sizes, and every way a run must fail.
#include "aes_cpu/openssl_backend.hpp"
#include "common/errors.hpp"
#include "engine/pipeline.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>

namespace aesgpu::test {
namespace {

struct RunSpec {
    Direction direction = Direction::encrypt;
    Framing framing = Framing::pkcs7;
    std::size_t chunk = 4096;
    unsigned threads = 2;
    std::size_t slots = 4;
    Mode mode = Mode::ecb;
    CounterBlock iv{};
};

Bytes run_files(const Bytes &key, const Bytes &input, const RunSpec &spec) {
    OpenSslBackend backend(key, CipherSpec(spec.direction, spec.mode, spec.iv), spec.threads);
    return run_pipeline_on_files(backend, input, {spec.direction, spec.framing, spec.chunk, spec.slots});
}

void expect_matches_openssl(const Bytes &key, std::size_t size, const RunSpec &spec) {
    SCOPED_TRACE("key bits " + std::to_string(key.size() * 8) + ", size " + std::to_string(size) + ", chunk " +
                 std::to_string(spec.chunk) + ", threads " + std::to_string(spec.threads) +
                 (spec.framing == Framing::pkcs7 ? "" : ", no padding"));
    const Bytes plain = random_bytes(size);
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, spec.framing == Framing::pkcs7, plain, expected));
    RunSpec encrypt = spec;
    encrypt.direction = Direction::encrypt;
    const Bytes cipher = run_files(key, plain, encrypt);
    ASSERT_EQ(cipher.size(), expected.size());
    ASSERT_TRUE(cipher == expected);
    RunSpec decrypt = spec;
    decrypt.direction = Direction::decrypt;
    ASSERT_TRUE(run_files(key, cipher, decrypt) == plain);
}

std::vector<std::size_t> boundary_sizes(std::size_t chunk) {
    std::vector<std::size_t> sizes{0, 1, 15, 16, 17, 4095, 4096, chunk - 1, chunk, chunk + 1, 3 * chunk + 7};
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

TEST(Pipeline, MatchesOpenSslAtBlockAndChunkBoundaries) {
    for (const std::size_t chunk : {16u, 4096u, 65536u + 16u}) {
        for (const unsigned threads : {1u, 2u, 5u}) {
            for (const std::size_t key_bytes : {16u, 24u, 32u}) {
                const Bytes key = random_bytes(key_bytes);
                for (const std::size_t size : boundary_sizes(chunk)) {
                    expect_matches_openssl(key, size, {Direction::encrypt, Framing::pkcs7, chunk, threads, 4});
                }
            }
        }
    }
}

// CTR: any length, no padding, the counter running on across chunks (each chunk a job that starts
// at its own block index) and carrying as OpenSSL's does.
TEST(Pipeline, CtrMatchesOpenSslAtBlockAndChunkBoundaries) {
    for (const std::size_t chunk : {16u, 4096u, 65536u + 16u}) {
        for (const std::size_t key_bytes : {16u, 32u}) {
            const Bytes key = random_bytes(key_bytes);
            for (const CounterBlock &iv : carrying_ivs()) {
                for (const std::size_t size : boundary_sizes(chunk)) {
                    SCOPED_TRACE("chunk " + std::to_string(chunk) + " key bits " + std::to_string(key_bytes * 8) +
                                 " size " + std::to_string(size));
                    const Bytes plain = random_bytes(size);
                    const Bytes expected = openssl_ctr(key, iv, plain);
                    for (const Direction direction : {Direction::encrypt, Direction::decrypt}) {
                        const RunSpec spec{direction, Framing::any_length, chunk, 3, 4, Mode::ctr, iv};
                        ASSERT_TRUE(run_files(key, plain, spec) == expected);
                        ASSERT_TRUE(run_files(key, expected, spec) == plain);
                    }
                }
            }
        }
    }
}

// GCM: chunks of whole segments (the first shorter by the header), plaintext placed where its
// ciphertext goes when encrypting, each segment's plaintext written without its tag when
// decrypting; the output must equal the reference segment by segment.
struct GcmRun {
    Bytes key = random_bytes(16);
    CipherSpec spec{Direction::encrypt, Mode::gcm};

    explicit GcmRun(std::size_t segment_bytes) {
        const Bytes prefix = random_bytes(7);
        std::copy(prefix.begin(), prefix.end(), spec.gcm.nonce_prefix.begin());
        spec.gcm.geometry = {segment_bytes, 24};
    }
    Bytes run(Direction direction, const Bytes &input, std::size_t chunk, std::size_t threads = 3) const {
        CipherSpec directed = spec;
        directed.direction = direction;
        OpenSslBackend backend(key, directed, static_cast<unsigned>(threads));
        PipelineOptions options{direction, Framing::any_length, chunk, 3};
        options.segments = spec.gcm.geometry;
        return run_pipeline_on_files(backend, input, options);
    }
};

TEST(Pipeline, GcmMatchesTheReferenceAroundSegmentAndChunkBoundaries) {
    const std::size_t segment = 256;
    const GcmRun gcm(segment);
    const std::size_t first = segment - 24 - 16;
    const std::size_t later = segment - 16;
    for (const std::size_t chunk : {segment, 3 * segment, 3 * segment + 112}) {
        for (const std::size_t size : {std::size_t{0}, std::size_t{1}, first - 1, first, first + 1, first + later,
                                       first + 2 * later, first + 2 * later + 1, first + 9 * later + 7}) {
            SCOPED_TRACE("chunk " + std::to_string(chunk) + " size " + std::to_string(size));
            const Bytes plain = random_bytes(size);
            const Bytes expected =
                reference_gcm_segments(gcm.key, gcm.spec.gcm.nonce_prefix, gcm.spec.gcm.geometry, plain);
            const Bytes cipher = gcm.run(Direction::encrypt, plain, chunk);
            ASSERT_EQ(to_hex(cipher), to_hex(expected));
            ASSERT_TRUE(gcm.run(Direction::decrypt, cipher, chunk) == plain);
        }
    }
}

// Every way a stream can be changed must fail the run, before its output is committed.
TEST(Pipeline, GcmRefusesChangedStreams) {
    const std::size_t segment = 256;
    const GcmRun gcm(segment);
    const Bytes plain = random_bytes(5 * (segment - 16) + 7);
    const Bytes cipher = gcm.run(Direction::encrypt, plain, segment);
    const std::size_t first = segment - 24; // ciphertext bytes of segment 0
    const auto part = [&](std::size_t from, std::size_t to) {
        return Bytes(cipher.begin() + static_cast<std::ptrdiff_t>(from),
                     cipher.begin() + static_cast<std::ptrdiff_t>(to));
    };
    const auto join = [](std::initializer_list<Bytes> parts) {
        Bytes out;
        for (const Bytes &p : parts) out.insert(out.end(), p.begin(), p.end());
        return out;
    };
    const std::size_t s1 = first, s2 = first + segment, s3 = first + 2 * segment;
    Bytes flipped = cipher;
    flipped[s2 + 5] ^= 0x80;
    const struct {
        const char *what;
        Bytes stream;
    } changed[] = {
        {"a flipped bit", flipped},
        {"cut at a segment boundary", part(0, s3)},
        {"cut inside a segment", part(0, s3 + 100)},
        {"cut inside the last tag", part(0, cipher.size() - 1)},
        {"segment 1 dropped", join({part(0, s1), part(s2, cipher.size())})},
        {"segments 1 and 2 swapped", join({part(0, s1), part(s2, s3), part(s1, s2), part(s3, cipher.size())})},
        {"segment 1 twice", join({part(0, s2), part(s1, cipher.size())})},
        {"a byte appended", join({cipher, Bytes{0}})},
        {"nothing at all", Bytes{}},
    };
    for (const auto &[what, stream] : changed) {
        SCOPED_TRACE(what);
        EXPECT_THROW((void)gcm.run(Direction::decrypt, stream, 2 * segment), FormatError);
    }
}

TEST(Pipeline, LargeChunksSplitAcrossWorkers) {
    // 1 MiB + 16 chunks are cut into several pieces per worker job.
    const Bytes key = random_bytes(32);
    const std::size_t chunk = (1u << 20) + 16;
    for (const std::size_t size : {chunk - 1, chunk, 5 * chunk + 7}) {
        expect_matches_openssl(key, size, {Direction::encrypt, Framing::pkcs7, chunk, 3, 3});
    }
}

TEST(Pipeline, TwoSlotRingsAreEnough) {
    const Bytes key = random_bytes(16);
    for (const std::size_t size : {0u, 4095u, 4096u, 4096u * 9 + 5u}) {
        expect_matches_openssl(key, size, {Direction::encrypt, Framing::pkcs7, 4096, 2, 2});
    }
}

TEST(Pipeline, NoPaddingMatchesOpenSslNoPad) {
    const Bytes key = random_bytes(16);
    for (const std::size_t size : {0u, 16u, 4096u, 4096u * 3 + 16u}) {
        expect_matches_openssl(key, size, {Direction::encrypt, Framing::whole_blocks, 4096, 2, 4});
    }
}

TEST(Pipeline, NoPaddingRefusesRaggedInput) {
    const Bytes key = random_bytes(16);
    for (const auto direction : {Direction::encrypt, Direction::decrypt}) {
        for (const std::size_t size : {1u, 17u, 4096u * 2 + 3u}) {
            EXPECT_THROW(run_files(key, random_bytes(size), {direction, Framing::whole_blocks, 4096, 2, 4}),
                         FormatError)
                << size;
        }
    }
}

TEST(Pipeline, DecryptRejectsTruncatedAndEmptyCiphertext) {
    const Bytes key = random_bytes(24);
    const Bytes plain = random_bytes(10000);
    Bytes cipher;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, cipher));
    const RunSpec decrypt{Direction::decrypt, Framing::pkcs7, 4096, 2, 4};
    for (const std::size_t cut : {1u, 15u}) {
        const Bytes truncated(cipher.begin(), cipher.end() - static_cast<std::ptrdiff_t>(cut));
        try {
            run_files(key, truncated, decrypt);
            ADD_FAILURE() << "truncated by " << cut << " decrypted";
        } catch (const FormatError &e) {
            EXPECT_NE(std::string(e.what()).find("not a multiple of 16"), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW(run_files(key, {}, decrypt), FormatError);
}

TEST(Pipeline, DecryptWithWrongKeyFailsThePaddingCheck) {
    // A wrong key passes the padding check about once in 256 tries; pick a key and data that fail.
    const Bytes key = random_bytes(16);
    const Bytes plain = random_bytes(3 * 4096 + 5);
    Bytes cipher;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, cipher));
    int failures = 0;
    for (int attempt = 0; attempt < 4; ++attempt) {
        const Bytes wrong_key = random_bytes(16);
        Bytes ignored;
        const bool openssl_accepts = openssl_ecb(wrong_key, Direction::decrypt, true, cipher, ignored);
        try {
            run_files(wrong_key, cipher, {Direction::decrypt, Framing::pkcs7, 4096, 2, 4});
            EXPECT_TRUE(openssl_accepts) << "we accepted what OpenSSL rejects";
        } catch (const FormatError &e) {
            EXPECT_FALSE(openssl_accepts) << "we rejected what OpenSSL accepts";
            EXPECT_STREQ(e.what(), "bad decrypt (wrong key or corrupted input)");
            ++failures;
        }
    }
    EXPECT_GE(failures, 1);
}

TEST(Pipeline, PipesWithOddReadAndWriteSizes) {
    // The feeder writes 113 bytes at a time and the drainer reads 157, as OpenSSL's own tests do,
    // so every read and write of the pipeline is short and misaligned.
    const Bytes key = random_bytes(16);
    const Bytes plain = random_bytes(200000 + 3);
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, expected));

    int input_pipe[2];
    int output_pipe[2];
    ASSERT_EQ(pipe(input_pipe), 0);
    ASSERT_EQ(pipe(output_pipe), 0);
    InputSource source = InputSource::open("/dev/fd/" + std::to_string(input_pipe[0]));
    OutputSink sink = OutputSink::create("/dev/fd/" + std::to_string(output_pipe[1]), {});
    close(input_pipe[0]);
    close(output_pipe[1]);

    std::thread feeder([&] {
        for (std::size_t done = 0; done < plain.size();) {
            const std::size_t step = std::min<std::size_t>(113, plain.size() - done);
            const ssize_t wrote = write(input_pipe[1], plain.data() + done, step);
            if (wrote <= 0) break;
            done += static_cast<std::size_t>(wrote);
        }
        close(input_pipe[1]);
    });
    Bytes received;
    std::thread drainer([&] {
        std::uint8_t buffer[157];
        for (ssize_t got; (got = read(output_pipe[0], buffer, sizeof buffer)) > 0;) {
            received.insert(received.end(), buffer, buffer + got);
        }
        close(output_pipe[0]);
    });
    {
        OpenSslBackend backend(key, Direction::encrypt, 2);
        run_pipeline(source, sink, backend, {Direction::encrypt, Framing::pkcs7, 4096, 4});
        sink.commit(); // closes the write end: the drainer sees end of file
    }
    feeder.join();
    drainer.join();
    EXPECT_TRUE(received == expected);
}

TEST(Pipeline, RejectsBadOptions) {
    const Bytes key = random_bytes(16);
    EXPECT_THROW(run_files(key, random_bytes(10), {Direction::encrypt, Framing::pkcs7, 0, 1, 4}),
                 std::invalid_argument);
    EXPECT_THROW(run_files(key, random_bytes(10), {Direction::encrypt, Framing::pkcs7, 100, 1, 4}),
                 std::invalid_argument);
    EXPECT_THROW(run_files(key, random_bytes(10), {Direction::encrypt, Framing::pkcs7, 4096, 1, 1}),
                 std::invalid_argument);
}

// Passes blocks through unchanged, and fails on command, to test error paths of the pipeline.
class FaultyBackend final : public CipherBackend {
public:
    enum class FailIn { submit, wait, configure };
    FaultyBackend(FailIn where, int nth, std::size_t max_slot_bytes = SIZE_MAX)
        : where_(where), nth_(nth), max_slot_bytes_(max_slot_bytes) {}

    std::string describe() const override { return "faulty"; }
    void configure_slots(std::size_t count, std::size_t bytes) override {
        if (where_ == FailIn::configure && bytes > max_slot_bytes_) throw ResourceExhausted("injected: too big");
        buffers_.assign(count, std::vector<std::byte>(bytes));
    }
    void adopt_slots(std::span<const std::span<std::byte>>) override { throw std::logic_error("not used"); }
    std::span<std::byte> slot_buffer(std::size_t slot) override { return buffers_.at(slot); }
    void submit(const CipherJob &) override {
        if (where_ == FailIn::submit && ++submits_ == nth_) throw std::runtime_error("injected submit failure");
    }
    void wait(std::size_t) override {
        if (where_ == FailIn::wait && ++waits_ == nth_) throw std::runtime_error("injected wait failure");
    }

private:
    FailIn where_;
    int nth_;
    std::size_t max_slot_bytes_;
    int submits_ = 0;
    int waits_ = 0;
    std::vector<std::vector<std::byte>> buffers_;
};

TEST(Pipeline, BackendFailuresEndTheRunWithoutHanging) {
    TempDir dir;
    write_file(dir.file("in"), random_bytes(64 * 4096)); // far more chunks than ring slots
    for (const auto where : {FaultyBackend::FailIn::submit, FaultyBackend::FailIn::wait}) {
        for (const int nth : {1, 2, 7}) {
            InputSource source = InputSource::open(dir.file("in"));
            OutputSink sink = OutputSink::create(dir.file("out"), {true});
            FaultyBackend backend(where, nth);
            EXPECT_THROW(run_pipeline(source, sink, backend, {Direction::encrypt, Framing::pkcs7, 4096, 3}),
                         std::runtime_error);
        }
    }
    // Nothing was committed, so no output and no temporary files remain.
    EXPECT_EQ(count_entries(dir.path()), 1u);
}

TEST(Pipeline, ShortOfMemoryRetriesWithSmallerChunks) {
    TempDir dir;
    const Bytes plain = random_bytes(1000000);
    write_file(dir.file("in"), plain);
    {
        InputSource source = InputSource::open(dir.file("in"));
        OutputSink sink = OutputSink::create(dir.file("out"), {});
        // Identity "cipher" that cannot allocate slots above 100 KiB: 1 MiB -> 512 KiB -> ... -> 64 KiB.
        FaultyBackend backend(FaultyBackend::FailIn::configure, 0, 100u << 10);
        const PipelineStats stats =
            run_pipeline(source, sink, backend, {Direction::encrypt, Framing::whole_blocks, 1u << 20, 3});
        EXPECT_EQ(stats.chunk_bytes, 64u << 10);
        sink.commit();
    }
    EXPECT_TRUE(read_file(dir.file("out")) == plain);
    InputSource source = InputSource::open(dir.file("in"));
    OutputSink sink = OutputSink::create(dir.file("out2"), {});
    FaultyBackend hopeless(FaultyBackend::FailIn::configure, 0, 1000);
    EXPECT_THROW(run_pipeline(source, sink, hopeless, {Direction::encrypt, Framing::whole_blocks, 1u << 20, 3}),
                 ResourceExhausted);
}

// Under a memory limit (a control group's, where no allocation fails before the OOM killer
// comes) the first ring already fits it: the chunk halves as a retry would, then, where a GCM
// chunk cannot go below a segment, slots go, down to three.
TEST(Pipeline, TheFirstRingFitsAMemoryLimit) {
    TempDir dir;
    const Bytes plain = random_bytes(3000000);
    write_file(dir.file("in"), plain);
    const Bytes key = random_bytes(16);
    const auto run = [&](PipelineOptions options) {
        InputSource source = InputSource::open(dir.file("in"));
        OutputSink sink = OutputSink::create(dir.file("out"), {.overwrite = true});
        CipherSpec spec;
        if (options.segments) {
            spec = CipherSpec(Direction::encrypt, Mode::gcm);
            spec.gcm.geometry = *options.segments;
        }
        OpenSslBackend backend(key, spec, 2);
        const PipelineStats stats = run_pipeline(source, sink, backend, options);
        sink.commit();
        return stats;
    };
    PipelineOptions ecb{Direction::encrypt, Framing::pkcs7, 4u << 20, 5};
    ecb.memory_limit = 16u << 20; // the ring takes a quarter of it
    PipelineStats stats = run(ecb);
    EXPECT_EQ(stats.chunk_bytes, 512u << 10) << "5 x (512 KiB + 16) is the first to fit 4 MiB";
    EXPECT_EQ(stats.ring_slots, 5u);
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, expected));
    EXPECT_TRUE(read_file(dir.file("out")) == expected);
    ecb.memory_limit = 1u << 20;
    stats = run(ecb);
    EXPECT_EQ(stats.chunk_bytes, kMinRetryChunkBytes) << "no smaller than a retry would go";
    EXPECT_EQ(stats.ring_slots, 3u);
    // Halved in whole pages, so a chunk that direct I/O takes still does: 1028K goes to 512K,
    // not 514K (257 KiB, then 128.5 KiB, went mostly through the page cache on a direct run).
    PipelineOptions pages{Direction::encrypt, Framing::pkcs7, 1028u << 10, 5};
    pages.memory_limit = 12u << 20;
    stats = run(pages);
    EXPECT_EQ(stats.chunk_bytes, 512u << 10);
    pages.memory_limit = 3u << 20;
    EXPECT_EQ(run(pages).chunk_bytes, 128u << 10);
    PipelineOptions gcm{Direction::encrypt, Framing::any_length, 4u << 20, 5};
    gcm.segments = SegmentGeometry{1u << 20, 24};
    gcm.memory_limit = 16u << 20;
    stats = run(gcm);
    EXPECT_EQ(stats.chunk_bytes, 1u << 20) << "one segment a chunk";
    EXPECT_EQ(stats.ring_slots, 4u) << "4 x 1 MiB fits 4 MiB";
    gcm.memory_limit = 14u << 20;
    EXPECT_EQ(run(gcm).ring_slots, 3u) << "3 x 1 MiB: no fewer";
    gcm.memory_limit = 0;
    stats = run(gcm);
    EXPECT_EQ(stats.chunk_bytes, 4u << 20) << "no limit, no change";
    EXPECT_EQ(stats.ring_slots, 5u);
    // Three segments of 1 MiB are more than a 2 MiB limit holds: refused before the ring is made.
    gcm.memory_limit = 2u << 20;
    try {
        (void)run(gcm);
        ADD_FAILURE() << "a ring larger than the whole limit was made";
    } catch (const ResourceExhausted &e) {
        EXPECT_EQ(std::string(e.what()), "a ring of 3 chunks of 1024 KiB at the least is more than the memory limit of "
                                         "2048 KiB");
    }
}

TEST(Pipeline, AThreadLimitIsNotMistakenForShortMemory) {
    // Smaller chunks give no thread back: the run must fail at once, not retry down to 64 KiB.
    struct NoThreads final : public CipherBackend {
        int configures = 0;
        std::string describe() const override { return "no threads"; }
        void configure_slots(std::size_t, std::size_t) override {
            ++configures;
            throw ThreadLimit("injected: cannot start a thread");
        }
        void adopt_slots(std::span<const std::span<std::byte>>) override {}
        std::span<std::byte> slot_buffer(std::size_t) override { return {}; }
        void submit(const CipherJob &) override {}
        void wait(std::size_t) override {}
    } backend;
    TempDir dir;
    write_file(dir.file("in"), random_bytes(1000));
    InputSource source = InputSource::open(dir.file("in"));
    OutputSink sink = OutputSink::create(dir.file("out"), {});
    EXPECT_THROW(run_pipeline(source, sink, backend, {Direction::encrypt, Framing::pkcs7, 1u << 20, 3}), ThreadLimit);
    EXPECT_EQ(backend.configures, 1);
}

TEST(Pipeline, WriteFailureIsReported) {
    TempDir dir;
    write_file(dir.file("in"), random_bytes(100000));
    InputSource source = InputSource::open(dir.file("in"));
    OutputSink sink = OutputSink::create("/dev/full", {});
    OpenSslBackend backend(random_bytes(16), Direction::encrypt, 2);
    try {
        run_pipeline(source, sink, backend, {Direction::encrypt, Framing::pkcs7, 4096, 4});
        ADD_FAILURE() << "writing to /dev/full succeeded";
    } catch (const IoError &e) {
        EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
    }
}

TEST(Pipeline, AWriteFailureStopsAReaderWaitingOnASilentPipe) {
    // The producer sends two chunks and then neither writes nor closes: a reader blocked in read()
    // would keep the run (and the process) alive after /dev/full has failed the first write.
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const Bytes data = random_bytes(2 * 4096);
    ASSERT_EQ(write(fds[1], data.data(), data.size()), static_cast<ssize_t>(data.size()));
    InputSource source = InputSource::open("/dev/fd/" + std::to_string(fds[0]));
    OutputSink sink = OutputSink::create("/dev/full", {});
    OpenSslBackend backend(random_bytes(16), Direction::encrypt, 2);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_THROW(run_pipeline(source, sink, backend, {Direction::encrypt, Framing::pkcs7, 4096, 4}), IoError);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    close(fds[1]);
    close(fds[0]);
}

} // namespace
} // namespace aesgpu::test
