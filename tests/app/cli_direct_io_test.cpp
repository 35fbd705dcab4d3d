// SPDX-License-Identifier: Apache-2.0
// --io direct|buffered|auto: files read and written past the page cache (O_DIRECT) give the same
// bytes as the buffered path and as openssl, at every size around the alignment and the chunks;
// auto says why it took the path it took; refusals fall back or fail clearly; faults leave nothing.
// CI's /tmp is ext4, which takes O_DIRECT, so these run there.
#include "support/cli_fixture.hpp"
#include "support/tink.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace aesgpu::test {
namespace {

class DirectIoCli : public Cli {
protected:
    void SetUp() override {
        write_file(file("probe"), random_bytes(4096));
        if (run("python3 -c 'import os; os.close(os.open(\"probe\", os.O_RDONLY | os.O_DIRECT))'").status != 0) {
            GTEST_SKIP() << "this file system refuses O_DIRECT (" << dir.path() << ")";
        }
    }
    static std::string preload() { return "LD_PRELOAD=" + std::string(AESGPU_FAULT_INJECTION) + " "; }
    // The shim's faults act on pread() and pwrite(): the thread engine's requests, not io_uring's.
    static std::string on_threads() { return std::string(AESGPU_DENY_IO_URING) + " "; }
};

constexpr std::size_t kChunk = 1 << 20; // --chunk-size 1M: chunk boundaries within small files

TEST_F(DirectIoCli, EveryModeAndSizeGivesWhatBufferedAndOpensslGive) {
    const std::vector<std::size_t> sizes = {0,
                                            1,
                                            15,
                                            16,
                                            17,
                                            511,
                                            512,
                                            4095,
                                            4096,
                                            4097,
                                            kChunk - 1,
                                            kChunk,
                                            kChunk + 1,
                                            3 * kChunk + 7,
                                            3 * kChunk + 4096};
    const std::string key = " -K " + kKey128;
    for (const std::size_t size : sizes) {
        SCOPED_TRACE(size);
        write_file(file("p"), random_bytes(size));
        for (const std::string &mode : std::vector<std::string>{"--mode ecb", "--mode ctr --iv " + kKey128}) {
            const std::string openssl = mode == "--mode ecb"
                                            ? "openssl enc -aes-128-ecb -K " + kKey128
                                            : "openssl enc -aes-128-ctr -K " + kKey128 + " -iv " + kKey128;
            Outcome r =
                run("$AESGPU encrypt -q -f --chunk-size 1M --io direct " + mode + key + " p -o d.aes && " +
                    "$AESGPU encrypt -q -f --chunk-size 1M --io buffered " + mode + key + " p -o b.aes && " + openssl +
                    " -in p -out o.aes && cmp d.aes b.aes && cmp d.aes o.aes && " +
                    "$AESGPU decrypt -q -f --chunk-size 1M --io direct " + mode + key + " d.aes -o back && cmp back p");
            EXPECT_EQ(r.status, 0) << mode << ": " << r.out << r.err;
        }
        if (size % 16 == 0) {
            Outcome r =
                run("$AESGPU encrypt -q -f --no-pad --chunk-size 1M --io direct" + key + " p -o n.aes && " +
                    "openssl enc -aes-128-ecb -nopad -K " + kKey128 + " -in p | cmp - n.aes && " +
                    "$AESGPU decrypt --mode ecb -q -f --no-pad --io direct" + key + " n.aes -o nback && cmp nback p");
            EXPECT_EQ(r.status, 0) << r.out << r.err;
        }
    }
}

// A passphrase's Salted__ header, GCM's stream header and tags, a chunk off the page grid: the
// output lies against the disk's alignment otherwise than the input, and the ring ciphers out of
// place. What openssl and Tink write, aesgpu reads directly, and the other way round.
TEST_F(DirectIoCli, EveryHeaderSegmentAndChunkGivesWhatOpensslAndTinkRead) {
    REQUIRE_TINK();
    write_file(file("k16"), random_bytes(16));
    const std::vector<std::size_t> sizes = {0,    1,    15,         16,     17,         4095,
                                            4096, 4097, kChunk - 1, kChunk, kChunk + 1, 3 * kChunk + 7};
    const auto tink = [](const std::string &direction, const std::string &key, std::size_t segment) {
        return tink_command() + " " + direction + " " + key + " " + std::to_string(segment) + " '' ";
    };
    for (const std::size_t size : sizes) {
        SCOPED_TRACE(size);
        write_file(file("p"), random_bytes(size));
        for (const std::string mode : {"ecb", "ctr"}) {
            const std::string ours = "$AESGPU {} -q -f --chunk-size 1M --io direct --mode " + mode + " -p pass:pw ";
            const std::string openssl = "openssl enc -aes-256-" + mode + " -pbkdf2 -pass pass:pw ";
            std::string encrypt = ours;
            encrypt.replace(encrypt.find("{}"), 2, "encrypt");
            std::string decrypt = ours;
            decrypt.replace(decrypt.find("{}"), 2, "decrypt");
            Outcome r = run(encrypt + "p -o d.aes && " + openssl + "-d -in d.aes | cmp - p && " + openssl +
                            "-in p -out o.aes && " + decrypt + "o.aes -o back && cmp back p");
            EXPECT_EQ(r.status, 0) << mode << ": " << r.out << r.err;
        }
        for (const std::size_t segment : {std::size_t{4096}, kChunk}) {
            if (segment == kChunk && size < kChunk - 1) continue; // one segment, as the 4 KiB ones' first
            const std::string ours = " -q -f --chunk-size 1M --io direct --mode gcm --key-file k16 --segment-size " +
                                     std::to_string(segment) + " ";
            Outcome r = run("$AESGPU encrypt" + ours + "p -o d.aes && " + tink("decrypt", "k16", segment) +
                            "d.aes back && cmp back p && " + tink("encrypt", "k16", segment) +
                            "p t.aes && $AESGPU decrypt" + ours + "t.aes -o back2 && cmp back2 p");
            EXPECT_EQ(r.status, 0) << "segment " << segment << ": " << r.out << r.err;
        }
        if (size == 0 || size == 4097 || size == 3 * kChunk + 7) {
            // The passphrase header in front of the Tink stream (scrypt: a few sizes only).
            const std::string ours = " -q -f --chunk-size 1M --io direct --mode gcm -p pass:pw ";
            Outcome r = run("$AESGPU encrypt" + ours + "p -o d.aes && " + tink("decrypt", "pass:pw", kChunk) +
                            "d.aes back && cmp back p && " + tink("encrypt", "pass:pw", kChunk) +
                            "p t.aes && $AESGPU decrypt" + ours + "t.aes -o back2 && cmp back2 p");
            EXPECT_EQ(r.status, 0) << "passphrase: " << r.out << r.err;
        }
    }
    // A chunk off the page grid: each chunk starts at another place in a page.
    write_file(file("p"), random_bytes(3 * kChunk + 7));
    Outcome r = run("$AESGPU encrypt -q -f --chunk-size 1048592 --io direct -K " + kKey128 + " p -o d.aes && " +
                    "openssl enc -aes-128-ecb -K " + kKey128 + " -in p | cmp - d.aes && " +
                    "$AESGPU decrypt --mode ecb -q -f --chunk-size 4112 --io direct -K " + kKey128 +
                    " d.aes -o back && cmp back p");
    EXPECT_EQ(r.status, 0) << r.out << r.err;
}

// "RESIDENT TOTAL": pages of `name` in the page cache, and all its pages (mincore, which touches
// nothing; reading to probe would start readahead).
std::string cached_pages(const std::string &name) {
    return "python3 " + std::string(AESGPU_SOURCE_DIR) + "/tests/support/cached_pages.py " + name;
}

std::string evict(const std::string &name) {
    return "python3 -c 'import os; f = os.open(\"" + name +
           "\", os.O_RDONLY); os.fdatasync(f); os.posix_fadvise(f, 0, 0, os.POSIX_FADV_DONTNEED)'";
}

TEST_F(DirectIoCli, ADirectRunLeavesThePageCacheAsItWas) {
    write_file(file("p"), random_bytes(16 * kChunk + 100));
    Outcome r = run(evict("p") + " && " + cached_pages("p"));
    ASSERT_EQ(r.out, "0 4097\n") << "the page cache kept the file: " << r.err;
    // Encrypt and decrypt directly: neither the inputs nor the outputs enter the cache.
    r = run("$AESGPU encrypt -q --io direct -K " + kKey128 + " p && " + cached_pages("p") + " && " +
            cached_pages("p.aes") + " && " + evict("p.aes") + " && $AESGPU decrypt --mode ecb -q --io direct -K " +
            kKey128 + " p.aes -o back && " + cached_pages("p.aes") + " && " + cached_pages("back") + " && cmp p back");
    EXPECT_EQ(r.status, 0) << r.err;
    // A header check's few pages and the odd tail's page, through the cache: under 1% of each file.
    std::istringstream lines(r.out);
    int probes = 0;
    for (std::size_t resident = 0, total = 0; lines >> resident >> total; ++probes) {
        EXPECT_EQ(total, 4097u);
        EXPECT_LE(resident * 100, total) << r.out;
    }
    EXPECT_EQ(probes, 4) << r.out;
    // Out of place too (a header, tags): only the odd tail's page and a header check's go through it.
    for (const std::string &format : std::vector<std::string>{" --mode ecb -p pass:pw", " --mode gcm -K " + kKey128}) {
        r = run(evict("p") + " && $AESGPU encrypt -q -f --io direct" + format + " p -o s.aes && " + cached_pages("p") +
                " && " + cached_pages("s.aes") + " && " + evict("s.aes") + " && $AESGPU decrypt -q -f --io direct" +
                format + " s.aes -o back && " + cached_pages("s.aes") + " && " + cached_pages("back") +
                " && cmp p back");
        EXPECT_EQ(r.status, 0) << format << ": " << r.err;
        std::istringstream shifted(r.out);
        probes = 0;
        for (std::size_t resident = 0, total = 0; shifted >> resident >> total; ++probes) {
            EXPECT_GE(total, 4097u) << format;
            EXPECT_LE(resident * 100, total) << format << ": " << r.out;
        }
        EXPECT_EQ(probes, 4) << format << ": " << r.out;
    }
    // The buffered path, for contrast: the test sees a cached file as cached.
    // Nearly all of it, not all: parallel tests' memory pressure may reclaim a page or two meanwhile.
    r = run(evict("p") + " && $AESGPU encrypt -q -f --io buffered -K " + kKey128 + " p && " + cached_pages("p"));
    std::istringstream buffered(r.out);
    std::size_t resident = 0, total = 0;
    ASSERT_TRUE(buffered >> resident >> total) << r.out << r.err;
    EXPECT_EQ(total, 4097u);
    EXPECT_GE(resident * 100, total * 99) << r.out;
}

// The GPU's ring is pinned, page-aligned memory: the disk reads into it and writes from it with no
// copy, and every lane (the CPU start, each GPU) ciphers in place there as on the buffered path.
TEST_F(DirectIoCli, EveryGpuAndTheCpuCipherTheDirectRing) {
    if (!gpu_available()) GTEST_SKIP() << "no usable GPU";
    write_file(file("p"), random_bytes((40 << 20) + 5));
    for (const std::string &backend : std::vector<std::string>{"gpu", "all"}) {
        for (const std::string &mode : std::vector<std::string>{"--mode ecb", "--mode ctr --iv " + kKey128}) {
            const std::string openssl = mode == "--mode ecb"
                                            ? "openssl enc -aes-128-ecb -K " + kKey128
                                            : "openssl enc -aes-128-ctr -K " + kKey128 + " -iv " + kKey128;
            Outcome r = run("$AESGPU encrypt -v -f --io direct --backend " + backend + " " + mode + " -K " + kKey128 +
                            " p -o d.aes && " + openssl +
                            " -in p | cmp - d.aes && $AESGPU decrypt -q -f --io direct "
                            "--backend " +
                            backend + " " + mode + " -K " + kKey128 + " d.aes -o back && cmp back p");
            EXPECT_EQ(r.status, 0) << backend << " " << mode << ": " << r.out << r.err;
            EXPECT_NE(r.err.find("I/O: direct"), std::string::npos) << r.err;
        }
        // Out of place: a passphrase's header, and GCM's header and tags.
        for (const std::string &format : std::vector<std::string>{" -p pass:pw", " --mode gcm -K " + kKey128}) {
            Outcome r = run("$AESGPU encrypt -v -f --io direct --backend " + backend + format + " p -o d.aes && " +
                            "$AESGPU decrypt -q -f --io buffered --backend cpu" + format +
                            " d.aes -o back && cmp back p && " + "$AESGPU decrypt -q -f --io direct --backend " +
                            backend + format + " d.aes -o back2 && cmp back2 p");
            EXPECT_EQ(r.status, 0) << backend << format << ": " << r.out << r.err;
            EXPECT_NE(r.err.find("I/O: direct"), std::string::npos) << r.err;
        }
    }
}

TEST_F(DirectIoCli, SeveralFilesInOneRunEachSayTheirPath) {
    write_file(file("a"), random_bytes(3 * kChunk + 5));
    write_file(file("b"), random_bytes(kChunk));
    Outcome r =
        run("$AESGPU encrypt -q --json --chunk-size 1M --io direct -K " + kKey128 +
            " a b > summary && openssl enc -aes-128-ecb -K " + kKey128 + " -in a | cmp - a.aes && " +
            "openssl enc -aes-128-ecb -K " + kKey128 + " -in b | cmp - b.aes && grep -c '\"io\":\"direct\"' summary");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "2\n");
}

TEST_F(DirectIoCli, AutoTakesTheDiskOnlyForABigUncachedFileAndSaysWhy) {
    write_file(file("small"), random_bytes(1000));
    const std::string key = " -K " + kKey128;
    EXPECT_NE(run("$AESGPU encrypt -v" + key + " small").err.find("I/O: buffered (a small file)"), std::string::npos);
    EXPECT_NE(run("cat small | $AESGPU encrypt -v" + key + " -o piped").err.find("I/O: buffered (a pipe, device"),
              std::string::npos);
    // 64 MiB, just written: in the page cache, so read from there; evicted, from the disk.
    write_file(file("big"), random_bytes(64 << 20));
    Outcome hot = run("$AESGPU encrypt -v" + key + " big -o hot.aes");
    EXPECT_NE(hot.err.find("I/O: buffered (the input is in the page cache already)"), std::string::npos) << hot.err;
    Outcome cold = run("python3 -c 'import os; f = os.open(\"big\", os.O_RDONLY); os.fdatasync(f); "
                       "os.posix_fadvise(f, 0, 0, os.POSIX_FADV_DONTNEED)' && $AESGPU encrypt -v" +
                       key + " big -o cold.aes && cmp hot.aes cold.aes");
    EXPECT_EQ(cold.status, 0) << cold.err;
    EXPECT_NE(cold.err.find("I/O: direct (reads past the page cache ("), std::string::npos) << cold.err;
    EXPECT_NE(cold.err.find("), and so do writes, each output durable at its end)"), std::string::npos) << cold.err;
    // Looking for the cache leaves it as it was: the next run is direct again (a probe that read
    // pages to look made them cached, and sent the next run through the cache).
    Outcome again = run("$AESGPU encrypt -v -f" + key + " big -o cold.aes && " + cached_pages("big"));
    EXPECT_NE(again.err.find("I/O: direct (reads past"), std::string::npos) << again.err;
    EXPECT_EQ(again.out, "0 16384\n");
    // A sparse file's holes are in no cache.
    Outcome sparse = run("truncate -s 100M sparse && $AESGPU encrypt -v" + key + " sparse");
    EXPECT_NE(sparse.err.find("I/O: direct (reads past"), std::string::npos) << sparse.err;
    // A passphrase's or GCM's header, a chunk off the page grid, standard input read partway into a
    // page: chunks cannot start aligned on both sides, and the ring takes them out of place.
    for (const std::string &options : std::vector<std::string>{" --mode ecb -p pass:x", " --mode gcm" + key,
                                                               " --mode ecb --chunk-size 1048592" + key}) {
        Outcome shifted =
            run(evict("big") + " && $AESGPU encrypt -v -f" + options + " big -o s.aes && " + cached_pages("big") +
                " && $AESGPU decrypt -q -f" + options + " s.aes -o back && cmp back big");
        EXPECT_EQ(shifted.status, 0) << options << ": " << shifted.err;
        EXPECT_NE(shifted.err.find("I/O: direct (reads past"), std::string::npos) << options << ": " << shifted.err;
        EXPECT_EQ(shifted.out, "0 16384\n") << options;
    }
    // Small chunks stay on the page cache: each would wait on its own few direct requests, and one
    // off the page grid would read the pages it shares with its neighbours again.
    Outcome small = run(evict("big") + " && $AESGPU encrypt -v -f --chunk-size 4112" + key + " big -o s.aes");
    EXPECT_NE(small.err.find("I/O: buffered (a --chunk-size under 1 MiB)"), std::string::npos) << small.err;
    Outcome partway =
        run(evict("big") + " && (head -c 1000 > /dev/null && $AESGPU encrypt -v -f --io direct" + key +
            " -o s.aes) < big && tail -c +1001 big | openssl enc -aes-128-ecb -K " + kKey128 + " | cmp - s.aes");
    EXPECT_EQ(partway.status, 0) << partway.err;
    EXPECT_NE(partway.err.find("I/O: direct (reads past"), std::string::npos) << partway.err;
}

TEST_F(DirectIoCli, WhatDirectCannotTakeIsAUsageErrorBeforeAnyWork) {
    write_file(file("p"), random_bytes(100));
    const std::string direct = "$AESGPU encrypt -q --io direct ";
    for (const std::string &command : std::vector<std::string>{
             "cat p | " + direct + "-K " + kKey128 + " -o out", direct + "-K " + kKey128 + " -c p > out",
             // A FIFO among the files: refused before the first file is done, and never opened.
             "mkfifo fifo && " + direct + "-K " + kKey128 + " p fifo",
             "timeout 10 " + direct + "-f -K " + kKey128 + " p -o fifo",
             // The output a name is made for (p2.aes) is a FIFO: refused before it is opened.
             "cp p p2 && rm -f p2.aes && mkfifo p2.aes && timeout 10 " + direct + "-K " + kKey128 + " p2"}) {
        std::filesystem::remove(file("out"));
        Outcome r = run(command + "; echo status=$?");
        EXPECT_EQ(r.out, "status=2\n") << command << ": " << r.err;
        EXPECT_NE(r.err.find("--io direct"), std::string::npos) << command << ": " << r.err;
        // The shell makes `out` for -c's redirection; aesgpu makes nothing.
        if (command.find(" -c ") == std::string::npos) {
            EXPECT_FALSE(std::filesystem::exists(file("out"))) << command;
        }
        EXPECT_FALSE(std::filesystem::exists(file("p.aes"))) << command;
    }
    // A directory for -o is the output's own error, as on the buffered path.
    std::filesystem::create_directory(file("somedir"));
    Outcome r = run(direct + "-K " + kKey128 + " p -o somedir");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "aesgpu: cannot write 'somedir': it is a directory\n");
}

TEST_F(DirectIoCli, AFileSystemThatRefusesDirectIoFallsBackUnderAutoAndFailsClearlyWhenAsked) {
    write_file(file("big"), random_bytes((64 << 20) + 3));
    const std::string refuse = "AESGPU_TEST_REFUSE_O_DIRECT=1 " + preload();
    Outcome r = run("python3 -c 'import os; f = os.open(\"big\", os.O_RDONLY); os.fdatasync(f); "
                    "os.posix_fadvise(f, 0, 0, os.POSIX_FADV_DONTNEED)' && " +
                    refuse + "$AESGPU encrypt -v -K " + kKey128 + " big && openssl enc -aes-128-ecb -K " + kKey128 +
                    " -in big | cmp - big.aes");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("I/O: buffered (reads: the file system refuses O_DIRECT)"), std::string::npos) << r.err;
    r = run(refuse + "$AESGPU encrypt -q --io direct -K " + kKey128 + " big -o out");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "aesgpu: cannot read 'big' directly: the file system refuses O_DIRECT\n");
    EXPECT_FALSE(std::filesystem::exists(file("out")));
}

// The temporary output has the umask's mode until the commit gives it its own, and its owner
// opens it again for direct writes: a umask that leaves the owner no write bit must not matter.
TEST_F(DirectIoCli, ARestrictiveUmaskStillWritesDirectly) {
    if (::geteuid() != 0 || !have_command("setpriv")) GTEST_SKIP() << "needs root and setpriv";
    ASSERT_EQ(::chmod(dir.path().c_str(), 0777), 0);
    write_file(file("p"), random_bytes(kChunk + 9));
    ASSERT_EQ(::chmod(file("p").c_str(), 0644), 0);
    Outcome r = run("setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all bash -c " +
                    quote("umask 0277 && $AESGPU encrypt -q --json --io direct -K " + kKey128 + " p") +
                    " && openssl enc -aes-128-ecb -K " + kKey128 + " -in p | cmp - p.aes");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\"io\":\"direct\""), std::string::npos) << r.out;
}

TEST_F(DirectIoCli, TestingReadsDirectlyAndSaysSo) {
    write_file(file("p"), random_bytes(kChunk + 9));
    Outcome r = run("$AESGPU encrypt -q --io direct -K " + kKey128 +
                    " p && $AESGPU decrypt --mode ecb -t --json --io direct -K " + kKey128 + " p.aes");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\"io\":\"direct\""), std::string::npos) << r.out;
}

TEST_F(DirectIoCli, AFullOrFailingDiskMidRunLeavesNoOutputAndTheInputIntact) {
    const Bytes plain = random_bytes(5 * kChunk + 3);
    write_file(file("p"), plain);
    const std::string key = " -K " + kKey128;
    for (const std::string &fault : std::vector<std::string>{"AESGPU_TEST_PWRITE_FAILS_AFTER=2500000",
                                                             "AESGPU_TEST_PWRITE_FAILS_AFTER=2500000 "
                                                             "AESGPU_TEST_PWRITE_ERRNO=5",
                                                             "AESGPU_TEST_PREAD_FAILS_AFTER=2500000"})
        for (const std::string &format : {key, std::string(" -p pass:pw"), " --mode gcm" + key}) {
            SCOPED_TRACE(format);
            Outcome r = run(fault + " " + preload() + on_threads() +
                            "$AESGPU encrypt -q --rm --chunk-size 1M --io direct" + format + " p -o out");
            EXPECT_EQ(r.status, 1) << fault;
            const std::string reason =
                fault.find("ERRNO=5") != std::string::npos || fault.find("PREAD") != std::string::npos
                    ? "Input/output error"
                    : "No space left on device";
            EXPECT_NE(r.err.find(reason), std::string::npos) << fault << ": " << r.err;
            EXPECT_FALSE(std::filesystem::exists(file("out"))) << fault;
            EXPECT_TRUE(read_file(file("p")) == plain) << fault;
            EXPECT_EQ(entries(), 2u) << fault; // p and probe: no temporary left
        }
}

// A reservation that fails partway (a quota: ext4 raises the length as it allocates) left the
// length it reached, and commit() cut only a reservation that had succeeded: a decrypted output
// came out with zeros after its end, exit 0, and with --rm the ciphertext was gone (found by a
// hostile review). Every output has the length written, whatever the reservation did.
TEST_F(DirectIoCli, AReservationThatFailsPartwayLeavesNoBytesPastTheEnd) {
    const Bytes plain = random_bytes(kChunk - 6);
    write_file(file("p"), plain);
    Outcome r = run("openssl enc -aes-128-ecb -K " + kKey128 + " -in p -out c && " + preload() +
                    "AESGPU_TEST_FALLOCATE_STOPS_AT=" + std::to_string(kChunk) +
                    " $AESGPU decrypt --mode ecb -q --io direct -K " + kKey128 + " c -o back && " + preload() +
                    "AESGPU_TEST_FALLOCATE_STOPS_AT=" + std::to_string(kChunk) +
                    " $AESGPU encrypt -q --io direct --mode ctr --iv " + kKey128 + " -K " + kKey128 +
                    " p -o ctr && openssl enc -aes-128-ctr -K " + kKey128 + " -iv " + kKey128 + " -in p | cmp - ctr");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(read_file(file("back")) == plain) << read_file(file("back")).size() << " bytes";
}

// A buffered write reads in the page it starts in; were a neighbouring direct write to that page
// still under way, the stale page would later be written back over it. So what direct writes leave
// undone goes through the page cache only once none is in flight. Direct writes are slowed and
// refused from the second chunk on; before, the refused piece went buffered at once, beside three
// direct writes still running.
TEST_F(DirectIoCli, WritesLeftToThePageCacheWaitForEveryDirectWrite) {
    const Bytes plain = random_bytes(4 * kChunk + 5);
    write_file(file("p"), plain);
    const std::string log = capture.file("writes.log");
    Outcome r = run("AESGPU_TEST_DIRECT_PWRITE_REFUSED_AFTER=" + std::to_string(kChunk + kChunk / 2) +
                    " AESGPU_TEST_SLOW_PWRITE_MS=50 AESGPU_TEST_WRITE_LOG=" + log + " " + preload() + on_threads() +
                    "$AESGPU encrypt -v --json --chunk-size 1M --io direct -K " + kKey128 +
                    " p -o out && openssl enc " + "-aes-128-ecb -K " + kKey128 + " -in p | cmp - out");
    EXPECT_EQ(r.status, 0) << r.err;
    // -v and --json say so: the file went partly direct (before, -v said "direct" and nothing more).
    EXPECT_NE(r.err.find("I/O: the file system refused a direct write at byte "), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("\"io\":\"mixed\""), std::string::npos) << r.out;
    std::istringstream lines(slurp(log));
    int direct_in_flight = 0;
    std::size_t refused = 0;
    std::size_t buffered = 0;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("start direct", 0) == 0) ++direct_in_flight;
        if (line.rfind("end direct", 0) == 0) --direct_in_flight;
        if (line.rfind("refused direct", 0) == 0) ++refused;
        if (line.rfind("start buffered", 0) == 0) {
            ++buffered;
            EXPECT_EQ(direct_in_flight, 0) << line;
        }
    }
    EXPECT_GE(refused, 1u);
    EXPECT_GE(buffered, 2u); // the refused pieces, and the rest of the file after them
}

// Space for the whole output is reserved before the first direct write, so a full disk fails
// before any data. Before, the reservation came before the size was known, and was never made.
TEST_F(DirectIoCli, TheWholeOutputIsReservedBeforeTheFirstDirectWrite) {
    write_file(file("p"), random_bytes(3 * kChunk + 5));
    const std::string log = capture.file("writes.log");
    Outcome r = run("AESGPU_TEST_WRITE_LOG=" + log + " " + preload() + on_threads() +
                    "$AESGPU encrypt -q --chunk-size 1M --io direct -K " + kKey128 + " p -o out");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string calls = slurp(log);
    const std::size_t reserve = calls.find("reserve ");
    ASSERT_NE(reserve, std::string::npos) << calls;
    EXPECT_LT(reserve, calls.find("start direct")) << calls;
    std::istringstream line(calls.substr(reserve + 8));
    long long mode = -1, offset = -1, length = -1;
    line >> mode >> offset >> length;
    EXPECT_EQ(offset, 0);
    EXPECT_GE(length, 3 * static_cast<long long>(kChunk) + 16);
    // What the output did not take of it is given back: decrypting 1 MiB reserved the 1 MiB and
    // 16 bytes of the input, and kept a block past the end of the file.
    write_file(file("m"), random_bytes(kChunk));
    r = run("$AESGPU encrypt -q --io buffered -K " + kKey128 + " m && $AESGPU decrypt --mode ecb -q --io direct -K " +
            kKey128 + " m.aes -o back && cmp back m && stat -c %b back");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, std::to_string(kChunk / 512) + "\n");
}

// Direct requests go through io_uring where the kernel allows it, and through a pool of threads
// where it does not (a seccomp sandbox here, as Docker's default profile): the same bytes either
// way, and -v and --json say which and why.
TEST_F(DirectIoCli, WhereIoUringIsRefusedThreadsCarryTheSameBytesAndSaySo) {
    write_file(file("p"), random_bytes(5 * kChunk + 4096 + 9));
    const std::string key = " -K " + kKey128;
    const std::string want = "openssl enc -aes-128-ecb" + key + " -in p -out want && ";
    Outcome r =
        run(want + std::string(AESGPU_DENY_IO_URING) + " $AESGPU encrypt -v --chunk-size 1M --io direct" + key +
            " p -o denied && cmp denied want && " + AESGPU_DENY_IO_URING + " $AESGPU decrypt --mode ecb -q --json " +
            "--chunk-size 1M --io direct" + key + " denied -o back && cmp back p");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("I/O: direct (reads past the page cache (4 threads; io_uring: "), std::string::npos) << r.err;
    const std::string why =
        AESGPU_IO_URING_BUILT ? "the kernel refused io_uring (Operation not permitted)" : "this build has no io_uring";
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("\"io\":\"direct\",\"io_engine\":\"threads\""), std::string::npos) << r.out;

    r = run("$AESGPU encrypt -v --chunk-size 1M --io direct" + key +
            " p -o free && cmp free want && $AESGPU decrypt --mode ecb " + "-q --json --chunk-size 1M --io buffered" +
            key + " free -o back2 && cmp back2 p");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\"io\":\"buffered\",\"io_engine\":null"), std::string::npos) << r.out;
    if (AESGPU_IO_URING_BUILT && r.err.find("the kernel refused io_uring") == std::string::npos) {
        EXPECT_NE(r.err.find("(io_uring, 16 in flight)"), std::string::npos) << r.err;
    }
}

// A real full disk, whichever engine the build and kernel give: a 24 MiB ext4 image on a loop
// device (root only). The space is reserved before any data, so the run fails there.
TEST_F(DirectIoCli, ARealFullDiskFailsBeforeAnyDataAndLeavesNothing) {
    write_file(file("p"), random_bytes(30u << 20));
    const std::string mount = capture.file("mnt");
    if (run("truncate -s 24M " + capture.file("img") + " && mkfs.ext4 -q -F " + capture.file("img") +
            " 2>/dev/null && mkdir " + mount + " && mount -o loop " + capture.file("img") + " " + mount +
            " 2>/dev/null")
            .status != 0) {
        GTEST_SKIP() << "cannot mount a loop device here (needs root, a loop device and mkfs.ext4)";
    }
    Outcome r = run("$AESGPU encrypt -q --io direct -K " + kKey128 + " p -o " + mount + "/out; echo status=$?; ls -A " +
                    mount + "; umount " + mount);
    EXPECT_EQ(r.out, "status=1\nlost+found\n") << r.err;
    EXPECT_EQ(r.err, "aesgpu: error writing '" + mount + "/out': No space left on device\n");
}

// Under a thread limit the direct path runs wherever the buffered one does (4 threads of a user's
// own here, -T 2: the main thread, a cipher worker, the reader and the writer; the CPU backend, as
// a GPU driver starts threads of its own). Before, io_uring
// cancelled the requests it could start no worker for ("Operation canceled"), and the thread
// engine's pools took the threads the cipher then could not start.
TEST_F(DirectIoCli, UnderAThreadLimitDirectRunsWhereBufferedDoes) {
    if (::geteuid() != 0) GTEST_SKIP() << "running as another user needs root";
    if (under_sanitizer()) GTEST_SKIP() << "a sanitizer's own threads (TSan's, LSan's) count against the limit";
    // A user of its own: the limit counts every thread of the user, other tests' too.
    const std::string user = std::to_string(50000 + ::getpid() % 10000);
    ASSERT_EQ(::chmod(dir.path().c_str(), 0777), 0);
    write_file(file("p"), random_bytes(6 * kChunk + 4096 + 3));
    ASSERT_EQ(::chmod(file("p").c_str(), 0644), 0);
    const std::string as_user = "setpriv --reuid=" + user + " --regid=" + user + " --clear-groups prlimit --nproc=4:4 ";
    const std::string cipher = "$AESGPU encrypt -q -f --backend cpu -T 2 --chunk-size 1M -K " + kKey128 + " p -o ";
    Outcome r = run("openssl enc -aes-128-ecb -K " + kKey128 + " -in p -out want && " + as_user + cipher +
                    "buffered --io buffered && cmp buffered want && " + as_user + cipher +
                    "uring --io direct && cmp uring want && " + as_user + on_threads() + cipher +
                    "threads --io direct && cmp threads want");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
}

// mincore() calls every page of a file resident for one who neither owns it nor may write it, so
// auto took a shared read-only input for cached and went buffered, saying so falsely. Where the
// cache cannot be seen, auto goes direct and says why it did not look.
TEST_F(DirectIoCli, AutoGoesDirectForAnInputWhoseCacheItCannotSee) {
    if (::geteuid() != 0) GTEST_SKIP() << "running as another user needs root";
    const std::string user = std::to_string(50000 + ::getpid() % 10000);
    ASSERT_EQ(::chmod(dir.path().c_str(), 0777), 0);
    write_file(file("big"), random_bytes((64 << 20) + 5));
    ASSERT_EQ(::chmod(file("big").c_str(), 0644), 0);
    Outcome r = run("python3 -c 'import os; f = os.open(\"big\", os.O_RDONLY); os.fdatasync(f); "
                    "os.posix_fadvise(f, 0, 0, os.POSIX_FADV_DONTNEED)' && setpriv --reuid=" +
                    user + " --regid=" + user + " --clear-groups $AESGPU encrypt -v -K " + kKey128 +
                    " big -o out && openssl enc " + "-aes-128-ecb -K " + kKey128 + " -in big | cmp - out");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("I/O: direct (reads past the page cache ("), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("; whether the input is cached cannot be seen: it is neither ours nor writable)"),
              std::string::npos)
        << r.err;
}

TEST_F(DirectIoCli, ASignalMidRunWithdrawsTheOutput) {
    write_file(file("p"), random_bytes(8 * kChunk));
    Outcome r = run("AESGPU_TEST_SLOW_PWRITE_MS=100 " + preload() + on_threads() +
                    "$AESGPU encrypt -q --rm --chunk-size 1M --io direct -K " + kKey128 +
                    " p -o out & pid=$!; while [ ! -e /proc/$pid/fd ] || ! ls -l /proc/$pid/fd | grep -q "
                    "aesgpu-test; do sleep 0.01; done; sleep 0.2; kill -TERM $pid; wait $pid; echo status=$?; ls");
    EXPECT_NE(r.out.find("status=143\n"), std::string::npos) << r.out << r.err;
    EXPECT_EQ(r.out.find("out\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("p\n"), std::string::npos) << r.out;
}

// Where the file system has no O_TMPFILE the output is written under a hidden name until it is
// complete: a signal mid-run removes that file too (the command's clean-up registry has it).
TEST_F(DirectIoCli, ASignalMidRunRemovesTheHiddenOutputWhereThereIsNoUnnamedFile) {
    write_file(file("p"), random_bytes(8 * kChunk));
    Outcome r = run("AESGPU_TEST_REFUSE_O_TMPFILE=1 AESGPU_TEST_SLOW_PWRITE_MS=100 " + preload() + on_threads() +
                    "$AESGPU encrypt -q --chunk-size 1M --io direct -K " + kKey128 +
                    " p -o out & pid=$!; for i in $(seq 500); do ls -A | grep -q '^.out.aesgpu-' && break; "
                    "sleep 0.01; done; ls -A | grep -c '^.out.aesgpu-'; sleep 0.2; kill -TERM $pid; wait $pid; "
                    "echo status=$?; ls -A | grep -c out");
    EXPECT_EQ(r.out, "1\nstatus=143\n0\n") << r.err;
}

} // namespace
} // namespace aesgpu::test
