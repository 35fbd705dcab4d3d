// Output safety: nothing appears before commit, nothing is left behind on failure, existing files
// and the input itself are protected.
#include "io/errors.hpp"
#include "io/input_source.hpp"
#include "io/output_sink.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <thread>

namespace aesgpu::test {
namespace {

std::size_t entries(const TempDir &dir) {
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir.path()), {}));
}

void write_text(OutputSink &sink, const std::string &text) {
    sink.write_all(std::as_bytes(std::span(text.data(), text.size())));
}

TEST(OutputSink, AppearsOnlyOnCommit) {
    TempDir dir;
    {
        OutputSink sink = OutputSink::create(dir.file("out"), {});
        write_text(sink, "hello");
        EXPECT_FALSE(std::filesystem::exists(dir.file("out")));
        sink.commit();
    }
    EXPECT_EQ(read_file(dir.file("out")), Bytes({'h', 'e', 'l', 'l', 'o'}));
    EXPECT_EQ(entries(dir), 1u);
}

TEST(OutputSink, LeavesNothingBehindWithoutCommit) {
    TempDir dir;
    {
        OutputSink sink = OutputSink::create(dir.file("out"), {});
        write_text(sink, "partial");
        EXPECT_EQ(entries(dir), 1u); // the temporary file
    }
    EXPECT_EQ(entries(dir), 0u);
}

TEST(OutputSink, NewFilesGetTheUsualPermissions) {
    TempDir dir;
    const mode_t old_mask = umask(022);
    {
        OutputSink sink = OutputSink::create(dir.file("out"), {});
        sink.commit();
    }
    umask(old_mask);
    struct stat st {};
    ASSERT_EQ(stat(dir.file("out").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(OutputSink, RefusesToReplaceAnExistingFileWithoutOverwrite) {
    TempDir dir;
    write_file(dir.file("out"), {1, 2, 3});
    EXPECT_THROW(OutputSink::create(dir.file("out"), {}), IoError);
    {
        OutputSink sink = OutputSink::create(dir.file("out"), {true});
        write_text(sink, "new");
        EXPECT_EQ(read_file(dir.file("out")), Bytes({1, 2, 3})) << "replaced before commit";
        sink.commit();
    }
    EXPECT_EQ(read_file(dir.file("out")), Bytes({'n', 'e', 'w'}));
}

TEST(OutputSink, PartialOutputIsPrivateAndReplacingKeepsTheMode) {
    TempDir dir;
    write_file(dir.file("secret"), {1});
    ASSERT_EQ(chmod(dir.file("secret").c_str(), 0600), 0);
    OutputSink sink = OutputSink::create(dir.file("secret"), {true});
    for (const auto &entry : std::filesystem::directory_iterator(dir.path())) {
        struct stat st {};
        ASSERT_EQ(stat(entry.path().c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 077, 0u) << entry.path() << " is readable by others";
    }
    write_text(sink, "x");
    sink.commit();
    struct stat st {};
    ASSERT_EQ(stat(dir.file("secret").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(OutputSink, ReplacingThroughASymlinkWritesItsTarget) {
    TempDir dir;
    write_file(dir.file("real"), {1});
    std::filesystem::create_symlink("real", dir.file("link"));
    {
        OutputSink sink = OutputSink::create(dir.file("link"), {true});
        write_text(sink, "new");
        sink.commit();
    }
    EXPECT_TRUE(std::filesystem::is_symlink(dir.file("link")));
    EXPECT_EQ(read_file(dir.file("real")), Bytes({'n', 'e', 'w'}));
}

TEST(OutputSink, HandlesNamesAtTheFileSystemLimit) {
    TempDir dir;
    const std::string name(255, 'n');
    OutputSink sink = OutputSink::create(dir.file(name), {});
    write_text(sink, "long");
    sink.commit();
    EXPECT_EQ(read_file(dir.file(name)).size(), 4u);
}

TEST(OutputSink, CommitDoesNotReplaceAFileThatAppearedMeanwhile) {
    TempDir dir;
    OutputSink sink = OutputSink::create(dir.file("out"), {});
    write_text(sink, "ours");
    write_file(dir.file("out"), {9});
    EXPECT_THROW(sink.commit(), IoError);
    EXPECT_EQ(read_file(dir.file("out")), Bytes({9}));
}

TEST(OutputSink, RefusesTheInputFileEvenWithOverwrite) {
    TempDir dir;
    write_file(dir.file("data"), {1, 2, 3});
    std::filesystem::create_symlink(dir.file("data"), dir.file("link"));
    InputSource input = InputSource::open(dir.file("data"));
    for (const char *name : {"data", "link"}) {
        try {
            (void)OutputSink::create(dir.file(name), {true, &input.status()});
            ADD_FAILURE() << name << " accepted as output";
        } catch (const IoError &e) {
            EXPECT_NE(std::string(e.what()).find("input file"), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(read_file(dir.file("data")), Bytes({1, 2, 3}));
}

TEST(OutputSink, RefusesADirectory) {
    TempDir dir;
    std::filesystem::create_directory(dir.file("sub"));
    EXPECT_THROW(OutputSink::create(dir.file("sub"), {true}), IoError);
}

TEST(OutputSink, ReportsAMissingDirectory) {
    TempDir dir;
    EXPECT_THROW(OutputSink::create(dir.file("no/such/out"), {}), IoError);
}

TEST(OutputSink, WritesAFifoDirectly) {
    TempDir dir;
    ASSERT_EQ(mkfifo(dir.file("fifo").c_str(), 0600), 0);
    Bytes received;
    std::thread reader([&] { received = read_file(dir.file("fifo")); });
    {
        OutputSink sink = OutputSink::create(dir.file("fifo"), {}); // existing, but not a regular file
        write_text(sink, "through");
        sink.commit();
    }
    reader.join();
    EXPECT_EQ(received, Bytes({'t', 'h', 'r', 'o', 'u', 'g', 'h'}));
    EXPECT_EQ(entries(dir), 1u);
}

TEST(InputSource, ReportsMissingFilesAndDirectories) {
    TempDir dir;
    try {
        (void)InputSource::open(dir.file("missing"));
        ADD_FAILURE() << "opened a missing file";
    } catch (const IoError &e) {
        EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
    }
    EXPECT_THROW(InputSource::open(dir.path().string()), IoError);
}

TEST(InputSource, ReadsFullBuffersAndReportsTheSize) {
    TempDir dir;
    const Bytes data = random_bytes(10000);
    write_file(dir.file("in"), data);
    InputSource input = InputSource::open(dir.file("in"));
    EXPECT_EQ(input.size(), 10000u);
    std::vector<std::byte> buffer(4096);
    EXPECT_EQ(input.read_full(buffer), 4096u);
    EXPECT_EQ(input.read_full(buffer), 4096u);
    EXPECT_EQ(input.read_full(buffer), 10000u - 8192u);
    EXPECT_EQ(input.read_full(buffer), 0u);
}

} // namespace
} // namespace aesgpu::test
