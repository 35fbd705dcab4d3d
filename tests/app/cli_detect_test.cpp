// SPDX-License-Identifier: Apache-2.0
// Decrypt without --mode reads the mode from the file: aesgpu's GCM passphrase header, Tink's
// header length byte with segment 0's tag deciding, ECB otherwise; failures that another mode
// would explain name it, every error names its file, and an explicit --mode is taken as given.
#include "support/cli_fixture.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace aesgpu::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split_lines(const std::string &text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

const std::string kKey256 = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

TEST_F(Cli, DecryptWithoutModeReadsGcmFilesOfEveryKind) {
    write_file(file("k16"), random_bytes(16));
    write_file(file("k32"), random_bytes(32));
    for (const std::size_t size : {std::size_t{0}, std::size_t{1000}, std::size_t{(3u << 20) + 5}}) {
        write_file(file("p"), random_bytes(size));
        for (const std::string key : {"--key-file k16", "--key-file k32", "-p pass:x"}) {
            SCOPED_TRACE(key + " size " + std::to_string(size));
            const Outcome made = run("$AESGPU encrypt -q --mode gcm -f " + key + " p -o c");
            ASSERT_EQ(made.status, 0) << made.err;
            const Outcome file_run = run("$AESGPU decrypt -v -f " + key + " c -o back && cmp back p");
            EXPECT_EQ(file_run.status, 0) << file_run.err;
            EXPECT_NE(file_run.err.find("'c' reads as --mode gcm"), std::string::npos) << file_run.err;
            const Outcome pipe_run = run("cat c | $AESGPU decrypt " + key + " | cmp - p");
            EXPECT_EQ(pipe_run.status, 0) << pipe_run.err;
            const Outcome test_run = run("$AESGPU decrypt -t " + key + " c");
            EXPECT_EQ(test_run.status, 0) << test_run.err;
        }
    }
}

// An ECB file whose first byte is the Tink header length of its key: ECB's plaintext block 0 chosen
// (by deciphering the wanted ciphertext block) so that ciphertext block 0 starts with 24.
TEST_F(Cli, AnEcbFileThatStartsAsGcmWouldFailsItsFirstTagAndNeverDecryptsAsEcbSilently) {
    Bytes block = random_bytes(16);
    block[0] = 24;
    write_file(file("c0"), block);
    const Outcome made = run("openssl enc -d -aes-128-ecb -nopad -K " + kKey128 +
                             " -in c0 -out p && head -c 1000 /dev/urandom >> p && $AESGPU encrypt -q -K " + kKey128 +
                             " p -o e && cmp -n 16 e c0");
    ASSERT_EQ(made.status, 0) << made.err;
    for (const std::string input : {"e", "- < e"}) {
        SCOPED_TRACE(input);
        const Outcome read = run("$AESGPU decrypt -K " + kKey128 + " " + input + " -o back");
        EXPECT_EQ(read.status, 1) << read.err;
        EXPECT_NE(read.err.find("authentication failed in segment 0"), std::string::npos) << read.err;
        EXPECT_NE(read.err.find("if it is ECB, give --mode ecb"), std::string::npos) << read.err;
        EXPECT_FALSE(fs::exists(file("back"))) << "nothing is written before segment 0's tag";
    }
    const Outcome ecb = run("$AESGPU decrypt --mode ecb -K " + kKey128 + " e -o back && cmp back p");
    EXPECT_EQ(ecb.status, 0) << ecb.err;
    // Shorter than a GCM header and a tag, from a pipe (whose length nothing tells): the same advice.
    const Outcome short_pipe = run("head -c 16 p > p16 && $AESGPU encrypt -q -K " + kKey128 +
                                   " p16 -o e16 && cat e16 | $AESGPU decrypt -K " + kKey128 + " > /dev/null");
    EXPECT_EQ(short_pipe.status, 1);
    EXPECT_NE(short_pipe.err.find("standard input"), std::string::npos) << short_pipe.err;
    EXPECT_NE(short_pipe.err.find("give --mode ecb"), std::string::npos) << short_pipe.err;
}

TEST_F(Cli, AGcmFileCutInsideItsLastTagSaysSoThoughItReadsAsEcb) {
    write_file(file("p"), random_bytes((1u << 20) + 100));
    write_file(file("k"), random_bytes(16));
    // 1 MiB of the stream (header and segment 0 whole) and 5 bytes of segment 1: no stream ends so.
    const Outcome r = run("$AESGPU encrypt -q --mode gcm --key-file k p -o g && head -c 1048581 g > cut && "
                          "$AESGPU decrypt --key-file k cut -o out");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("or it is a GCM stream cut short"), std::string::npos) << r.err;
    const Outcome told = run("$AESGPU decrypt --mode gcm --key-file k cut -o out");
    EXPECT_EQ(told.status, 1);
    EXPECT_NE(told.err.find("cut short"), std::string::npos) << told.err;
}

TEST_F(Cli, OptionsOnlyGcmTakesSayTheFileIsGcm) {
    write_file(file("p"), random_bytes(300000));
    write_file(file("k"), random_bytes(32));
    const Outcome r = run("$AESGPU encrypt -q --mode gcm --aad label --segment-size 64K --key-file k p -o g && "
                          "$AESGPU decrypt --aad label --segment-size 64K --key-file k g -o back && cmp back p");
    EXPECT_EQ(r.status, 0) << r.err;
    const Outcome iv = run("$AESGPU decrypt --iv " + kKey128 + " -K " + kKey128 + " g -o back2");
    EXPECT_EQ(iv.status, 2);
    EXPECT_NE(iv.err.find("--iv goes with --mode ctr or cbc, which nothing in a file says"), std::string::npos)
        << iv.err;
}

TEST_F(Cli, FailuresThatAnotherModeWouldExplainNameIt) {
    write_file(file("p"), random_bytes(1000));
    write_file(file("p32"), random_bytes(32 * 40));
    // CTR with a passphrase: a Salted__ file read as ECB. Its length is not whole blocks here; a
    // multiple of 16 fails the padding check (fixed key and data: never the one in 256 that passes).
    const Outcome ctr_pass = run("$AESGPU encrypt -q --mode ctr -p pass:x p -o c && $AESGPU decrypt -p pass:x c -o b");
    EXPECT_EQ(ctr_pass.status, 1);
    EXPECT_NE(ctr_pass.err.find("'c': bad decrypt"), std::string::npos) << ctr_pass.err;
    EXPECT_NE(ctr_pass.err.find("--mode ctr"), std::string::npos) << ctr_pass.err;
    write_file(file("fixed"), Bytes(640, 0x41));
    const Outcome ctr_raw = run("$AESGPU encrypt -q --mode ctr -K " + kKey128 + " --iv " + kKey128 +
                                " fixed -o c2 && $AESGPU decrypt -K " + kKey128 + " c2 -o b2");
    EXPECT_EQ(ctr_raw.status, 1);
    EXPECT_NE(
        ctr_raw.err.find(
            "'c2': bad decrypt: wrong key or corrupted input; if it is CBC or CTR, give --mode cbc or --mode ctr"),
        std::string::npos)
        << ctr_raw.err;
    // With --mode given, the mode is taken as it is: no advice about others.
    const Outcome explicit_ecb = run("$AESGPU decrypt --mode ecb -K " + kKey128 + " c2 -o b3");
    EXPECT_EQ(explicit_ecb.status, 1);
    EXPECT_NE(explicit_ecb.err.find("'c2': bad decrypt"), std::string::npos) << explicit_ecb.err;
    EXPECT_EQ(explicit_ecb.err.find("--mode ctr"), std::string::npos) << explicit_ecb.err;
}

TEST_F(Cli, AnExplicitModeIsNeverSecondGuessed) {
    write_file(file("p"), random_bytes(4000));
    write_file(file("k"), random_bytes(16));
    ASSERT_EQ(run("$AESGPU encrypt -q --mode gcm --key-file k p -o g").status, 0);
    // Read as ECB, as asked: the padding check (or the length) fails, nothing says GCM.
    const Outcome ecb = run("$AESGPU decrypt --mode ecb --key-file k g -o b");
    EXPECT_EQ(ecb.status, 1);
    EXPECT_NE(ecb.err.find("'g': bad decrypt"), std::string::npos) << ecb.err;
    EXPECT_EQ(ecb.err.find("segment"), std::string::npos) << ecb.err;
    EXPECT_EQ(run("$AESGPU decrypt --mode GCM --key-file k g -o b && cmp b p").status, 0) << "case-insensitive";
}

TEST_F(Cli, WhatTheFileSaysMeetsTheOptionsGiven) {
    write_file(file("p"), random_bytes(3000));
    ASSERT_EQ(run("$AESGPU encrypt -q --mode gcm -p pass:x p -o g && $AESGPU encrypt -q -p pass:x p -o e").status, 0);
    // --rm: a GCM file proves the key; an ECB one does not, and stays.
    const Outcome ecb_rm = run("$AESGPU decrypt --rm -p pass:x e -o b");
    EXPECT_EQ(ecb_rm.status, 2) << ecb_rm.err;
    EXPECT_NE(ecb_rm.err.find("'e' reads as ECB"), std::string::npos) << ecb_rm.err;
    EXPECT_TRUE(fs::exists(file("e")));
    EXPECT_FALSE(fs::exists(file("b")));
    const Outcome gcm_rm = run("$AESGPU decrypt --rm -p pass:x g -o b && cmp b p");
    EXPECT_EQ(gcm_rm.status, 0) << gcm_rm.err;
    EXPECT_FALSE(fs::exists(file("g")));
    // Options of openssl's formats, given for a file that turns out GCM.
    ASSERT_EQ(run("$AESGPU encrypt -q --mode gcm -p pass:x p -o g").status, 0);
    for (const std::string option : {"--iter 1000", "--key-bits 128"}) {
        const Outcome r = run("$AESGPU decrypt -p pass:x " + option + " g -o b2");
        EXPECT_EQ(r.status, 2) << option;
        EXPECT_NE(r.err.find("'g' is a GCM file"), std::string::npos) << r.err;
    }
    // A raw-key GCM file of another segment size (and more than one segment: a file of one is read
    // alike with any size that holds it): segment 0 fails, and the advice names --segment-size.
    write_file(file("p"), random_bytes(200000));
    write_file(file("k"), random_bytes(32));
    ASSERT_EQ(run("$AESGPU encrypt -q --mode gcm --segment-size 64K --key-file k p -o s").status, 0);
    const Outcome other_size = run("$AESGPU decrypt --key-file k s -o b3");
    EXPECT_EQ(other_size.status, 1);
    EXPECT_NE(other_size.err.find("--segment-size"), std::string::npos) << other_size.err;
    EXPECT_EQ(run("$AESGPU decrypt --mode gcm --segment-size 64K --key-file k s -o b3 && cmp b3 p").status, 0);
}

TEST_F(Cli, EveryErrorOfSeveralFilesNamesItsFile) {
    // Fixed data: random ECB under the wrong 32-byte key would start as GCM once in 256.
    write_file(file("p"), Bytes(2000, 0x41));
    ASSERT_EQ(run("$AESGPU encrypt -q -K " + kKey128 + " p -o f1.aes && $AESGPU encrypt -q --mode ctr -K " + kKey128 +
                  " --iv " + kKey128 + " p -o f2.aes && cp f1.aes f3.aes")
                  .status,
              0);
    const Outcome r = run("$AESGPU decrypt -K " + kKey256 + " f1.aes f2.aes f3.aes");
    EXPECT_EQ(r.status, 1);
    for (const std::string name : {"'f1.aes': bad decrypt", "'f2.aes': bad decrypt", "'f3.aes': bad decrypt"}) {
        EXPECT_NE(r.err.find(name), std::string::npos) << name << "\n" << r.err;
    }
}

TEST_F(Cli, JsonSaysTheModeEachFileReadAs) {
    write_file(file("p"), random_bytes(100));
    ASSERT_EQ(run("$AESGPU encrypt -q --mode gcm -p pass:x p -o g && $AESGPU encrypt -q -p pass:x p -o e").status, 0);
    const Outcome r = run("$AESGPU decrypt --json -t -p pass:x g e");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(R"("input":"g","operation":"test","mode":"gcm")"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(R"("input":"e","operation":"test","mode":"ecb")"), std::string::npos) << r.out;
}

TEST_F(Cli, InfoSaysWhatEachFileTellsWithoutAKeyAndNoMore) {
    write_file(file("p"), random_bytes(5000));
    write_file(file("k16"), random_bytes(16));
    ASSERT_EQ(run("$AESGPU encrypt -q --mode gcm -p pass:x --key-bits 128 --segment-size 64K p -o gp && "
                  "$AESGPU encrypt -q --mode gcm --key-file k16 p -o g16 && "
                  "openssl enc -aes-256-cbc -pbkdf2 -pass pass:x -in p -out salted && openssl enc -aes-128-ecb -K " +
                  kKey128 + " -in p -out raw && openssl enc -a -aes-128-ecb -K " + kKey128 + " -in p -out b64")
                  .status,
              0);
    const Outcome fifo = run("mkfifo ff && timeout 20 $AESGPU info ff g16");
    EXPECT_EQ(fifo.status, 1) << "never waits on a FIFO's writer";
    EXPECT_NE(fifo.err.find("'ff' is a FIFO"), std::string::npos) << fifo.err;
    EXPECT_NE(fifo.out.find("g16: "), std::string::npos) << fifo.out;
    const Outcome text = run("$AESGPU info gp g16 salted missing b64");
    EXPECT_EQ(text.status, 1) << "a file that cannot be read fails the run; the others are still told";
    EXPECT_NE(text.out.find("gp: 5072 bytes, GCM with a passphrase (aesgpu's header): scrypt N = 2^16, r = 8, p = 1; "
                            "AES-128; segments of 65536 bytes\n"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("g16: 5040 bytes, GCM with a raw 16-byte key (AES-128)"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("salted: 5024 bytes, openssl enc with a passphrase ('Salted__' and a salt)"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("b64: "), std::string::npos) << "after the missing file";
    EXPECT_NE(text.err.find("cannot open 'missing'"), std::string::npos) << text.err;
    // Raw ECB whose first byte happens to be a Tink header length is described as such: try a few.
    const Outcome raw = run("$AESGPU info raw");
    EXPECT_EQ(raw.status, 0);
    EXPECT_TRUE(raw.out == "raw: 5008 bytes, no header: raw ECB or CTR, not recognisable\n" ||
                raw.out.find("as a Tink stream starts") != std::string::npos)
        << raw.out;

    const Outcome json = run("$AESGPU info --json gp g16 missing");
    EXPECT_EQ(json.status, 1);
    const auto lines = split_lines(json.out);
    ASSERT_EQ(lines.size(), 3u) << json.out;
    const auto gp = nlohmann::json::parse(lines[0]);
    EXPECT_EQ(gp["format"], "aesgpu_gcm_passphrase");
    EXPECT_EQ(gp["mode"], "gcm");
    EXPECT_EQ(gp["key_bits"], 128);
    EXPECT_EQ(gp["segment_bytes"], 65536);
    EXPECT_EQ(gp["kdf"]["name"], "scrypt");
    const auto g16 = nlohmann::json::parse(lines[1]);
    EXPECT_EQ(g16["format"], "tink_gcm");
    EXPECT_EQ(g16["key_bits"], 128);
    EXPECT_TRUE(g16["segment_bytes"].is_null()) << "Tink's header does not record it";
    EXPECT_TRUE(nlohmann::json::parse(lines[2]).contains("error"));
    // Without files, info is the machine's as before.
    EXPECT_NE(run("$AESGPU info").out.find("Backend auto:"), std::string::npos);
}

} // namespace
} // namespace aesgpu::test
