// SPDX-License-Identifier: Apache-2.0
// Direct I/O where the output lies otherwise against the disk's alignment than the input (a
// header, GCM's tags, a chunk off the page grid): the ring ciphers out of place, and then all but
// the output's odd tail and the input's last partial page go to and from the disk directly, in
// aligned requests, and the bytes are those of the buffered path. A queue in front of the real one
// counts what went directly, or refuses writes partway (EINVAL, as a file system may).
#include "aes_cpu/openssl_backend.hpp"
#include "cipher/cipher_backend.hpp"
#include "io/direct_io.hpp"
#include "io/direct_requests.hpp"
#include "job/file_job.hpp"
#include "support/budget_queue.hpp"
#include "support/test_support.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

namespace aesgpu::test {
namespace {

DirectQueueMaker counting(std::size_t *moved, std::size_t refuse_after = SIZE_MAX) {
    return [moved, refuse_after] {
        DirectQueue made = make_direct_queue(DirectEngine::threads);
        made.queue = std::make_unique<BudgetQueue>(std::move(made.queue), refuse_after, EINVAL, moved);
        return made;
    };
}

struct Format {
    const char *name;
    Direction direction;
    std::size_t header_bytes; // written in front of the output (encrypt) or read from in front of the input
    std::size_t chunk_bytes;
    bool gcm;
};

// Test names without a dump of the struct's bytes.
void PrintTo(const Format &format, std::ostream *out) {
    *out << format.name;
}

class OutOfPlace : public testing::TestWithParam<Format> {
protected:
    void SetUp() override {
        write_file(dir.file("probe"), random_bytes(4096));
        if (!open_direct(dir.file("probe"), O_RDONLY).valid()) GTEST_SKIP() << "this file system refuses O_DIRECT";
    }

    [[nodiscard]] CipherSpec spec() const {
        CipherSpec spec(GetParam().direction, GetParam().gcm ? Mode::gcm : Mode::ecb);
        spec.gcm.geometry = {4096, GetParam().header_bytes};
        spec.gcm.nonce_prefix = {1, 2, 3, 4, 5, 6, 7};
        return spec;
    }

    // Runs the format over `input` into `output`: directly through the counting queues (writes
    // through `write_queue` where one is given), or buffered. Returns the output's bytes.
    Bytes run(const std::string &input, const std::string &output, bool direct, std::size_t refuse_writes_after,
              const DirectQueueMaker &write_queue = {}) {
        const Format &format = GetParam();
        InputSource source = InputSource::open(dir.file(input));
        const Bytes header(format.header_bytes, 0x5a);
        std::uint64_t header_read = 0;
        if (format.direction == Direction::decrypt) {
            Bytes skipped(format.header_bytes);
            header_read = source.read_full(std::as_writable_bytes(std::span(skipped)));
        }
        OutputSink sink = OutputSink::create(dir.file(output), {.overwrite = true});
        if (direct) {
            EXPECT_EQ(source.read_directly(counting(&read_directly)), std::nullopt);
            EXPECT_EQ(sink.write_directly(write_queue ? write_queue : counting(&written_directly, refuse_writes_after)),
                      std::nullopt);
        }
        OpenSslBackend backend(key, spec(), 2);
        FileJob job{source, sink, PipelineOptions{format.direction, Framing::pkcs7, format.chunk_bytes, 4}};
        if (format.gcm) job.pipeline.segments = spec().gcm.geometry;
        if (format.direction == Direction::encrypt) job.header = std::as_bytes(std::span(header));
        job.header_bytes_read = header_read;
        (void)run_file_job(job, backend);
        return read_file(dir.file(output));
    }

    // What the format reads for `plain`: the plaintext itself, or what its encryption writes, header first.
    Bytes input_for(const Bytes &plain) {
        const Format &format = GetParam();
        if (format.direction == Direction::encrypt) return plain;
        CipherSpec encrypting = spec();
        encrypting.direction = Direction::encrypt;
        write_file(dir.file("plain"), plain);
        OpenSslBackend backend(key, encrypting, 2);
        InputSource source = InputSource::open(dir.file("plain"));
        OutputSink sink = OutputSink::create(dir.file("encrypted"), {.overwrite = true});
        const Bytes header(format.header_bytes, 0x5a);
        FileJob job{source, sink, PipelineOptions{Direction::encrypt, Framing::pkcs7, format.chunk_bytes, 4},
                    std::as_bytes(std::span(header))};
        if (format.gcm) job.pipeline.segments = encrypting.gcm.geometry;
        (void)run_file_job(job, backend);
        return read_file(dir.file("encrypted"));
    }

    TempDir dir;
    Bytes key = random_bytes(16);
    std::size_t read_directly = 0;
    std::size_t written_directly = 0;
};

TEST_P(OutOfPlace, AllButTheEndsGoDirectlyAndTheBytesAreTheBufferedPaths) {
    const Format &format = GetParam();
    for (const std::size_t size : {std::size_t{0}, std::size_t{4097}, std::size_t{(5 << 20) + 4096 + 7}}) {
        SCOPED_TRACE(size);
        const Bytes plain = random_bytes(size);
        const Bytes input = input_for(plain);
        write_file(dir.file("in"), input);
        const Bytes buffered = run("in", "buffered", false, SIZE_MAX);
        read_directly = written_directly = 0;
        const Bytes direct = run("in", "direct", true, SIZE_MAX);
        EXPECT_TRUE(direct == buffered) << "direct and buffered outputs differ";
        if (format.direction == Direction::decrypt) {
            EXPECT_TRUE(direct == plain);
        }
        // What goes through the page cache: the header read before the job, the input's last
        // partial page, and the output's odd tail.
        EXPECT_GE(read_directly + format.header_bytes + 4096, input.size());
        EXPECT_GE(written_directly + 4096, direct.size());
        EXPECT_EQ(written_directly % 4096, 0u);
    }
}

// ext4 takes a direct write that is not whole file-system blocks (4096 bytes, where its direct-I/O
// alignment is 512) into unwritten extents only under the inode's exclusive lock, after every
// direct write in flight has ended: GCM decryption's chunks (segments less their tags) were such
// writes, and io_uring handed each to a worker thread that waited (1.8 s of system time for 8 GiB
// on a GPU host's disk, 0.7 s encrypting). Every direct write is whole blocks.
TEST_P(OutOfPlace, DirectWritesAreWholeFileSystemBlocks) {
    write_file(dir.file("in"), input_for(random_bytes((3 << 20) + 4096 + 7)));
    const Bytes buffered = run("in", "buffered", false, SIZE_MAX);
    std::size_t writes = 0;
    std::size_t partial = 0;
    const Bytes direct =
        run("in", "direct", true, SIZE_MAX,
            WatchedQueue::over(DirectEngine::threads, [&](const struct stat &file, const DirectRequest &request) {
                const auto block = std::min<std::uint64_t>(file.st_blksize, 4096);
                const auto address = reinterpret_cast<std::uintptr_t>(request.data);
                ++writes;
                if ((address | static_cast<std::uint64_t>(request.offset) | request.length) % block != 0) {
                    ++partial;
                }
            }));
    EXPECT_TRUE(direct == buffered);
    EXPECT_GT(writes, 2u);
    EXPECT_EQ(partial, 0u) << "direct writes that are not whole file-system blocks, of " << writes;
}

// A file system may refuse a direct write partway (EINVAL); the rest goes through the page cache,
// bytes held back for the next chunk's room included, and the output is whole.
TEST_P(OutOfPlace, AWriteRefusedPartwayStillGivesEveryByte) {
    write_file(dir.file("plain"), random_bytes((3 << 20) + 123));
    if (GetParam().direction == Direction::decrypt) GTEST_SKIP() << "the encrypting formats cover the writes";
    const Bytes buffered = run("plain", "buffered", false, SIZE_MAX);
    for (const std::size_t refuse_after : {std::size_t{0}, std::size_t{4096}, std::size_t{1} << 20}) {
        SCOPED_TRACE(refuse_after);
        written_directly = 0;
        EXPECT_TRUE(run("plain", "direct", true, refuse_after) == buffered);
        EXPECT_LE(written_directly, refuse_after);
    }
}

// A backend whose ring may not pass `limit` bytes: the ResourceExhausted of memory that is short.
class LimitedBackend final : public CipherBackend {
public:
    LimitedBackend(CipherBackend &inner, std::size_t limit) : inner_(inner), limit_(limit) {}
    [[nodiscard]] std::string describe() const override { return inner_.describe(); }
    void configure_slots(std::size_t slot_count, std::size_t slot_bytes) override {
        if (slot_count * slot_bytes > limit_) throw ResourceExhausted("short of memory (a test's limit)");
        inner_.configure_slots(slot_count, slot_bytes);
    }
    void adopt_slots(std::span<const std::span<std::byte>> buffers) override { inner_.adopt_slots(buffers); }
    [[nodiscard]] std::span<std::byte> slot_buffer(std::size_t slot) override { return inner_.slot_buffer(slot); }
    void submit(const CipherJob &job) override { inner_.submit(job); }
    void wait(std::size_t slot) override { inner_.wait(slot); }

private:
    CipherBackend &inner_;
    std::size_t limit_;
};

// Where the out-of-place ring (twice the memory) does not fit even with the smallest chunks, the
// ring goes in place: the same bytes, the shifted parts through the page cache, and the run says
// so. Before, such a run failed ("not enough memory") where --io buffered went through.
TEST_P(OutOfPlace, ShortOfMemoryTheRingGoesInPlaceWithTheSameBytes) {
    const Format &format = GetParam();
    if (format.direction == Direction::decrypt) GTEST_SKIP() << "the encrypting formats cover the ring";
    write_file(dir.file("plain"), random_bytes((3 << 20) + 123));
    const Bytes buffered = run("plain", "buffered", false, SIZE_MAX);
    InputSource source = InputSource::open(dir.file("plain"));
    OutputSink sink = OutputSink::create(dir.file("direct"), {.overwrite = true});
    ASSERT_EQ(source.read_directly(counting(&read_directly)), std::nullopt);
    ASSERT_EQ(sink.write_directly(counting(&written_directly)), std::nullopt);
    OpenSslBackend cipher(key, spec(), 2);
    // An in-place ring of 4 slots of the smallest chunk fits; twice that does not.
    const std::size_t smallest = format.gcm ? 4096 * (kMinRetryChunkBytes / 4096) : kMinRetryChunkBytes + 16;
    LimitedBackend limited(cipher, 4 * smallest + 4096);
    const Bytes header(format.header_bytes, 0x5a);
    FileJob job{source, sink, PipelineOptions{format.direction, Framing::pkcs7, format.chunk_bytes, 4},
                std::as_bytes(std::span(header))};
    if (format.gcm) job.pipeline.segments = spec().gcm.geometry;
    const PipelineStats stats = run_file_job(job, limited);
    EXPECT_TRUE(stats.went_in_place);
    EXPECT_TRUE(read_file(dir.file("direct")) == buffered);
}

INSTANTIATE_TEST_SUITE_P(Formats, OutOfPlace,
                         testing::Values(Format{"EcbSaltedEncrypt", Direction::encrypt, 16, 1 << 20, false},
                                         Format{"EcbSaltedDecrypt", Direction::decrypt, 16, 1 << 20, false},
                                         Format{"EcbChunkOffThePageGrid", Direction::encrypt, 0, (1 << 20) + 16, false},
                                         Format{"GcmEncrypt", Direction::encrypt, 24, 1 << 20, true},
                                         Format{"GcmDecrypt", Direction::decrypt, 24, 1 << 20, true}),
                         [](const testing::TestParamInfo<Format> &test) { return std::string(test.param.name); });

} // namespace
} // namespace aesgpu::test
