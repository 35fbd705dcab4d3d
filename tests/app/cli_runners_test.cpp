// SPDX-License-Identifier: Apache-2.0
// Many files through a job runner the user already has, as docs/usage.md's "Many files, many workers,
// many hosts" shows: xargs -P and GNU parallel run aesgpu on several files at once, every output
// that succeeded decrypts back, a file that fails leaves no partial output (and a file already
// there untouched), and the runner's exit status says how many failed.
#include "support/cli_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

namespace aesgpu::test {
namespace {

class Runners : public Cli {
protected:
    // data/f0.bin .. data/f6.bin of 0 to 3 MiB + 5 bytes, and a private 256-bit key file.
    void SetUp() override {
        std::filesystem::create_directory(file("data"));
        const std::size_t sizes[] = {0, 1, 17, 4096, 100000, (1u << 20) + 3, (3u << 20) + 5};
        for (std::size_t i = 0; i < std::size(sizes); ++i) write_file(input(i), random_bytes(sizes[i]));
        write_file(file("k"), random_bytes(32));
        ASSERT_EQ(run("chmod 600 k").status, 0);
    }

    std::string input(std::size_t i) const { return file("data/f" + std::to_string(i) + ".bin"); }

    // An output already there, which aesgpu refuses to overwrite without -f: that file's run fails.
    void block_output(std::size_t i) const { write_file(input(i) + ".aes", Bytes{'k', 'e', 'e', 'p'}); }

    // Every input but `blocked` decrypts back from its .aes; the blocked ones' .aes are untouched,
    // and nothing else is left in data/.
    void expect_outputs(std::initializer_list<std::size_t> blocked) const {
        for (std::size_t i = 0; i < kFiles; ++i) {
            SCOPED_TRACE(testing::Message() << "f" << i); // not "f" + to_string: a false -Wrestrict in GCC 12
            const bool was_blocked = std::find(blocked.begin(), blocked.end(), i) != blocked.end();
            if (was_blocked) {
                EXPECT_TRUE(read_file(input(i) + ".aes") == (Bytes{'k', 'e', 'e', 'p'}));
                continue;
            }
            const Outcome back = run("$AESGPU decrypt -c --mode gcm --key-file k " + input(i) + ".aes | cmp - " +
                                     input(i) + " && echo same");
            EXPECT_EQ(back.out, "same\n") << back.err;
        }
        EXPECT_EQ(count_entries(file("data")), 2 * kFiles) << "a partial or temporary output was left";
    }

    static constexpr std::size_t kFiles = 7;
};

TEST_F(Runners, XargsRunsManyFilesAtOnceAndSaysWhenOneFailed) {
    block_output(3);
    Outcome r = run("find data -name '*.bin' -print0 | xargs -0 -P 3 -n 2 $AESGPU encrypt -q --mode gcm "
                    "--key-file k; echo status=$?");
    EXPECT_EQ(r.out, "status=123\n"); // xargs: some run exited 1 to 125
    EXPECT_NE(r.err.find("aesgpu: 'data/f3.bin.aes' already exists; use -f to overwrite it"), std::string::npos)
        << r.err;
    expect_outputs({3});

    // All good: status 0.
    ASSERT_EQ(run("rm data/*.aes").status, 0);
    r = run("find data -name '*.bin' -print0 | xargs -0 -P 4 -n 1 $AESGPU encrypt -q --mode gcm --key-file k; "
            "echo status=$?");
    EXPECT_EQ(r.out, "status=0\n") << r.err;
    expect_outputs({});
}

TEST_F(Runners, GnuParallelCountsTheFailedRunsAndSplitsGpusBySlot) {
    if (run("parallel --version | grep -q 'GNU parallel'").status != 0) {
        GTEST_SKIP() << "GNU parallel is not installed (.ci/run installs it)";
    }
    block_output(2);
    block_output(5);
    Outcome r = run("find data -name '*.bin' -print0 | parallel --will-cite -0 -j 3 --joblog jobs.log "
                    "$AESGPU encrypt -q --mode gcm --key-file k {}; echo status=$?");
    EXPECT_EQ(r.out, "status=2\n") << r.err; // GNU parallel: the number of failed runs
    expect_outputs({2, 5});
    // The job log gives each file's own exit status (column 7).
    r = run("awk 'NR > 1 { print $7, $NF }' jobs.log | sort -k2");
    EXPECT_EQ(r.out, "0 data/f0.bin\n0 data/f1.bin\n1 data/f2.bin\n0 data/f3.bin\n0 data/f4.bin\n1 data/f5.bin\n"
                     "0 data/f6.bin\n");

    // One GPU per worker by job slot, as docs/usage.md shows: each worker sees one device (none here).
    ASSERT_EQ(run("rm data/*.aes").status, 0);
    r = run("parallel --will-cite -j 2 'CUDA_VISIBLE_DEVICES=$(({%} - 1)) $AESGPU encrypt -q --mode gcm "
            "--key-file k {}' ::: data/*.bin; echo status=$?");
    EXPECT_EQ(r.out, "status=0\n") << r.err;
    expect_outputs({});
}

} // namespace
} // namespace aesgpu::test
