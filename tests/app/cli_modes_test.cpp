// SPDX-License-Identifier: Apache-2.0
// --mode ctr against the real `openssl enc -aes-N-ctr`, both ways: raw keys with --iv at sizes
// around blocks and chunks and counters that carry, files and pipes, both backends; passphrases
// (key and IV from one PBKDF2 output); -P; and the usage errors of the mode's options.
#include "support/cli_fixture.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace aesgpu::test {
namespace {

const std::string kIvAbove32BitCarry = "0123456789abcdef01234567fffffffe";
const std::string kIvAbove64BitCarry = "0123456789abcdeffffffffffffffff0";
const std::string kIvAbove128BitWrap = "fffffffffffffffffffffffffffffffd";

std::string ctr_cipher(std::size_t key_bytes) {
    return "-aes-" + std::to_string(key_bytes * 8) + "-ctr";
}

// Files ours/theirs made by aesgpu and openssl from p must match, and each must decrypt with the
// other tool. `options` go to aesgpu (backend, chunk size).
std::string ctr_both_ways(const std::string &key, const std::string &iv, const std::string &options) {
    const std::string cipher = ctr_cipher(key.size() / 2);
    const std::string raw = " -K " + key + " --iv " + iv + " " + options;
    const std::string openssl = cipher + " -K " + key + " -iv " + iv;
    return "$AESGPU encrypt --mode ctr -q -f p -o ours" + raw + " && openssl enc " + openssl +
           " -in p -out theirs && cmp ours theirs && openssl enc -d " + openssl +
           " -in ours -out back && cmp back p && $AESGPU decrypt --mode ctr -f theirs -o back2" + raw +
           " && cmp back2 p && cat theirs | $AESGPU decrypt --mode ctr" + raw + " | cmp - p";
}

TEST_F(Cli, CtrInteroperatesWithOpensslAtBlockAndChunkBoundaries) {
    // --chunk-size 64K puts chunk boundaries at 65536-byte multiples.
    const std::size_t chunk = 65536;
    for (const std::string backend : {"cpu", "auto"}) {
        for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{15}, std::size_t{16},
                                       std::size_t{17}, chunk - 1, chunk, chunk + 1, 5 * chunk + 7}) {
            write_file(file("p"), random_bytes(size));
            for (const std::size_t key_bytes : {16u, 24u, 32u}) {
                SCOPED_TRACE(backend + " size " + std::to_string(size) + " key bits " + std::to_string(key_bytes * 8));
                const Outcome r = run(ctr_both_ways(to_hex(random_bytes(key_bytes)), to_hex(random_bytes(16)),
                                                    "--chunk-size 64K --backend " + backend));
                ASSERT_EQ(r.status, 0) << r.err << r.out;
            }
        }
    }
}

TEST_F(Cli, CtrCountersCarryAsOpensslsDo) {
    // Starting just below a carry, the stream crosses it in its first blocks, inside one chunk and
    // (with 16-byte chunks) between chunks.
    write_file(file("p"), random_bytes(16 * 40 + 3));
    for (const std::string &iv : {kIvAbove32BitCarry, kIvAbove64BitCarry, kIvAbove128BitWrap}) {
        for (const std::string options : {"--backend cpu", "--backend cpu --chunk-size 16", "--backend auto"}) {
            SCOPED_TRACE(iv + " " + options);
            const Outcome r = run(ctr_both_ways(kKey128, iv, options));
            EXPECT_EQ(r.status, 0) << r.err << r.out;
        }
    }
}

TEST_F(Cli, CtrPassphraseFilesInteroperateWithOpensslPbkdf2) {
    write_file(file("p"), random_bytes(100000 + 5));
    for (const unsigned bits : {128u, 192u, 256u}) {
        SCOPED_TRACE(bits);
        const std::string cipher = "-aes-" + std::to_string(bits) + "-ctr";
        const std::string ours = "--mode ctr -p pass:pw --iter 1000 --key-bits " + std::to_string(bits);
        const std::string theirs = cipher + " -pbkdf2 -iter 1000 -pass pass:pw";
        const Outcome r =
            run("$AESGPU encrypt -q -f p -o ours " + ours + " && openssl enc -d " + theirs +
                " -in ours | cmp - p && openssl enc " + theirs + " -in p -out theirs && $AESGPU decrypt " + ours +
                " -f theirs -o back && cmp back p && head -c 8 ours | grep -q Salted__");
        EXPECT_EQ(r.status, 0) << r.err << r.out;
    }
    // The default key size is 256 bits, as for ECB; an empty input is the header alone.
    Outcome r = run("$AESGPU encrypt -q --mode ctr -p pass:pw p -o d && openssl enc -d -aes-256-ctr -pbkdf2 "
                    "-pass pass:pw -in d | cmp - p");
    EXPECT_EQ(r.status, 0) << r.err << r.out;
    r = run(": > e && $AESGPU encrypt -q --mode ctr -p pass:pw e && stat -c %s e.aes && openssl enc -d -aes-256-ctr "
            "-pbkdf2 -pass pass:pw -in e.aes | wc -c && openssl enc -aes-256-ctr -pbkdf2 -pass pass:pw -in e -out o && "
            "$AESGPU decrypt --mode ctr -p pass:pw -c o | wc -c");
    EXPECT_EQ(r.status, 0) << r.err << r.out;
    EXPECT_EQ(r.out, "16\n0\n0\n");
}

TEST_F(Cli, CtrPrintKeyMatchesOpensslP) {
    // From a passphrase file: salt, key and IV as openssl derives them from the file's salt.
    write_file(file("p"), random_bytes(100));
    Outcome r = run("openssl enc -aes-192-ctr -pbkdf2 -pass pass:pw -in p -out f && "
                    "openssl enc -d -aes-192-ctr -pbkdf2 -pass pass:pw -in f -P > theirs && "
                    "$AESGPU decrypt --mode ctr --key-bits 192 -p pass:pw -P f > ours && cmp ours theirs && "
                    "grep -c '^iv =' ours");
    EXPECT_EQ(r.status, 0) << r.err << r.out;
    EXPECT_EQ(r.out, "1\n");
    // A raw key and IV are printed as given (openssl's -P adds a salt line of its own here).
    r = run("$AESGPU encrypt --mode ctr -K " + kKey128 + " --iv " + kIvAbove64BitCarry +
            " -P > ours && openssl enc -aes-128-ctr -K " + kKey128 + " -iv " + kIvAbove64BitCarry +
            " -P | grep -v '^salt=' > theirs && cmp ours theirs && cat ours");
    EXPECT_EQ(r.status, 0) << r.err << r.out;
    EXPECT_EQ(r.out, "key=000102030405060708090A0B0C0D0E0F\niv =0123456789ABCDEFFFFFFFFFFFFFFFF0\n");
}

TEST_F(Cli, CtrTellsNoEcbWarningAndNamesTheModeInJson) {
    write_file(file("p"), random_bytes(1000));
    Outcome r = run("$AESGPU encrypt --mode ctr -K " + kKey128 + " --iv " + kIvAbove32BitCarry + " p --json");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("\"mode\":\"ctr\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"bytes_out\":1000"), std::string::npos) << r.out;
    r = run("$AESGPU encrypt -K " + kKey128 + " p -f --json");
    EXPECT_NE(r.out.find("\"mode\":\"ecb\""), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("ECB mode"), std::string::npos) << r.err;
}

TEST_F(Cli, CtrOptionsThatCannotWorkAreUsageErrors) {
    write_file(file("p"), random_bytes(100));
    const std::string iv = " --iv " + kIvAbove32BitCarry;
    const std::string key = " -K " + kKey128;
    const struct {
        std::string arguments;
        std::string message;
    } cases[] = {
        {"encrypt --mode ctr p" + key, "needs --iv HEX"},
        {"encrypt p" + key + iv, "--iv applies to --mode ctr"},
        {"encrypt --mode ctr p -p pass:x" + iv, "a passphrase, which derives the IV"},
        {"encrypt --mode ctr p" + key + " --iv 0123", "exactly 32 hex digits"},
        {"encrypt --mode ctr p" + key + " --iv 0x0123456789abcdef0123456789abcdef", "drop the 0x"},
        {"encrypt --mode ctr p" + key + " --iv 0123456789abcdef0123456789abcdeg", "exactly 32 hex digits"},
        {"encrypt --mode ctr --no-pad p" + key + iv, "drop --no-pad"},
        {"decrypt --mode ctr -t p" + key + iv, "nothing to check"},
        {"encrypt --mode xts p" + key, "--mode must be ecb, ctr, cbc or gcm"},
        // One --iv for several files would give them all one keystream.
        {"encrypt --mode ctr p p" + key + iv, "the same keystream"},
        // CTR cannot tell a wrong key, so --rm would lose the only ciphertext.
        {"decrypt --mode ctr --rm p -o q" + key + iv,
         "CTR decrypts any key to something, and --rm would then remove the only ciphertext"},
        {"decrypt --no-pad --rm p -o q" + key, "--no-pad leaves no padding to check"},
    };
    for (const auto &[arguments, message] : cases) {
        SCOPED_TRACE(arguments);
        const Outcome r = run("$AESGPU " + arguments);
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_EQ(entries(), 1u) << "only p";
    }
}

// Files ours/theirs made by aesgpu and openssl from p with -aes-N-cbc must match, and each must
// decrypt with the other tool (and from a pipe). `options` go to aesgpu's decryption (backend, chunk
// size); encryption is the CPU's, one thread.
std::string cbc_both_ways(const std::string &key, const std::string &iv, const std::string &options,
                          const std::string &pad) {
    const std::string cipher = "-aes-" + std::to_string(key.size() / 2 * 8) + "-cbc";
    const std::string raw = " -K " + key + " --iv " + iv + " " + pad;
    const std::string openssl = cipher + " -K " + key + " -iv " + iv + (pad.empty() ? "" : " -nopad");
    return "$AESGPU encrypt --mode cbc -q -f p -o ours" + raw + " && openssl enc " + openssl +
           " -in p -out theirs && cmp ours theirs && openssl enc -d " + openssl +
           " -in ours -out back && cmp back p && $AESGPU decrypt --mode cbc -f theirs -o back2" + raw + " " + options +
           " && cmp back2 p && cat theirs | $AESGPU decrypt --mode cbc" + raw + " " + options + " | cmp - p";
}

TEST_F(Cli, CbcInteroperatesWithOpensslAtBlockChunkAndLaneBoundaries) {
    // --chunk-size 64K puts chunk (job) boundaries at 65536-byte multiples; -T 3 cuts each job into
    // pieces on three threads; auto and all put jobs on every lane there is (GPUs where present).
    const std::size_t chunk = 65536;
    std::vector<std::string> backends = {"--backend cpu -T 3 --chunk-size 64K", "--backend auto --chunk-size 64K",
                                         "--backend all --chunk-size 64K --io-threads 1"};
    if (gpu_available()) backends.push_back("--backend gpu --chunk-size 64K");
    for (const std::string &backend : backends) {
        for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{15}, std::size_t{16},
                                       std::size_t{17}, chunk - 1, chunk, chunk + 1, 5 * chunk + 7, 5 * chunk + 16}) {
            write_file(file("p"), random_bytes(size));
            for (const std::size_t key_bytes : {16u, 24u, 32u}) {
                SCOPED_TRACE(backend + " size " + std::to_string(size) + " key bits " + std::to_string(key_bytes * 8));
                const std::string pad = size % 16 == 0 && size > 0 && key_bytes == 24 ? "--no-pad" : "";
                const Outcome r =
                    run(cbc_both_ways(to_hex(random_bytes(key_bytes)), to_hex(random_bytes(16)), backend, pad));
                ASSERT_EQ(r.status, 0) << r.err << r.out;
            }
        }
    }
}

TEST_F(Cli, CbcPassphrasesAreOpensslsPbkdf2BothWays) {
    write_file(file("p"), random_bytes(300000));
    const Outcome r = run("openssl enc -aes-256-cbc -pbkdf2 -pass pass:pw -in p -out theirs && "
                          "$AESGPU decrypt --mode cbc -p pass:pw theirs -o back && cmp back p && "
                          "$AESGPU encrypt --mode cbc -q -p pass:pw --key-bits 128 --iter 2000 p -o ours && "
                          "openssl enc -d -aes-128-cbc -pbkdf2 -iter 2000 -pass pass:pw -in ours | cmp - p");
    EXPECT_EQ(r.status, 0) << r.err;
    // -P prints what openssl -P prints: salt, key and IV.
    const Outcome ours = run("$AESGPU decrypt --mode cbc -P -p pass:pw theirs");
    const Outcome theirs = run("openssl enc -d -aes-256-cbc -pbkdf2 -pass pass:pw -P -in theirs");
    EXPECT_EQ(ours.status, 0) << ours.err;
    EXPECT_NE(ours.out.find("iv ="), std::string::npos) << ours.out;
    EXPECT_EQ(ours.out, theirs.out);
    // Without --mode, a CBC file's padding says it is CBC. A fixed salt and plaintext: a random pair
    // passes ECB's padding check too one time in 256, and is then refused (cli_detect_test).
    write_file(file("fixed"), Bytes(1000, 0x41));
    // (openssl enc -S writes no header: the header it would write goes in front.)
    Outcome unnamed = run("(printf 'Salted__\\001\\002\\003\\004\\005\\006\\007\\010' && openssl enc "
                          "-aes-256-cbc -pbkdf2 -pass pass:pw -S 0102030405060708 -in fixed) > fixed.cbc && "
                          "$AESGPU decrypt --mode cbc -p pass:pw fixed.cbc -o y && cmp y fixed && echo made");
    ASSERT_EQ(unnamed.out, "made\n") << unnamed.err;
    unnamed = run("$AESGPU decrypt -v -p pass:pw fixed.cbc -o x && cmp x fixed");
    EXPECT_EQ(unnamed.status, 0) << unnamed.err;
    EXPECT_NE(unnamed.err.find("'fixed.cbc' reads as --mode cbc"), std::string::npos) << unnamed.err;
}

// openssl enc without -pbkdf2 (what most guides show): its old KDF, one digest pass (sha256 by
// default since OpenSSL 1.1.0, md5 before). Read where the user says so, with a warning; never
// written. --md picks PBKDF2's digest as openssl's -md does.
TEST_F(Cli, OpensslsOldKeyDerivationIsReadWhenAskedAndNeverWritten) {
    write_file(file("p"), random_bytes(5000));
    for (const std::string mode : {"ecb", "cbc", "ctr"}) {
        for (const std::string digest : {"sha256", "md5"}) {
            SCOPED_TRACE(mode + " " + digest);
            ASSERT_EQ(run("openssl enc -aes-256-" + mode + " -md " + digest + " -pass pass:pw -in p -out old").status,
                      0);
            const std::string md = digest == "sha256" ? "" : " --md md5";
            const Outcome r = run("$AESGPU decrypt -f --mode " + mode + " --no-pbkdf2" + md +
                                  " -p pass:pw old -o back && cmp back p");
            EXPECT_EQ(r.status, 0) << r.err;
            EXPECT_NE(r.err.find("openssl's old key derivation (openssl enc without -pbkdf2) is weak"),
                      std::string::npos)
                << r.err;
            if (mode == "ctr") continue;
            // Without --mode: the padding decides, as for PBKDF2's files (the salt is random:
            // one file in 256 fits both paddings and asks for the mode).
            const Outcome unnamed = run("$AESGPU decrypt -f --no-pbkdf2" + md + " -p pass:pw old -o back2");
            if (unnamed.status == 0)
                EXPECT_EQ(run("cmp back2 p").status, 0);
            else
                EXPECT_NE(unnamed.err.find("as ECB and as CBC alike"), std::string::npos) << unnamed.err;
        }
    }
    // PBKDF2 with another digest, both ways, as openssl enc -pbkdf2 -md sha512.
    const Outcome sha512 = run("$AESGPU encrypt -q --mode cbc --md sha512 -p pass:pw p -o ours && openssl enc -d "
                               "-aes-256-cbc -pbkdf2 -md sha512 -pass pass:pw -in ours | cmp - p && openssl enc "
                               "-aes-256-cbc -pbkdf2 -md sha512 -pass pass:pw -in p -out theirs && $AESGPU decrypt "
                               "--mode cbc --md sha512 -p pass:pw theirs -o b512 && cmp b512 p");
    EXPECT_EQ(sha512.status, 0) << sha512.err;
    const std::pair<std::string, std::string> refused[] = {
        {"encrypt --no-pbkdf2 -p pass:pw p -o x", "--no-pbkdf2 reads openssl's old key derivation, for decrypt; "
                                                  "aesgpu never writes it"},
        {"decrypt --no-pbkdf2 --iter 5 -p pass:pw old -o x", "--iter sets PBKDF2's iterations, and --no-pbkdf2"},
        {"decrypt --no-pbkdf2 -K " + kKey128 + " old -o x", "--no-pbkdf2 applies to passphrases (-p) only"},
        {"decrypt --md sha1 -K " + kKey128 + " old -o x", "--md applies to passphrases (-p) only"},
        {"encrypt --mode gcm --md sha512 -p pass:pw p -o x", "--mode gcm derives a passphrase's key with scrypt"},
        {"decrypt --mode gcm --no-pbkdf2 -p pass:pw p -o x", "--mode gcm derives a passphrase's key with scrypt"},
        {"decrypt --md whirlpool -p pass:pw old -o x", "--md must be md5, sha1, sha224, sha256, sha384 or sha512"},
    };
    for (const auto &[arguments, message] : refused) {
        const Outcome r = run("$AESGPU " + arguments);
        EXPECT_EQ(r.status, 2) << arguments << ": " << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << arguments << ": " << r.err;
        EXPECT_FALSE(std::filesystem::exists(file("x")));
    }
}

// A padding failure of a passphrase file names what may explain it, in the options to give:
// openssl's old KDF, another digest, iteration count or key size. A fixed salt: the failure is
// certain (a random one passes by chance 2 times in 256).
TEST_F(Cli, ABadDecryptOfAPassphraseFileNamesTheOptionsThatWouldReadIt) {
    write_file(file("fixed"), Bytes(1000, 0x41));
    ASSERT_EQ(run("(printf 'Salted__\\001\\002\\003\\004\\005\\006\\007\\010' && openssl enc "
                  "-aes-128-cbc -pbkdf2 -pass pass:pw -S 0102030405060708 -in fixed) > c128")
                  .status,
              0);
    const Outcome r = run("$AESGPU decrypt -p pass:pw c128 -o x");
    EXPECT_EQ(r.status, 1) << r.err;
    for (const std::string hint : {"openssl enc without -pbkdf2 (--no-pbkdf2; with --md md5 for OpenSSL before 1.1.0)",
                                   "another -md (--md)", "another -iter (--iter)", "AES-128 or AES-192 (--key-bits)"}) {
        EXPECT_NE(r.err.find(hint), std::string::npos) << hint << "\n" << r.err;
    }
    EXPECT_EQ(run("$AESGPU decrypt -p pass:pw --key-bits 128 c128 -o y && cmp y fixed").status, 0);
    // Options given are not suggested again.
    const Outcome given = run("$AESGPU decrypt --mode cbc --no-pbkdf2 -p pass:pw c128 -o x");
    EXPECT_EQ(given.status, 1) << given.err;
    EXPECT_EQ(given.err.find("(--no-pbkdf2;"), std::string::npos) << given.err;
}

TEST_F(Cli, CbcEncryptsOnOneCpuThreadAndSaysSo) {
    write_file(file("p"), random_bytes(1000));
    const std::string key = " -K " + kKey128 + " --iv " + kKey128;
    for (const std::string backend : {"gpu", "all"}) {
        const Outcome r = run("$AESGPU encrypt --mode cbc --backend " + backend + " p -o c" + key);
        EXPECT_EQ(r.status, 2) << backend;
        EXPECT_NE(r.err.find("--mode cbc encryption is serial"), std::string::npos) << r.err;
    }
    EXPECT_EQ(entries(), 1u) << "only p";
    const Outcome automatic = run("$AESGPU encrypt -v --mode cbc p -o c" + key);
    EXPECT_EQ(automatic.status, 0) << automatic.err;
    EXPECT_NE(automatic.err.find("1 thread"), std::string::npos) << automatic.err;
    // Decrypting takes every backend; --rm does not (a wrong key passes the padding check 1 in 256).
    EXPECT_EQ(run("$AESGPU decrypt --mode cbc --backend all c -o back" + key + " && cmp back p").status, 0);
    const Outcome rm = run("$AESGPU decrypt --mode cbc --rm c -o back2" + key);
    EXPECT_EQ(rm.status, 2);
    EXPECT_NE(rm.err.find("in CBC a wrong key passes the padding check"), std::string::npos) << rm.err;
    const Outcome no_iv = run("$AESGPU encrypt --mode cbc -K " + kKey128 + " p -o c2");
    EXPECT_EQ(no_iv.status, 2);
    EXPECT_NE(no_iv.err.find("--mode cbc with a raw key needs --iv"), std::string::npos) << no_iv.err;
    const Outcome test_only = run("$AESGPU decrypt --mode cbc -t c" + key);
    EXPECT_EQ(test_only.status, 0) << "-t checks CBC's padding: " << test_only.err;
}

} // namespace
} // namespace aesgpu::test
