// SPDX-License-Identifier: Apache-2.0
// Habits from other tools that aesgpu meets with one line that says what to do: ECB warned of only
// when not chosen, choice values in any case, a key file given to --key or after -k, top-level
// typos and -V, key-source problems as usage errors (exit 2), and keygen into a file others read.
#include "support/cli_fixture.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace aesgpu::test {
namespace {

const std::string kKey = " -K " + kKey128;

TEST_F(Cli, TheEcbWarningIsForThoseWhoDidNotChooseEcb) {
    write_file(file("p"), random_bytes(100));
    const Outcome by_default = run("$AESGPU encrypt p -o a" + kKey);
    EXPECT_EQ(by_default.status, 0);
    EXPECT_NE(by_default.err.find("warning: ECB"), std::string::npos) << by_default.err;
    for (const std::string mode : {"ecb", "ECB"}) {
        const Outcome chosen = run("$AESGPU encrypt --mode " + mode + " -f p -o a" + kKey);
        EXPECT_EQ(chosen.status, 0) << chosen.err;
        EXPECT_EQ(chosen.err, "") << "--mode " << mode << " says the user knows";
    }
}

TEST_F(Cli, ChoiceValuesTakeAnyCase) {
    write_file(file("p"), random_bytes(5000));
    const Outcome r = run("$AESGPU encrypt --mode Gcm --backend CPU --io Buffered p -o c" + kKey +
                          " && $AESGPU decrypt --mode GCM --backend Cpu --io BUFFERED c -o b" + kKey + " && cmp b p");
    EXPECT_EQ(r.status, 0) << r.err;
    const Outcome bench = run("$AESGPU bench --backend CPU --mode ECB --key-bits 128 --direction encrypt --size 64K "
                              "--reps 1 --json");
    EXPECT_EQ(bench.status, 0) << bench.err;
    EXPECT_NE(bench.out.find("\"mode\": \"ecb\""), std::string::npos) << bench.out;
}

// openssl enc's own words, typed to aesgpu: each is named with what aesgpu takes instead, and no
// value after them is echoed (it may be a passphrase).
TEST_F(Cli, OpensslsFlagsGetTheirAesgpuWords) {
    write_file(file("p"), random_bytes(100));
    const std::pair<std::string, std::vector<std::string>> cases[] = {
        {"encrypt -in p -out q" + kKey,
         {"-in is openssl's: aesgpu takes the input as a FILE argument",
          "-out is openssl's: aesgpu's output is -o OUT"}},
        {"decrypt -d -aes-256-cbc -in q" + kKey,
         {"-d is openssl's: `aesgpu decrypt` says it already; drop it",
          "-aes-256-cbc is openssl's: aesgpu's is --mode cbc"}},
        {"encrypt -e -aes-128-ctr p" + kKey,
         {"-e is openssl's: `aesgpu encrypt` says it already",
          "--mode ctr (a raw key's size gives AES-128; with a passphrase, "
          "--key-bits 128)"}},
        {"decrypt -e p" + kKey, {"-e is openssl's: encrypting is `aesgpu encrypt ...`"}},
        {"encrypt -a p" + kKey, {"-a is openssl's base64"}},
        {"decrypt -in q -aes-256-gcm" + kKey,
         {"-in is openssl's: aesgpu takes the input as a FILE argument (FILE -o OUT)",
          "openssl enc takes no GCM; aesgpu's authenticated mode is --mode gcm"}},
        {"encrypt -kfile pw p -o q", {"-kfile is openssl's: aesgpu's is -p file:PATH"}},
        {"encrypt --no-pbkdf2 -p pass:hunter2 p",
         {"--no-pbkdf2 reads openssl's old key derivation, for decrypt; "
          "aesgpu never writes it"}},
    };
    for (const auto &[arguments, hints] : cases) {
        const Outcome r = run("$AESGPU " + arguments);
        EXPECT_EQ(r.status, 2) << arguments;
        for (const std::string &hint : hints) EXPECT_NE(r.err.find(hint), std::string::npos) << hint << "\n" << r.err;
        EXPECT_EQ(r.err.find("hunter2"), std::string::npos) << r.err;
    }
}

TEST_F(Cli, AKeyFileGivenWhereTheKeyGoesIsNamed) {
    write_file(file("p"), random_bytes(100));
    write_file(file("my.key"), random_bytes(32));
    const Outcome file_as_key = run("$AESGPU encrypt --key my.key p");
    EXPECT_EQ(file_as_key.status, 2);
    EXPECT_EQ(file_as_key.err,
              "aesgpu: --key takes the key as hex digits, and 'my.key' is a file: did you mean --key-file?\n");
    const Outcome not_a_file = run("$AESGPU encrypt --key nothex p");
    EXPECT_EQ(not_a_file.status, 2);
    EXPECT_EQ(not_a_file.err.find("--key-file"), std::string::npos) << not_a_file.err;
    // ccrypt's `-k keyfile`: -k is --keep here, and no key was given at all.
    const Outcome keep = run("$AESGPU encrypt -k my.key p");
    EXPECT_EQ(keep.status, 2);
    EXPECT_NE(keep.err.find("-k keeps inputs (as gzip); a key file is --key-file"), std::string::npos) << keep.err;
    EXPECT_EQ(run("$AESGPU encrypt -q -k p" + kKey).status, 0) << "-k with a key is --keep, as always";
    if (have_command("script")) {
        // With a terminal, the hint comes before the prompt (which then reads nothing and fails).
        // Ctrl-D answers the prompt (as Cli.EmptyPassphraseAtThePromptIsRefused does), and timeout
        // bounds a prompt that never sees it.
        const Outcome prompted =
            run("(sleep 0.5; printf '\\004') | timeout 20 script -qec '$AESGPU encrypt -k my.key p' /dev/null");
        EXPECT_NE(prompted.out.find("-k keeps inputs"), std::string::npos) << prompted.out;
    }
}

TEST_F(Cli, TopLevelTyposGetTheClosestOptionAndDashVIsTheVersion) {
    const Outcome version = run("$AESGPU -V");
    EXPECT_EQ(version.status, 0);
    EXPECT_EQ(version.out.rfind("aesgpu 0.", 0), 0u) << version.out;
    EXPECT_EQ(version.out, run("$AESGPU --version").out);
    const Outcome typo = run("$AESGPU --versoin");
    EXPECT_EQ(typo.status, 2);
    EXPECT_EQ(typo.err, "aesgpu: unknown option '--versoin' (did you mean --version?)\n");
    EXPECT_NE(run("$AESGPU --hepl").err.find("did you mean --help?"), std::string::npos);
    // A command's option before the command is still told where it goes.
    EXPECT_NE(run("$AESGPU --rm").err.find("options go after the command"), std::string::npos);
}

TEST_F(Cli, EveryProblemWithTheKeySourceExitsTwo) {
    write_file(file("p"), random_bytes(100));
    ASSERT_EQ(run("$AESGPU encrypt -q p -o raw.aes" + kKey +
                  " && $AESGPU encrypt -q -p pass:x p -o salted.aes && "
                  "$AESGPU encrypt -q --mode gcm p -o gcm.aes" +
                  kKey)
                  .status,
              0);
    const struct {
        std::string arguments;
        std::string message;
    } cases[] = {
        {"decrypt raw.aes -o q --key-file nokey", "cannot open key file 'nokey': No such file or directory"},
        {"decrypt raw.aes -o q -p file:nopass", "cannot open passphrase file 'nopass'"},
        {"decrypt raw.aes -o q -K 0011", "the key has 4 hex digits"},
        {"decrypt raw.aes -o q -p pass:x",
         "'raw.aes' has no 'Salted__' header: it was not encrypted with a passphrase"},
        {"decrypt salted.aes -o q" + kKey, "'salted.aes' starts with 'Salted__'"},
        {"decrypt --mode gcm gcm.aes -o q -p pass:x", "it has no aesgpu passphrase header"},
    };
    for (const auto &[arguments, message] : cases) {
        SCOPED_TRACE(arguments);
        const Outcome r = run("$AESGPU " + arguments);
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(file("q")));
    }
    // A missing input is the run's failure, in other words.
    const Outcome missing_input = run("$AESGPU decrypt missing.aes -o q" + kKey);
    EXPECT_EQ(missing_input.status, 1);
    EXPECT_NE(missing_input.err.find("cannot open 'missing.aes'"), std::string::npos) << missing_input.err;
}

TEST_F(Cli, AnOutputThatIsAnotherInputOfTheRunIsRefusedBeforeAnyWork) {
    write_file(file("k"), random_bytes(16));
    // b.aes.aes decrypts to b.aes, the run's other input: with -f it would be replaced unread.
    ASSERT_EQ(run("mkdir c && echo ORIG > c/b && $AESGPU encrypt -q --mode gcm --key-file k c/b -o c/b.aes && "
                  "echo OTHER > c/other && $AESGPU encrypt -q --mode gcm --key-file k c/other -o c/b.aes.aes")
                  .status,
              0);
    const Outcome r = run("$AESGPU decrypt -f --key-file k c/b.aes.aes c/b.aes");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("another input of this run"), std::string::npos) << r.err;
    EXPECT_EQ(run("$AESGPU decrypt --key-file k -c c/b.aes").out, "ORIG\n") << "b's only ciphertext is intact";
}

TEST_F(Cli, KeygenIntoAFileOthersCanReadWarns) {
    const Outcome readable = run("umask 022 && $AESGPU keygen > k.hex");
    EXPECT_EQ(readable.status, 0);
    EXPECT_NE(readable.err.find("k.hex' can be read by others (mode 0644)"), std::string::npos) << readable.err;
    EXPECT_NE(readable.err.find("keygen -o FILE"), std::string::npos) << readable.err;
    EXPECT_EQ(slurp(file("k.hex")).size(), 65u) << "the key is written all the same";
    EXPECT_EQ(run("umask 077 && $AESGPU keygen > k2.hex").err, "");
    EXPECT_EQ(run("$AESGPU keygen | cat > /dev/null").err, "") << "a pipe is not a file";
}

} // namespace
} // namespace aesgpu::test
