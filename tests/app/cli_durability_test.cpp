// SPDX-License-Identifier: Apache-2.0
// How outputs reach the disk: --sync (and --rm, which implies it) flush each file before its
// name appears and the directory after; without them nothing waits for the disk. The
// fault-injection shim logs fsync, fdatasync, linkat and renameat calls in the order made.
#include "support/cli_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace aesgpu::test {
namespace {

class Durability : public Cli {
protected:
    // Runs `arguments` with the shim and returns the logged calls, one a line.
    std::vector<std::string> synced_calls(const std::string &arguments) {
        std::filesystem::remove(capture.file("sync.log"));
        const Outcome r = run("AESGPU_TEST_SYNC_LOG=" + capture.file("sync.log") +
                              " LD_PRELOAD=" + std::string(AESGPU_FAULT_INJECTION) + " $AESGPU " + arguments);
        EXPECT_EQ(r.status, 0) << arguments << ": " << r.err;
        std::vector<std::string> lines;
        std::istringstream log(slurp(capture.file("sync.log")));
        for (std::string line; std::getline(log, line);) lines.push_back(line);
        return lines;
    }

    [[nodiscard]] std::string directory() const { return std::filesystem::canonical(dir.path()).string(); }
};

// Where in `calls` the first line starting with `prefix` is (calls.size() where none is).
std::size_t first(const std::vector<std::string> &calls, const std::string &prefix) {
    const auto at = std::find_if(calls.begin(), calls.end(), [&](const auto &c) { return c.rfind(prefix, 0) == 0; });
    return static_cast<std::size_t>(at - calls.begin());
}

// Where the last such line is (-1 where none is).
std::ptrdiff_t last(const std::vector<std::string> &calls, const std::string &prefix) {
    for (std::size_t i = calls.size(); i-- > 0;) {
        if (calls[i].rfind(prefix, 0) == 0) return static_cast<std::ptrdiff_t>(i);
    }
    return -1;
}

std::string joined(const std::vector<std::string> &calls) {
    std::string text;
    for (const auto &c : calls) text += c + "\n";
    return text;
}

TEST_F(Durability, SyncFlushesEachFileBeforeItsNameAppearsAndItsDirectoryAfter) {
    write_file(file("a"), random_bytes(100'003));
    write_file(file("b"), random_bytes(17));
    write_file(file("old"), random_bytes(5));
    const std::string key = " -K " + kKey128;
    // New outputs (an unnamed temporary file linked in), two in one run, and a replacement (-f:
    // a hidden name renamed over the old file).
    for (const std::string &arguments : {"encrypt -q --sync" + key + " a b", "encrypt -q --sync -f" + key + " a -o old",
                                         "decrypt -q --sync" + key + " b.aes -o b2"}) {
        const auto calls = synced_calls(arguments);
        const std::size_t name_appears = std::min(first(calls, "link "), first(calls, "rename "));
        const std::size_t file_flushed = first(calls, "fsync " + directory() + "/");
        ASSERT_LT(name_appears, calls.size()) << arguments << ":\n" << joined(calls);
        EXPECT_LT(file_flushed, name_appears) << arguments << ":\n" << joined(calls);
        const auto directory_flushed = std::find(calls.rbegin(), calls.rend(), "fsync " + directory());
        ASSERT_NE(directory_flushed, calls.rend()) << arguments << ":\n" << joined(calls);
        const std::ptrdiff_t last_name = std::max(last(calls, "link "), last(calls, "rename "));
        EXPECT_GT(calls.rend() - directory_flushed - 1, last_name) << arguments << ":\n" << joined(calls);
    }
    EXPECT_TRUE(read_file(file("b2")) == read_file(file("b")));
}

TEST_F(Durability, WithoutSyncNothingWaitsForTheDiskAndRmAlwaysDoes) {
    write_file(file("a"), random_bytes(4097));
    const std::string key = " -K " + kKey128;
    for (const std::string &arguments : {"encrypt -q" + key + " a", "encrypt -q -f" + key + " a -o a.aes"}) {
        const auto calls = synced_calls(arguments);
        EXPECT_EQ(first(calls, "fsync "), calls.size()) << arguments << ":\n" << joined(calls);
    }
    // The direct path always ends with the file durable: it costs little once the data went
    // straight to the disk.
    const auto direct = synced_calls("encrypt -q --io direct" + key + " a -o direct.aes");
    EXPECT_LT(first(direct, "fsync " + directory() + "/"), first(direct, "link ")) << joined(direct);
    const auto removing = synced_calls("encrypt -q --rm" + key + " a -o a2");
    EXPECT_LT(first(removing, "fsync " + directory() + "/"), first(removing, "link ")) << joined(removing);
    EXPECT_NE(std::find(removing.begin(), removing.end(), "fsync " + directory()), removing.end()) << joined(removing);
    EXPECT_FALSE(std::filesystem::exists(file("a")));
}

TEST_F(Durability, SyncFlushesAFileOnStandardOutputAndLeavesAPipeAlone) {
    write_file(file("a"), random_bytes(333));
    const std::string key = " -K " + kKey128;
    const auto to_file = synced_calls("encrypt -q --sync -c" + key + " a > out");
    EXPECT_EQ(to_file, std::vector<std::string>{"fsync " + directory() + "/out"}) << joined(to_file);
    // A pipe cannot be flushed, and is no error.
    synced_calls("encrypt -q --sync -c" + key + " a | cat > piped");
    EXPECT_TRUE(read_file(file("piped")) == read_file(file("out")));
    EXPECT_EQ(synced_calls("encrypt -q -c" + key + " a > out2"), std::vector<std::string>{});
}

} // namespace
} // namespace aesgpu::test
