// SPDX-License-Identifier: Apache-2.0
// --mode gcm against Python's `tink` (Google's own AES-GCM-HKDF streaming AEAD), both ways, and
// every way a stream can be tampered with: exit 1, "authentication failed" or "cut short", no
// output file, and nothing unverified on standard output. Passphrase files (aesgpu's scrypt
// header in front of a Tink stream), and the options gcm does not take.
#include "support/cli_fixture.hpp"
#include "support/tink.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace aesgpu::test {
namespace {

constexpr std::size_t kPassphraseMagicBytes = 6; // "AESGPU"

class Gcm : public Cli {
protected:
    void SetUp() override {
        write_file(file("k16"), random_bytes(16));
        write_file(file("k32"), random_bytes(32));
        run("chmod 600 k16 k32");
    }
};

TEST_F(Gcm, InteroperatesWithTinkBothWays) {
    REQUIRE_TINK();
    for (const std::string key : {"k16", "k32"}) {
        const std::size_t header = key == "k16" ? 24 : 40;
        for (const std::size_t segment : {std::size_t{4096}, std::size_t{1} << 20}) {
            // Empty, one byte, the first segment exactly, a segment minus the header, many + 7.
            for (const std::size_t size :
                 {std::size_t{0}, std::size_t{1}, segment - header - 16, segment - header, 5 * segment + 7}) {
                SCOPED_TRACE(key + " segment " + std::to_string(segment) + " size " + std::to_string(size));
                write_file(file("p"), random_bytes(size));
                const std::string ours = " --mode gcm -q -f --key-file " + key + " --segment-size " +
                                         std::to_string(segment) + " --aad 'for tink'";
                const std::string theirs =
                    tink_command() + " {} " + key + " " + std::to_string(segment) + " 'for tink' ";
                std::string tink_decrypt = theirs;
                tink_decrypt.replace(tink_decrypt.find("{}"), 2, "decrypt");
                std::string tink_encrypt = theirs;
                tink_encrypt.replace(tink_encrypt.find("{}"), 2, "encrypt");
                const Outcome r =
                    run("$AESGPU encrypt" + ours + " p -o ours && " + tink_decrypt + "ours back && cmp back p && " +
                        tink_encrypt + "p theirs && $AESGPU decrypt" + ours +
                        " theirs -o back2 && cmp back2 p && $AESGPU decrypt" + ours + " -c theirs | cmp - p");
                ASSERT_EQ(r.status, 0) << r.err << r.out;
            }
        }
    }
}

TEST_F(Gcm, TinkRefusesWhatAesgpuMadeWithOtherAssociatedData) {
    REQUIRE_TINK();
    write_file(file("p"), random_bytes(10000));
    const Outcome r = run("$AESGPU encrypt --mode gcm -q --key-file k16 --aad one p -o c && " + tink_command() +
                          " decrypt k16 1048576 two c back");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(file("back")));
}

// Tink's associated data is HKDF's info, of any length; OpenSSL's own HKDF stops at 32 KiB, which
// a raw key's --aad reaches at 32769 bytes and a passphrase file's (its 32-byte header comes first)
// at 32737. Both ways against Tink, by --aad and by --aad-file (binary, 1 MiB, from a file).
TEST_F(Gcm, AssociatedDataOfAnyLengthInteroperatesWithTink) {
    REQUIRE_TINK();
    write_file(file("p"), random_bytes(10000));
    const struct {
        std::string key; // ours, then Tink's
        std::string tink_key;
        std::size_t bytes;
        bool text; // printable, so --aad can carry it too
    } cases[] = {
        {"--key-file k16", "k16", 0, false},       {"--key-file k16", "k16", 1, true},
        {"--key-file k32", "k32", 32768, true},    {"--key-file k32", "k32", 32769, true},
        {"--key-file k16", "k16", 1 << 20, false}, {"-p pass:pw", "pass:pw", 32736, true},
        {"-p pass:pw", "pass:pw", 32737, true},    {"-p pass:pw", "pass:pw", 40000, false},
    };
    for (const auto &[key, tink_key, bytes, text] : cases) {
        SCOPED_TRACE(key + " " + std::to_string(bytes) + (text ? " text" : " binary"));
        Bytes aad = random_bytes(bytes);
        if (text) {
            for (auto &b : aad) b = static_cast<std::uint8_t>('a' + b % 26);
        }
        write_file(file("aad"), aad);
        const std::string ours = " -q -f --mode gcm " + key;
        // A passphrase file's header holds the segment size.
        const std::string encrypt = "$AESGPU encrypt --segment-size 4K" + ours;
        const std::string decrypt = "$AESGPU decrypt" + ours + (key.starts_with("-p") ? "" : " --segment-size 4K");
        const std::string tink = tink_command() + " {} " + tink_key + " 4096 @aad ";
        std::vector<std::string> given{" --aad-file aad"};
        if (text) given.emplace_back(" --aad \"$(cat aad)\"");
        for (const std::string &aad_option : given) {
            SCOPED_TRACE(aad_option);
            std::string tink_decrypt = tink;
            tink_decrypt.replace(tink_decrypt.find("{}"), 2, "decrypt");
            std::string tink_encrypt = tink;
            tink_encrypt.replace(tink_encrypt.find("{}"), 2, "encrypt");
            const Outcome r = run("rm -f back back2; " + encrypt + aad_option + " p -o ours && " + tink_decrypt +
                                  "ours back && cmp back p && " + tink_encrypt + "p theirs && " + decrypt + aad_option +
                                  " theirs -o back2 && cmp back2 p");
            ASSERT_EQ(r.status, 0) << r.err << r.out;
        }
        // Other associated data of the same length: refused by both.
        Bytes other = aad;
        if (!other.empty()) other.back() ^= 1;
        write_file(file("other"), other);
        if (!other.empty()) {
            const Outcome r = run(decrypt + " --aad-file other ours -o x");
            EXPECT_EQ(r.status, 1) << r.err;
            EXPECT_NE(r.err.find("authentication failed in segment 0"), std::string::npos) << r.err;
        }
    }
}

// --aad-file's failures say "associated data"; it is no input, and not the data's standard input.
// A chunk holds whole segments, so segments larger than the chunk asked for make each chunk one
// segment: -v says the chunk the ring holds (it said the 1 MiB asked for, of 8 MiB slots).
TEST_F(Gcm, VerboseSaysTheChunkOfWholeSegments) {
    write_file(file("p"), random_bytes(3u << 20));
    for (const std::string direction : {"encrypt", "decrypt"}) {
        const std::string input = direction == "encrypt" ? "p" : "c";
        Outcome r =
            run("$AESGPU " + direction + " -v -f --backend cpu --mode gcm --segment-size 8M --chunk-size 1M -K " +
                kKey128 + " " + input + " -o " + (direction == "encrypt" ? "c" : "back"));
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_NE(r.err.find(", chunk 8192 KiB x "), std::string::npos) << r.err;
    }
    EXPECT_TRUE(read_file(file("back")) == read_file(file("p")));
}

TEST_F(Gcm, AnAssociatedDataFileIsReadWholeAndItsFailuresSaySo) {
    write_file(file("p"), random_bytes(100));
    write_file(file("aad"), random_bytes(100));
    const std::string gcm = "$AESGPU encrypt -q --mode gcm --key-file k16 ";
    const struct {
        std::string command;
        int status;
        std::string message;
    } cases[] = {
        {gcm + "--aad-file missing p", 1, "cannot read the associated-data file 'missing': cannot open"},
        {gcm + "--aad-file . p", 2, "the associated-data file '.' is a directory"},
        {"$AESGPU encrypt -q --mode gcm --aad-file - -p stdin p < aad", 2,
         "--aad-file - and the passphrase source both read standard input"},
        {"$AESGPU encrypt -q --mode gcm --key-file - --aad-file - p < aad", 2,
         "--aad-file - and --key-file - both read standard input"},
        {gcm + "--aad-file - < p", 2, "--aad-file - reads standard input, where the data comes from"},
        {gcm + "--aad-file /dev/stdin < p", 2, "'/dev/stdin' is the data's standard input"},
        {gcm + "--aad-file aad p aad", 2, "'aad' is the associated-data file (--aad-file)"},
        {gcm + "--aad x --aad-file aad p", 2, "excludes"},
        {gcm + "--aad-file '' p", 2, "--aad-file was given an empty value"},
        {"$AESGPU encrypt -q --key-file k16 --aad-file aad p", 2, "--aad-file applies to --mode gcm"},
        {"head -c 67108865 /dev/zero > big && " + gcm + "--aad-file big p", 1,
         "the associated-data file 'big' holds more than 64 MiB of associated data"},
    };
    for (const auto &[command, status, message] : cases) {
        SCOPED_TRACE(command);
        const Outcome r = run(command);
        EXPECT_EQ(r.status, status) << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(file("p.aes")));
    }
    // From standard input when the data is not read from there; the same bytes as from the file.
    const Outcome r = run(gcm + "--aad-file - p < aad && $AESGPU decrypt -q --mode gcm --key-file k16 --aad-file aad "
                                "p.aes -o back && cmp back p");
    EXPECT_EQ(r.status, 0) << r.err;
}

// One row of the tampering table: a change to a good file, and what aesgpu must say.
struct Tampering {
    std::string what;
    std::string command; // changes c (made from p, 4 KiB segments, 5 full segments + 100 bytes)
    std::string message;
};

TEST_F(Gcm, EveryTamperingFailsWithNothingWritten) {
    const std::size_t segment = 4096;
    const std::size_t plaintext = 5 * (segment - 16) + 100; // segments 0-4 full, 5 holds the rest
    write_file(file("p"), random_bytes(plaintext));
    const std::string options = " --mode gcm --key-file k16 --segment-size 4K";
    ASSERT_EQ(run("$AESGPU encrypt -q" + options + " p -o c").status, 0);
    // Offsets in c: the 24-byte header and segment 0 fill the first 4096 bytes, segment n starts
    // at n * 4096, and segment 5 (124 bytes of plaintext, 140 of ciphertext) ends the file at 20620.
    // Bits flipped (XOR 0x55), not a byte written: a random byte is already 0x55 one time in 256.
    const auto flip = [](std::size_t at) {
        const std::string offset = std::to_string(at);
        return "b=$(od -An -tu1 -j " + offset +
               " -N1 c) && printf \"\\\\$(printf %03o $((b ^ 0x55)))\" | dd of=c bs=1 "
               "conv=notrunc status=none seek=" +
               offset;
    };
    const Tampering table[] = {
        {"a bit in the header's salt", flip(3), "authentication failed in segment 0"},
        {"a bit in the header's nonce prefix", flip(20), "authentication failed in segment 0"},
        {"the header's length byte", flip(0), "another key size, or not a gcm stream"},
        {"a bit in segment 2's ciphertext", flip(9000), "authentication failed in segment 2"},
        {"a bit in segment 3's tag", flip(16375), "authentication failed in segment 3"},
        {"cut at the end of segment 4 (no last segment)", "truncate -s 20480 c", "authentication failed in segment 4"},
        {"cut inside the last segment", "truncate -s -50 c", "authentication failed in segment 5"},
        {"cut inside the last segment, under a tag's length", "truncate -s 20490 c", "shorter than its tag"},
        {"only the header", "truncate -s 24 c", "header but no segment"},
        {"segment 2 dropped", "{ head -c 8192 c; tail -c +12289 c; } > d && mv d c",
         "authentication failed in segment 2"},
        {"segments 1 and 2 swapped",
         "{ head -c 4096 c; tail -c +8193 c | head -c 4096; tail -c +4097 c | head -c 4096; tail -c +12289 c; } > d && "
         "mv d c",
         "authentication failed in segment 1"},
        {"segment 1 twice", "{ head -c 8192 c; tail -c +4097 c; } > d && mv d c", "authentication failed in segment 2"},
        {"a byte appended", "printf x >> c", "authentication failed in segment 5"},
        {"a whole segment appended", "head -c 4096 /dev/urandom >> c", "authentication failed in segment 5"},
    };
    for (const Tampering &row : table) {
        SCOPED_TRACE(row.what);
        ASSERT_EQ(run("rm -f c out && $AESGPU encrypt -q" + options + " p -o c && " + row.command).status, 0);
        Outcome r = run("$AESGPU decrypt" + options + " c -o out");
        EXPECT_EQ(r.status, 1) << r.err;
        EXPECT_NE(r.err.find(row.message), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("aesgpu: 'c': "), std::string::npos) << "the message names the file: " << r.err;
        EXPECT_FALSE(std::filesystem::exists(file("out")));
        // To standard output: only whole segments that passed, a prefix of the plaintext.
        r = run("$AESGPU decrypt" + options +
                " -c c > streamed; echo $?; cmp streamed p 2>&1 | grep -c EOF; "
                "stat -c %s streamed");
        const std::size_t streamed = std::stoul(r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1));
        EXPECT_EQ(r.out.substr(0, 2), "1\n") << r.out << r.err;
        EXPECT_TRUE(streamed == 0 || r.out.find("\n1\n") != std::string::npos) << "not a prefix: " << r.out;
        EXPECT_LT(streamed, plaintext);
        EXPECT_EQ(run("$AESGPU decrypt -t" + options + " c").status, 1);
    }
    // The wrong key, associated data or segment size, on the untouched file.
    ASSERT_EQ(run("rm -f c && $AESGPU encrypt -q" + options + " p -o c").status, 0);
    for (const std::string &other : {std::string(" --mode gcm --key-file k16 --segment-size 4K --aad x"),
                                     std::string(" --mode gcm --key-file k16 --segment-size 8K"),
                                     " --mode gcm -K " + to_hex(random_bytes(16)) + " --segment-size 4K"}) {
        const Outcome r = run("$AESGPU decrypt" + other + " c -o out");
        EXPECT_EQ(r.status, 1) << other << r.err;
        EXPECT_NE(r.err.find("authentication failed in segment 0"), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(file("out")));
    }
    EXPECT_EQ(run("$AESGPU decrypt -t" + options + " c && $AESGPU decrypt" + options + " c -o out && cmp out p").status,
              0);
}

TEST_F(Gcm, PassphraseFilesCarryTheirParametersAndAuthenticateTheHeader) {
    write_file(file("p"), random_bytes(70000));
    Outcome r = run("$AESGPU encrypt -q --mode gcm -p pass:pw --segment-size 16K --key-bits 128 p -o c && "
                    "head -c 6 c && $AESGPU decrypt --mode gcm -p pass:pw c -o back && cmp back p");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "AESGPU");
    // Each byte of the 32-byte header changed: refused as damaged, or the key or stream differs.
    // (Most reach scrypt, 64 MiB and about 0.3 s each: under a sanitizer, a sample of them.)
    const Bytes good = read_file(file("c"));
    for (std::size_t at = 0; at < 32; at += under_sanitizer() ? 5 : 1) {
        Bytes changed = good;
        changed[at] ^= 0x01;
        write_file(file("d"), changed);
        r = run("$AESGPU decrypt --mode gcm -p pass:pw d -o out; echo $?; ls out 2>/dev/null");
        // Its magic changed, it is a file without a passphrase header, given -p: exit 2, as for any
        // key source that does not fit the file.
        EXPECT_EQ(r.out, at < kPassphraseMagicBytes ? "2\n" : "1\n") << "byte " << at << ": " << r.err;
    }
    r = run("$AESGPU decrypt --mode gcm -p pass:wrong c -o out");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("wrong passphrase"), std::string::npos) << r.err;
    // Without --mode, its header says GCM.
    r = run("$AESGPU decrypt -t -p pass:pw c");
    EXPECT_EQ(r.status, 0) << r.err;
    // A raw key for a passphrase file, and options the header settles, are usage errors.
    r = run("$AESGPU decrypt --mode gcm --key-file k16 c -o out");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("encrypted with a passphrase: give it with -p"), std::string::npos) << r.err;
    r = run("$AESGPU decrypt --mode gcm -p pass:pw --key-bits 256 c -o out");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("--key-bits is read from"), std::string::npos) << r.err;
    // A passphrase for a raw key's file: the command says how a passphrase file is made.
    r = run(
        "$AESGPU encrypt -q --mode gcm --key-file k16 p -o raw && $AESGPU decrypt --mode gcm -p pass:pw raw -o out");
    EXPECT_EQ(r.status, 2) << "-p for a raw key's file: the key source as given";
    EXPECT_EQ(r.err, "aesgpu: 'raw': it has no aesgpu passphrase header: it was not made by aesgpu encrypt --mode gcm "
                     "-p\n");
    EXPECT_FALSE(std::filesystem::exists(file("out")));
}

// A passphrase file cut inside its 32-byte header is damaged (exit 1), not a file of another kind;
// with --mode or without, and `info` says the same in one voice.
TEST_F(Gcm, APassphraseFileCutInsideItsHeaderIsCutShort) {
    write_file(file("p"), random_bytes(1000));
    ASSERT_EQ(run("$AESGPU encrypt -q --mode gcm -p pass:pw p -o c").status, 0);
    for (const int kept : {6, 7, 20, 31}) {
        SCOPED_TRACE(kept);
        ASSERT_EQ(run("head -c " + std::to_string(kept) + " c > cut").status, 0);
        for (const std::string mode : {"", "--mode gcm "}) {
            const Outcome r = run("$AESGPU decrypt " + mode + "-p pass:pw cut -o out");
            EXPECT_EQ(r.status, 1) << mode << r.err;
            EXPECT_NE(
                r.err.find("'cut': cut short: its passphrase header has " + std::to_string(kept) + " of its 32 bytes"),
                std::string::npos)
                << mode << r.err;
            EXPECT_FALSE(std::filesystem::exists(file("out")));
        }
        const Outcome info = run("$AESGPU info cut");
        EXPECT_EQ(info.out, "cut: " + std::to_string(kept) +
                                " bytes, aesgpu's GCM passphrase header, cut short: it has " + std::to_string(kept) +
                                " of its 32 bytes\n");
    }
}

TEST_F(Gcm, OptionsThatCannotWorkAreUsageErrors) {
    write_file(file("p"), random_bytes(100));
    write_file(file("k24"), random_bytes(24));
    const struct {
        std::string arguments;
        std::string message;
    } cases[] = {
        {"encrypt --mode gcm --key-file k24 p", "16- or 32-byte key"},
        {"encrypt --mode gcm -p pass:x --key-bits 192 p", "128- or 256-bit keys"},
        {"encrypt --mode gcm -P --key-file k16", "--print-key does not apply to --mode gcm: its keys are per file"},
        {"encrypt --mode gcm -p pass:x --iter 5 p", "--mode gcm derives a passphrase's key with scrypt"},
        {"decrypt --mode gcm --key-file k16 --iter 5 p", "--iter applies to passphrases"},
        {"encrypt --mode gcm --no-pad --key-file k16 p", "--mode gcm has no padding"},
        {"decrypt --mode gcm --no-pad -p pass:x p", "--mode gcm has no padding"},
        {"encrypt --mode gcm --iv 00000000000000000000000000000000 --key-file k16 p", "gcm has no IV"},
        {"encrypt --segment-size 4K --key-file k16 p", "--segment-size applies to --mode gcm"},
        {"encrypt --aad x --key-file k16 p", "--aad applies to --mode gcm"},
        {"encrypt --mode gcm --segment-size 63 --key-file k16 p", "--segment-size"},
        {"decrypt --mode gcm --segment-size 4K -p pass:x p", "read from a --mode gcm passphrase file's header"},
    };
    for (const auto &[arguments, message] : cases) {
        SCOPED_TRACE(arguments);
        const Outcome r = run("rm -f p.aes; $AESGPU " + arguments);
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(file("p.aes")));
    }
}

TEST_F(Gcm, AWrongSegmentSizeIsNamed) {
    write_file(file("p"), random_bytes(1000));
    ASSERT_EQ(run("$AESGPU encrypt -q --mode gcm --key-file k16 --segment-size 64 p").status, 0);
    // 65-byte segments end the stream inside a tag; bigger ones fail segment 0's tag; each names
    // --segment-size, and no output is left.
    for (const auto &[size, message] :
         {std::pair{" --segment-size 65", "is shorter than its tag, or it was made with another --segment-size than "
                                          "65 bytes"},
          std::pair{"", "authentication failed in segment 0: wrong key, --aad or --segment-size"},
          std::pair{" --segment-size 128", "authentication failed in segment 0: wrong key, --aad or --segment-size"}}) {
        const Outcome r = run("$AESGPU decrypt -q --mode gcm --key-file k16" + std::string(size) + " p.aes -o back");
        EXPECT_EQ(r.status, 1) << size;
        EXPECT_NE(r.err.find(message), std::string::npos) << size << ": " << r.err;
        EXPECT_FALSE(std::filesystem::exists(file("back")));
    }
    // Cut short with the right size: the same words, since aesgpu cannot tell the two apart.
    const Outcome cut = run("head -c 74 p.aes > cut.aes && $AESGPU decrypt -q --mode gcm --key-file k16 "
                            "--segment-size 64 cut.aes -o back");
    EXPECT_EQ(cut.status, 1);
    EXPECT_EQ(cut.err, "aesgpu: 'cut.aes': the stream is cut short: segment 1 is shorter than its tag, or it was made "
                       "with another --segment-size than 64 bytes\n");
    // A passphrase file's header holds its segment size: no such hint.
    ASSERT_EQ(run("$AESGPU encrypt -q --mode gcm -p pass:x --segment-size 64 p -o pp.aes && head -c 106 pp.aes > "
                  "pcut.aes")
                  .status,
              0);
    const Outcome passphrase_cut = run("$AESGPU decrypt -q --mode gcm -p pass:x pcut.aes -o back");
    EXPECT_EQ(passphrase_cut.status, 1);
    EXPECT_EQ(passphrase_cut.err, "aesgpu: 'pcut.aes': the stream is cut short: segment 1 is shorter than its tag\n");
    // A header and no segment: no segment size explains that.
    const Outcome header_only = run("head -c 24 p.aes > h.aes && $AESGPU decrypt -q --mode gcm --key-file k16 "
                                    "--segment-size 64 h.aes -o back");
    EXPECT_EQ(header_only.status, 1);
    EXPECT_EQ(header_only.err, "aesgpu: 'h.aes': the stream is cut short: it has a header but no segment\n");
}

// A GCM stream numbers its segments in 4 bytes: 64-byte segments hold at most 192 GiB. An input of
// known size (a sparse file, here) that needs more fails before anything is written, naming
// --segment-size; so does a ciphertext too long for the segment size given.
TEST_F(Gcm, AnInputThatNeedsMoreThanTwoToTheThirtyTwoSegmentsIsRefusedUpFront) {
    Outcome r = run("truncate -s 193G big && $AESGPU encrypt -q --mode gcm --key-file k16 --segment-size 64 big");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.err, "aesgpu: 'big' would take 4317336918 segments of 64 bytes: a GCM stream has at most 2^32 (its "
                     "nonce numbers them in 4 bytes); 64-byte segments hold up to 192 GiB, the default 1M up to 4 "
                     "PiB; give a larger --segment-size\n");
    EXPECT_FALSE(std::filesystem::exists(file("big.aes")));
    // A real stream's header, then more ciphertext than 2^32 segments of 64 bytes hold.
    write_file(file("p"), random_bytes(100));
    r = run("$AESGPU encrypt -q --mode gcm --key-file k16 --segment-size 64 p -o c && truncate -s 300G c && "
            "$AESGPU decrypt -q --mode gcm --key-file k16 --segment-size 64 c -o back");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("'c' would take"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("it was not made with this --segment-size, or it is damaged"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(file("back")));
    // A passphrase file's header gives the segment size: no option to blame.
    r = run("$AESGPU encrypt -q --mode gcm -p pass:x --segment-size 64 p -o pc && truncate -s 300G pc && "
            "$AESGPU decrypt -q --mode gcm -p pass:x pc -o back");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("the default 1M up to 4 PiB; it is damaged\n"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(file("back")));
}

TEST_F(Gcm, GpuAndCpuReadEachOthersFiles) {
    if (!gpu_available()) GTEST_SKIP() << "no usable GPU";
    write_file(file("p"), random_bytes((5u << 20) + 7));
    const std::string key = " --mode gcm --key-file k32 --segment-size 64K -f ";
    const Outcome r =
        run("$AESGPU encrypt --backend gpu --wait-for-gpu" + key + "p -o g && $AESGPU decrypt --backend cpu" + key +
            "g -o from_gpu && cmp from_gpu p && $AESGPU encrypt --backend cpu" + key +
            "p -o c && $AESGPU decrypt --backend gpu --wait-for-gpu" + key + "c -o from_cpu && cmp from_cpu p");
    EXPECT_EQ(r.status, 0) << r.err;
    // Not a warning either: every GPU's lane (two on the x2 host) goes cleanly.
    EXPECT_EQ(r.err, "");
}

TEST_F(Gcm, SeveralFilesEachGetTheirOwnSaltAndTheEcbWarningPointsHere) {
    write_file(file("a"), Bytes(5000, 7));
    write_file(file("b"), Bytes(5000, 7));
    Outcome r = run("$AESGPU encrypt --mode gcm --key-file k32 a b && cmp -s a.aes b.aes; echo $?");
    EXPECT_EQ(r.out, "1\n") << "equal inputs, one key: different outputs";
    EXPECT_EQ(r.err.find("ECB"), std::string::npos) << r.err;
    r = run("$AESGPU encrypt -K " + kKey128 + " a -o e");
    EXPECT_NE(r.err.find("--mode gcm protects data"), std::string::npos) << r.err;
}

} // namespace
} // namespace aesgpu::test
