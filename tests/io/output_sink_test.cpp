// SPDX-License-Identifier: Apache-2.0
// Output safety: nothing appears before commit, nothing is left behind on failure, existing files
// and the input itself are protected.
#include "common/errors.hpp"
#include "common/interrupt_cleanup.hpp"
#include "common/unique_fd.hpp"
#include "io/direct_requests.hpp"
#include "io/input_source.hpp"
#include "io/output_sink.hpp"
#include "support/budget_queue.hpp"
#include "support/test_support.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <thread>

namespace aesgpu::test {
namespace {

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
    EXPECT_EQ(count_entries(dir.path()), 1u);
}

TEST(OutputSink, LeavesNothingBehindWithoutCommit) {
    TempDir dir;
    {
        OutputSink sink = OutputSink::create(dir.file("out"), {});
        write_text(sink, "partial");
        EXPECT_EQ(count_entries(dir.path()), 0u) << "an unnamed temporary file has no name to leave behind";
    }
    EXPECT_EQ(count_entries(dir.path()), 0u);
    OutputPolicy named;
    named.unnamed_temporary = false; // the fallback where O_TMPFILE is missing
    {
        OutputSink sink = OutputSink::create(dir.file("out"), named);
        write_text(sink, "partial");
        EXPECT_EQ(count_entries(dir.path()), 1u);
    }
    EXPECT_EQ(count_entries(dir.path()), 0u);
}

TEST(OutputSink, TheNamedFallbackCommitsLikeTheUnnamedFile) {
    TempDir dir;
    OutputPolicy named;
    named.unnamed_temporary = false;
    const mode_t old_mask = umask(027);
    {
        OutputSink sink = OutputSink::create(dir.file("out"), named);
        write_text(sink, "named");
        for (const auto &entry : std::filesystem::directory_iterator(dir.path())) {
            EXPECT_EQ(std::filesystem::status(entry).permissions() & std::filesystem::perms::all,
                      std::filesystem::perms::owner_read | std::filesystem::perms::owner_write)
                << "partial output readable by others";
        }
        sink.commit();
    }
    umask(old_mask);
    EXPECT_EQ(read_file(dir.file("out")), Bytes({'n', 'a', 'm', 'e', 'd'}));
    struct stat st {};
    ASSERT_EQ(stat(dir.file("out").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u) << "not the mode a new file gets under umask 027";
    EXPECT_EQ(count_entries(dir.path()), 1u);
}

// Interrupt clean-up runs in a child process: it locks the registry for good, as the signal
// thread does just before the process ends.
TEST(OutputSinkDeathTest, InterruptCleanupRemovesEveryLiveTemporaryFile) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    TempDir dir;
    EXPECT_EXIT(
        {
            CleanupRegistry registry;
            OutputPolicy named;
            named.unnamed_temporary = false;
            named.interrupt_cleanups = &registry;
            std::optional<OutputSink> first(OutputSink::create(dir.file("a"), named));
            OutputSink second = OutputSink::create(dir.file("b"), named);
            OutputSink third = OutputSink::create(dir.file("c"), named);
            first.reset(); // one output ending must not disarm the others
            const bool two_left = count_entries(dir.path()) == 2;
            registry.run_all();
            std::_Exit(two_left && count_entries(dir.path()) == 0 ? 0 : 1);
        },
        testing::ExitedWithCode(0), "");
    EXPECT_EQ(count_entries(dir.path()), 0u);
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

// A symbolic link at the output's name is a file there like any other: replaced with overwrite
// (as gzip replaces it), never written through, whatever it points to (a file, nothing, a FIFO).
TEST(OutputSink, ASymbolicLinkAtTheNameIsReplacedNeverWrittenThrough) {
    TempDir dir;
    write_file(dir.file("real"), {1});
    ASSERT_EQ(mkfifo(dir.file("fifo").c_str(), 0600), 0);
    for (const char *points_to : {"real", "missing", "fifo"}) {
        SCOPED_TRACE(points_to);
        std::filesystem::remove(dir.file("link"));
        std::filesystem::create_symlink(points_to, dir.file("link"));
        try {
            (void)OutputSink::create(dir.file("link"), {});
            ADD_FAILURE() << "replaced without overwrite";
        } catch (const OutputNeedsOverwrite &e) {
            EXPECT_EQ(e.situation, "'" + dir.file("link") + "' is a symbolic link");
        }
        for (const bool unnamed : {true, false}) {
            std::filesystem::remove(dir.file("link"));
            std::filesystem::create_symlink(points_to, dir.file("link"));
            OutputPolicy policy{.overwrite = true};
            policy.unnamed_temporary = unnamed;
            OutputSink sink = OutputSink::create(dir.file("link"), policy);
            EXPECT_TRUE(sink.withdrawable());
            write_text(sink, "new");
            sink.commit();
            EXPECT_FALSE(std::filesystem::is_symlink(dir.file("link")));
            EXPECT_EQ(read_file(dir.file("link")), Bytes({'n', 'e', 'w'}));
        }
    }
    EXPECT_EQ(read_file(dir.file("real")), Bytes({1}));
    EXPECT_FALSE(std::filesystem::exists(dir.file("missing")));
    EXPECT_TRUE(std::filesystem::is_fifo(dir.file("fifo")));
}

// The system's own links name streams: /dev/fd/N and /proc/self/fd/N (as /dev/stdout) are written
// as what they stand for: a pipe as it goes, a regular file replaced where it lies.
TEST(OutputSink, TheSystemsStreamLinksAreWrittenThrough) {
    for (const std::string name : {"/dev/fd/", "/proc/self/fd/"}) {
        SCOPED_TRACE(name);
        int ends[2];
        ASSERT_EQ(::pipe2(ends, O_CLOEXEC), 0);
        const UniqueFd read_end(ends[0]);
        UniqueFd write_end(ends[1]);
        {
            OutputSink sink = OutputSink::create(name + std::to_string(write_end.get()), {true});
            EXPECT_FALSE(sink.withdrawable());
            write_text(sink, "x");
            sink.commit();
        }
        char got = 0;
        EXPECT_EQ(::read(read_end.get(), &got, 1), 1);
        EXPECT_EQ(got, 'x');
        TempDir dir;
        write_file(dir.file("held"), {1});
        const UniqueFd held(::open(dir.file("held").c_str(), O_RDONLY | O_CLOEXEC));
        OutputSink sink = OutputSink::create(name + std::to_string(held.get()), {true});
        EXPECT_TRUE(sink.withdrawable());
        write_text(sink, "new");
        sink.commit();
        EXPECT_EQ(read_file(dir.file("held")), Bytes({'n', 'e', 'w'}));
    }
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
    try {
        (void)OutputSink::create(dir.file("data"), {true, &input.status()});
        ADD_FAILURE() << "the input accepted as output";
    } catch (const IoError &e) {
        EXPECT_NE(std::string(e.what()).find("input file"), std::string::npos) << e.what();
    }
    // A link to it is replaced, and the input stays as it is.
    OutputSink sink = OutputSink::create(dir.file("link"), {true, &input.status()});
    write_text(sink, "x");
    sink.commit();
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
    EXPECT_EQ(count_entries(dir.path()), 1u);
}

TEST(OutputSink, ReplacingNeverCarriesSpecialBitsOrWidensTheMode) {
    TempDir dir;
    write_file(dir.file("in"), {1});
    ASSERT_EQ(chmod(dir.file("in").c_str(), 0750), 0);
    struct stat input {};
    ASSERT_EQ(stat(dir.file("in").c_str(), &input), 0);
    for (const mode_t existing : {04755, 02775, 01777, 0644}) {
        write_file(dir.file("out"), {2});
        ASSERT_EQ(chmod(dir.file("out").c_str(), existing), 0);
        {
            OutputSink sink = OutputSink::create(dir.file("out"), {true, &input});
            write_text(sink, "x");
            sink.commit();
        }
        struct stat st {};
        ASSERT_EQ(stat(dir.file("out").c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 07777, existing & 0750) << std::oct << existing;
    }
}

TEST(OutputSink, NewFilesTakeARegularInputsModeAndTimes) {
    TempDir dir;
    write_file(dir.file("in"), {1});
    ASSERT_EQ(chmod(dir.file("in").c_str(), 04640), 0);
    const timespec times[2] = {{1000000000, 5}, {1200000000, 7}};
    ASSERT_EQ(utimensat(AT_FDCWD, dir.file("in").c_str(), times, 0), 0);
    struct stat input {};
    ASSERT_EQ(stat(dir.file("in").c_str(), &input), 0);
    {
        OutputSink sink = OutputSink::create(dir.file("out"), {false, &input});
        write_text(sink, "data");
        sink.commit();
    }
    struct stat st {};
    ASSERT_EQ(stat(dir.file("out").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u);
    EXPECT_EQ(st.st_mtim.tv_sec, 1200000000);
    EXPECT_EQ(st.st_mtim.tv_nsec, 7);
}

TEST(OutputSink, AnOutputFollowsItsDirectoryWhenThatIsRenamed) {
    TempDir dir;
    std::filesystem::create_directory(dir.file("d"));
    for (const bool unnamed : {true, false}) {
        OutputPolicy policy;
        policy.unnamed_temporary = unnamed;
        OutputSink sink = OutputSink::create(dir.file("d/out"), policy);
        write_text(sink, "moved");
        std::filesystem::rename(dir.file("d"), dir.file("e"));
        sink.commit();
        EXPECT_EQ(read_file(dir.file("e/out")).size(), 5u) << unnamed;
        EXPECT_EQ(count_entries(dir.file("e")), 1u) << unnamed;
        std::filesystem::remove(dir.file("e/out"));
        std::filesystem::rename(dir.file("e"), dir.file("d"));
    }
}

// chattr +a on `directory` for as long as it lives; ok() is false where it could not be set.
class AppendOnly {
public:
    explicit AppendOnly(const std::filesystem::path &directory) : directory_(directory) {
        ok_ = std::system(("chattr +a '" + directory_.string() + "' 2>/dev/null").c_str()) == 0;
    }
    ~AppendOnly() {
        if (ok_ && std::system(("chattr -a '" + directory_.string() + "'").c_str()) != 0) {
            ADD_FAILURE() << "chattr -a failed: " << directory_ << " stays append-only";
        }
    }
    AppendOnly(const AppendOnly &) = delete;
    AppendOnly &operator=(const AppendOnly &) = delete;
    [[nodiscard]] bool ok() const { return ok_; }

private:
    std::filesystem::path directory_;
    bool ok_ = false;
};

// An append-only directory takes new names but no rename or removal: a new file linked in from an
// unnamed temporary one works there; a replacement, or a named temporary file, is refused before
// anything is made, so nothing is left behind.
TEST(OutputSink, AnAppendOnlyDirectoryGetsNewFilesButNoReplacementAndNothingLeftBehind) {
    if (geteuid() != 0) GTEST_SKIP() << "chattr +a needs root (CAP_LINUX_IMMUTABLE)";
    TempDir dir;
    write_file(dir.file("old"), {'o', 'l', 'd'});
    const AppendOnly append_only(dir.path());
    if (!append_only.ok()) GTEST_SKIP() << "this file system takes no chattr +a (or chattr is missing)";
    {
        OutputSink sink = OutputSink::create(dir.file("new"), {});
        write_text(sink, "new");
        sink.commit();
    }
    EXPECT_EQ(read_file(dir.file("new")), (Bytes{'n', 'e', 'w'}));
    OutputPolicy replace;
    replace.overwrite = true;
    OutputPolicy named;
    named.unnamed_temporary = false;
    for (const auto &[target, policy] : {std::pair{"old", replace}, std::pair{"other", named}}) {
        try {
            OutputSink sink = OutputSink::create(dir.file(target), policy);
            write_text(sink, "replacement");
            sink.commit();
            ADD_FAILURE() << target << ": created in an append-only directory";
        } catch (const IoError &e) {
            EXPECT_NE(std::string(e.what()).find("is append-only (chattr +a)"), std::string::npos) << e.what();
        }
        EXPECT_EQ(count_entries(dir.path()), 2u) << target << ": something was left behind";
    }
    EXPECT_EQ(read_file(dir.file("old")), (Bytes{'o', 'l', 'd'}));
}

// Under a memory limit the written data goes to the disk as it is written and leaves the page
// cache but for about two windows, whether the output is a new file or standard output's file.
TEST(OutputSink, WritingBehindKeepsAboutTwoWindowsOfTheOutputInThePageCache) {
    TempDir dir;
    if (on_tmpfs(dir.path().string())) GTEST_SKIP() << "tmpfs keeps every page: its pages are the file";
    const Bytes piece = random_bytes(256u << 10);
    for (const bool behind : {false, true}) {
        SCOPED_TRACE(behind ? "writing behind" : "plain");
        const std::string name = dir.file(behind ? "behind" : "plain");
        {
            OutputPolicy policy;
            policy.io_threads = 4; // would map, but for writing behind
            OutputSink sink = OutputSink::create(name, policy);
            if (behind) sink.write_behind(1u << 20);
            for (int i = 0; i < 32; ++i) sink.write_all(std::as_bytes(std::span(piece)));
            sink.commit();
        }
        const long long cached = cached_bytes(name);
        ASSERT_GE(cached, 0);
        if (behind) {
            EXPECT_LE(cached, 3 << 20) << "more than about two 1 MiB windows stayed in the page cache";
        } else {
            EXPECT_GT(cached, 6 << 20) << "this file system gives written pages back by itself: no test";
        }
        const Bytes written = read_file(name);
        ASSERT_EQ(written.size(), 32 * piece.size());
        EXPECT_TRUE(std::equal(piece.begin(), piece.end(), written.end() - static_cast<std::ptrdiff_t>(piece.size())));
    }
}

// A direct write past the end of the file is one ext4 serialises, each holding the inode lock until
// its data is on the disk: the 8 GiB runs' writes went one at a time. Once the output's size is
// known, every direct write lies within the file's length, and commit() gives the file the length
// written, not the one reserved.
TEST(OutputSink, DirectWritesLieWithinTheFileAndCommitGivesTheLengthWritten) {
    TempDir dir;
    constexpr std::size_t kPiece = 4u << 20;
    const std::unique_ptr<std::byte, decltype(&std::free)> aligned(
        static_cast<std::byte *>(std::aligned_alloc(4096, kPiece)), &std::free);
    const Bytes data = random_bytes(2 * kPiece + 100);
    std::size_t writes = 0;
    std::size_t beyond = 0;
    {
        OutputSink sink = OutputSink::create(dir.file("out"), {});
        const std::optional<std::string> refused = sink.write_directly(
            WatchedQueue::over(DirectEngine::automatic, [&](const struct stat &file, const DirectRequest &request) {
                ++writes;
                if (request.offset + static_cast<off_t>(request.length) > file.st_size) ++beyond;
            }));
        if (refused) GTEST_SKIP() << "no direct writes here: " << *refused;
        sink.expect_size(data.size() + 16); // the most it could be, as with padding still to come
        for (std::size_t at = 0; at < data.size(); at += kPiece) {
            const std::size_t length = std::min(kPiece, data.size() - at);
            std::memcpy(aligned.get(), data.data() + at, length);
            sink.write_all({aligned.get(), length});
        }
        sink.commit();
    }
    EXPECT_GT(writes, 0u) << "nothing was written directly";
    EXPECT_EQ(beyond, 0u) << "direct writes past the end of the file, of " << writes;
    EXPECT_TRUE(read_file(dir.file("out")) == data);
}

// Written directly with room reserved for more than came (padding taken off), the new file still
// gets the input's times: the unwritten reservation is given back before they are set, since
// giving it back (ftruncate) moves a file's modification time to now.
TEST(OutputSink, WrittenDirectlyANewFileKeepsTheInputsTimes) {
    TempDir dir;
    write_file(dir.file("in"), {1});
    const timespec times[2] = {{1000000000, 5}, {1200000000, 7}};
    ASSERT_EQ(utimensat(AT_FDCWD, dir.file("in").c_str(), times, 0), 0);
    struct stat input {};
    ASSERT_EQ(stat(dir.file("in").c_str(), &input), 0);
    constexpr std::size_t kPiece = 1u << 20;
    const std::unique_ptr<std::byte, decltype(&std::free)> aligned(
        static_cast<std::byte *>(std::aligned_alloc(4096, kPiece)), &std::free);
    std::memset(aligned.get(), 0x5a, kPiece);
    {
        OutputSink sink = OutputSink::create(dir.file("out"), {false, &input});
        if (const std::optional<std::string> refused = sink.write_directly()) {
            GTEST_SKIP() << "no direct writes here: " << *refused;
        }
        sink.expect_size(kPiece + 16); // the most it could be, as with padding still to come
        sink.write_all({aligned.get(), kPiece});
        sink.commit();
    }
    struct stat st {};
    ASSERT_EQ(stat(dir.file("out").c_str(), &st), 0);
    EXPECT_EQ(st.st_size, static_cast<off_t>(kPiece));
    EXPECT_EQ(st.st_mtim.tv_sec, input.st_mtim.tv_sec);
    EXPECT_EQ(st.st_mtim.tv_nsec, input.st_mtim.tv_nsec);
}

// A direct-request queue in front of a real one where the file system refuses (EINVAL) every
// direct write from offset `from` on, as one may partway; the rest runs as asked.
class RefusingFrom final : public DirectRequestQueue {
public:
    RefusingFrom(std::unique_ptr<DirectRequestQueue> inner, off_t from) : inner_(std::move(inner)), from_(from) {}
    void run(DirectOp op, int fd, std::span<const DirectRequest> requests, std::span<DirectResult> results) override {
        for (std::size_t i = 0; i < requests.size(); ++i) {
            if (fd >= 0 && requests[i].offset >= from_) {
                results[i] = DirectResult{0, EINVAL};
            } else {
                inner_->run(op, fd, requests.subspan(i, 1), results.subspan(i, 1));
            }
        }
    }
    [[nodiscard]] unsigned depth() const override { return inner_->depth(); }
    [[nodiscard]] const char *engine() const override { return inner_->engine(); }

private:
    std::unique_ptr<DirectRequestQueue> inner_;
    off_t from_;
};

// The file system refuses a direct write partway through a write of several parts: what is left
// of that part and every part after it go through the page cache, and the file holds them all.
TEST(OutputSink, ADirectWriteRefusedPartwayLeavesTheLaterPartsToThePageCache) {
    TempDir dir;
    constexpr std::size_t kPiece = 1u << 20;
    const std::unique_ptr<std::byte, decltype(&std::free)> aligned(
        static_cast<std::byte *>(std::aligned_alloc(4096, 3 * kPiece)), &std::free);
    const Bytes data = random_bytes(3 * kPiece);
    std::memcpy(aligned.get(), data.data(), data.size());
    {
        OutputSink sink = OutputSink::create(dir.file("out"), {});
        const std::optional<std::string> refused = sink.write_directly([] {
            DirectQueue made = make_direct_queue(DirectEngine::threads);
            made.queue = std::make_unique<RefusingFrom>(std::move(made.queue), off_t{kPiece});
            return made;
        });
        if (refused) GTEST_SKIP() << "no direct writes here: " << *refused;
        const std::span<const std::byte> parts[] = {{aligned.get(), 2 * kPiece}, {aligned.get() + 2 * kPiece, kPiece}};
        sink.write_gathered(parts);
        EXPECT_FALSE(sink.writes_directly());
        const std::optional<std::uint64_t> at = sink.direct_writes_refused_at(); // where a request starts
        ASSERT_TRUE(at.has_value());
        EXPECT_GE(*at, kPiece);
        EXPECT_LT(*at, 2 * kPiece) << "refused in the first part";
        sink.commit();
    }
    EXPECT_TRUE(read_file(dir.file("out")) == data);
}

TEST(OutputSink, SaysWhetherWhatIsWrittenCanBeWithdrawn) {
    TempDir dir;
    EXPECT_TRUE(OutputSink::create(dir.file("file"), {}).withdrawable());
    EXPECT_FALSE(OutputSink::create("/dev/null", {}).withdrawable());
    ASSERT_EQ(mkfifo(dir.file("fifo").c_str(), 0600), 0);
    const int keep_open = open(dir.file("fifo").c_str(), O_RDWR); // so that opening for writing does not wait
    EXPECT_FALSE(OutputSink::create(dir.file("fifo"), {}).withdrawable());
    close(keep_open);
}

} // namespace
} // namespace aesgpu::test
