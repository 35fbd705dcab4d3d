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

// A shell command that makes `out` as `openssl enc -aes-256-MODE -pbkdf2 -pass pass:x` would from
// `in`, with a fixed salt: the same key every time, so that which padding a file's last block fits
// is fixed too. (openssl enc -S writes no header: the one it would write goes in front.)
std::string openssl_fixed_salt(const std::string &mode, const std::string &in, const std::string &out) {
    return "(printf 'Salted__\\001\\002\\003\\004\\005\\006\\007\\010' && openssl enc -aes-256-" + mode +
           " -pbkdf2 -pass pass:x -S 0102030405060708 -in " + in + ") > " + out;
}

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
    // CTR with a passphrase, whole blocks: read as ECB or CBC, it fails both padding checks (fixed
    // key and data: never the 2 in 256 that pass one) and names CTR.
    write_file(file("fixed"), Bytes(640, 0x41));
    const Outcome ctr_pass = run(openssl_fixed_salt("ctr", "fixed", "c") + " && $AESGPU decrypt -p pass:x c -o b");
    EXPECT_EQ(ctr_pass.status, 1);
    EXPECT_NE(ctr_pass.err.find("'c': bad decrypt"), std::string::npos) << ctr_pass.err;
    EXPECT_NE(ctr_pass.err.find("or it is CTR: give --mode ctr"), std::string::npos) << ctr_pass.err;
    EXPECT_FALSE(fs::exists(file("b")));
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
    EXPECT_NE(ecb_rm.err.find("'e' reads as --mode ecb or --mode cbc"), std::string::npos) << ecb_rm.err;
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
    write_file(file("p"), Bytes(100, 0x41)); // fixed, as the salts: each file fits one padding only
    ASSERT_EQ(run("$AESGPU encrypt -q --mode gcm -p pass:x p -o g.aes && " + openssl_fixed_salt("ecb", "p", "e.aes") +
                  " && " + openssl_fixed_salt("cbc", "p", "c.aes") + " && " + openssl_fixed_salt("ctr", "p", "r.aes"))
                  .status,
              0);
    const Outcome r = run("mkdir d && $AESGPU decrypt --json --output-dir d -p pass:x g.aes e.aes c.aes r.aes");
    EXPECT_EQ(r.status, 0) << r.err;
    for (const std::string mode : {"gcm", "ecb", "cbc", "ctr"}) {
        const std::string name(1, mode == "ctr" ? 'r' : mode[0]);
        EXPECT_NE(r.out.find(R"("input":")" + name + R"(.aes","operation":"decrypt","mode":")" + mode + '"'),
                  std::string::npos)
            << r.out;
        EXPECT_EQ(read_file(file("d/" + name)), read_file(file("p"))) << mode;
    }
}

// openssl's passphrase format does not record the mode. Every mode, lengths on both sides of the
// blocks, a file and a pipe: what decrypts without --mode is the plaintext, and an ECB or CBC file
// is never read as the other. A CTR file of whole blocks is read as ECB or CBC: it fails (or, 2
// times in 256, passes one check by chance: then -v says which check it passed).
TEST_F(Cli, OpensslPassphraseFilesOfEveryModeDecryptWithoutModeOrAreRefused) {
    int ambiguous = 0;
    for (const std::string mode : {"ecb", "cbc", "ctr"}) {
        for (const std::size_t size : {0, 1, 15, 16, 17, 32, 1000, 1024, 4103}) {
            write_file(file("p"), random_bytes(size));
            ASSERT_EQ(run("openssl enc -aes-256-" + mode + " -pbkdf2 -pass pass:x -in p -out c").status, 0);
            const bool whole_blocks = mode != "ctr" || (size % 16 == 0 && size != 0);
            for (const std::string input : {"c", "- < c"}) {
                SCOPED_TRACE(mode + " " + std::to_string(size) + " " + input);
                const Outcome r = run("rm -f b; $AESGPU decrypt -v -p pass:x " + input + " -o b");
                if (mode == "ctr" && whole_blocks) {
                    if (r.status == 0) {
                        EXPECT_NE(r.err.find("reads as --mode e"), std::string::npos) << r.err;
                    } else {
                        EXPECT_NE(r.err.find("or it is CTR: give --mode ctr"), std::string::npos) << r.err;
                    }
                    EXPECT_EQ(run("$AESGPU decrypt -f --mode ctr -p pass:x " + input + " -o b && cmp b p").status, 0);
                    continue;
                }
                if (r.status == 2 && r.err.find("as ECB and as CBC alike") != std::string::npos) {
                    ++ambiguous; // one file in about 256: refused, nothing written
                    EXPECT_FALSE(fs::exists(file("b")));
                    continue;
                }
                ASSERT_EQ(r.status, 0) << r.err;
                EXPECT_EQ(read_file(file("b")), read_file(file("p")));
                EXPECT_NE(r.err.find("reads as --mode " + mode), std::string::npos) << r.err;
            }
        }
    }
    EXPECT_LE(ambiguous, 4) << "about one file in 256 fits both paddings";
}

// Blocks built so that the last one ends in valid padding both as ECB and as CBC: the mode cannot
// be told, and a guess would write garbage with exit 0. And built to fit one only: that one.
TEST_F(Cli, AFileWhosePaddingFitsBothEcbAndCbcIsRefusedAndOneThatFitsOneIsThatMode) {
    const std::string salt = "0102030405060708";
    const Outcome printed = run("openssl enc -aes-256-cbc -pbkdf2 -pass pass:x -S " + salt + " -P");
    ASSERT_EQ(printed.status, 0) << printed.err;
    const auto value = [&printed](const std::string &name) {
        const std::size_t at = printed.out.find(name);
        return from_hex(printed.out.substr(at + name.size(), printed.out.find('\n', at) - at - name.size()));
    };
    const Bytes key = value("key=");
    const auto ecb = [&key](Direction direction, const Bytes &block) {
        Bytes out;
        EXPECT_TRUE(openssl_ecb(key, direction, false, block, out));
        return out;
    };
    const auto salted = [&salt](const Bytes &c1, const Bytes &c2) {
        Bytes bytes = {'S', 'a', 'l', 't', 'e', 'd', '_', '_'};
        const Bytes salt_bytes = from_hex(salt);
        bytes.insert(bytes.end(), salt_bytes.begin(), salt_bytes.end());
        bytes.insert(bytes.end(), c1.begin(), c1.end());
        bytes.insert(bytes.end(), c2.begin(), c2.end());
        return bytes;
    };
    // CBC, both: D(C2) = X ends in 01 (ECB's padding); C1 = X ^ 10..10, so CBC's last block is 16 x 0x10.
    // CBC, CBC's only: X ends in 00 instead.
    for (const std::uint8_t last : {std::uint8_t{0x01}, std::uint8_t{0x00}}) {
        Bytes x = random_bytes(16);
        x[15] = last;
        Bytes c1 = x;
        for (auto &b : c1) b ^= 0x10;
        write_file(file("cbc"), salted(c1, ecb(Direction::encrypt, x)));
        ASSERT_EQ(run("openssl enc -d -aes-256-cbc -pbkdf2 -pass pass:x -in cbc -out expected").status, 0);
        const Outcome r = run("rm -f b; $AESGPU decrypt -v -p pass:x cbc -o b");
        SCOPED_TRACE(int(last));
        if (last == 0x01) {
            EXPECT_EQ(r.status, 2) << r.err;
            EXPECT_NE(r.err.find("'cbc': its last block ends in valid padding read as ECB and as CBC alike"),
                      std::string::npos)
                << r.err;
            EXPECT_NE(r.err.find("give the mode it was made with: --mode ecb, cbc or ctr"), std::string::npos) << r.err;
            EXPECT_FALSE(fs::exists(file("b")));
            const Outcome piped = run("set -o pipefail; cat cbc | $AESGPU decrypt -p pass:x | wc -c");
            EXPECT_NE(piped.status, 0);
            EXPECT_EQ(piped.out, "0\n") << "nothing reaches the pipe";
            EXPECT_EQ(run("$AESGPU decrypt --mode cbc -p pass:x cbc -o b && cmp b expected").status, 0);
        } else {
            EXPECT_EQ(r.status, 0) << r.err;
            EXPECT_NE(r.err.find("reads as --mode cbc"), std::string::npos) << r.err;
            EXPECT_EQ(read_file(file("b")), read_file(file("expected")));
        }
    }
    // ECB, both: C1 ends in 11, so CBC reads the padding block as 10..10 ^ C1: ending in 01.
    // ECB's only: C1 ends in 10, which CBC reads as a last byte of 00.
    for (const std::uint8_t last : {std::uint8_t{0x11}, std::uint8_t{0x10}}) {
        Bytes c1 = random_bytes(16);
        c1[15] = last;
        write_file(file("plain"), ecb(Direction::decrypt, c1));
        ASSERT_EQ(run(openssl_fixed_salt("ecb", "plain", "ecbf")).status, 0);
        const Outcome r = run("rm -f b; $AESGPU decrypt -v -p pass:x ecbf -o b");
        SCOPED_TRACE(int(last));
        if (last == 0x11) {
            EXPECT_EQ(r.status, 2) << r.err;
            EXPECT_NE(r.err.find("as ECB and as CBC alike"), std::string::npos) << r.err;
            EXPECT_FALSE(fs::exists(file("b")));
            EXPECT_EQ(run("$AESGPU decrypt --mode ecb -p pass:x ecbf -o b && cmp b plain").status, 0);
        } else {
            EXPECT_EQ(r.status, 0) << r.err;
            EXPECT_NE(r.err.find("reads as --mode ecb"), std::string::npos) << r.err;
            EXPECT_EQ(read_file(file("b")), read_file(file("plain")));
        }
    }
}

// A stream's end is not known before output starts: standard input in openssl's passphrase format
// is held up to 64 MiB to find it; a longer one is refused before anything reaches the pipe.
TEST_F(Cli, AStreamTooLongToHoldIsRefusedWithoutModeAndNothingReachesThePipe) {
    const Outcome r = run("head -c $((64 << 20)) /dev/zero > z && " + openssl_fixed_salt("cbc", "z", "c") +
                          " && cat c | $AESGPU decrypt -p pass:x | wc -c");
    EXPECT_EQ(r.out, "0\n");
    EXPECT_NE(r.err.find("standard input: openssl's 'Salted__' header does not record the mode, and the stream is "
                         "longer than 64 MiB"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(run("cat c | $AESGPU decrypt -p pass:x > /dev/null").status, 2);
    EXPECT_EQ(run("cat c | $AESGPU decrypt --mode cbc -p pass:x | cmp - z").status, 0);
    // The same file named, or redirected: its length is known, and the padding decides.
    EXPECT_EQ(run("$AESGPU decrypt -p pass:x -c c | cmp - z").status, 0);
    EXPECT_EQ(run("$AESGPU decrypt -p pass:x < c | cmp - z").status, 0);
    // Without padding nothing tells ECB from CBC.
    const Outcome no_pad = run("head -c 64 /dev/zero > z && openssl enc -aes-256-cbc -nopad -pbkdf2 -pass pass:x "
                               "-in z -out n && $AESGPU decrypt --no-pad -p pass:x n -o nb");
    EXPECT_EQ(no_pad.status, 2);
    EXPECT_NE(no_pad.err.find("without padding nothing tells ECB from CBC"), std::string::npos) << no_pad.err;
    EXPECT_FALSE(fs::exists(file("nb")));
    const Outcome ragged = run("head -c 70 /dev/zero > z70 && openssl enc -aes-256-ctr -pbkdf2 -pass pass:x -in z70 "
                               "-out r && $AESGPU decrypt --no-pad -p pass:x r -o rb");
    EXPECT_EQ(ragged.status, 2) << "without padding, not CTR either: " << ragged.err;
    // Read as CTR by its length: -t has nothing to check, as with --mode ctr.
    const Outcome test_only = run("$AESGPU decrypt -t -p pass:x r");
    EXPECT_EQ(test_only.status, 2) << test_only.err;
    EXPECT_NE(test_only.err.find("reads as CTR"), std::string::npos) << test_only.err;
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
    EXPECT_TRUE(raw.out == "raw: 5008 bytes, no header: raw ECB, CTR or CBC, not recognisable\n" ||
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
    // Other tools' files are named by their magic, whatever their name.
    const Outcome gz = run("gzip -c p > p.gz && cp p.gz p.aes && $AESGPU info p.aes");
    EXPECT_NE(gz.out.find("p.aes: "), std::string::npos) << gz.out;
    EXPECT_NE(gz.out.find("gzip-compressed data, not aesgpu's (gunzip opens it)"), std::string::npos) << gz.out;
    const Outcome words = run("printf 'plain words, not a cipher\\n' > t && $AESGPU info --json t");
    EXPECT_NE(words.out.find(R"("format":"text")"), std::string::npos) << words.out;
    if (run("command -v gpg").status == 0) {
        const Outcome gpg = run("gpg --batch --yes --passphrase x --symmetric -o p.gpg p 2>/dev/null && $AESGPU info "
                                "p.gpg");
        EXPECT_NE(gpg.out.find("an OpenPGP message encrypted with a passphrase (gpg -c)"), std::string::npos)
            << gpg.out;
    }
    // Without files, info is the machine's as before.
    EXPECT_NE(run("$AESGPU info").out.find("Backend auto:"), std::string::npos);
}

} // namespace
} // namespace aesgpu::test
