// SPDX-License-Identifier: Apache-2.0
// The aesgpu binary as users and scripts run it: round trips, byte-for-byte interop with the
// `openssl enc` command, output naming and safety, exit codes and messages, bounded memory.
#include "support/cli_fixture.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace aesgpu::test {
namespace {

TEST_F(Cli, FileRoundTripForEveryKeySizeNamesOutputsByConvention) {
    const Bytes plain = random_bytes(100003);
    for (const std::size_t key_bytes : {16u, 24u, 32u}) {
        const std::string key = to_hex(random_bytes(key_bytes));
        write_file(file("doc.pdf"), plain);
        Outcome enc = run("$AESGPU encrypt doc.pdf -q -K " + key);
        ASSERT_EQ(enc.status, 0) << enc.err;
        EXPECT_EQ(enc.out, "");
        Bytes expected;
        ASSERT_TRUE(openssl_ecb(from_hex(key), Direction::encrypt, true, plain, expected));
        EXPECT_TRUE(read_file(file("doc.pdf.aes")) == expected);

        std::filesystem::remove(file("doc.pdf"));
        Outcome dec = run("$AESGPU decrypt --mode ecb doc.pdf.aes -q -K " + key);
        ASSERT_EQ(dec.status, 0) << dec.err;
        EXPECT_TRUE(read_file(file("doc.pdf")) == plain);
        std::filesystem::remove(file("doc.pdf.aes"));
    }
}

TEST_F(Cli, SplitReadsAndMappedWritesGiveTheSameBytes) {
    // Several chunks and a ragged tail; stdin redirected from the file takes the split reads too.
    const Bytes plain = random_bytes((9u << 20) + 5);
    write_file(file("in"), plain);
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(from_hex(kKey128), Direction::encrypt, true, plain, expected));
    for (const std::string how : {"in -o a --io-threads 1", "in -o b --io-threads 4", "-o c --io-threads 3 < in"}) {
        Outcome r = run("$AESGPU encrypt -q -K " + kKey128 + " " + how);
        ASSERT_EQ(r.status, 0) << how << ": " << r.err;
        EXPECT_TRUE(read_file(file(how.substr(how.find("-o ") + 3, 1))) == expected) << how;
    }
    // Passphrase mode: a 16-byte Salted__ header goes out by write() before the mapped data.
    Outcome r = run("$AESGPU encrypt -q -p pass:pw --iter 1 --io-threads 4 in -o s && "
                    "openssl enc -d -aes-256-ecb -pbkdf2 -iter 1 -pass pass:pw -in s | cmp - in && "
                    "$AESGPU decrypt -q --mode ecb -p pass:pw --iter 1 --io-threads 4 s -o back && cmp back in");
    EXPECT_EQ(r.status, 0) << r.err << r.out;
}

TEST_F(Cli, BenchJsonCarriesEveryResultField) {
    if (std::system("command -v python3 >/dev/null") != 0) GTEST_SKIP() << "python3 is not installed";
    Outcome r = run("$AESGPU bench --size 1M --reps 1 --key-bits 128 --mode ecb -T 2 --json > b.json");
    ASSERT_EQ(r.status, 0) << r.err;
    // python3's json module is the judge of well-formed JSON.
    r = run(R"(python3 -c '
import json
d = json.load(open("b.json"))
rs = d["results"]
need = {"backend", "stage", "key_bits", "mode", "direction", "bytes", "seconds", "gbps"}
assert all(need <= set(x) for x in rs), "a result lacks a field"
assert all(x["gbps"] > 0 and x["seconds"] > 0 and x["bytes"] > 0 for x in rs), "a result is not positive"
assert all(x["stage"] in ("ceiling", "memory", "kernel", "pipeline", "file") for x in rs)
assert all((x["key_bits"] is None) == (x["stage"] == "ceiling") for x in rs)
assert all(x["mode"] == ("ecb" if x["key_bits"] else None) for x in rs)
stages = sorted({x["backend"] + " " + x["stage"] for x in rs})
print(len(rs), len(d["unavailable"]), ", ".join(stages))
')");
    ASSERT_EQ(r.status, 0) << r.err;
    if (gpu_available()) {
        // Per cipher (encrypt, decrypt): the kernel, the GPU's pipeline, and the CPU alone (as
        // --backend cpu runs it, and as the dispatcher's lane) and beside the GPUs through the same
        // ring; with several GPUs, their ceiling and pipeline too.
        const bool several = std::system((binary_under_test() + " info | grep -q '^GPU 1:'").c_str()) == 0;
        EXPECT_EQ(r.out, std::string(several ? "23" : "20") +
                             " 0 all pipeline, cpu ceiling, cpu memory, cpu pipeline, gpu ceiling, gpu kernel, "
                             "gpu pipeline\n");
    } else {
        // memcpy on 1 and 2 threads, then encrypt and decrypt on 1 and 2 threads; the GPU is
        // listed as unavailable.
        EXPECT_EQ(r.out, "6 1 cpu ceiling, cpu memory\n");
    }
}

TEST_F(Cli, BenchFileStageNextToCpAndLeavesNoScratchFiles) {
    write_file(file("f"), random_bytes((3u << 20) + 7));
    Outcome r = run("$AESGPU bench --backend cpu --size 1M --reps 1 --key-bits 192 --direction decrypt --file f");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\ncpu      ceiling   file copy (cp), then fsync "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\ncpu      file      AES-192-ECB decrypt "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\ncpu      file      AES-192-CTR decrypt "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("x the time of cp, "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("x its CPU time; "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("unavailable"), std::string::npos) << "the GPU was not asked for";
    EXPECT_EQ(r.out.find("GCM"), std::string::npos) << "GCM streams take no 192-bit keys";
    EXPECT_EQ(r.err, "") << "no ECB warning from each run of the file stage";
    EXPECT_EQ(entries(), 1u) << "scratch files were left beside the file";
}

// The file stage says what each run cost the CPU (user and system, this process and cp), beside
// its wall time, and per GiB; the in-memory stages have no such figure.
TEST_F(Cli, BenchFileStageReportsCpuSecondsBesideCp) {
    write_file(file("f"), random_bytes(64u << 20));
    Outcome r =
        run("$AESGPU bench --backend cpu --size 1M --reps 1 --key-bits 128 --mode ecb --file f --json > b.json");
    ASSERT_EQ(r.status, 0) << r.err;
    r = run(R"py(python3 -c '
import json
rs = json.load(open("b.json"))["results"]
files = [x for x in rs if x["stage"] == "file" or x["what"].startswith(("file copy (cp)", "disk "))]
assert len(files) == 11, files
assert all(x["user_seconds"] >= 0 and x["system_seconds"] >= 0 for x in files), files
assert all(x["user_seconds"] + x["system_seconds"] > 0 for x in files), files
assert all(x["user_seconds"] is None and x["system_seconds"] is None for x in rs if x not in files)
print("ok")
')py");
    EXPECT_EQ(r.out, "ok\n") << r.err;
    r = run("$AESGPU bench --backend cpu --size 1M --reps 1 --key-bits 128 --mode ecb --file f");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("file run                           wall s   user s system s  CPU s/GiB\n"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("\ncpu      file copy (cp), then fsync "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\ncpu      AES-128-ECB decrypt     "), std::string::npos) << r.out;
}

// Beside cp, the file stage times the disk itself (O_DIRECT: no page cache, no cipher) and judges
// each file run against reading and writing at once, the floor of any copy. CI's /tmp is ext4,
// which takes O_DIRECT.
TEST_F(Cli, BenchFileStageTimesTheDisksOwnCeilings) {
    write_file(file("f"), random_bytes((9u << 20) + 5));
    Outcome r =
        run("$AESGPU bench --backend cpu --size 1M --reps 1 --key-bits 128 --mode ctr --file f --json > b.json");
    ASSERT_EQ(r.status, 0) << r.err;
    r = run(R"py(python3 -c '
import json
rs = json.load(open("b.json"))["results"]
disk = [x for x in rs if x["what"].startswith("disk ")]
assert [x["what"] for x in disk] == ["disk read, O_DIRECT x4", "disk write, O_DIRECT x4", "disk copy floor, O_DIRECT x4",
                                     "disk read, O_DIRECT x16", "disk write, O_DIRECT x16",
                                     "disk copy floor, O_DIRECT x16"], disk
assert all(x["stage"] == "ceiling" and x["seconds"] > 0 and x["bytes"] == 9 * 2**20 + 5 for x in disk), disk
files = [x for x in rs if x["stage"] == "file"]
assert [x["what"] for x in files] == ["AES-128-CTR encrypt", "AES-128-CTR decrypt", "AES-128-CTR encrypt, direct",
                                      "AES-128-CTR decrypt, direct"], files
assert all("x the disk\x27s copy floor" in x["ratio_text"] for x in files), files
print("ok")
')py");
    EXPECT_EQ(r.out, "ok\n") << r.err;
    EXPECT_EQ(entries(), 2u) << "scratch files were left beside the file";
}

// tmpfs has no disk: since Linux 6.6 it accepts O_DIRECT opens, and the bench timed its page cache
// as "disk" ceilings on /dev/shm (24.9 GB/s "disk read" on the two-GPU host) beside file rows that
// said tmpfs has no direct path. Now the ceilings say the same as the file rows.
TEST_F(Cli, BenchOnTmpfsTimesNoDiskCeilings) {
    const TempDir shm(std::filesystem::path("/dev/shm"));
    if (!on_tmpfs(shm.path().string())) GTEST_SKIP() << "/dev/shm is not tmpfs here";
    write_file(shm.file("f"), random_bytes(1u << 20));
    Outcome r =
        run("$AESGPU bench --backend cpu --size 1M --reps 1 --key-bits 128 --mode ecb --direction encrypt --file " +
            shm.file("f"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find("O_DIRECT"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("no disk ceilings: tmpfs keeps every file in its page cache"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("file copy (cp), then fsync"), std::string::npos) << r.out;
}

// GCM files in the file stage, both ways (decrypting the bench's own GCM file checks its tags).
TEST_F(Cli, BenchFileStageWritesAndReadsGcmFiles) {
    write_file(file("f"), random_bytes((3u << 20) + 7));
    Outcome r = run("$AESGPU bench --backend cpu --size 1M --reps 1 --key-bits 256 --mode gcm --file f");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\ncpu      file      AES-256-GCM encrypt "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\ncpu      file      AES-256-GCM decrypt "), std::string::npos) << r.out;
    EXPECT_EQ(entries(), 1u) << "scratch files were left beside the file";
}

TEST_F(Cli, BenchInterruptedLeavesNoScratchFiles) {
    write_file(file("f"), random_bytes(32u << 20));
    // Many repetitions keep the file stage busy; the signal comes once its directory exists.
    Outcome r = run("set -m; $AESGPU bench --backend cpu --size 16 --reps 1000 --key-bits 128 --file f & pid=$!; "
                    "for i in $(seq 200); do ls -A | grep -q aesgpu-bench && break; sleep 0.05; done; "
                    "ls -A | grep -c aesgpu-bench; kill -INT $pid; wait $pid; echo status=$?; ls -A");
    EXPECT_EQ(r.out, "1\nstatus=130\nf\n") << r.err;
}

TEST_F(Cli, BenchTooFastToTimeStillGivesValidJson) {
    if (std::system("command -v python3 >/dev/null") != 0) GTEST_SKIP() << "python3 is not installed";
    // 16 bytes: some runs may read as 0 s; the ratios must then be null, never inf or nan.
    Outcome r = run("$AESGPU bench --size 16 --reps 1 --key-bits 256 --json | python3 -c "
                    "'import json, sys; d = json.load(sys.stdin); print(len(d[\"results\"]) > 0)'");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "True\n");
}

TEST_F(Cli, BenchFailuresAreClear) {
    Outcome r = run("$AESGPU bench --backend cpu --size 1M --reps 1 --file nope");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "aesgpu: cannot open 'nope': No such file or directory\n");
    ASSERT_EQ(run("mkfifo fifo").status, 0);
    r = run("$AESGPU bench --backend cpu --size 1M --reps 1 --file fifo");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "aesgpu: --file needs a regular file: 'fifo' is not one\n");
    for (const std::string bad : {"--backend tpu", "--key-bits 512", "--direction up", "--size 8", "--reps 0"}) {
        EXPECT_EQ(run("$AESGPU bench " + bad).status, 2) << bad;
    }
    if (!gpu_available()) {
        r = run("$AESGPU bench --backend gpu --size 1M");
        EXPECT_EQ(r.status, 1);
        EXPECT_EQ(r.err.rfind("aesgpu: no usable CUDA device: ", 0), 0u) << r.err;
    }
}

// The rows' GPUs are the ones --devices names: one GPU's rows on the first, several together; a
// GPU that is not there makes the GPU rows unavailable (the CPU's still run), as no GPU does.
TEST_F(Cli, BenchDevicesChoosesTheGpusOfTheGpuRows) {
    Outcome r = run("$AESGPU bench --backend cpu --devices 0 --size 1M");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "aesgpu: --devices applies to the GPU; it has no effect with --backend cpu\n");
    r = run("$AESGPU bench --devices 0,0 --size 1M");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "aesgpu: --devices names GPU 0 twice\n");
    EXPECT_EQ(run("$AESGPU bench --devices -1 --size 1M").status, 2);

    r = run("$AESGPU info --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const int gpus = static_cast<int>(nlohmann::json::parse(r.out)["gpus"].size());
    const std::string quick = " --size 16M --reps 1 --mode ecb --key-bits 128 --direction encrypt --json";
    const auto bench = [&](const std::string &options) {
        Outcome out = run("$AESGPU bench" + options + quick);
        EXPECT_EQ(out.status, 0) << options << ": " << out.err;
        return out.status == 0 ? nlohmann::json::parse(out.out) : nlohmann::json::object();
    };
    // A GPU past the last one: the CPU's rows, and why there are no GPU rows.
    nlohmann::json report = bench(" --devices " + std::to_string(gpus));
    EXPECT_EQ(report["devices"], nlohmann::json::array()) << report;
    ASSERT_EQ(report["unavailable"].size(), 1u) << report;
    EXPECT_EQ(report["unavailable"][0].get<std::string>().rfind("gpu: no usable CUDA device: ", 0), 0u) << report;
    for (const auto &row : report["results"]) EXPECT_EQ(row["backend"], "cpu") << row;
    r = run("$AESGPU bench --backend gpu --devices " + std::to_string(gpus) + quick);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("no usable CUDA device: "), std::string::npos) << r.err;
    if (gpus == 0) return;

    // The last GPU alone: its rows name it where the host has others.
    const int last = gpus - 1;
    report = bench(" --backend gpu --devices " + std::to_string(last));
    EXPECT_EQ(report["devices"], nlohmann::json::array({last})) << report;
    int pipelines = 0;
    int cpu_lanes = 0;
    for (const auto &row : report["results"]) {
        const std::string what = row["what"];
        // Every GPU and the CPU are judged against their lanes alone, the CPU as it runs beside them.
        cpu_lanes += row["backend"] == "cpu" && what.ends_with(" as a dispatcher lane");
        if (row["backend"] == "all") {
            EXPECT_NE(row["ratio_text"].get<std::string>().find("% of its lanes alone added up (cpu "),
                      std::string::npos)
                << row;
        }
        EXPECT_EQ(what.find("GPUs"), std::string::npos) << "one GPU asked for: " << what;
        if (row["backend"] == "cpu") continue;
        if (gpus > 1) {
            EXPECT_NE(what.find(", GPU " + std::to_string(last)), std::string::npos) << what;
        }
        pipelines += row["stage"] == "pipeline" && row["backend"] == "gpu";
    }
    EXPECT_EQ(pipelines, 1) << report;
    EXPECT_EQ(cpu_lanes, 1) << report;
    if (gpus < 2) return;

    // Two, named last first: every row of several GPUs runs on both, named as the host's subset.
    report = bench(" --devices " + std::to_string(last) + ",0");
    EXPECT_EQ(report["devices"], nlohmann::json::array({last, 0})) << report;
    const std::string two = gpus == 2 ? "2 GPUs" : "2 GPUs (" + std::to_string(last) + ",0)";
    std::vector<std::string> rows;
    for (const auto &row : report["results"]) rows.push_back(row["what"]);
    for (const std::string &expected : {"pinned H2D+D2H at once, " + two, "AES-128-ECB encrypt, " + two,
                                        "AES-128-ECB encrypt, " + two + " and the CPU"}) {
        EXPECT_NE(std::find(rows.begin(), rows.end(), expected), rows.end()) << expected << " in " << report;
    }
    // The rows through the dispatcher name its lanes: the two GPUs, and the CPU beside them.
    for (const auto &row : report["results"]) {
        if (row["stage"] != "pipeline" || row["what"].get<std::string>().find(two) == std::string::npos) continue;
        std::set<std::string> lanes;
        for (const auto &lane : row["lanes"]) lanes.insert(lane["name"].get<std::string>());
        std::set<std::string> expected{"GPU 0", "GPU " + std::to_string(last)};
        if (row["backend"] == "all") expected.insert("CPU");
        EXPECT_EQ(lanes, expected) << row;
    }
}

TEST_F(Cli, PipeRoundTrip) {
    write_file(file("in"), random_bytes(3 << 20));
    Outcome r = run("cat in | $AESGPU encrypt -q -K " + kKey128 + " | $AESGPU decrypt --mode ecb -K " + kKey128 +
                    " | cmp - in");
    EXPECT_EQ(r.status, 0) << r.err << r.out;
    r = run("$AESGPU encrypt -q -K " + kKey128 + " < in -o - | $AESGPU decrypt --mode ecb -K " + kKey128 +
            " -c - | cmp - in");
    EXPECT_EQ(r.status, 0) << r.err << r.out;
}

TEST_F(Cli, InteroperatesWithOpensslEncBothWays) {
    for (const std::size_t size : {0u, 1u, 16u, 4095u, 1000000u}) {
        for (const std::size_t key_bytes : {16u, 24u, 32u}) {
            SCOPED_TRACE("size " + std::to_string(size) + " key bits " + std::to_string(key_bytes * 8));
            const std::string key = to_hex(random_bytes(key_bytes));
            const std::string cipher = "-aes-" + std::to_string(key_bytes * 8) + "-ecb";
            write_file(file("p"), random_bytes(size));
            Outcome r = run("$AESGPU encrypt -q p -o ours -K " + key + " && openssl enc " + cipher + " -K " + key +
                            " -in p -out theirs && cmp ours theirs && openssl enc -d " + cipher + " -K " + key +
                            " -in ours -out back && cmp back p && $AESGPU decrypt --mode ecb theirs -o back2 -K " +
                            key + " && cmp back2 p && rm -f ours theirs back back2");
            EXPECT_EQ(r.status, 0) << r.err << r.out;
        }
    }
}

TEST_F(Cli, NoPadInteroperatesWithOpensslNopad) {
    write_file(file("p"), random_bytes(4096 * 5));
    Outcome r =
        run("$AESGPU encrypt -q --no-pad p -o ours -K " + kKey128 + " && openssl enc -aes-128-ecb -nopad -K " +
            kKey128 + " -in p -out theirs && cmp ours theirs && $AESGPU decrypt --mode ecb --no-pad ours -o back -K " +
            kKey128 + " && cmp back p");
    EXPECT_EQ(r.status, 0) << r.err;
    write_file(file("ragged"), random_bytes(4097));
    r = run("$AESGPU encrypt -q --no-pad ragged -K " + kKey128);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("not a multiple of 16"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(file("ragged.aes")));
}

TEST_F(Cli, EmptyInputEncryptsToOnePaddingBlock) {
    Outcome r = run("$AESGPU encrypt -q -K " + kKey128 + " < /dev/null | od -An -tx1 | tr -d ' \\n'");
    ASSERT_EQ(r.status, 0) << r.err;
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(from_hex(kKey128), Direction::encrypt, true, {}, expected));
    EXPECT_EQ(r.out, to_hex(expected));
    EXPECT_EQ(expected.size(), 16u);
}

TEST_F(Cli, KeyFileRawAndHex) {
    write_file(file("p"), random_bytes(5000));
    Bytes raw = random_bytes(32);
    raw[0] = 0xff;
    write_file(file("raw.key"), raw);
    const std::string hex = to_hex(raw) + "\n";
    write_file(file("hex.key"), Bytes(hex.begin(), hex.end()));
    Outcome r = run("$AESGPU encrypt -q p -o a --key-file raw.key && $AESGPU encrypt -q p -o b --key-file hex.key && "
                    "cmp a b && openssl enc -d -aes-256-ecb -K " +
                    to_hex(raw) + " -in a | cmp - p");
    EXPECT_EQ(r.status, 0) << r.err;
}

TEST_F(Cli, PassphrasesInteroperateWithOpensslPbkdf2BothWays) {
    write_file(file("p"), random_bytes(70001));
    for (const unsigned bits : {128u, 192u, 256u}) {
        for (const unsigned iterations : {1000u, 10000u}) {
            SCOPED_TRACE("AES-" + std::to_string(bits) + " iter " + std::to_string(iterations));
            const std::string ours = " --key-bits " + std::to_string(bits) + " --iter " + std::to_string(iterations);
            const std::string theirs =
                " -aes-" + std::to_string(bits) + "-ecb -pbkdf2 -iter " + std::to_string(iterations);
            Outcome r =
                run("$AESGPU encrypt -q p -o ours.enc -p pass:s3cret" + ours + " && openssl enc -d" + theirs +
                    " -pass pass:s3cret -in ours.enc | cmp - p && openssl enc" + theirs +
                    " -pass pass:s3cret -in p -out theirs.enc && $AESGPU decrypt --mode ecb theirs.enc -o back -p "
                    "pass:s3cret" +
                    ours + " && cmp back p && rm -f ours.enc theirs.enc back");
            EXPECT_EQ(r.status, 0) << r.err;
        }
    }
}

TEST_F(Cli, PassphraseSourcesAndPrintKey) {
    write_file(file("p"), random_bytes(5000));
    const std::string pw = "correct horse\n";
    write_file(file("pw.txt"), Bytes(pw.begin(), pw.end()));
    std::filesystem::permissions(file("pw.txt"),
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    Outcome r = run("openssl enc -aes-256-ecb -pbkdf2 -pass 'pass:correct horse' -in p -out t.enc && "
                    "PW='correct horse' $AESGPU decrypt --mode ecb t.enc -o a -p env:PW && cmp a p && "
                    "$AESGPU decrypt --mode ecb t.enc -o b -p file:pw.txt && cmp b p && "
                    "$AESGPU decrypt --mode ecb t.enc -o c -p fd:3 3< pw.txt && cmp c p && "
                    "$AESGPU decrypt --mode ecb t.enc -o d -p stdin < pw.txt && cmp d p");
    EXPECT_EQ(r.status, 0) << r.err;
    // -P prints on standard output what `openssl enc -P` prints for the same file and passphrase,
    // and writes nothing else.
    Outcome ours = run("$AESGPU decrypt --mode ecb t.enc -P -p file:pw.txt");
    Outcome theirs = run("openssl enc -d -aes-256-ecb -pbkdf2 -pass 'pass:correct horse' -in t.enc -P");
    ASSERT_EQ(ours.status, 0) << ours.err;
    EXPECT_EQ(ours.out, theirs.out);
    EXPECT_EQ(ours.err, "");
    EXPECT_FALSE(std::filesystem::exists(file("t")));
    Outcome fresh = run("$AESGPU encrypt -P -p pass:x");
    EXPECT_EQ(fresh.status, 0) << fresh.err;
    EXPECT_EQ(fresh.out.size(), std::string("salt=\nkey=\n").size() + 16 + 64) << fresh.out;
}

TEST_F(Cli, WrongPassphraseAndMissingPassphraseFailClearly) {
    write_file(file("p"), random_bytes(30000));
    ASSERT_EQ(run("$AESGPU encrypt -q p -p pass:right").status, 0);
    for (int attempt = 0; attempt < 20; ++attempt) {
        const std::string wrong = "pass:wrong" + std::to_string(attempt);
        // A wrong passphrase passes ECB's or CBC's padding check about 2 times in 256: not those.
        if (run("openssl enc -d -aes-256-ecb -pbkdf2 -pass " + wrong + " -in p.aes -out /dev/null").status == 0 ||
            run("openssl enc -d -aes-256-cbc -pbkdf2 -pass " + wrong + " -in p.aes -out /dev/null").status == 0)
            continue;
        Outcome r = run("$AESGPU decrypt p.aes -o out -p " + wrong);
        EXPECT_EQ(r.status, 1);
        EXPECT_EQ(r.err, "aesgpu: 'p.aes': bad decrypt: its last block ends in valid padding neither as ECB nor as "
                         "CBC: wrong passphrase, corrupted input, or a file made with openssl enc without -pbkdf2 "
                         "(--no-pbkdf2; with --md md5 for OpenSSL before 1.1.0), another -md (--md), another -iter "
                         "(--iter) or AES-128 or AES-192 (--key-bits); or it is CTR: give --mode ctr\n");
        EXPECT_FALSE(std::filesystem::exists(file("out")));
        break;
    }
    Outcome raw = run("$AESGPU decrypt --mode ecb p.aes -o out -K " + kKey128);
    EXPECT_EQ(raw.status, 2);
    EXPECT_NE(raw.err.find("encrypted with a passphrase; give it with -p/--pass"), std::string::npos) << raw.err;
    Outcome none = run("$AESGPU decrypt --mode ecb p.aes -o out");
    EXPECT_EQ(none.status, 2);
    EXPECT_NE(none.err.find("-p/--pass"), std::string::npos) << none.err;
    Outcome unsalted =
        run("$AESGPU encrypt -q p -o raw.aes -K " + kKey128 + " && $AESGPU decrypt raw.aes -o x -p pass:a");
    EXPECT_EQ(unsalted.status, 2) << "-p for a file without a passphrase header: the key source as given";
    EXPECT_NE(unsalted.err.find("no 'Salted__' header"), std::string::npos) << unsalted.err;
}

TEST_F(Cli, PromptsForThePassphraseOnATerminal) {
    if (std::system("command -v script >/dev/null") != 0) GTEST_SKIP() << "util-linux `script` is not installed";
    write_file(file("p"), random_bytes(1000));
    // script gives aesgpu a terminal and types what it reads from its standard input.
    Outcome r = run("(sleep 0.5; printf 'tty pw\\n'; sleep 0.5; printf 'tty pw\\n') | "
                    "script -qec '$AESGPU encrypt -q p -o p.enc' /dev/null >/dev/null && "
                    "openssl enc -d -aes-256-ecb -pbkdf2 -pass 'pass:tty pw' -in p.enc | cmp - p");
    EXPECT_EQ(r.status, 0) << r.err << r.out;
    Outcome mismatch = run("(sleep 0.5; printf 'one\\n'; sleep 0.5; printf 'two\\n') | "
                           "script -qec '$AESGPU encrypt -q p -o q.enc' /dev/null");
    EXPECT_NE(mismatch.out.find("do not match"), std::string::npos) << mismatch.out;
    EXPECT_FALSE(std::filesystem::exists(file("q.enc")));
}

TEST_F(Cli, SeveralInputsEachGetTheirOwnOutputAndOneFailureDoesNotStopTheOthers) {
    write_file(file("a"), random_bytes(1000));
    write_file(file("b"), random_bytes(5000));
    Outcome r = run("$AESGPU encrypt a missing b -K " + kKey128);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("aesgpu: cannot open 'missing'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("aesgpu: encrypted 2 of 3 files, 1 failed\n"), std::string::npos) << r.err;
    for (const char *name : {"a", "b"}) {
        Bytes expected;
        ASSERT_TRUE(openssl_ecb(from_hex(kKey128), Direction::encrypt, true, read_file(file(name)), expected));
        EXPECT_TRUE(read_file(file(std::string(name) + ".aes")) == expected) << name;
    }
    Outcome back = run("mkdir d && mv a.aes b.aes d/ && $AESGPU decrypt --mode ecb -q d/a.aes d/b.aes -K " + kKey128 +
                       " && cmp d/a a && cmp d/b b");
    EXPECT_EQ(back.status, 0) << back.err;
    EXPECT_EQ(run("$AESGPU encrypt -q a b -o out -K " + kKey128).status, 2);
    EXPECT_EQ(run("$AESGPU encrypt -q a - -K " + kKey128).status, 2);
}

TEST_F(Cli, WrongKeyFailsAndLeavesNoOutput) {
    write_file(file("p"), random_bytes(70000));
    ASSERT_EQ(run("$AESGPU encrypt -q p -K " + kKey128).status, 0);
    std::filesystem::remove(file("p"));
    // The wrong key must fail the padding check; with OpenSSL as the judge of which keys do.
    for (int attempt = 0; attempt < 20; ++attempt) {
        const std::string wrong = to_hex(random_bytes(16));
        if (run("openssl enc -d -aes-128-ecb -K " + wrong + " -in p.aes -out /dev/null").status == 0) continue;
        Outcome r = run("$AESGPU decrypt --mode ecb p.aes -K " + wrong);
        EXPECT_EQ(r.status, 1);
        EXPECT_NE(r.err.find("aesgpu: 'p.aes': bad decrypt: wrong key or corrupted input"), std::string::npos) << r.err;
        EXPECT_EQ(entries(), 1u) << "an output or temporary file was left behind";
        return;
    }
    FAIL() << "no wrong key failed the padding check in 20 tries";
}

TEST_F(Cli, TruncatedCiphertextFails) {
    write_file(file("p"), random_bytes(1000));
    ASSERT_EQ(run("$AESGPU encrypt -q p -K " + kKey128).status, 0);
    Outcome r = run("head -c 999 p.aes > t.aes && $AESGPU decrypt --mode ecb t.aes -K " + kKey128);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(file("t")));
}

TEST_F(Cli, MissingInputFails) {
    Outcome r = run("$AESGPU encrypt -q nothing-here -K " + kKey128);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "aesgpu: cannot open 'nothing-here': No such file or directory\n");
}

TEST_F(Cli, FileSizeLimitIsAnErrorAndLeavesNoPartialFile) {
    write_file(file("p"), random_bytes(10u << 20));
    // ulimit -f counts KiB: 4 MiB, so the 10 MiB output cannot fit. Without SIGXFSZ ignored the
    // kernel would kill aesgpu mid-write and leave the temporary file behind.
    for (const std::string io_threads : {"1", "4"}) { // write(), and the mapped writer where it applies
        Outcome r = run("ulimit -f 4096; $AESGPU encrypt -q p -o out -K " + kKey128 + " --io-threads " + io_threads);
        EXPECT_EQ(r.status, 1);
        EXPECT_EQ(r.err, "aesgpu: error writing 'out': File too large\n");
        EXPECT_EQ(entries(), 1u) << "an output or temporary file was left behind";
    }
}

TEST_F(Cli, ExistingOutputNeedsForce) {
    write_file(file("p"), random_bytes(100));
    write_file(file("p.aes"), {1, 2, 3});
    Outcome r = run("$AESGPU encrypt -q p -K " + kKey128);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("already exists; use -f"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(file("p.aes")), Bytes({1, 2, 3}));
    r = run("$AESGPU encrypt -q -f p -K " + kKey128);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(file("p.aes")).size(), 112u);
}

TEST_F(Cli, RefusesToWriteOverTheInput) {
    write_file(file("p"), random_bytes(100));
    for (const std::string how : {"p -o p -f", "p -o ./p -f", "p -c -f >> p"}) {
        Outcome r = run("$AESGPU encrypt -q " + how + " -K " + kKey128);
        EXPECT_EQ(r.status, 1) << how;
        EXPECT_NE(r.err.find("it is the input file"), std::string::npos) << how << ": " << r.err;
        EXPECT_EQ(read_file(file("p")).size(), 100u) << how;
    }
}

TEST_F(Cli, ProgressLineOnlyWhenAskedOrOnATerminal) {
    // A slow FIFO keeps the job running past the 0.3 s before the line first shows.
    ASSERT_EQ(run("mkfifo slow").status, 0);
    const std::string feed = " & exec 3>slow; head -c 2000000 /dev/urandom >&3; sleep 1; head -c 10 /dev/urandom >&3; "
                             "exec 3>&-; wait $!";
    // (Not with -q, which --progress contradicts: aesgpu would end at once and the feed wait forever.)
    Outcome forced = run("$AESGPU encrypt --backend cpu --progress slow -o a -K " + kKey128 + feed);
    EXPECT_EQ(forced.status, 0) << forced.err;
    // Forced into a file: plain lines, no carriage returns or escape codes to litter a log.
    EXPECT_NE(forced.err.find("\naesgpu: 1.0 MiB  "), std::string::npos) << forced.err;
    EXPECT_NE(forced.err.find("B/s  cpu\n"), std::string::npos) << forced.err;
    EXPECT_EQ(forced.err.find_first_of("\r\033"), std::string::npos) << forced.err;
    Outcome plain = run("$AESGPU encrypt -q slow -o b -K " + kKey128 + feed); // stderr is a file here
    EXPECT_EQ(plain.status, 0) << plain.err;
    EXPECT_EQ(plain.err, "");
    EXPECT_EQ(run("$AESGPU encrypt p --progress --no-progress -K " + kKey128).status, 2);
}

TEST_F(Cli, ProgressLineShowsByItselfOnATerminal) {
    if (std::system("command -v script >/dev/null") != 0) GTEST_SKIP() << "util-linux `script` is not installed";
    ASSERT_EQ(run("mkfifo slow").status, 0);
    // script gives aesgpu a terminal for stderr; the FIFO keeps the job running past 0.3 s.
    Outcome r = run("script -qec '$AESGPU encrypt --backend cpu slow -o a -K " + kKey128 +
                    "' /dev/null & exec 3>slow; head -c 2000000 /dev/urandom >&3; sleep 1; exec 3>&-; wait $!");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("\r1.0 MiB"), std::string::npos) << r.out; // a FIFO has no total: bytes, no bar
    EXPECT_NE(r.out.find("iB/s  cpu\033[K"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\r\033[K"), std::string::npos) << "the line is erased at the end: " << r.out;
}

TEST_F(Cli, BrokenPipeEndsQuietly) {
    write_file(file("p"), random_bytes(20u << 20));
    Outcome r = run("$AESGPU encrypt -q p -c -K " + kKey128 + " | head -c 10 > /dev/null; echo ${PIPESTATUS[0]}");
    EXPECT_EQ(r.out, "141\n") << "killed by SIGPIPE, like cat";
    EXPECT_EQ(r.err, "");
}

TEST_F(Cli, StandardOutputFullIsAnError) {
    write_file(file("p"), random_bytes(100000));
    Outcome r = run("$AESGPU encrypt -q p -c -K " + kKey128 + " > /dev/full");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "aesgpu: error writing standard output: No space left on device\n");
}

TEST_F(Cli, UsageErrorsExitTwo) {
    write_file(file("p"), random_bytes(10));
    const char *cases[] = {
        "$AESGPU encrypt p -K 0001",                                             // short key
        "$AESGPU encrypt p -K 000102030405060708090a0b0c0d0e0fff",               // 34 digits
        "$AESGPU encrypt p -K 000102030405060708090a0b0c0d0e0z",                 // not hex
        "$AESGPU encrypt p",                                                     // no key, no terminal
        "$AESGPU encrypt p -K 000102030405060708090a0b0c0d0e0f -p pass:x",       // two keys
        "$AESGPU encrypt p -p pass:x --key-bits 100",                            // bad key size
        "$AESGPU encrypt p -K 000102030405060708090a0b0c0d0e0f --iter 5",        // ignored with a raw key
        "$AESGPU encrypt p -p bogus:x",                                          // bad SPEC
        "$AESGPU encrypt -p stdin < p",                                          // passphrase and data on stdin
        "$AESGPU encrypt p -K 000102030405060708090a0b0c0d0e0f --bogus",         // unknown option
        "$AESGPU encrypt p -K 000102030405060708090a0b0c0d0e0f -o x -c",         // -o and -c
        "$AESGPU encrypt p -K 000102030405060708090a0b0c0d0e0f --backend tpu",   // bad backend
        "$AESGPU encrypt p -K 000102030405060708090a0b0c0d0e0f --chunk-size 17", // ragged chunk
        "$AESGPU encrypt p -K 000102030405060708090a0b0c0d0e0f --chunk-size 99999999999999999999999",
        "$AESGPU encrypt --key-file - < p",                                 // key and data on stdin
        "$AESGPU decrypt --mode ecb p -K 000102030405060708090a0b0c0d0e0f", // no .aes, no -o
        "$AESGPU frobnicate",
        "$AESGPU",
    };
    for (const char *command : cases) {
        Outcome r = run(command);
        EXPECT_EQ(r.status, 2) << command << "\n" << r.err;
        EXPECT_FALSE(r.err.empty()) << command;
        EXPECT_FALSE(std::filesystem::exists(file("p.aes"))) << command;
    }
    Outcome r = run("$AESGPU decrypt --mode ecb p -K " + kKey128);
    EXPECT_NE(r.err.find("give one with -o OUT"), std::string::npos) << r.err;
}

TEST_F(Cli, MessagesAreOneLineStartingWithTheToolName) {
    Outcome r = run("$AESGPU encrypt missing -K 00");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.rfind("aesgpu: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(Cli, WarnsAboutEcbUnlessQuiet) {
    write_file(file("p"), random_bytes(10));
    Outcome loud = run("$AESGPU encrypt p -c -K " + kKey128 + " > /dev/null");
    EXPECT_EQ(loud.status, 0);
    EXPECT_NE(loud.err.find("aesgpu: warning: ECB mode"), std::string::npos) << loud.err;
    Outcome quiet = run("$AESGPU encrypt p -c -q -K " + kKey128 + " > /dev/null");
    EXPECT_EQ(quiet.status, 0);
    EXPECT_EQ(quiet.err, "");
}

TEST_F(Cli, VerboseReportsBackendChunkThreadsAndThroughput) {
    write_file(file("p"), random_bytes(1 << 20));
    Outcome r = run("$AESGPU encrypt p -q -v -T 2 --chunk-size 64K --backend cpu -K " + kKey128);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "aesgpu: -q/--quiet and -v/--verbose contradict\n");
    r = run("$AESGPU encrypt p -f -v -T 2 --chunk-size 64K --backend cpu -K " + kKey128);
    EXPECT_EQ(r.status, 0) << r.err;
    for (const char *expected : {"cpu (OpenSSL", "2 threads", "chunk 64 KiB", "iB/s)"}) {
        EXPECT_NE(r.err.find(expected), std::string::npos) << expected << " missing in:\n" << r.err;
    }
}

TEST_F(Cli, GpuAndCpuBackendsAgreeByteForByte) {
    if (!gpu_available()) GTEST_SKIP() << "no usable CUDA device";
    for (const std::size_t size : {0u, 1u, 1048579u, 20971525u}) {
        for (const std::size_t key_bytes : {16u, 24u, 32u}) {
            SCOPED_TRACE("size " + std::to_string(size) + " key bits " + std::to_string(key_bytes * 8));
            const std::string key = to_hex(random_bytes(key_bytes));
            write_file(file("p"), random_bytes(size));
            // --wait-for-gpu: files this small would otherwise be done by the CPU before the GPU starts.
            const std::string gpu = " --backend gpu --wait-for-gpu -K " + key;
            Outcome r =
                run("$AESGPU encrypt -q p -o c.gpu" + gpu + " && $AESGPU encrypt -q p -o c.cpu --backend cpu -K " +
                    key + " && cmp c.gpu c.cpu && $AESGPU decrypt --mode ecb c.gpu -o p.gpu" + gpu +
                    " && cmp p.gpu p && cat c.cpu | $AESGPU decrypt" + gpu + " | cmp - p && rm -f c.gpu c.cpu p.gpu");
            EXPECT_EQ(r.status, 0) << r.err;
        }
    }
}

TEST_F(Cli, GpuBackendWithoutGpuFailsClearly) {
    // CUDA_VISIBLE_DEVICES= hides every GPU, so this runs the same on machines with and without one.
    // With a CPU start the failure shows at the end of a small input and mid-run in a large one;
    // with --wait-for-gpu before anything is read.
    for (const std::size_t size : {std::size_t{10}, std::size_t{40} << 20}) {
        for (const std::string wait : {"", " --wait-for-gpu"}) {
            SCOPED_TRACE("size " + std::to_string(size) + wait);
            write_file(file("p"), random_bytes(size));
            Outcome r = run("CUDA_VISIBLE_DEVICES= $AESGPU encrypt -q p --backend gpu -K " + kKey128 + wait);
            EXPECT_EQ(r.status, 1);
            EXPECT_EQ(r.err.rfind("aesgpu: no usable CUDA device: ", 0), 0u) << r.err;
            EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
            EXPECT_EQ(entries(), 1u) << "an output or temporary file was left behind";
        }
    }
    // Output to a pipe cannot be taken back, so there --backend gpu waits for the GPU: nothing is
    // written, and standard input is not read.
    Outcome r = run("CUDA_VISIBLE_DEVICES= $AESGPU encrypt -q --backend gpu -c -K " + kKey128 +
                    " < p > c; status=$?; wc -c < c; exit $status");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "0\n");
    EXPECT_EQ(r.err.rfind("aesgpu: no usable CUDA device: ", 0), 0u) << r.err;
}

// Several files and no GPU for --backend gpu: said once, not once per file; every file fails
// (one JSON object each), none is written.
TEST_F(Cli, GpuBackendWithoutGpuSaysSoOnceForSeveralFiles) {
    for (const char *name : {"a", "b", "c"}) write_file(file(name), random_bytes(1000));
    Outcome r = run("CUDA_VISIBLE_DEVICES= $AESGPU encrypt --json --backend gpu -K " + kKey128 + " a b c");
    EXPECT_EQ(r.status, 1);
    std::size_t said = 0;
    for (std::size_t at = r.err.find("no usable CUDA device"); at != std::string::npos;
         at = r.err.find("no usable CUDA device", at + 1)) {
        ++said;
    }
    EXPECT_EQ(said, 1u) << r.err;
    EXPECT_NE(r.err.find("aesgpu: encrypted 0 of 3 files, 3 failed\n"), std::string::npos) << r.err;
    std::istringstream lines(r.out);
    std::size_t objects = 0;
    for (std::string line; std::getline(lines, line); ++objects) {
        const nlohmann::json summary = nlohmann::json::parse(line);
        EXPECT_FALSE(summary["ok"].get<bool>()) << line;
        EXPECT_EQ(summary["error"].get<std::string>().rfind("no usable CUDA device: ", 0), 0u) << line;
    }
    EXPECT_EQ(objects, 3u) << r.out;
    EXPECT_EQ(entries(), 3u) << "an output or temporary file was left behind";
    // A mistake in the options is still a usage error (exit 2), however many files.
    const std::string aes192 = " -K " + kKey128 + kKey128.substr(0, 16);
    for (const char *files : {" a", " a b"}) {
        Outcome usage = run("CUDA_VISIBLE_DEVICES= $AESGPU encrypt -q --backend gpu --mode gcm" + aes192 + files);
        EXPECT_EQ(usage.status, 2) << files << ": " << usage.err;
    }
}

TEST_F(Cli, GpuTakesOverFromTheCpuStartAndTheOutputMatchesOpenSsl) {
    if (!gpu_available()) GTEST_SKIP() << "no usable CUDA device";
    // A pipe that pauses after 2 MiB: the GPU (0.3 s to start on the H200 host) is ready by the
    // time the other 30 MiB arrive.
    write_file(file("p"), random_bytes(32u << 20));
    Outcome r = run("(head -c 2M p; sleep 3; tail -c +2097153 p) | $AESGPU encrypt -v --backend gpu -o c -K " +
                    kKey128 + " && openssl enc -aes-128-ecb -K " + kKey128 + " -in p | cmp - c");
    EXPECT_EQ(r.status, 0) << r.err;
    // "until the GPU is ready" with one GPU, "until the first of GPU 0 and GPU 1 is ready" with two.
    EXPECT_TRUE(r.err.find("until the GPU is ready") != std::string::npos ||
                r.err.find("until the first of GPU 0") != std::string::npos)
        << r.err;
    for (const char *expected : {"the CPU ciphered the first", "gpu (", "ciphered the other"}) {
        EXPECT_NE(r.err.find(expected), std::string::npos) << expected << " missing in:\n" << r.err;
    }
}

TEST_F(Cli, AllCiphersOnEveryGpuAndTheCpuAndSaysHowTheyShared) {
    if (!gpu_available()) GTEST_SKIP() << "no usable CUDA device";
    // --wait-for-gpu: the CPU starts with the GPUs, not before them (it would be done with a file
    // this small before they are ready), so both work; each lane's line gives its bytes.
    write_file(file("p"), random_bytes(256u << 20));
    Outcome r = run("$AESGPU encrypt -v --json --backend all --wait-for-gpu -o c -K " + kKey128 +
                    " p && openssl enc -aes-128-ecb -K " + kKey128 + " -in p | cmp - c");
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char *expected : {"aesgpu: CPU: ", "aesgpu: GPU", " jobs, busy ", "GB/s; cpu (OpenSSL", "GB/s; gpu ("}) {
        EXPECT_NE(r.err.find(expected), std::string::npos) << expected << " missing in:\n" << r.err;
    }
    EXPECT_EQ(r.err.find("while the GPU started"), std::string::npos) << "the CPU does not only start the run";
    const nlohmann::json summary = nlohmann::json::parse(r.out);
    std::uint64_t total = 0;
    for (const auto &[name, bytes] : summary["split"].items()) {
        EXPECT_GT(bytes.get<std::uint64_t>(), 0u) << name;
        total += bytes.get<std::uint64_t>();
    }
    EXPECT_TRUE(summary["split"].contains("cpu")) << r.out;
    EXPECT_EQ(total, (256u << 20) + 16);
}

TEST_F(Cli, AutoFallsBackToTheCpuAndSaysWhy) {
    write_file(file("p"), random_bytes(1000));
    Outcome r = run("CUDA_VISIBLE_DEVICES= $AESGPU encrypt p -v -K " + kKey128);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("aesgpu: backend auto: using the CPU ("), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("with cpu (OpenSSL"), std::string::npos) << r.err;
}

TEST_F(Cli, RefusesCiphertextOnATerminal) {
    if (std::system("command -v script >/dev/null") != 0) GTEST_SKIP() << "util-linux `script` is not installed";
    write_file(file("p"), random_bytes(100));
    Outcome r = run("script -qec '$AESGPU encrypt -q p -c -K " + kKey128 + "' /dev/null");
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("refusing to write ciphertext to a terminal"), std::string::npos) << r.out;
}

TEST_F(Cli, InfoAndVersion) {
    Outcome info = run("$AESGPU info");
    EXPECT_EQ(info.status, 0);
    EXPECT_NE(info.out.find("CUDA support:"), std::string::npos) << info.out;
    EXPECT_NE(info.out.find("AES-NI"), std::string::npos) << info.out;
    Outcome version = run("$AESGPU --version");
    EXPECT_EQ(version.status, 0);
    // "aesgpu X.Y.Z" alone on the first line (help2man and scripts read it), build details after.
    const std::string first_line = version.out.substr(0, version.out.find('\n'));
    EXPECT_TRUE(std::regex_match(first_line, std::regex(R"(aesgpu [0-9]+\.[0-9]+\.[0-9]+)"))) << version.out;
    EXPECT_NE(version.out.find("\nOpenSSL"), std::string::npos) << version.out;
    EXPECT_TRUE(version.out.find("\nCUDA runtime ") != std::string::npos ||
                version.out.find("\nbuilt without CUDA") != std::string::npos)
        << version.out;
    Outcome help = run("$AESGPU encrypt --help");
    EXPECT_EQ(help.status, 0);
    EXPECT_NE(help.out.find("Examples:"), std::string::npos) << help.out;
}

TEST_F(Cli, InputsBeyondFourGibibytes) {
    // A sparse file of 4 GiB + 7 zero bytes: every ciphertext block but the last is E(0), and the
    // last pads 7 zero bytes, so the tail must equal the tail of OpenSSL's output for 23 zeros.
    const std::uintmax_t size = (std::uintmax_t{4} << 30) + 7;
    std::ofstream(file("big")).close();
    std::filesystem::resize_file(file("big"), size);
    // pipefail: aesgpu's own status counts; `wait $!` lets the byte count finish before it is read.
    for (const std::string backend : {"cpu", "gpu"}) {
        if (backend == "gpu" && !gpu_available()) continue;
        SCOPED_TRACE(backend);
        Outcome ours = run("set -o pipefail; $AESGPU encrypt -q big -c --backend " + backend + " -K " + kKey128 +
                           " | tee >(wc -c > count) | tail -c 32 | od -An -tx1; status=$?; wait $!; exit $status");
        ASSERT_EQ(ours.status, 0) << ours.err;
        Outcome theirs =
            run("head -c 23 /dev/zero | openssl enc -aes-128-ecb -K " + kKey128 + " | tail -c 32 | od -An -tx1");
        ASSERT_EQ(theirs.status, 0) << theirs.err;
        EXPECT_EQ(ours.out, theirs.out);
        EXPECT_EQ(std::stoull(slurp(file("count"))), size + 9);
    }
}

TEST_F(Cli, MemoryDoesNotGrowWithTheInput) {
    // Sparse files read as zeros without using disk. Both sizes fill every ring slot, so any
    // difference in peak memory would be growth with the input.
    std::ofstream(file("small")).close();
    std::filesystem::resize_file(file("small"), 256u << 20);
    std::ofstream(file("large")).close();
    std::filesystem::resize_file(file("large"), std::uintmax_t{2} << 30);
    const std::vector<std::string> common{"-q", "-K", kKey128, "-o", "/dev/null", "-T", "2"};
    auto with_input = [&](const std::string &name) {
        std::vector<std::string> arguments{"encrypt", file(name)};
        arguments.insert(arguments.end(), common.begin(), common.end());
        return arguments;
    };
    const long small = peak_rss_kib(with_input("small"));
    const long large = peak_rss_kib(with_input("large"));
    ASSERT_GT(small, 0);
    ASSERT_GT(large, 0);
    EXPECT_LT(large - small, 4 * 1024) << "peak RSS " << small << " KiB for 256 MiB, " << large << " KiB for 2 GiB";
}

} // namespace
} // namespace aesgpu::test
