// SPDX-License-Identifier: Apache-2.0
// The conventions shell users bring from openssl, zstd and gzip: -P on stdout, named errors with
// the closest command, ignored options refused, -T0, -k/--rm/-t/-S, keygen, hex key files over
// lines, hints for files aesgpu cannot read, JSON for scripts, exit statuses, -v/-vv, NO_COLOR,
// and where the ECB warning and the progress line show.
#include "support/cli_fixture.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

namespace aesgpu::test {
namespace {

const std::string kKey = " -K " + kKey128;

TEST_F(Cli, PrintKeyGoesToStandardOutputAsOpensslPrintsIt) {
    Outcome raw = run("$AESGPU encrypt -P" + kKey);
    EXPECT_EQ(raw.status, 0) << raw.err;
    EXPECT_EQ(raw.out, "key=000102030405060708090A0B0C0D0E0F\n") << "a raw key is printed as given";
    EXPECT_EQ(raw.err, "");
    // A passphrase: the same salt and key as openssl derives for that salt.
    Outcome fresh = run("$AESGPU encrypt -P -p pass:secret --key-bits 128");
    ASSERT_EQ(fresh.status, 0) << fresh.err;
    ASSERT_EQ(fresh.out.rfind("salt=", 0), 0u) << fresh.out;
    const std::string salt = fresh.out.substr(5, 16);
    Outcome theirs = run("openssl enc -aes-128-ecb -pbkdf2 -pass pass:secret -S " + salt + " -P");
    EXPECT_EQ(fresh.out, theirs.out);
    EXPECT_EQ(entries(), 0u) << "-P writes no file";
}

TEST_F(Cli, UnknownCommandsAreNamedWithTheClosestMatch) {
    Outcome typo = run("$AESGPU decrpyt x.aes");
    EXPECT_EQ(typo.status, 2);
    EXPECT_EQ(typo.err, "aesgpu: unknown command 'decrpyt' (did you mean 'decrypt'?); the commands are encrypt, "
                        "decrypt, keygen, info and bench\n");
    Outcome prefix = run("$AESGPU ben");
    EXPECT_NE(prefix.err.find("(did you mean 'bench'?)"), std::string::npos) << prefix.err;
    Outcome far = run("$AESGPU frobnicate");
    EXPECT_EQ(far.status, 2);
    EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
}

TEST_F(Cli, OptionErrorsPointAtTheCommandsHelp) {
    for (const std::string command : {"encrypt", "decrypt", "bench", "keygen", "info"}) {
        Outcome r = run("$AESGPU " + command + " --bogus");
        EXPECT_EQ(r.status, 2) << command;
        EXPECT_NE(r.err.find("(see `aesgpu " + command + " --help`)"), std::string::npos) << r.err;
    }
    // An option before the command is named as such (its value never: it may be a key).
    Outcome early = run("$AESGPU -K" + kKey128 + " encrypt");
    EXPECT_EQ(early.status, 2);
    EXPECT_EQ(early.err, "aesgpu: '-K' is not an option of aesgpu itself: options go after the command (aesgpu "
                         "COMMAND -K ...; see `aesgpu --help`)\n");
    EXPECT_NE(run("$AESGPU --json info").err.find("'--json' is not an option of aesgpu itself"), std::string::npos);
    EXPECT_EQ(run("$AESGPU help").err, "aesgpu: unknown command 'help': use `aesgpu --help`\n");
    // A misspelt long option gets its closest match; its value (after '=') is never echoed.
    Outcome typo = run("$AESGPU encrypt p --kye=" + kKey128);
    EXPECT_EQ(typo.status, 2);
    EXPECT_EQ(typo.err.find(kKey128), std::string::npos) << typo.err;
    EXPECT_NE(typo.err.find("--kye=(value not shown) (did you mean --key? "), std::string::npos) << typo.err;
    typo = run("$AESGPU encrypt p --key-fle=secret.key");
    EXPECT_NE(typo.err.find("(did you mean --key-file? see `aesgpu encrypt --help`)"), std::string::npos) << typo.err;
    EXPECT_NE(run("$AESGPU bench --drection both").err.find("did you mean --direction?"), std::string::npos);
    EXPECT_EQ(run("$AESGPU encrypt p --frobnicate").err.find("did you mean"), std::string::npos);
    // Arguments a command does not take are listed as given (CLI11 lists them last first).
    EXPECT_EQ(run("$AESGPU keygen --devices 0 'a b'").err,
              "aesgpu: The following arguments were not expected: --devices 0 a b (see `aesgpu keygen --help`)\n");
    EXPECT_EQ(run("$AESGPU keygen x").err,
              "aesgpu: The following argument was not expected: x (see `aesgpu keygen --help`)\n");
    // CLI11's terse phrasing in plain words; a repeated key is not echoed either.
    EXPECT_EQ(run("$AESGPU encrypt p --devices 0 --devices 1").err,
              "aesgpu: --devices: given 2 times; give it once (see `aesgpu encrypt --help`)\n");
    Outcome keys = run("$AESGPU encrypt p -K " + kKey128 + " -K " + kKey128);
    EXPECT_EQ(keys.status, 2);
    EXPECT_EQ(keys.err, "aesgpu: --key: given 2 times; give it once (see `aesgpu encrypt --help`)\n");
    for (const char *value : {"abc", "0", "65"}) {
        EXPECT_EQ(run(std::string("$AESGPU encrypt p --io-threads ") + value).err,
                  std::string("aesgpu: --io-threads: '") + value +
                      "' is not a number from 1 to 64 (see `aesgpu encrypt --help`)\n");
    }
}

TEST_F(Cli, DevicesTakesAllOrDistinctDeviceNumbers) {
    write_file(file("p"), random_bytes(100));
    for (const std::string value : {"foo", "", "0,", ",1", "0,,1", "-1", "-0", "+1", "1.5", "0 1", "99999999999"}) {
        Outcome r = run("$AESGPU encrypt p -f --devices '" + value + "'" + kKey);
        EXPECT_EQ(r.status, 2) << value;
        EXPECT_EQ(r.err.rfind("aesgpu: --devices takes all or CUDA device numbers separated by commas (e.g. 0,1), "
                              "not '",
                              0),
                  0u)
            << r.err;
    }
    Outcome twice = run("$AESGPU encrypt p -f --devices 1,0,1" + kKey);
    EXPECT_EQ(twice.status, 2);
    EXPECT_EQ(twice.err, "aesgpu: --devices names GPU 1 twice\n");
    Outcome cpu = run("$AESGPU encrypt p -f --backend cpu --devices 0" + kKey);
    EXPECT_EQ(cpu.status, 2);
    EXPECT_EQ(cpu.err, "aesgpu: --devices applies to the GPU; it has no effect with --backend cpu\n");
    // A device that is not there: --backend gpu fails before writing anything.
    Outcome missing = run("$AESGPU encrypt p -o c --backend gpu --devices 0,63" + kKey);
    EXPECT_EQ(missing.status, 1);
    EXPECT_EQ(missing.err.rfind("aesgpu: no usable CUDA device: ", 0), 0u) << missing.err;
    EXPECT_EQ(entries(), 1u) << "an output was left behind";
    // Named but not there, with the default backend too: an error, said once however many files
    // (they fail with it, untried); the CPU stands in only for GPUs not named.
    write_file(file("q"), random_bytes(100));
    Outcome named = run("$AESGPU encrypt p q -f --devices 63" + kKey);
    EXPECT_EQ(named.status, 1) << named.err;
    EXPECT_EQ(named.err.rfind("aesgpu: no usable CUDA device: ", 0), 0u) << named.err;
    EXPECT_EQ(named.err.find("no usable CUDA device", 10), std::string::npos) << "said once: " << named.err;
    EXPECT_NE(named.err.find("encrypted 0 of 2 files, 2 failed"), std::string::npos) << named.err;
    EXPECT_FALSE(std::filesystem::exists(file("p.aes")));
}

TEST_F(Cli, BackendTakesItsNamesOnly) {
    write_file(file("p"), random_bytes(100));
    for (const std::string value : {"foo", "0", "1", "2", "GPU2", ""}) {
        Outcome r = run("$AESGPU encrypt p --backend '" + value + "'" + kKey);
        EXPECT_EQ(r.status, 2) << value;
        EXPECT_EQ(r.err, "aesgpu: --backend must be auto, cpu, gpu or all\n") << value;
    }
    EXPECT_FALSE(std::filesystem::exists(file("p.aes")));
    Outcome all = run("CUDA_VISIBLE_DEVICES= $AESGPU encrypt p -o all.aes -v --backend all" + kKey);
    EXPECT_EQ(all.status, 0) << all.err;
    EXPECT_NE(all.err.find("aesgpu: backend all: using the CPU ("), std::string::npos) << all.err;
    Outcome bench = run("$AESGPU bench --backend 1");
    EXPECT_EQ(bench.status, 2);
    EXPECT_EQ(bench.err, "aesgpu: --backend must be cpu, gpu or all\n");
}

TEST_F(Cli, ThreadsZeroMeansEveryHardwareThread) {
    const unsigned hardware = std::thread::hardware_concurrency();
    write_file(file("p"), random_bytes((hardware << 20) + 1)); // a 1 MiB piece for every thread
    Outcome r = run("$AESGPU encrypt p -v -T0 --backend cpu" + kKey);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find(", " + std::to_string(hardware) + " thread"), std::string::npos) << r.err;
    // A file of fewer pieces starts only the threads they keep busy: a small one, one.
    write_file(file("small"), random_bytes(1000));
    r = run("$AESGPU encrypt small -v --backend cpu" + kKey);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find(", 1 thread)"), std::string::npos) << r.err;
}

// -v ends each file with its wall time and what it cost the CPU, user and system, per GiB where
// there is enough of it for that to mean something.
TEST_F(Cli, VerboseSaysWhatEachFileCostTheCpu) {
    write_file(file("big"), random_bytes(8u << 20));
    write_file(file("small"), random_bytes(100));
    Outcome r = run("$AESGPU encrypt big small -v --backend cpu" + kKey);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::regex big_line(
        R"(encrypted 8388608 bytes in [0-9.]+ s \([^)]*\), wrote 8388624 bytes; )"
        R"(CPU [0-9]+\.[0-9]{2} s user \+ [0-9]+\.[0-9]{2} s system \([0-9]+\.[0-9]{2} s/GiB\)\n)");
    EXPECT_TRUE(std::regex_search(r.err, big_line)) << r.err;
    const std::regex small_line(R"(encrypted 100 bytes in [0-9.]+ s \([^)]*\), wrote 112 bytes; )"
                                R"(CPU [0-9]+\.[0-9]{2} s user \+ [0-9]+\.[0-9]{2} s system\n)");
    EXPECT_TRUE(std::regex_search(r.err, small_line)) << r.err;
}

// The CPU seconds beside the wall time are the data's: a passphrase's key derivation (here PBKDF2
// with 2,000,000 iterations, about half a second) is not among them.
TEST_F(Cli, VerboseCpuSecondsLeaveOutTheKeyDerivation) {
    write_file(file("small"), random_bytes(100));
    Outcome r = run("$AESGPU encrypt small -vv --backend cpu -p pass:hello --iter 2000000");
    ASSERT_EQ(r.status, 0) << r.err;
    std::smatch kdf, cpu;
    ASSERT_TRUE(std::regex_search(r.err, kdf, std::regex(R"(PBKDF2-HMAC-SHA256, 2000000 iterations: ([0-9.]+) s)")))
        << r.err;
    ASSERT_TRUE(std::regex_search(r.err, cpu, std::regex(R"(CPU ([0-9.]+) s user \+ ([0-9.]+) s system)"))) << r.err;
    EXPECT_LT(std::stod(cpu[1]) + std::stod(cpu[2]), std::stod(kdf[1]) / 2) << r.err;
}

// Standard input that a script read partway before aesgpu: aesgpu ciphers the rest, from where the
// offset stands, with plain and split reads (its size is what is left, not the whole file's),
// and looks for a Salted__ header there, not at the file's start.
TEST_F(Cli, StandardInputReadPartwayIsCipheredFromWhereItStands) {
    const Bytes data = random_bytes((20u << 20) + 5);
    write_file(file("in"), data);
    write_file(file("rest"), Bytes(data.begin() + 1000, data.end()));
    ASSERT_EQ(run("openssl enc -aes-128-ecb -K " + kKey128 + " -in rest -out expected").status, 0);
    for (const std::string io_threads : {"1", "4"}) {
        SCOPED_TRACE("--io-threads " + io_threads);
        Outcome r =
            run("{ dd bs=1000 count=1 of=/dev/null status=none; $AESGPU encrypt -c --backend cpu --io-threads " +
                io_threads + kKey + "; } < in > out");
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_TRUE(read_file(file("out")) == read_file(file("expected")));
    }
    // A passphrase file after 1000 other bytes.
    ASSERT_EQ(run("openssl enc -aes-256-ecb -pbkdf2 -pass pass:pw -in rest -out rest.enc && "
                  "{ head -c 1000 in; cat rest.enc; } > prefixed.enc")
                  .status,
              0);
    Outcome r = run("{ dd bs=1000 count=1 of=/dev/null status=none; $AESGPU decrypt -c --mode ecb --backend cpu -p "
                    "pass:pw; } "
                    "< prefixed.enc > back");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(read_file(file("back")) == read_file(file("rest")));
}

TEST_F(Cli, OptionsTheModeWouldIgnoreAreUsageErrors) {
    write_file(file("p"), random_bytes(100));
    write_file(file("k"), random_bytes(16));
    const std::pair<std::string, std::string> cases[] = {
        {"--key-bits 128" + kKey, "--key-bits applies to passphrases (-p) only"},
        {"--iter 5 --key-file k", "--iter applies to passphrases (-p) only"},
        {"--backend cpu --streams 2" + kKey, "--streams applies to the GPU"},
        {"--backend cpu --wait-for-gpu" + kKey, "--wait-for-gpu applies to the GPU"},
        {"-q -v" + kKey, "-q/--quiet and -v/--verbose contradict"},
        {"-q --progress" + kKey, "-q/--quiet and --progress contradict"},
        {"-k --rm" + kKey, "--keep excludes --rm"},
        {"--rm -c" + kKey, "--rm needs an output file"},
        {"--rm -o -" + kKey, "--rm needs an output file"},
        {"--json -c" + kKey, "--json prints to standard output"},
        {"--json -P" + kKey, "--json and -P/--print-key"},
        {"-S ''" + kKey, "needs a suffix, e.g. .enc"},
        {"-S .x -o out" + kKey, "-S/--suffix names outputs that -o/-c would replace"},
        {"-P -o out" + kKey, "-P/--print-key prints the key and writes no data: drop --output"},
        {"-P --backend gpu" + kKey, "-P/--print-key prints the key and writes no data: drop --backend"},
        {"-P -T 2" + kKey, "-P/--print-key prints the key and writes no data: drop --threads"},
        {"-S a/b" + kKey, "needs a suffix without '/'"},
    };
    for (const auto &[options, message] : cases) {
        Outcome r = run("$AESGPU encrypt p " + options);
        EXPECT_EQ(r.status, 2) << options;
        EXPECT_NE(r.err.find(message), std::string::npos) << options << ": " << r.err;
    }
    Outcome piped = run("$AESGPU encrypt --rm -o x.aes" + kKey + " < p");
    EXPECT_NE(piped.err.find("--rm removes input files; standard input is not one"), std::string::npos) << piped.err;
    Outcome test_writes = run("$AESGPU decrypt --mode ecb -t -o x p.aes" + kKey);
    EXPECT_NE(test_writes.err.find("-t/--test writes nothing: drop --output"), std::string::npos) << test_writes.err;
    EXPECT_EQ(run("$AESGPU encrypt -t p" + kKey).status, 2) << "-t is decrypt's only";
    EXPECT_EQ(entries(), 2u) << "no output, and the input is still there";
}

TEST_F(Cli, KeepRemoveSuffixAndTest) {
    const Bytes data = random_bytes(300000);
    write_file(file("p"), data);
    // -k is accepted and changes nothing: the input stays.
    ASSERT_EQ(run("$AESGPU encrypt -q -k p" + kKey).status, 0);
    EXPECT_TRUE(std::filesystem::exists(file("p")));
    // -S names the output; --rm removes the input only once its output is in place.
    ASSERT_EQ(run("$AESGPU encrypt -q -S .enc --rm p" + kKey).status, 0);
    EXPECT_FALSE(std::filesystem::exists(file("p")));
    EXPECT_EQ(slurp(file("p.enc")), slurp(file("p.aes")));
    // -t checks without writing: a good file passes, a damaged one fails, nothing is created.
    Outcome good = run("$AESGPU decrypt --mode ecb -t p.enc" + kKey);
    EXPECT_EQ(good.status, 0) << good.err;
    EXPECT_EQ(good.out + good.err, "");
    ASSERT_EQ(run("cp p.enc bad.enc && printf 'x' | dd of=bad.enc bs=1 seek=300010 conv=notrunc 2>/dev/null").status,
              0);
    Outcome bad = run("$AESGPU decrypt --mode ecb -t bad.enc" + kKey);
    EXPECT_EQ(bad.status, 1);
    EXPECT_EQ(bad.err, "aesgpu: 'bad.enc': bad decrypt: wrong key or corrupted input\n");
    EXPECT_EQ(entries(), 3u) << "p.aes, p.enc, bad.enc: -t wrote nothing";
    // Decrypting with the suffix takes it off (--rm with decrypt is gcm's only: DecryptRemovesOnlyWhatGcmProved).
    ASSERT_EQ(run("$AESGPU decrypt --mode ecb -q -S .enc p.enc" + kKey).status, 0);
    EXPECT_EQ(slurp(file("p")), std::string(data.begin(), data.end()));
}

// decrypt --rm removes the only ciphertext, so it needs a mode that proves the key was right: in
// ECB one wrong key in 256 passes the padding check and its garbage would replace the file.
TEST_F(Cli, DecryptRemovesOnlyWhatGcmProved) {
    ASSERT_EQ(run("printf 'hello\\n' > n && $AESGPU encrypt -q" + kKey + " --rm n").status, 0);
    // 0x...a3 is a wrong key whose garbage ends in a valid padding byte for this file.
    const std::string wrong = " -K 000000000000000000000000000000a3";
    ASSERT_EQ(run("$AESGPU decrypt --mode ecb -q" + wrong + " -c n.aes > /dev/null").status, 0)
        << "the wrong key must pass ECB";
    for (const std::string &options : {wrong + " --rm n.aes", kKey + " --rm n.aes", kKey + " --rm -S .aes n.aes"}) {
        Outcome r = run("$AESGPU decrypt -q" + options);
        EXPECT_EQ(r.status, 2) << options << ": " << r.err;
        EXPECT_NE(
            r.err.find("decrypt --rm takes --mode gcm only, the one mode that proves the key was right: in ECB a "
                       "wrong key passes the padding check about once in 256, and --rm would then remove the only "
                       "ciphertext."),
            std::string::npos)
            << r.err;
        EXPECT_NE(r.err.find("Decrypt, check the output, then remove the input yourself"), std::string::npos);
        EXPECT_TRUE(std::filesystem::exists(file("n.aes")));
        EXPECT_FALSE(std::filesystem::exists(file("n"))) << options << ": an output was written";
    }
    // GCM: a wrong key fails authentication and keeps the ciphertext; the right one removes it.
    ASSERT_EQ(run("printf 'hello\\n' > g && $AESGPU encrypt -q --mode gcm" + kKey + " --rm g").status, 0);
    Outcome wrong_gcm = run("$AESGPU decrypt -q --mode gcm" + wrong + " --rm g.aes");
    EXPECT_EQ(wrong_gcm.status, 1) << wrong_gcm.err;
    EXPECT_NE(wrong_gcm.err.find("authentication failed"), std::string::npos) << wrong_gcm.err;
    EXPECT_TRUE(std::filesystem::exists(file("g.aes")));
    EXPECT_FALSE(std::filesystem::exists(file("g")));
    Outcome right = run("$AESGPU decrypt -q --mode gcm" + kKey + " --rm g.aes");
    ASSERT_EQ(right.status, 0) << right.err;
    EXPECT_FALSE(std::filesystem::exists(file("g.aes")));
    EXPECT_EQ(slurp(file("g")), "hello\n");
}

// A glob takes the key file along: encrypting it would leave the key only under itself, and
// --rm would delete the original. Any name for it (a link, a path, standard input) counts.
TEST_F(Cli, TheKeyOrPassphraseFileIsNeverAnInput) {
    ASSERT_EQ(
        run("$AESGPU keygen -o my.key && echo r > r.txt && printf 'secret\\n' > pass.txt && chmod 600 pass.txt && "
            "ln -s my.key link && ln my.key hard && mkdir sub")
            .status,
        0);
    const std::string gcm = "$AESGPU encrypt -q --rm --mode gcm ";
    const struct {
        std::string command;
        std::string named;
    } cases[] = {
        {gcm + "--key-file my.key *", "'hard' is the key file (--key-file 'my.key')"},
        {gcm + "--key-file my.key r.txt my.key", "'my.key' is the key file (--key-file 'my.key')"},
        {gcm + "--key-file my.key r.txt ./link", "'./link' is the key file"},
        {gcm + "--key-file ./sub/../my.key r.txt hard", "'hard' is the key file"},
        {"$AESGPU decrypt -q --key-file my.key -o out my.key", "'my.key' is the key file"},
        {gcm + "-p file:pass.txt r.txt pass.txt", "'pass.txt' is the passphrase file (-p)"},
        {gcm + "-p fd:3 r.txt pass.txt 3<pass.txt", "'pass.txt' is the passphrase file (-p)"},
        {gcm + "-p stdin r.txt pass.txt <pass.txt", "'pass.txt' is the passphrase file (-p)"},
        {gcm + "--key-file - r.txt link <my.key", "'link' is the key file (--key-file standard input)"},
        {"$AESGPU encrypt -q -K " + kKey128 + " --key-file my.key r.txt my.key", "--key excludes"},
    };
    for (const auto &[command, named] : cases) {
        SCOPED_TRACE(command);
        const Outcome r = run(command);
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_NE(r.err.find(named), std::string::npos) << r.err;
        // The whole run is refused before any work: nothing encrypted, nothing removed.
        EXPECT_EQ(run("ls -A | tr '\\n' ' '").out, "hard link my.key pass.txt r.txt sub ");
    }
    // Nor is it an output: -f would write over the key (and --rm then remove the only copy of the
    // data), named with -o or by the suffix.
    ASSERT_EQ(run("cp my.key r.txt.aes && cp pass.txt k.aes && echo aad > aad.bin").status, 0);
    const struct {
        std::string command;
        std::string named;
    } outputs[] = {
        {gcm + "-f --key-file my.key -o my.key r.txt", "the output 'my.key' is the key file (--key-file 'my.key')"},
        {gcm + "-f --key-file my.key -o link r.txt", "the output 'link' is the key file"},
        {gcm + "-f --key-file r.txt.aes r.txt", "the output 'r.txt.aes' is the key file (--key-file 'r.txt.aes')"},
        {gcm + "-f -p file:pass.txt -o pass.txt r.txt", "the output 'pass.txt' is the passphrase file (-p)"},
        {gcm + "-f --key-file my.key --aad-file aad.bin -o aad.bin r.txt",
         "the output 'aad.bin' is the associated-data file (--aad-file)"},
    };
    for (const auto &[command, named] : outputs) {
        SCOPED_TRACE(command);
        const Outcome r = run(command);
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_NE(r.err.find(named), std::string::npos) << r.err;
        EXPECT_EQ(run("ls -A | tr '\\n' ' '").out, "aad.bin hard k.aes link my.key pass.txt r.txt r.txt.aes sub ");
        EXPECT_EQ(slurp(file("r.txt.aes")), slurp(file("my.key")));
    }
    ASSERT_EQ(run("rm r.txt.aes k.aes aad.bin").status, 0);
    // Without it among the inputs, the glob's files go as asked.
    const Outcome r = run(gcm + "--key-file my.key r.txt && $AESGPU decrypt -q --mode gcm --key-file my.key r.txt.aes "
                                "-o back && cat back");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "r\n");
}

TEST_F(Cli, KeygenMakesRandomKeysThatWork) {
    Outcome hex = run("$AESGPU keygen");
    EXPECT_EQ(hex.status, 0) << hex.err;
    EXPECT_EQ(hex.out.size(), 65u) << hex.out;
    EXPECT_EQ(hex.out.find_first_not_of("0123456789abcdef"), 64u) << hex.out;
    EXPECT_NE(run("$AESGPU keygen").out, hex.out) << "a fresh key each time";
    EXPECT_EQ(run("$AESGPU keygen --bits 128").out.size(), 33u);
    EXPECT_EQ(run("$AESGPU keygen --bits 100").status, 2);

    // 0600 whatever the umask: 022 would leave no more, 0777 (and 0177) less.
    for (const char *umask : {"0777", "0177"}) {
        ASSERT_EQ(run(std::string("umask ") + umask + " && $AESGPU keygen -o masked.key").status, 0) << umask;
        struct stat masked {};
        ASSERT_EQ(::stat(file("masked.key").c_str(), &masked), 0);
        EXPECT_EQ(masked.st_mode & 07777, 0600u) << "umask " << umask;
        std::filesystem::remove(file("masked.key"));
    }
    ASSERT_EQ(run("umask 022 && $AESGPU keygen -o my.key --bits 192").status, 0);
    struct stat status {};
    ASSERT_EQ(::stat(file("my.key").c_str(), &status), 0);
    EXPECT_EQ(status.st_mode & 07777, 0600u) << "private whatever the umask";
    EXPECT_EQ(status.st_size, 24);
    const std::string key = slurp(file("my.key"));
    Outcome again = run("$AESGPU keygen -o my.key");
    EXPECT_EQ(again.status, 1);
    EXPECT_NE(again.err.find("'my.key' exists: keygen never replaces a key"), std::string::npos) << again.err;
    EXPECT_EQ(slurp(file("my.key")), key) << "the existing key is untouched";
    // The file is a key file; openssl takes it as hex.
    write_file(file("p"), random_bytes(5000));
    Outcome interop = run("$AESGPU encrypt -q p --key-file my.key && openssl enc -d -aes-192-ecb -K $(od -An -tx1 "
                          "my.key | tr -d ' \\n') -in p.aes -out q && cmp p q");
    EXPECT_EQ(interop.status, 0) << interop.err;
    EXPECT_EQ(run("$AESGPU keygen -o missing-dir/k").status, 1);
}

TEST_F(Cli, HexKeyFilesMayBeSplitOverLines) {
    write_file(file("p"), random_bytes(4000));
    const Bytes key = random_bytes(32);
    write_file(file("raw.key"), key);
    // As `xxd -p` writes 32 bytes: 60 digits, a newline, the last 4 and a newline.
    const std::string hex = to_hex(key);
    const std::string lines = hex.substr(0, 60) + "\n" + hex.substr(60) + "\n";
    write_file(file("hex.key"), Bytes(lines.begin(), lines.end()));
    Outcome r = run("$AESGPU encrypt -q p -o a --key-file raw.key && $AESGPU encrypt -q p -o b --key-file hex.key && "
                    "cmp a b");
    EXPECT_EQ(r.status, 0) << r.err;
}

TEST_F(Cli, AHexKeyWithAnOxPrefixGetsAHint) {
    write_file(file("p"), random_bytes(100));
    Outcome r = run("$AESGPU encrypt p -K 0x" + kKey128);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "aesgpu: the key is plain hex digits, without a 0x prefix: drop the 0x\n");
}

TEST_F(Cli, OpensslFilesItCannotReadGetHints) {
    write_file(file("p"), random_bytes(3000));
    // openssl enc -a: base64, whatever the key mode.
    ASSERT_EQ(run("openssl enc -aes-256-ecb -pbkdf2 -pass pass:pw -a -in p -out b64.aes").status, 0);
    for (const std::string &key : {std::string(" -p pass:pw"), kKey}) {
        Outcome r = run("$AESGPU decrypt --mode ecb b64.aes -o out" + key);
        EXPECT_EQ(r.status, 2) << key;
        EXPECT_EQ(r.err, "aesgpu: 'b64.aes' looks base64-encoded (openssl enc -a): decode it first, e.g. base64 -d "
                         "FILE | aesgpu decrypt ...\n");
    }
    Outcome piped = run("$AESGPU decrypt -c -p pass:pw < b64.aes");
    EXPECT_EQ(piped.status, 2);
    EXPECT_NE(piped.err.find("looks base64-encoded"), std::string::npos) << piped.err;
    // Other digests and the legacy KDF: the message names them instead of a bare "bad decrypt".
    for (const std::string options : {"-pbkdf2 -md sha1", "-md sha256"}) {
        ASSERT_EQ(run("openssl enc -aes-256-ecb " + options + " -pass pass:pw -in p -out other.aes 2>/dev/null").status,
                  0);
        Outcome r = run("$AESGPU decrypt other.aes -o out -p pass:pw");
        if (r.status == 0) { // the wrong key passed the padding check (1 in 256): garbage out, as openssl
            ASSERT_EQ(run("rm out").status, 0);
            continue;
        }
        EXPECT_EQ(r.status, 1) << options;
        EXPECT_NE(r.err.find("openssl enc without -pbkdf2 (--no-pbkdf2; with --md md5 for OpenSSL before 1.1.0), "
                             "another -md (--md)"),
                  std::string::npos)
            << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(file("out")));
}

TEST_F(Cli, KeyProblemsAreUsageErrors) {
    write_file(file("p"), random_bytes(100));
    write_file(file("short.key"), random_bytes(10));
    ASSERT_EQ(run("mkdir keys && openssl enc -aes-128-ecb -pbkdf2 -pass pass:x -in p -out s.aes").status, 0);
    const std::pair<std::string, std::string> cases[] = {
        {"encrypt p --key-file short.key", "must hold exactly 16, 24 or 32 raw bytes"},
        {"encrypt p --key-file keys", "is a directory"},
        {"decrypt s.aes -o out" + kKey, "starts with 'Salted__'"},
    };
    for (const auto &[command, message] : cases) {
        Outcome r = run("$AESGPU " + command);
        EXPECT_EQ(r.status, 2) << command;
        EXPECT_NE(r.err.find(message), std::string::npos) << command << ": " << r.err;
    }
}

TEST_F(Cli, HelpListsTheExitStatuses) {
    for (const std::string command : {"", "encrypt ", "decrypt "}) {
        const std::string help = run("$AESGPU " + command + "--help").out;
        for (const char *status :
             {"1 run-time failure", "2 usage error", "129 SIGHUP", "130 Ctrl-C", "141 SIGPIPE", "143 SIGTERM"}) {
            EXPECT_NE(help.find(status), std::string::npos) << command << status;
        }
    }
}

// The summaries' lines, parsed.
std::vector<nlohmann::json> json_lines(const std::string &text) {
    std::vector<nlohmann::json> rows;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) rows.push_back(nlohmann::json::parse(line));
    return rows;
}

// The lanes named in "backend" ("cpu", "gpu", "cpu+gpu", "cpu+gpu0+gpu1").
bool names_lanes(const std::string &backend) {
    return std::regex_match(backend, std::regex(R"((cpu|gpu[0-9]*)(\+(cpu|gpu[0-9]*))*)"));
}

TEST_F(Cli, JsonSummariesOnePerInput) {
    write_file(file("a"), random_bytes(1000));
    write_file(file("b"), random_bytes(70000));
    // One object a line; the failed input has ok=false and an error; data never goes to stdout.
    Outcome r = run("$AESGPU encrypt -q --json a missing b" + kKey);
    EXPECT_EQ(r.status, 1) << r.err;
    const std::vector<nlohmann::json> rows = json_lines(r.out);
    ASSERT_EQ(rows.size(), 3u) << r.out;
    EXPECT_EQ(rows[0]["input"], "a");
    EXPECT_EQ(rows[1]["input"], "missing");
    EXPECT_EQ(rows[2]["input"], "b");
    EXPECT_EQ(rows[0]["ok"], true);
    EXPECT_EQ(rows[1]["ok"], false);
    EXPECT_NE(rows[1]["error"].get<std::string>().find("missing"), std::string::npos) << rows[1];
    EXPECT_EQ(rows[2]["ok"], true);
    EXPECT_EQ(rows[2]["output"], "b.aes");
    EXPECT_EQ(rows[2]["operation"], "encrypt");
    EXPECT_EQ(rows[2]["bytes_in"], 70000);
    EXPECT_EQ(rows[2]["bytes_out"], 70016);
    EXPECT_GE(rows[2]["seconds"].get<double>(), 0);
    EXPECT_TRUE(names_lanes(rows[0]["backend"])) << rows[0];
    // The split is what each lane ciphered, padding included, with one backend as with several.
    for (const char *backend : {"", " --backend cpu"}) {
        Outcome one = run("$AESGPU encrypt -f -q --json b" + kKey + backend);
        ASSERT_EQ(one.status, 0) << one.err;
        const nlohmann::json summary = nlohmann::json::parse(one.out);
        std::uint64_t split = 0;
        for (const auto &[lane, bytes] : summary["split"].items()) {
            EXPECT_TRUE(names_lanes(lane)) << lane;
            split += bytes.get<std::uint64_t>();
        }
        EXPECT_EQ(split, 70016u) << backend << ": " << summary;
    }
    Outcome tested = run("$AESGPU decrypt --mode ecb -t --json b.aes" + kKey);
    EXPECT_EQ(tested.status, 0) << tested.err;
    EXPECT_NE(tested.out.find(R"("operation":"test","mode":"ecb","ok":true,"output":null)"), std::string::npos)
        << tested.out;
}

TEST_F(Cli, JsonCountsTheBytesOfTheFilesAsTheyAreOnDisk) {
    // Headers included (Salted__, GCM's), so that a script can hold bytes_in and bytes_out against
    // `stat`; -t says what it checked and that it wrote nothing.
    write_file(file("p"), random_bytes(1000));
    for (const std::string &how :
         std::vector<std::string>{" --mode ecb -p pass:secret", " --mode ctr -p pass:secret", " --mode gcm" + kKey,
                                  " --mode gcm -p pass:secret", " --mode ecb" + kKey}) {
        Outcome encrypted = run("$AESGPU encrypt -f -q --json -o c p" + how);
        ASSERT_EQ(encrypted.status, 0) << how << ": " << encrypted.err;
        const nlohmann::json in = nlohmann::json::parse(encrypted.out);
        EXPECT_EQ(in["bytes_in"], 1000) << how;
        EXPECT_EQ(in["bytes_out"], std::filesystem::file_size(file("c"))) << how;
        Outcome decrypted = run("$AESGPU decrypt -f -q --json -o back c" + how);
        ASSERT_EQ(decrypted.status, 0) << how << ": " << decrypted.err;
        const nlohmann::json out = nlohmann::json::parse(decrypted.out);
        EXPECT_EQ(out["bytes_in"], std::filesystem::file_size(file("c"))) << how;
        EXPECT_EQ(out["bytes_out"], 1000) << how;
        if (how.find("ctr") != std::string::npos) continue; // -t has nothing to check in CTR
        Outcome tested = run("$AESGPU decrypt -t -vv c" + how);
        ASSERT_EQ(tested.status, 0) << how << ": " << tested.err;
        EXPECT_NE(tested.err.find(fmt::format("tested {} bytes in ", std::filesystem::file_size(file("c")))),
                  std::string::npos)
            << tested.err;
        EXPECT_NE(tested.err.find("1000 bytes of plaintext, not written"), std::string::npos) << tested.err;
        EXPECT_EQ(tested.err.find("wrote"), std::string::npos) << tested.err;
        EXPECT_EQ(tested.err.find("committed"), std::string::npos) << tested.err;
    }
}

TEST_F(Cli, InfoJsonIsOneObject) {
    Outcome r = run("$AESGPU info --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json info = nlohmann::json::parse(r.out);
    EXPECT_FALSE(info["version"].get<std::string>().empty());
    EXPECT_EQ(info["openssl"].get<std::string>().rfind("OpenSSL", 0), 0u) << info;
    EXPECT_GT(info["cpu_threads"].get<int>(), 0);
    EXPECT_TRUE(info["cpu_aes"]["aes_ni"].is_boolean()) << info;
    EXPECT_TRUE(info["cuda"]["compiled_in"].is_boolean()) << info;
    ASSERT_TRUE(info["gpus"].is_array()) << info;
    // What auto runs on, named as a run's --json names its lanes: every GPU and the CPU, or the
    // CPU alone where no GPU is usable (and then the reason why).
    const std::string lanes = info["backend_auto"];
    EXPECT_TRUE(names_lanes(lanes)) << lanes;
    std::string expected = "cpu";
    if (info["gpu_unavailable_reason"].is_null()) {
        for (const nlohmann::json &gpu : info["gpus"]) {
            expected += info["gpus"].size() == 1 ? "+gpu" : "+gpu" + std::to_string(gpu["index"].get<int>());
        }
    }
    EXPECT_EQ(lanes, expected) << info;
}

TEST_F(Cli, VerbosityLevelsSayWhatTheHelpSays) {
    write_file(file("p"), random_bytes(100000));
    Outcome quiet = run("$AESGPU encrypt -q p -o a -p pass:x --iter 1000");
    EXPECT_EQ(quiet.err, "");
    Outcome one = run("$AESGPU encrypt -v p -o b -p pass:x --iter 1000");
    EXPECT_NE(one.err.find("aesgpu: encrypting 'p' -> 'b' (AES-256-ECB) with"), std::string::npos) << one.err;
    EXPECT_EQ(one.err.find("debug: "), std::string::npos) << one.err;
    Outcome two = run("$AESGPU encrypt -vv p -o c -p pass:x --iter 1000");
    for (const char *expected : {"aesgpu: encrypting", "debug: PBKDF2-HMAC-SHA256, 1000 iterations: ",
                                 "debug: backend set up in", "debug: pipeline: ", "debug: output committed in"}) {
        EXPECT_NE(two.err.find(expected), std::string::npos) << expected << " missing in:\n" << two.err;
    }
}

TEST_F(Cli, WithoutADriverTheGpuSaysSoAndAutoGoesStraightToTheCpu) {
    const std::string info = run("$AESGPU info").out;
    if (info.find("CUDA driver:    none") == std::string::npos) {
        GTEST_SKIP() << "needs a CUDA build on a machine without an NVIDIA driver";
    }
    write_file(file("p"), random_bytes((5u << 20) + 1)); // more than a chunk: auto looks for a GPU
    EXPECT_NE(info.find("GPU:            unavailable (no NVIDIA driver found)"), std::string::npos) << info;
    Outcome gpu = run("$AESGPU encrypt p --backend gpu" + kKey);
    EXPECT_EQ(gpu.status, 1);
    EXPECT_EQ(gpu.err, "aesgpu: no usable CUDA device: no NVIDIA driver found\n");
    Outcome automatic = run("$AESGPU encrypt -v p" + kKey);
    EXPECT_EQ(automatic.status, 0) << automatic.err;
    EXPECT_NE(automatic.err.find("backend auto: using the CPU (no NVIDIA driver found)"), std::string::npos)
        << automatic.err;
    EXPECT_EQ(automatic.err.find("until the GPU is ready"), std::string::npos) << "no GPU start to wait for";
}

TEST_F(Cli, TheCpuBackendNeverLooksForTheGpuDriver) {
    // Loading libcuda (even to find it missing) cost every --backend cpu run about 0.25 s on the
    // H200 host. The dynamic loader's log shows any attempt, driver or not.
    write_file(file("p"), random_bytes(1000));
    Outcome r = run("LD_DEBUG=libs $AESGPU encrypt -q --backend cpu p" + kKey + " 2>&1 | grep -c libcuda");
    EXPECT_EQ(r.out, "0\n") << "--backend cpu tried to load libcuda";
    // Nor does auto for a file of one chunk: the CPU is done before a GPU could start (0.34 s on an
    // H100 host for a 4 KiB file).
    r = run("LD_DEBUG=libs $AESGPU encrypt -q -f p" + kKey + " 2>&1 | grep -c libcuda");
    EXPECT_EQ(r.out, "0\n") << "auto tried to load libcuda for a small file";
    if (run("$AESGPU info").out.find("CUDA support:   compiled in") == std::string::npos) return;
    write_file(file("big"), random_bytes((5u << 20) + 1)); // more than a chunk
    Outcome automatic =
        run("LD_DEBUG=libs $AESGPU encrypt -q -f big" + kKey + " 2>&1 | grep -c 'find library=libcuda'");
    EXPECT_NE(automatic.out, "0\n") << "the check itself sees auto look for it";
}

TEST_F(Cli, TheEcbWarningComesOnceAndOnlyAfterTheChecks) {
    write_file(file("a"), random_bytes(100));
    write_file(file("b"), random_bytes(100));
    Outcome missing = run("$AESGPU encrypt missing" + kKey);
    EXPECT_EQ(missing.status, 1);
    EXPECT_EQ(missing.err.find("ECB"), std::string::npos) << "a failed run gets its error alone: " << missing.err;
    Outcome bad_key = run("$AESGPU encrypt a -K 0011");
    EXPECT_EQ(bad_key.err.find("ECB"), std::string::npos) << bad_key.err;
    Outcome two = run("$AESGPU encrypt a b" + kKey);
    EXPECT_EQ(two.status, 0) << two.err;
    std::size_t warnings = 0;
    for (std::size_t at = two.err.find("warning: ECB"); at != std::string::npos;
         at = two.err.find("warning: ECB", at + 1))
        ++warnings;
    EXPECT_EQ(warnings, 1u) << two.err;
    EXPECT_EQ(run("$AESGPU decrypt --mode ecb a.aes -o x" + kKey).err, "") << "decrypting does not warn";
}

TEST_F(Cli, NoColorTurnsTheWarningsColourOff) {
    if (!have_command("script")) GTEST_SKIP() << "util-linux `script` is not installed";
    write_file(file("p"), random_bytes(100));
    // script gives aesgpu a terminal, where spdlog colours the warning.
    Outcome coloured = run("script -qec '$AESGPU encrypt p -o a" + kKey + "' /dev/null");
    EXPECT_NE(coloured.out.find("\033["), std::string::npos) << coloured.out;
    Outcome plain = run("NO_COLOR=1 script -qec '$AESGPU encrypt p -o b" + kKey + "' /dev/null");
    EXPECT_NE(plain.out.find("warning: ECB"), std::string::npos) << plain.out;
    EXPECT_EQ(plain.out.find("\033["), std::string::npos) << plain.out;
}

TEST_F(Cli, TheProgressLineStaysOutOfPipelines) {
    if (!have_command("script")) GTEST_SKIP() << "util-linux `script` is not installed";
    // stderr is a terminal, standard input and output pipes: pv's place, not ours.
    Outcome r =
        run("script -qec '{ head -c 2000000 /dev/urandom; sleep 1; head -c 2000000 /dev/urandom; } | $AESGPU encrypt" +
            kKey + " | cat > /dev/null' /dev/null");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(r.out.find("B/s"), std::string::npos) << r.out;
    Outcome forced = run("script -qec '{ head -c 2000000 /dev/urandom; sleep 1; head -c 2000000 /dev/urandom; } | "
                         "$AESGPU encrypt --progress" +
                         kKey + " | cat > /dev/null' /dev/null");
    EXPECT_NE(forced.out.find("B/s"), std::string::npos) << "--progress still shows it: " << forced.out;
    // `pv -f big | aesgpu ... -o out`: the producer's meter has the terminal, even with a file output.
    Outcome to_file = run("script -qec '{ head -c 2000000 /dev/urandom; sleep 1; head -c 2000000 /dev/urandom; } | "
                          "$AESGPU encrypt -o out" +
                          kKey + "' /dev/null");
    EXPECT_EQ(to_file.status, 0) << to_file.out;
    EXPECT_EQ(to_file.out.find("B/s"), std::string::npos) << to_file.out;
}

TEST_F(Cli, TheProgressLineFitsTheTerminal) {
    if (!have_command("script") || !have_command("stty")) GTEST_SKIP() << "needs util-linux `script` and stty";
    ASSERT_EQ(run("mkfifo slow").status, 0);
    for (const int columns : {20, 120}) {
        SCOPED_TRACE(columns);
        // The FIFO, fed slowly, keeps the job running past the 0.3 s before the line shows.
        Outcome r =
            run("script -qec 'stty cols " + std::to_string(columns) + "; $AESGPU encrypt --backend cpu -f slow -o out" +
                kKey + "' /dev/null & exec 3>slow; head -c 2000000 /dev/urandom >&3; sleep 1; exec 3>&-; wait $!");
        EXPECT_EQ(r.status, 0) << r.out;
        std::size_t lines = 0;
        for (std::size_t at = r.out.find('\r'); at != std::string::npos; at = r.out.find('\r', at + 1)) {
            const std::size_t end = r.out.find("\033[K", at);
            ASSERT_NE(end, std::string::npos) << r.out;
            EXPECT_LT(end - at - 1, std::size_t(columns)) << r.out.substr(at + 1, end - at - 1);
            ++lines;
        }
        EXPECT_GE(lines, 2u) << "drawn and erased: " << r.out;
    }
}

TEST_F(Cli, RemoveKeepsTheInputUnlessItsOutputStandsInForItExactly) {
    const Bytes data = random_bytes(100000);
    const auto reset = [&] { write_file(file("p"), data); };
    reset();
    // Not a file: /dev/null or a FIFO cannot replace the input.
    for (const std::string output : {"/dev/null", "/dev/stdout"}) {
        Outcome r = run("$AESGPU encrypt -q --rm p -o " + output + kKey + " > /dev/null");
        EXPECT_EQ(r.status, 2) << output;
        EXPECT_NE(r.err.find("--rm removes the input only once its output is a complete file"), std::string::npos)
            << r.err;
        EXPECT_TRUE(std::filesystem::exists(file("p"))) << output;
    }
    // A symbolic link (its target would stay) and a file with another hard link (its data would):
    // the run fails before any work, so that a script notices and nothing is left half done.
    ASSERT_EQ(run("ln -s p link && ln p hard").status, 0);
    Outcome link = run("$AESGPU encrypt -q --rm link" + kKey);
    EXPECT_EQ(link.status, 1);
    EXPECT_EQ(link.err,
              "aesgpu: not removing 'link': it is a symbolic link, and its target would stay; nothing was written\n");
    EXPECT_FALSE(std::filesystem::exists(file("link.aes")));
    Outcome hard = run("$AESGPU encrypt -q --rm hard" + kKey);
    EXPECT_EQ(hard.status, 1);
    EXPECT_EQ(hard.err,
              "aesgpu: not removing 'hard': it has other hard links, which would keep its data; nothing was written\n");
    EXPECT_TRUE(std::filesystem::exists(file("hard")));
    EXPECT_FALSE(std::filesystem::exists(file("hard.aes")));
    ASSERT_EQ(run("rm link hard").status, 0);
    // Rewritten in place while it was read (same size): the output has the old bytes, so the
    // input must stay, and the output is not put in place. 16-byte chunks make the run last long enough; rewriting
    // every 20 ms until it ends makes sure a rewrite lands after aesgpu opened the file, however slowly it starts.
    write_file(file("slow"), random_bytes(2 << 20));
    Outcome changed = run("$AESGPU encrypt -q --rm --backend cpu -T1 --io-threads 1 --chunk-size 16 slow" + kKey +
                          " & pid=$!; while kill -0 $pid 2>/dev/null; do printf 'new data' | dd of=slow conv=notrunc "
                          "2>/dev/null; sleep 0.02; done; wait $pid");
    EXPECT_EQ(changed.status, 1);
    EXPECT_EQ(changed.err, "aesgpu: not removing 'slow': it changed while it was read; nothing was written\n");
    EXPECT_TRUE(std::filesystem::exists(file("slow")));
    EXPECT_FALSE(std::filesystem::exists(file("slow.aes"))) << "its bytes match no one version of the input";
}

// An input --rm could not remove once the work is done: the run fails first, and writes nothing.
// Before, the output was made, the removal failed, and both files were left with exit 1.
TEST_F(Cli, AnInputRmCannotRemoveFailsBeforeAnyWork) {
    if (::geteuid() != 0 || !have_command("setpriv")) GTEST_SKIP() << "needs root and setpriv";
    const std::string nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all ";
    ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
    // A directory the user may not change, and a sticky one (as /tmp) where neither it nor the
    // file is the user's; the output goes to a directory of the user's own.
    ASSERT_EQ(run("mkdir locked sticky out && head -c 5000 /dev/urandom > locked/f && cp locked/f sticky/f && "
                  "chown 65534 locked locked/f out && chmod 555 locked && chmod 1777 sticky && chmod a+r sticky/f")
                  .status,
              0);
    for (const auto &[input, why] : std::vector<std::pair<std::string, std::string>>{
             {"locked/f", "this user may not remove names from its directory 'locked'"},
             {"sticky/f", "its directory 'sticky' is sticky, and neither it nor the file is this user's"}}) {
        Outcome r = run(nobody + "$AESGPU encrypt -q --rm " + input + " -o out/x.aes" + kKey);
        EXPECT_EQ(r.status, 1) << input;
        EXPECT_EQ(r.err, "aesgpu: not removing '" + input + "': " + why + "; nothing was written\n");
        EXPECT_TRUE(std::filesystem::exists(file(input)));
        EXPECT_FALSE(std::filesystem::exists(file("out/x.aes"))) << input;
    }
    // Marked immutable (where the file system takes the mark): even root may not remove it.
    if (run("head -c 5000 /dev/urandom > frozen && chattr +i frozen").status == 0) {
        Outcome r = run("$AESGPU encrypt -q --rm frozen" + kKey + "; chattr -i frozen");
        EXPECT_EQ(r.err, "aesgpu: not removing 'frozen': it is marked immutable or append-only (chattr); nothing was "
                         "written\n");
        EXPECT_FALSE(std::filesystem::exists(file("frozen.aes")));
    }
    // What it may remove, it still does.
    Outcome ok = run("chmod 755 locked && " + nobody + "$AESGPU encrypt -q --rm locked/f -o out/y.aes" + kKey);
    EXPECT_EQ(ok.status, 0) << ok.err;
    EXPECT_FALSE(std::filesystem::exists(file("locked/f")));
    EXPECT_TRUE(std::filesystem::exists(file("out/y.aes")));
}

TEST_F(Cli, JsonNeverMixesWithTheDataAndItsFailuresCount) {
    write_file(file("p"), random_bytes(1000));
    Outcome same = run("$AESGPU encrypt -q --json p -o /dev/stdout" + kKey + " > j");
    EXPECT_EQ(same.status, 2);
    EXPECT_NE(same.err.find("--json prints to standard output, and the output goes there too"), std::string::npos)
        << same.err;
    Outcome full = run("$AESGPU encrypt -q --json p -o q" + kKey + " > /dev/full");
    EXPECT_EQ(full.status, 1);
    EXPECT_NE(full.err.find("error writing the --json summary"), std::string::npos) << full.err;
}

// Several files with --json --rm into a full standard output: the first file is done (output in
// place, input removed) though its summary is lost, and is not reported as failed; the others are
// left as they are, since a script could not learn what became of them.
TEST_F(Cli, JsonThatCannotBeWrittenStopsBeforeTheNextFile) {
    for (const char *name : {"a", "b", "c"}) write_file(file(name), random_bytes(1000));
    Outcome r = run("$AESGPU encrypt --json --rm a b c" + kKey + " > /dev/full");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("aesgpu: error writing the --json summary to standard output\n"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("aesgpu: encrypted 1 of 3 files, 2 not started\n"), std::string::npos) << r.err;
    EXPECT_TRUE(std::filesystem::exists(file("a.aes")));
    EXPECT_FALSE(std::filesystem::exists(file("a")));
    for (const char *untouched : {"b", "c"}) {
        EXPECT_TRUE(std::filesystem::exists(file(untouched))) << untouched;
        EXPECT_FALSE(std::filesystem::exists(file(std::string(untouched) + ".aes"))) << untouched;
    }
    // A file that fails, and then its summary too: counted as failed, its own error still said.
    Outcome failing = run("$AESGPU encrypt --json missing b" + kKey + " > /dev/full");
    EXPECT_EQ(failing.status, 1);
    EXPECT_NE(failing.err.find("cannot open 'missing'"), std::string::npos) << failing.err;
    EXPECT_NE(failing.err.find("encrypted 0 of 2 files, 1 failed, 1 not started\n"), std::string::npos) << failing.err;
    EXPECT_FALSE(std::filesystem::exists(file("b.aes")));
}

TEST_F(Cli, HexKeyFilesAreNeverMistakenForRawKeys) {
    write_file(file("p"), random_bytes(100));
    // 31 digits and a newline are 32 bytes: once read as a raw AES-256 key of ASCII.
    const std::string odd = kKey128.substr(1) + "\n";
    write_file(file("odd.key"), Bytes(odd.begin(), odd.end()));
    Outcome r = run("chmod 600 odd.key && $AESGPU encrypt p --key-file odd.key");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "aesgpu: key file 'odd.key' holds 31 hex digits; AES needs exactly 32 (AES-128), 48 (AES-192) or "
                     "64 (AES-256)\n");
    const std::string prefixed = "0x" + kKey128 + "\n";
    write_file(file("0x.key"), Bytes(prefixed.begin(), prefixed.end()));
    EXPECT_NE(run("$AESGPU encrypt p --key-file 0x.key").err.find("drop the 0x"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(file("p.aes")));
}

TEST_F(Cli, MoreFilesItCannotReadGetTheirReason) {
    write_file(file("p"), random_bytes(3000));
    // openssl enc -a with a raw key has no Salted__ prefix to tell, but is all base64 text.
    ASSERT_EQ(run("openssl enc -aes-128-ecb -a -K " + kKey128 + " -in p -out raw.b64").status, 0);
    Outcome raw = run("$AESGPU decrypt --mode ecb raw.b64 -o out" + kKey);
    EXPECT_EQ(raw.status, 2);
    EXPECT_NE(raw.err.find("looks base64-encoded"), std::string::npos) << raw.err;
    ASSERT_EQ(run("printf Salted__ > cut.aes").status, 0);
    Outcome cut = run("$AESGPU decrypt cut.aes -o out -p pass:x");
    EXPECT_EQ(cut.status, 1);
    EXPECT_EQ(cut.err, "aesgpu: 'cut.aes' is cut short: its 'Salted__' header has no complete salt\n");
    EXPECT_EQ(run("$AESGPU keygen -o ''").status, 2) << "an empty -o (an unset variable) prints no key";
}

TEST_F(Cli, NoProgressLineOverDataOnTheTerminal) {
    if (!have_command("script")) GTEST_SKIP() << "util-linux `script` is not installed";
    ASSERT_EQ(run("mkfifo slow").status, 0);
    // decrypt -c to the terminal: the redraws would cut the plaintext.
    Outcome r =
        run("script -qec '$AESGPU decrypt --mode ecb -c --no-pad --backend cpu slow" + kKey +
            "' /dev/null > shown & exec 3>slow; head -c 2000000 /dev/zero >&3; sleep 1; head -c 16 /dev/zero >&3; "
            "exec 3>&-; wait $!; grep -c B/s shown");
    EXPECT_EQ(r.out, "0\n");
}

} // namespace
} // namespace aesgpu::test
