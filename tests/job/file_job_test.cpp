// SPDX-License-Identifier: Apache-2.0
// One input to one output: the header goes first, the output is put in place only when the run
// succeeded, and an input whose length does not add up leaves nothing behind.
#include "aes_cpu/openssl_backend.hpp"
#include "common/errors.hpp"
#include "job/file_job.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

namespace aesgpu::test {
namespace {

std::span<const std::byte> as_bytes(const Bytes &bytes) {
    return std::as_bytes(std::span(bytes));
}

TEST(FileJob, WritesTheHeaderThenTheDataAndCommitsWithTheFigures) {
    TempDir dir;
    const Bytes key = random_bytes(16);
    const Bytes plain = random_bytes(3 * 4096 + 5);
    const Bytes header = {'h', 'e', 'a', 'd'};
    write_file(dir.file("in"), plain);
    Bytes cipher;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, cipher));

    InputSource source = InputSource::open(dir.file("in"));
    OutputSink sink = OutputSink::create(dir.file("out"), {});
    OpenSslBackend backend(key, Direction::encrypt, 2);
    FileJob job{source, sink, PipelineOptions{Direction::encrypt, Framing::pkcs7, 4096, 3}, as_bytes(header)};
    std::uint64_t committed_bytes = 0;
    job.commit = [&](const PipelineStats &stats) {
        EXPECT_EQ(count_entries(dir.path()), 1u) << "nothing in place before the commit";
        committed_bytes = stats.bytes_read;
        sink.commit();
    };
    const PipelineStats stats = run_file_job(job, backend);
    EXPECT_EQ(committed_bytes, plain.size());
    Bytes expected = header;
    expected.insert(expected.end(), cipher.begin(), cipher.end());
    EXPECT_TRUE(read_file(dir.file("out")) == expected);
    EXPECT_EQ(stats.bytes_written, expected.size()) << "the output file's size, its header included";
}

TEST(FileJob, AnInputWhoseLengthDoesNotAddUpIsNotCommitted) {
    // The length read plus the header read before the job must be the file's size at the start; a
    // file that shrank or grew meanwhile gives an output that matches no one version of it.
    TempDir dir;
    const Bytes key = random_bytes(16);
    write_file(dir.file("in"), random_bytes(10000));
    InputSource source = InputSource::open(dir.file("in"));
    OutputSink sink = OutputSink::create(dir.file("out"), {});
    OpenSslBackend backend(key, Direction::encrypt, 1);
    FileJob job{source, sink, PipelineOptions{Direction::encrypt, Framing::pkcs7, 4096, 3}};
    job.header_bytes_read = 16; // as if a header had been read: 16 bytes more than the file holds
    bool committed = false;
    job.commit = [&](const PipelineStats &) { committed = true; };
    try {
        (void)run_file_job(job, backend);
        ADD_FAILURE() << "a length that does not add up was accepted";
    } catch (const IoError &e) {
        EXPECT_NE(std::string(e.what()).find("changed size while it was read (10000 bytes at the start, 10016 read)"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_FALSE(committed);
    EXPECT_EQ(count_entries(dir.path()), 1u) << "only the input";
}

} // namespace
} // namespace aesgpu::test
