// SPDX-License-Identifier: Apache-2.0
// The binary at the edges a hostile or careless caller reaches: closed standard streams, modes
// and owners of outputs, empty and odd secrets, secrets in messages and memory, checks before the
// prompt, hangs, signals, moved directories, links, pipes for output, memory and resource limits.
#include "support/cli_fixture.hpp"

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace aesgpu::test {
namespace {

Bytes ecb(const Bytes &plain, const std::string &key = kKey128) {
    Bytes cipher;
    EXPECT_TRUE(openssl_ecb(from_hex(key), Direction::encrypt, true, plain, cipher));
    return cipher;
}

struct stat status_of(const std::string &path) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st;
}

void make_private(const std::string &path) {
    ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
}

// --- 1. closed standard streams ---------------------------------------------------------------

TEST_F(Cli, ClosedStandardStreamsNeverReceiveLogTextOrTakeTheData) {
    const Bytes plain = random_bytes(3 << 20);
    write_file(file("m3"), plain);
    const Bytes expected = ecb(plain);
    // With stderr closed, the temporary output would get descriptor 2 and with it the log lines.
    for (const std::string how : {"-v -o a < m3 2>&-", "-v --progress -o b < m3 2>&-", "-v -o c m3 <&- 2>&-"}) {
        Outcome r = run("$AESGPU encrypt -K " + kKey128 + " " + how);
        EXPECT_EQ(r.status, 0) << how;
        const std::string out = how.substr(how.find("-o ") + 3, 1);
        EXPECT_TRUE(read_file(file(out)) == expected) << how << ": the output holds more than the ciphertext";
    }
    Outcome no_input = run("$AESGPU encrypt -q -K " + kKey128 + " -o d <&-");
    EXPECT_EQ(no_input.status, 1);
    EXPECT_EQ(no_input.err, "aesgpu: cannot read standard input: it is closed (or open for writing only)\n");
    EXPECT_FALSE(std::filesystem::exists(file("d")));
    Outcome no_output = run("$AESGPU encrypt -q -K " + kKey128 + " m3 -c >&-");
    EXPECT_EQ(no_output.status, 1);
    EXPECT_EQ(no_output.err, "aesgpu: cannot write to standard output: it is closed (or open for reading only)\n");
    // Nor by name: a closed stream must not reopen as something that swallows or invents data.
    for (const std::string how : {"m3 -o /dev/stdout >&-", "/dev/stdin -o e <&-", "-o /dev/stderr < m3 2>&-"}) {
        Outcome r = run("$AESGPU encrypt -q -K " + kKey128 + " " + how);
        EXPECT_EQ(r.status, 1) << how << ": " << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(file("e")));
}

// --- 2 and 3. owners, modes and times of outputs ----------------------------------------------

TEST_F(Cli, ForceNeverCarriesSetuidAndKeepsTheReplacedFilesOwner) {
    write_file(file("p"), random_bytes(1000));
    ASSERT_EQ(::chmod(file("p").c_str(), 0755), 0);
    const bool root = ::geteuid() == 0;
    for (const mode_t special : {04755, 02755, 01755}) {
        write_file(file("t"), {1, 2, 3});
        ASSERT_EQ(::chmod(file("t").c_str(), special), 0);
        if (root) {
            ASSERT_EQ(::chown(file("t").c_str(), 65534, 65534), 0);
        }
        Outcome r = run("$AESGPU encrypt -q -f -K " + kKey128 + " p -o t");
        ASSERT_EQ(r.status, 0) << r.err;
        const struct stat st = status_of(file("t"));
        EXPECT_EQ(st.st_mode & 07777, 0755u) << std::oct << special << ": special bits carried";
        if (root) {
            EXPECT_EQ(st.st_uid, 65534u) << "the replaced file's owner was dropped";
            EXPECT_EQ(st.st_gid, 65534u);
        }
    }
}

TEST_F(Cli, ForceByAnotherUserDropsGroupBitsMeantForAGroupItCannotKeep) {
    if (::geteuid() != 0 || !have_command("setpriv")) GTEST_SKIP() << "needs root and setpriv";
    write_file(file("p"), random_bytes(100));
    write_file(file("t"), {1});
    ASSERT_EQ(::chmod(file("p").c_str(), 0666), 0);
    ASSERT_EQ(::chmod(file("t").c_str(), 0664), 0); // root:root, group-writable
    ASSERT_EQ(::chmod(dir.path().c_str(), 0777), 0);
    Outcome r =
        run("setpriv --reuid=65534 --regid=65534 --clear-groups $AESGPU encrypt -q -f -K " + kKey128 + " p -o t");
    ASSERT_EQ(r.status, 0) << r.err;
    const struct stat st = status_of(file("t"));
    EXPECT_EQ(st.st_uid, 65534u);
    EXPECT_NE(st.st_gid, 0u);
    EXPECT_EQ(st.st_mode & 0777, 0604u) << "group-writable for a group the old file did not have";
}

// A new output keeps its input's group where the process may set it (a member, or root), so the
// group bits reach the group they were meant for; otherwise it gets no group bits at all.
TEST_F(Cli, NewOutputsKeepTheInputsGroupOrDropTheGroupBits) {
    if (::geteuid() != 0 || !have_command("setpriv")) GTEST_SKIP() << "needs root and setpriv";
    ASSERT_EQ(::chmod(dir.path().c_str(), 0777), 0);
    const std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --inh-caps=-all ";
    const std::string cycle = "$AESGPU encrypt -q -K " + kKey128 +
                              " s && mv s s.orig && $AESGPU decrypt --mode ecb -q -K " + kKey128 +
                              " s.aes && cmp s s.orig";
    // A member of group 100 by a supplementary group, nogroup (65534) as the primary one.
    write_file(file("s"), random_bytes(3000));
    ASSERT_EQ(::chown(file("s").c_str(), 0, 100), 0);
    ASSERT_EQ(::chmod(file("s").c_str(), 0640), 0);
    Outcome r = run(as_nobody + "--groups=100 bash -c " + quote(cycle));
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char *name : {"s.aes", "s"}) {
        const struct stat st = status_of(file(name));
        EXPECT_EQ(st.st_gid, 100u) << name << ": the input's group was not kept";
        EXPECT_EQ(st.st_mode & 0777, 0640u) << name;
    }
    // Not a member: the group cannot be kept, and its bits do not go to the process's own group.
    run("rm -f s s.aes s.orig");
    write_file(file("s"), random_bytes(3000));
    ASSERT_EQ(::chown(file("s").c_str(), 65534, 100), 0);
    ASSERT_EQ(::chmod(file("s").c_str(), 0640), 0);
    r = run(as_nobody + "--clear-groups bash -c " + quote(cycle));
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char *name : {"s.aes", "s"}) {
        const struct stat st = status_of(file(name));
        EXPECT_EQ(st.st_gid, 65534u) << name;
        EXPECT_EQ(st.st_mode & 0777, 0600u) << name << ": group bits handed to a group that could not read the input";
    }
}

// -f in an append-only directory (chattr +a) cannot rename over the old file, nor remove what it
// made for that: it is refused before anything is made.
TEST_F(Cli, ForceInAnAppendOnlyDirectoryIsRefusedAndLeavesNothing) {
    if (::geteuid() != 0 || !have_command("chattr")) GTEST_SKIP() << "chattr +a needs root and chattr";
    write_file(file("p"), random_bytes(1000));
    ASSERT_EQ(run("mkdir d && echo old > d/t").status, 0);
    if (run("chattr +a d").status != 0) GTEST_SKIP() << "this file system takes no chattr +a";
    Outcome r = run("$AESGPU encrypt -q -f -K " + kKey128 +
                    " p -o d/t; echo status=$?; ls -A d; cat d/t; "
                    "$AESGPU encrypt -q -K " +
                    kKey128 + " p -o d/new; echo new=$?; chattr -a d");
    EXPECT_EQ(r.out, "status=1\nt\nold\nnew=0\n") << r.err;
    EXPECT_EQ(r.err, "aesgpu: cannot replace 'd/t': its directory 'd' is append-only (chattr +a), where nothing can "
                     "be renamed or removed, so the output could not be put in place whole; write it elsewhere\n");
}

TEST_F(Cli, OutputsTakeTheInputsPermissionsAndTimes) {
    write_file(file("s"), random_bytes(5000));
    make_private(file("s"));
    const auto when = std::filesystem::file_time_type::clock::now() - std::chrono::hours(24 * 400);
    std::filesystem::last_write_time(file("s"), when);
    Outcome r = run("$AESGPU encrypt -q -K " + kKey128 + " s && mv s s.orig && $AESGPU decrypt --mode ecb -q -K " +
                    kKey128 + " s.aes && cmp s s.orig");
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char *name : {"s.aes", "s"}) {
        EXPECT_EQ(status_of(file(name)).st_mode & 0777, 0600u) << name << " is not private like its input";
        EXPECT_EQ(std::filesystem::last_write_time(file(name)), when) << name << " did not keep the input's time";
    }
    // Not from a regular file: the mode a new file gets there (umask), as `>` gives it.
    r = run("umask 022 && cat s.orig | $AESGPU encrypt -q -K " + kKey128 + " -o piped && umask 077 && cat s.orig | " +
            "$AESGPU encrypt -q -K " + kKey128 + " -o masked");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(status_of(file("piped")).st_mode & 0777, 0644u);
    EXPECT_EQ(status_of(file("masked")).st_mode & 0777, 0600u);
}

TEST_F(Cli, OutputsFromPipesFollowTheDirectorysDefaultAcl) {
    if (!have_command("setfacl")) GTEST_SKIP() << "setfacl (package acl) is not installed";
    write_file(file("p"), random_bytes(100));
    if (run("mkdir d && setfacl -d -m u::rw,g::-,o::- d").status != 0) {
        GTEST_SKIP() << "this file system takes no ACLs";
    }
    Outcome r = run("umask 022 && cat p | $AESGPU encrypt -q -K " + kKey128 + " -o d/ours && echo > d/shells");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(status_of(file("d/shells")).st_mode & 0777, 0600u);
    EXPECT_EQ(status_of(file("d/ours")).st_mode & 0777, 0600u) << "not the mode the shell's file got";
}

// --- 4, 5, 6. secrets: empty ones, passphrase sources as openssl reads them, none in messages --

TEST_F(Cli, EmptySecretsAreRefused) {
    write_file(file("p"), random_bytes(100));
    for (const std::string option : {"-K ''", "--key-file ''", "-p ''", "-K \"$UNSET\""}) {
        Outcome r = run("$AESGPU encrypt -q p " + option);
        EXPECT_EQ(r.status, 2) << option << ": " << r.err;
        EXPECT_NE(r.err.find("empty value"), std::string::npos) << option << ": " << r.err;
    }
    write_file(file("empty"), {});
    write_file(file("newline"), {'\n'});
    make_private(file("empty"));
    make_private(file("newline"));
    for (const std::string spec : {"pass:", "file:empty", "file:newline", "env:EMPTY", "stdin < newline"}) {
        Outcome r = run("EMPTY= $AESGPU encrypt -q p -o out -p " + spec);
        EXPECT_EQ(r.status, 2) << spec << ": " << r.err; // the key source as given: a usage error
        EXPECT_NE(r.err.find("empty"), std::string::npos) << spec << ": " << r.err;
        EXPECT_FALSE(std::filesystem::exists(file("out"))) << spec;
    }
}

TEST_F(Cli, EmptyPassphraseAtThePromptIsRefused) {
    if (!have_command("script")) GTEST_SKIP() << "util-linux `script` is not installed";
    write_file(file("p"), random_bytes(100));
    // Enter twice, and Ctrl-D.
    for (const std::string typed :
         {"(sleep 0.5; printf '\\n'; sleep 0.5; printf '\\n')", "(sleep 0.5; printf '\\004')"}) {
        Outcome r = run(typed + " | timeout 10 script -qec '$AESGPU encrypt -q p -o out' /dev/null");
        EXPECT_EQ(r.status, 2) << typed << r.out; // no key as given: a usage error
        EXPECT_NE(r.out.find("passphrase"), std::string::npos) << r.out;
        EXPECT_FALSE(std::filesystem::exists(file("out"))) << typed;
    }
}

TEST_F(Cli, PassphraseSourcesGiveWhatOpensslGets) {
    // openssl 3 reads file:, fd: and stdin with BIO_gets into 1024 bytes and keeps the result as a
    // C string cut at the first newline: a CR stays, a NUL ends it, long lines are cut at 1023.
    const std::vector<std::string> contents{"secret\r\n",
                                            "secret\r",
                                            std::string("sec\0ret\n", 8),
                                            std::string(1024, 'a') + "\n",
                                            std::string(2000, 'b') + "\n",
                                            "two\nlines\n",
                                            "no newline",
                                            std::string(1023, 'c') + "\nd\n"};
    write_file(file("p"), random_bytes(777));
    for (std::size_t i = 0; i < contents.size(); ++i) {
        SCOPED_TRACE("passphrase file #" + std::to_string(i));
        write_file(file("pw"), Bytes(contents[i].begin(), contents[i].end()));
        make_private(file("pw"));
        const std::string openssl = "openssl enc -aes-256-ecb -pbkdf2 -iter 1 ";
        const std::string ours = " -q --iter 1 ";
        const char *commands[] = {
            // theirs to ours, and ours to theirs, through each source
            "-pass file:pw -in p -out t1 && $AESGPU decrypt{}--mode ecb -p file:pw t1 -o b1 && cmp b1 p",
            "$AESGPU encrypt{} -p file:pw p -o o1 && {}-d -pass file:pw -in o1 | cmp - p",
            "-pass fd:3 3<pw -in p -out t2 && $AESGPU decrypt{}--mode ecb -p fd:3 3<pw t2 -o b2 && cmp b2 p",
            "$AESGPU encrypt{} -p fd:3 3<pw p -o o2 && {}-d -pass fd:3 3<pw -in o2 | cmp - p",
            "-pass stdin -in p -out t3 < pw && $AESGPU decrypt{}--mode ecb -p stdin t3 -o b3 < pw && cmp b3 p",
            "$AESGPU encrypt{} -p stdin p -o o3 < pw && {}-d -pass stdin -in o3 < pw | cmp - p",
        };
        for (const std::string command : commands) {
            std::string line = command.front() == '-' ? openssl + command : command;
            line.replace(line.find("{}"), 2, ours);
            if (const auto at = line.find("{}"); at != std::string::npos) line.replace(at, 2, openssl);
            Outcome r = run(line);
            EXPECT_EQ(r.status, 0) << line << "\n" << r.err;
        }
        run("rm -f t1 t2 t3 o1 o2 o3 b1 b2 b3");
    }
    // Where openssl gets an empty passphrase (a leading NUL or newline), aesgpu refuses.
    for (const std::string &content : {std::string("\0abc\n", 5), std::string("\nsecret\n")}) {
        write_file(file("pw"), Bytes(content.begin(), content.end()));
        Outcome r = run("$AESGPU encrypt -q -p fd:3 3<pw p -o out");
        EXPECT_EQ(r.status, 2) << r.err;
    }
}

// A passphrase line longer than openssl keeps (1023 bytes): openssl's formats take what openssl
// takes, and say so; --mode gcm (aesgpu's own format) takes the whole line, as env: gives it, up to
// 64 KiB; a GCM file made when aesgpu cut the line too still opens, with a warning.
TEST_F(Cli, ALongPassphraseLineIsWholeForGcmAndOpensslsForTheOtherModes) {
    write_file(file("p"), random_bytes(3000));
    const std::string line(2000, 'b');
    write_file(file("pw"), Bytes(line.begin(), line.end()));
    make_private(file("pw"));
    const std::string env = "PW=$(cat pw) ";
    Outcome r = run(
        "$AESGPU encrypt --mode gcm -p file:pw p -o g && " + env + "$AESGPU decrypt -p env:PW g -o b1 && cmp b1 p && " +
        env + "$AESGPU encrypt --mode gcm -p env:PW p -o g2 && $AESGPU decrypt -p fd:3 3<pw g2 -o b2 && cmp b2 p");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "") << "the whole line: nothing to say";
    r = run("$AESGPU encrypt --mode ecb -p file:pw p -o e && openssl enc -d -aes-256-ecb -pbkdf2 -pass file:pw -in e | "
            "cmp - p");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("the passphrase from passphrase file 'pw' is longer than 1023 bytes; openssl keeps the first "
                         "1023 bytes of a line, and so does aesgpu for ECB, CTR and CBC"),
              std::string::npos)
        << r.err;
    // Made with the first 1023 bytes, as aesgpu cut the line before.
    r = run("PW=$(head -c 1023 pw) $AESGPU encrypt --mode gcm -p env:PW p -o old && "
            "$AESGPU decrypt -p file:pw old -o b3 && cmp b3 p");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("'old' opened with the first 1023 bytes of the passphrase from passphrase file 'pw'"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(run("$AESGPU decrypt -p pass:wrong old -o b4").status, 1);
    // Past 64 KiB a line is no passphrase for GCM; openssl's formats still take their 1023 bytes.
    const std::string huge(70000, 'c');
    write_file(file("huge"), Bytes(huge.begin(), huge.end()));
    make_private(file("huge"));
    r = run("$AESGPU encrypt --mode gcm -p file:huge p -o h");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("the passphrase from passphrase file 'huge' is longer than 65536 bytes"), std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(file("h")));
    // Such a line cut to 1023 bytes by aesgpu before: its GCM file still opens, with a warning.
    r = run("PW=$(head -c 1023 huge) $AESGPU encrypt --mode gcm -p env:PW p -o hold && "
            "$AESGPU decrypt -p file:huge hold -o hb && cmp hb p");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("'hold' opened with the first 1023 bytes"), std::string::npos) << r.err;
    EXPECT_EQ(run("$AESGPU encrypt -q --mode ctr -p file:huge p -o hc && openssl enc -d -aes-256-ctr -pbkdf2 -pass "
                  "file:huge -in hc | cmp - p")
                  .status,
              0);
}

TEST_F(Cli, SecretsNeverAppearInMessages) {
    write_file(file("p"), random_bytes(100));
    const std::string key = "00112233445566778899aabbccddeeff";
    for (const std::string &command : std::vector<std::string>{
             "$AESGPU encrypt p -p hunter2secret", "$AESGPU encrypt p -p fd:hunter2secret",
             "$AESGPU encrypt p --pass=Pass:hunter2secret", "$AESGPU info -K " + key, "$AESGPU info --key=" + key,
             "$AESGPU info -p hunter2secret", "$AESGPU encrypt p -K " + key + " --bogus " + key,
             // short options bundled, before the command or where it takes none
             "$AESGPU -qK " + key + " encrypt p", "$AESGPU -fp pass:hunter2secret encrypt p",
             "$AESGPU info -qppass:hunter2secret", "$AESGPU bench -qK" + key}) {
        Outcome r = run(command);
        EXPECT_EQ(r.status, 2) << command;
        EXPECT_FALSE(r.err.empty()) << command;
        EXPECT_EQ(r.err.find("hunter2secret"), std::string::npos) << command << ": " << r.err;
        EXPECT_EQ(r.err.find(key), std::string::npos) << command << ": " << r.err;
    }
}

// --- 7. checks before the prompt --------------------------------------------------------------

TEST_F(Cli, EverythingThatFailsWithoutTheKeyFailsBeforeThePrompt) {
    if (!have_command("script")) GTEST_SKIP() << "util-linux `script` is not installed";
    write_file(file("p"), random_bytes(100));
    const std::string salted = "Salted__12345678" + std::string(16, 'x');
    write_file(file("exists.aes"), Bytes(salted.begin(), salted.end()));
    write_file(file("salted"), Bytes(salted.begin(), salted.end()));
    write_file(file("exists"), {1});
    const std::string ragged = salted + "abc";
    write_file(file("ragged.aes"), Bytes(ragged.begin(), ragged.end()));
    const std::pair<std::string, std::string> cases[] = {
        {"$AESGPU encrypt", "refusing to read data from a terminal"},
        {"$AESGPU encrypt p -c", "refusing to write ciphertext to a terminal"},
        {"$AESGPU encrypt exists", "already exists"},
        {"$AESGPU encrypt missing", "cannot open 'missing'"},
        {"$AESGPU decrypt p -o q", "no 'Salted__' header"},
        {"$AESGPU decrypt -p pass:x -o q", "refusing to read ciphertext from a terminal"},
        {"$AESGPU encrypt --no-pad p", "not a multiple of 16 bytes, which --no-pad requires"},
        {"$AESGPU decrypt --mode ecb ragged.aes", "not a multiple of 16 bytes"},
        {"CUDA_VISIBLE_DEVICES= $AESGPU encrypt --backend gpu p -o g", "no usable CUDA device"},
        {"$AESGPU decrypt --mode ecb salted", "cannot name the output"},
        {"$AESGPU decrypt --mode ecb exists.aes", "already exists"},
    };
    for (const auto &[command, expected] : cases) {
        Outcome r = run("timeout 10 script -qec '" + command + "' /dev/null");
        EXPECT_NE(r.status, 0) << command;
        EXPECT_NE(r.out.find(expected), std::string::npos) << command << ":\n" << r.out;
        EXPECT_EQ(r.out.find("password"), std::string::npos) << command << " asked first:\n" << r.out;
    }
}

// The library's refusals name settings; the command says them with its flags.
TEST_F(Cli, TheLibrarysRefusalsComeInTheCommandsWords) {
    write_file(file("p"), random_bytes(100));
    const std::string key = to_hex(random_bytes(16));
    write_file(file("k"), Bytes(key.begin(), key.end()));
    ASSERT_EQ(::mkdir(file("keys").c_str(), 0700), 0);
    const std::tuple<std::string, int, std::string> cases[] = {
        {"$AESGPU encrypt --key-file keys p -o x", 2,
         "key file 'keys' is a directory: --key-file takes the file that holds the key"},
        {"$AESGPU encrypt --key-file - -o x < p", 2, "--key-file - and the data cannot both come from standard input"},
        {"cat p | $AESGPU encrypt -q --no-pad -K " + key + " -o x", 1,
         "input length 100 is not a multiple of 16 bytes, which --no-pad requires"},
        {"ln -sf nowhere link && $AESGPU encrypt -q -K " + key + " p -o link", 1,
         "'link' is a symbolic link; use -f to replace it"},
        {"$AESGPU encrypt -q -K " + key + " p -o k", 1, "'k' already exists; use -f to overwrite it"},
    };
    for (const auto &[command, status, expected] : cases) {
        Outcome r = run(command);
        EXPECT_EQ(r.status, status) << command << ": " << r.err;
        EXPECT_NE(r.err.find(expected), std::string::npos) << command << ":\n" << r.err;
        EXPECT_NE(::access(file("x").c_str(), F_OK), 0) << command;
    }
}

// --- 8. secrets in memory ---------------------------------------------------------------------

TEST_F(Cli, KeysLeaveTheCommandLineAndTheProcessCannotDumpCore) {
    const std::string key = to_hex(random_bytes(32));
    // aesgpu waits opening a FIFO no one writes yet: its state can be read from /proc meanwhile.
    // As root it runs as nobody, where an undumpable process's /proc files belong to root.
    const bool root = ::geteuid() == 0;
    if (root && !have_command("setpriv")) GTEST_SKIP() << "setpriv is not installed";
    ASSERT_EQ(::chmod(dir.path().c_str(), 0777), 0);
    const std::string as_user = root ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
    Outcome r = run("mkfifo f && chmod 666 f || exit 1; " + as_user + "$AESGPU encrypt -q -K " + key +
                    " f -o out & pid=$!; sleep 1; "
                    "grep 'Max core file size' /proc/$pid/limits | tr -s ' '; stat -c 'owner=%u' /proc/$pid/status; "
                    "tr '\\0' ' ' < /proc/$pid/cmdline; echo; exec 3<>f; exec 3>&-; wait $pid; echo status=$?");
    EXPECT_NE(r.out.find("Max core file size 0 0 bytes"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("owner=0"), std::string::npos) << "still dumpable (ptrace, /proc/PID/mem):\n" << r.out;
    EXPECT_EQ(r.out.find(key), std::string::npos) << "the key is still in the command line:\n" << r.out;
    EXPECT_NE(r.out.find("-K "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("status=0"), std::string::npos) << r.out << r.err;
}

// --- 9. key files ------------------------------------------------------------------------------

TEST_F(Cli, KeyFilesThatOthersCanReadAreFlaggedAndStandardInputIsNotTakenTwice) {
    write_file(file("p"), random_bytes(100));
    write_file(file("key"), random_bytes(16));
    ASSERT_EQ(::chmod(file("key").c_str(), 0644), 0);
    Outcome open_key = run("$AESGPU encrypt p -o a --key-file key");
    EXPECT_EQ(open_key.status, 0) << open_key.err;
    EXPECT_NE(open_key.err.find("aesgpu: warning: key file 'key' can be read or changed by group or others "
                                "(mode 0644); chmod 600 it\n"),
              std::string::npos)
        << open_key.err;
    make_private(file("key"));
    Outcome private_key = run("$AESGPU encrypt p -o b --key-file key");
    EXPECT_EQ(private_key.err.find("key file"), std::string::npos) << private_key.err;
    // The key would be taken from the data (and the data would then be empty).
    for (const std::string secret :
         {"--key-file /dev/stdin", "--key-file /proc/self/fd/0", "-p file:/dev/stdin", "-p fd:3 3<&0"}) {
        Outcome r = run("head -c 16 /dev/urandom | $AESGPU encrypt -q -o c " + secret);
        EXPECT_EQ(r.status, 2) << secret << ": " << r.err;
        EXPECT_NE(r.err.find("standard input"), std::string::npos) << secret << ": " << r.err;
        EXPECT_FALSE(std::filesystem::exists(file("c"))) << secret;
    }
}

// --- 10. hangs ----------------------------------------------------------------------------------

TEST_F(Cli, AWriteFailureEndsTheRunEvenWhileTheProducerStaysSilent) {
    // The FIFO stays open for writing (fd 3) and gets no more data after 3 MB: a reader blocked
    // in read() would wait forever once /dev/full has failed the first write.
    // (The producer is stopped by its own PID: tests run side by side.)
    Outcome r = run("mkfifo f && exec 3<>f || exit 1; head -c 3000000 /dev/urandom >&3 & producer=$!; "
                    "start=$(date +%s%N); timeout 20 $AESGPU encrypt -q -K " +
                    kKey128 +
                    " -o /dev/full < f; echo status=$? ms=$((($(date +%s%N) - start) / 1000000)); "
                    "exec 3>&-; kill $producer 2>/dev/null; wait");
    ASSERT_NE(r.out.find("status=1 "), std::string::npos) << r.out << r.err;
    EXPECT_LT(std::stol(r.out.substr(r.out.find("ms=") + 3)), 5000) << r.out;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
}

// --- 11. signals ----------------------------------------------------------------------------------

TEST_F(Cli, EverySignalThatEndsTheRunLeavesNothingBehindAndKeepsAReplacedFile) {
    // aesgpu reads a FIFO that stays open (fd 3) after 3 MB, so it is mid-run when the signal
    // comes. set -m gives the background job its own process group, so SIGINT is not pre-ignored.
    ASSERT_EQ(run("mkfifo in.fifo").status, 0);
    const std::pair<const char *, int> signals[] = {{"INT", 2},   {"TERM", 15}, {"HUP", 1},  {"QUIT", 3},
                                                    {"USR1", 10}, {"USR2", 12}, {"ALRM", 14}};
    for (const auto &[signal, number] : signals) {
        for (const std::string force : {"", " -f"}) {
            SCOPED_TRACE(std::string(signal) + force);
            std::filesystem::remove(file("out"));
            if (!force.empty()) write_file(file("out"), {'o', 'l', 'd'});
            Outcome r =
                run("set -m; $AESGPU encrypt -q --backend cpu" + force + " in.fifo -o out -K " + kKey128 +
                    " & pid=$!; exec 3>in.fifo; head -c 3000000 /dev/urandom >&3; sleep 0.5; "
                    "ls -l /proc/$pid/fd | grep -c -e \"$PWD/#[0-9]* (deleted)\" -e '/[.]out[.]aesgpu-'; kill -" +
                    std::string(signal) + " $pid; wait $pid; echo status=$?; exec 3>&-; ls -A");
            // One unfinished output open mid-run; afterwards the status says the signal, and only
            // the FIFO (and a replaced file, untouched) is left.
            EXPECT_EQ(r.out,
                      "1\nstatus=" + std::to_string(128 + number) + "\nin.fifo\n" + (force.empty() ? "" : "out\n"))
                << r.err;
            if (!force.empty()) {
                EXPECT_EQ(read_file(file("out")), (Bytes{'o', 'l', 'd'}));
            }
        }
    }
}

// SIGPIPE is blocked so that a write to a pipe without a reader fails with EPIPE; a SIGPIPE sent
// from outside (kill -PIPE) is no such write and ends the run as the other signals do.
TEST_F(Cli, ASigpipeFromOutsideEndsTheRunAsOtherSignalsDo) {
    ASSERT_EQ(run("mkfifo in.fifo").status, 0);
    // Polls (at most 5 s) for aesgpu to end: a run that ignored the signal is then given the end of
    // its input, finishes, and shows status 0 and its output.
    Outcome r = run("set -m; $AESGPU encrypt -q --backend cpu in.fifo -o out -K " + kKey128 +
                    " & pid=$!; exec 3>in.fifo; head -c 3000000 /dev/urandom >&3; "
                    "until ls -l /proc/$pid/fd 2>/dev/null | grep -q '(deleted)' || ! kill -0 $pid 2>/dev/null; do "
                    "sleep 0.01; done; "
                    "kill -PIPE $pid; for i in $(seq 500); do kill -0 $pid 2>/dev/null || break; sleep 0.01; done; "
                    "exec 3>&-; wait $pid; echo status=$?; ls -A");
    EXPECT_EQ(r.out, "status=141\nin.fifo\n") << r.err;
    // The output's own broken pipe still ends the run quietly, with the same status.
    r = run("head -c 3000000 /dev/urandom | $AESGPU encrypt -q -K " + kKey128 +
            " | head -c 10 > /dev/null; "
            "echo status=${PIPESTATUS[1]}");
    EXPECT_EQ(r.out, "status=141\n") << r.err;
    EXPECT_EQ(r.err, "");
}

TEST_F(Cli, CtrlBackslashAtThePromptGivesTheTerminalItsEchoBack) {
    if (!have_command("script")) GTEST_SKIP() << "util-linux `script` is not installed";
    write_file(file("p"), random_bytes(100));
    // env --default-signal: a shell without job control starts `&` commands with SIGQUIT ignored.
    // `sleep 5 |`: script would pass the end of its own input on to the prompt as Ctrl-D.
    Outcome r =
        run("sleep 5 | timeout 20 script -qec \"sh -c 'env --default-signal=QUIT $AESGPU encrypt p -o x & sleep 1; "
            "kill -QUIT \\$!; wait \\$!; echo status=\\$?; stty -a'\" /dev/null");
    EXPECT_NE(r.out.find("password:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("status=131"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" echo "), std::string::npos) << "echo still off:\n" << r.out;
    EXPECT_FALSE(std::filesystem::exists(file("x")));
}

// --- 12, 13, 14. where the output goes --------------------------------------------------------

TEST_F(Cli, AnOutputWhoseDirectoryIsMovedMidRunLandsInIt) {
    Outcome r = run("mkdir d && mkfifo f && ($AESGPU encrypt -q -K " + kKey128 +
                    " f -o d/out & pid=$!; exec 3>f; head -c 2000000 /dev/urandom | tee plain >&3; sleep 0.5; "
                    "mv d moved; head -c 1000 /dev/urandom | tee -a plain >&3; exec 3>&-; wait $pid; "
                    "echo status=$?); ls -A moved");
    EXPECT_EQ(r.out, "status=0\nout\n") << r.err;
    EXPECT_TRUE(read_file(file("moved/out")) == ecb(read_file(file("plain"))));
}

TEST_F(Cli, ALinkAtTheOutputNameIsRefusedBeforeTheWorkAndReplacedWithForce) {
    write_file(file("p"), random_bytes(5000));
    write_file(file("kept"), {7});
    for (const std::string target : {"missing", "kept"}) {
        SCOPED_TRACE(target);
        ASSERT_EQ(run("rm -f link f && ln -s " + target + " link && mkfifo f").status, 0);
        // The input never ends (fd 3 keeps the FIFO open): only a refusal before reading returns.
        Outcome r = run("exec 3<>f; timeout 10 $AESGPU encrypt -q -K " + kKey128 + " f -o link");
        EXPECT_EQ(r.status, 1) << r.err;
        EXPECT_NE(r.err.find("'link' is a symbolic link; use -f to replace it"), std::string::npos) << r.err;
        r = run("$AESGPU encrypt -q -f -K " + kKey128 + " p -o link");
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_FALSE(std::filesystem::is_symlink(file("link"))) << "the link was replaced";
        EXPECT_TRUE(read_file(file("link")) == ecb(read_file(file("p"))));
    }
    EXPECT_FALSE(std::filesystem::exists(file("missing")));
    EXPECT_EQ(read_file(file("kept")), Bytes({7}));
}

// root writing into a directory another user may write (0777 without the sticky bit, or their
// own): that user's link at the output name, aimed at a file of root's, is replaced, never written
// through, with -f and --output-dir as with -o.
TEST_F(Cli, AnotherUsersLinkAtTheOutputNameNeverWritesRootsFile) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root, to make another user's directory and links";
    write_file(file("p"), random_bytes(3000));
    write_file(file("roots"), {'r', 'o', 'o', 't'});
    ASSERT_EQ(run("chmod 600 roots && $AESGPU encrypt -q --mode gcm -K " + kKey128 + " p -o p.aes").status, 0);
    const std::pair<std::string, std::string> directories[] = {{"open", "chmod 0777 open"},
                                                               {"theirs", "chown 65534:65534 theirs"}};
    for (const auto &[where, make] : directories) {
        SCOPED_TRACE(where);
        ASSERT_EQ(run("mkdir " + where + " && " + make + " && ln -s \"$PWD/roots\" " + where +
                      "/p && chown -h 65534:65534 " + where + "/p")
                      .status,
                  0);
        const Outcome r = run("$AESGPU decrypt -f --output-dir " + where + " -K " + kKey128 + " p.aes");
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(read_file(file("roots")), Bytes({'r', 'o', 'o', 't'}));
        EXPECT_FALSE(std::filesystem::is_symlink(file(where + "/p")));
        EXPECT_TRUE(read_file(file(where + "/p")) == read_file(file("p")));
        struct stat output {};
        ASSERT_EQ(::stat(file(where + "/p").c_str(), &output), 0);
        EXPECT_EQ(output.st_uid, 0u) << "root's output, not the link's owner's";
        ASSERT_EQ(run("ln -sf \"$PWD/roots\" " + where + "/q && chown -h 65534:65534 " + where + "/q").status, 0);
        EXPECT_EQ(run("$AESGPU decrypt -f --mode gcm -K " + kKey128 + " p.aes -o " + where + "/q").status, 0);
        EXPECT_EQ(read_file(file("roots")), Bytes({'r', 'o', 'o', 't'}));
    }
    // /dev/shm is under /dev, and anyone may write there: its links are no system streams.
    if (!std::filesystem::is_directory("/dev/shm")) return;
    const std::string planted = "/dev/shm/aesgpu-test-" + std::to_string(::getpid());
    ASSERT_EQ(run("ln -sf \"$PWD/roots\" " + planted + " && chown -h 65534:65534 " + planted).status, 0);
    const Outcome shm = run("$AESGPU decrypt -f --mode gcm -K " + kKey128 + " p.aes -o " + planted);
    EXPECT_EQ(shm.status, 0) << shm.err;
    EXPECT_EQ(read_file(file("roots")), Bytes({'r', 'o', 'o', 't'}));
    EXPECT_FALSE(std::filesystem::is_symlink(planted));
    std::filesystem::remove(planted);
}

TEST_F(Cli, GpuBackendToAPipeOrDeviceNeverSendsWhatItCannotWithdraw) {
    write_file(file("p"), random_bytes(3 << 20));
    ASSERT_EQ(run("mkfifo f").status, 0);
    // No GPU (hidden where there is one), and one slow to find that out: the CPU must not start
    // ciphering into the FIFO or /dev/stdout meanwhile, since those bytes cannot be taken back
    // when the GPU then fails.
    const std::string slow_gpu =
        "CUDA_VISIBLE_DEVICES= AESGPU_TEST_SLOW_CUDA_DRIVER=1000 LD_PRELOAD=" + std::string(AESGPU_FAULT_INJECTION) +
        " ";
    for (const std::string output : {"-o f", "-o /dev/stdout | cat > got"}) {
        const std::string reader = output == "-o f" ? "(timeout 10 cat f > got &); " : "";
        Outcome r = run(reader + slow_gpu + "$AESGPU encrypt -q --backend gpu -K " + kKey128 + " p " + output +
                        "; echo status=${PIPESTATUS[0]}; sleep 0.2; wc -c < got");
        EXPECT_EQ(r.out, "status=1\n0\n") << output << ": " << r.err;
        EXPECT_NE(r.err.find("no usable CUDA device"), std::string::npos) << r.err;
    }
    if (!gpu_available()) return;
    Outcome r =
        run("(timeout 10 cat f > got &); $AESGPU encrypt -q --backend gpu -K " + kKey128 + " p -o f; sleep 0.2");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(read_file(file("got")) == ecb(read_file(file("p"))));
}

// --- 15, 16. memory and resources ---------------------------------------------------------------

TEST_F(Cli, MappedWritesHoldNoMoreOfTheFileThanAChunk) {
    // Split I/O maps the output to write it: a mapping kept whole would count the file in the
    // process's memory. On tmpfs the output is memory itself, which makes the growth plain.
    const std::filesystem::path shm = "/dev/shm";
    const TempDir place = std::filesystem::is_directory(shm) ? TempDir(shm) : TempDir();
    std::ofstream(place.file("small")).close();
    std::filesystem::resize_file(place.file("small"), 128u << 20);
    std::ofstream(place.file("large")).close();
    std::filesystem::resize_file(place.file("large"), std::uintmax_t{1} << 30);
    const auto with_input = [&](const std::string &name) {
        // The CPU: a GPU's start-up (its libraries) would add to one run's peak and not the other's.
        return std::vector<std::string>{"encrypt",
                                        place.file(name),
                                        "-q",
                                        "-K",
                                        kKey128,
                                        "-o",
                                        place.file(name + ".aes"),
                                        "--io-threads",
                                        "4",
                                        "-T",
                                        "2",
                                        "--backend",
                                        "cpu"};
    };
    const long small = peak_rss_kib(with_input("small"));
    const long large = peak_rss_kib(with_input("large"));
    ASSERT_GT(small, 0);
    ASSERT_GT(large, 0);
    EXPECT_EQ(std::filesystem::file_size(place.file("large.aes")), (std::uintmax_t{1} << 30) + 16);
    EXPECT_LT(large - small, 16 * 1024) << "peak RSS " << small << " KiB for 128 MiB, " << large << " KiB for 1 GiB";
}

TEST_F(Cli, ShortOfMemoryTheCpuRingRetriesWithSmallerChunks) {
    if (under_sanitizer()) GTEST_SKIP() << "ulimit -v leaves no room for a sanitizer's shadow memory";
    const Bytes plain = random_bytes((5 << 20) + 3);
    write_file(file("p"), plain);
    // 5 slots of 256 MiB do not fit in 900 MB of address space; of 64 MiB they do. With split I/O
    // the mapped writer's window may then not fit either: it writes with pwrite() instead.
    for (const std::string io : {"1", "4"}) {
        Outcome r = run("rm -f out; ulimit -v 900000 && $AESGPU encrypt -v --backend cpu -T 2 --chunk-size 256M -K " +
                        kKey128 + " p -o out --io-threads " + io);
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_NE(r.err.find("memory was short: ran with"), std::string::npos) << r.err;
        EXPECT_TRUE(read_file(file("out")) == ecb(plain)) << io;
    }
}

// A control group of its own with a memory limit: v1's memory.limit_in_bytes (the CI machine),
// under this process's group; or v2's memory.max (the GPU hosts), under the nearest group from this
// process's up that hands the memory controller to its children (v2 gives none to the children of
// a group with processes in it). Needs root.
class MemoryLimitedGroup {
public:
    explicit MemoryLimitedGroup(std::uint64_t bytes) {
        const std::string groups = slurp("/proc/self/cgroup");
        for (const bool v2 : {false, true}) {
            const std::string marker = v2 ? "0::" : ":memory:";
            const std::size_t at = groups.find(marker);
            if (at == std::string::npos || (v2 && at != 0 && groups[at - 1] != '\n')) continue;
            const std::string own = groups.substr(at + marker.size(), groups.find('\n', at) - at - marker.size());
            const std::filesystem::path top(v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory");
            const char *limit_file = v2 ? "memory.max" : "memory.limit_in_bytes";
            for (std::filesystem::path parent = top / own.substr(1);; parent = parent.parent_path()) {
                if (v2 ? gives_memory_to_children(parent) : std::filesystem::exists(parent / limit_file)) {
                    if (make(parent, limit_file, bytes)) return;
                    break;
                }
                if (parent == top || !parent.has_relative_path()) break;
            }
        }
        why_not_ = ::geteuid() != 0 ? "making a control group needs root"
                                    : "no memory controller here to make a group under (cgroup v1 or v2)";
    }
    ~MemoryLimitedGroup() {
        std::error_code error;
        if (!directory_.empty()) std::filesystem::remove(directory_, error);
    }
    MemoryLimitedGroup(const MemoryLimitedGroup &) = delete;
    MemoryLimitedGroup &operator=(const MemoryLimitedGroup &) = delete;

    [[nodiscard]] const std::string &why_not() const { return why_not_; }
    // A shell command line that runs `quoted_command` (quoted for the shell) inside the group.
    [[nodiscard]] std::string inside(const std::string &quoted_command) const {
        return "sh -c 'echo $$ > " + (directory_ / "cgroup.procs").string() + " && exec bash -c \"$0\"' " +
               quoted_command;
    }

private:
    static bool gives_memory_to_children(const std::filesystem::path &group) {
        return slurp((group / "cgroup.subtree_control").string()).find("memory") != std::string::npos;
    }
    bool make(const std::filesystem::path &parent, const char *limit_file, std::uint64_t bytes) {
        directory_ = parent / ("aesgpu-test-" + std::to_string(::getpid()));
        std::error_code error;
        std::filesystem::create_directory(directory_, error);
        std::ofstream(directory_ / limit_file) << bytes;
        if (!error && limit_of(directory_ / limit_file) == bytes) return true;
        std::filesystem::remove(directory_, error);
        directory_.clear();
        return false;
    }
    static std::uint64_t limit_of(const std::filesystem::path &file) {
        const std::string text = slurp(file.string());
        return text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])) ? 0 : std::stoull(text);
    }

    std::filesystem::path directory_;
    std::string why_not_;
};

// A scratch directory beside `preferred` if that is not on tmpfs, else under /var/tmp if that is not.
std::optional<TempDir> on_a_disk(const std::filesystem::path &preferred) {
    for (const std::filesystem::path &parent : {preferred.parent_path(), std::filesystem::path("/var/tmp")}) {
        struct statfs fs {};
        if (::statfs(parent.c_str(), &fs) == 0 && fs.f_type != TMPFS_MAGIC)
            return std::optional<TempDir>(std::in_place, parent);
    }
    return std::nullopt;
}

// Under a control group's memory limit the kernel's OOM killer ends a process that goes past it;
// no allocation fails first, so the ring's retry with smaller chunks never came, and the page cache
// that the files fill counts too. The ring fits a quarter of the limit, what was read leaves the
// page cache, and the output goes to the disk as it is written. At 20 MiB every run was killed
// before (137); at 16 MiB the kernel itself still kills about one run in 600 on the 2-core CI
// machine (in ext4's write path, reclaiming without the file system), too many for a test.
TEST_F(Cli, UnderAControlGroupsMemoryLimitTheRingFitsIt) {
    if (under_sanitizer()) GTEST_SKIP() << "a sanitizer's shadow memory does not fit 20 MiB";
    constexpr std::uint64_t kLimit = 20u << 20;
    if (const MemoryLimitedGroup probe(kLimit); !probe.why_not().empty()) GTEST_SKIP() << probe.why_not();
    // Files on tmpfs are charged to the group as memory it cannot give back: on a disk instead.
    const std::optional<TempDir> disk = on_a_disk(dir.path());
    if (!disk) GTEST_SKIP() << "no directory off tmpfs to write 48 MiB files in";
    const std::string at = "cd '" + disk->path().string() + "' && ";
    write_file(disk->file("p"), random_bytes(48u << 20));
    const std::string key = " -K " + kKey128;
    for (const std::string &mode : {std::string(" --mode ecb"), std::string(" --mode gcm"),
                                    " --mode ctr --iv " + kKey128, std::string(" --mode ecb --io-threads 4")}) {
        SCOPED_TRACE(mode);
        // A file, and a pipe (where the chunks are the pipe's), each run in a group of its own, as
        // `systemd-run -p MemoryMax=20M aesgpu ...` would run it; the checks outside. Only aesgpu
        // is in the group: the `cat` that feeds the pipe stays out, since the page cache of what
        // it reads would be charged to the group (it filled the 20 MiB, and the kernel killed
        // about one pipe run in 30 there, where aesgpu alone peaks at 7-10 MiB).
        // The CPU backend: a CUDA context alone needs more than such a group holds (docs/usage.md).
        const std::vector<std::pair<std::string, std::string>> commands{
            {"", "$AESGPU encrypt -q -f --backend cpu" + mode + key + " p -o c"},
            {"", "$AESGPU decrypt -q -f --backend cpu" + mode + key + " c -o back"},
            {"cat p | ", "$AESGPU encrypt -q --backend cpu" + mode + key + " > piped"},
            {"", "$AESGPU decrypt -q --backend cpu" + mode + key + " < piped > back2"}};
        for (const auto &[feed, command] : commands) {
            // A kill that does not come again is the kernel's (CI's kernel killed about one run in
            // a few hundred, a file run too, reclaiming in ext4's write path); a ring that does not
            // fit is killed every time, as every run at cd3b57f was.
            Outcome r{};
            for (int attempt = 0; attempt < 2 && (attempt == 0 || r.status == 137); ++attempt) {
                const MemoryLimitedGroup group(kLimit);
                r = run(at + feed + group.inside(quote(command)));
            }
            EXPECT_EQ(r.status, 0) << feed << command << ": " << r.err;
            EXPECT_EQ(r.err, "") << feed << command;
        }
        EXPECT_EQ(run(at + "cmp back p && cmp back2 p").status, 0);
    }
    // A GCM chunk holds a whole segment: three of 16 MiB cannot fit 20 MiB, said before any work.
    const MemoryLimitedGroup group(kLimit);
    const Outcome r = run(at + group.inside(quote("$AESGPU encrypt -q -f --backend cpu --mode gcm --segment-size 16M" +
                                                  key + " p -o big.aes")));
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.err, "aesgpu: a ring of 3 chunks of 16384 KiB at the least is more than the memory limit of 20480 KiB "
                     "(the control group's): each chunk holds a whole segment of 16777216 bytes; give a smaller "
                     "--segment-size\n");
    EXPECT_FALSE(std::filesystem::exists(disk->file("big.aes")));
}

// An overlay file system (a container's root, where CI runs) mounted over `disk`, unmounted by
// the destructor; why_not() says why there is none (mounting needs root and a kernel that allows it).
class OverlayMount {
public:
    explicit OverlayMount(const std::filesystem::path &disk) : merged_(disk / "merged") {
        for (const char *part : {"lower", "upper", "work", "merged"}) std::filesystem::create_directory(disk / part);
        const std::string options = "lowerdir=" + (disk / "lower").string() + ",upperdir=" + (disk / "upper").string() +
                                    ",workdir=" + (disk / "work").string();
        const std::string mount = "mount -t overlay overlay -o " + options + " " + merged_.string() + " 2>/dev/null";
        if (std::system(mount.c_str()) != 0) why_not_ = "cannot mount an overlay here (needs root)";
    }
    ~OverlayMount() {
        // A mount left behind fails nothing here; glibc's warn_unused_result ignores a (void) cast.
        if (why_not_.empty()) [[maybe_unused]]
            const int status = std::system(("umount -l " + merged_.string()).c_str());
    }
    OverlayMount(const OverlayMount &) = delete;
    OverlayMount &operator=(const OverlayMount &) = delete;
    [[nodiscard]] const std::string &why_not() const { return why_not_; }
    [[nodiscard]] const std::filesystem::path &path() const { return merged_; }

private:
    std::filesystem::path merged_;
    std::string why_not_;
};

// On overlayfs sync_file_range() reaches the overlay's own page cache, which is empty, and writes
// nothing: the output's dirty pages piled up to the kernel's own limit (a sampled 38 MiB in a
// 200 MiB group, 6.5 MiB of 20 MiB; 16 and 1.5 MiB on ext4), and a run in CI's 20 MiB group was
// killed. There the output is written behind with fdatasync(), which the overlay passes on.
TEST_F(Cli, UnderAMemoryLimitOnAnOverlayTheOutputIsStillWrittenBehind) {
    if (under_sanitizer()) GTEST_SKIP() << "a sanitizer's shadow memory does not fit the group";
    constexpr std::uint64_t kLimit = 64u << 20; // written behind every 4 MiB
    if (const MemoryLimitedGroup probe(kLimit); !probe.why_not().empty()) GTEST_SKIP() << probe.why_not();
    const std::optional<TempDir> disk = on_a_disk(dir.path());
    if (!disk) GTEST_SKIP() << "no directory off tmpfs to mount an overlay over";
    const OverlayMount overlay(disk->path());
    if (!overlay.why_not().empty()) GTEST_SKIP() << overlay.why_not();
    const Bytes plain = random_bytes(24u << 20);
    write_file((overlay.path() / "p").string(), plain);
    const std::string log = capture.file("sync.log");
    const MemoryLimitedGroup group(kLimit);
    const Outcome r =
        run("cd '" + overlay.path().string() + "' && " +
            group.inside(quote("AESGPU_TEST_SYNC_LOG=" + log + " LD_PRELOAD=" + std::string(AESGPU_FAULT_INJECTION) +
                               " $AESGPU encrypt -q --backend cpu -K " + kKey128 + " p -o c")));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(read_file((overlay.path() / "c").string()) == ecb(plain));
    // A flush of the output every window of 4 MiB written; the ring fits a quarter of the limit,
    // so a chunk is 8 MiB at most and at least three of them come.
    const std::string calls = slurp(log);
    std::size_t flushes = 0;
    for (std::size_t at = calls.find("fsync "); at != std::string::npos; at = calls.find("fsync ", at + 1)) ++flushes;
    EXPECT_GE(flushes, 3u) << calls;
}

TEST_F(Cli, ShortOfAddressSpaceTheRingLeavesRoomForTheThreadsThatFollowIt) {
    if (under_sanitizer()) GTEST_SKIP() << "ulimit -v leaves no room for a sanitizer's shadow memory";
    const Bytes plain = random_bytes((5 << 20) + 3);
    write_file(file("p"), plain);
    write_file(file("want"), ecb(plain));
    // The ring halves until it fits; a thread started after it would find no room for its stack
    // at some limits (a window of about a stack's size below each halving). Steps of 2 MB cross
    // every such window from 16 MiB chunks to 64 MiB ones, with threads of the usual 8 MiB
    // stack (or less, where the hard limit says so). A ring that fits with no room at all for
    // the run's small allocations still fails, as "not enough memory", at a limit or two (which
    // ones varies with the machine).
    Outcome r = run("for v in $(seq 100000 2000 300000); do rm -f out; (ulimit -S -s 8192 2>/dev/null; ulimit -v $v && "
                    "exec $AESGPU encrypt -q --backend cpu -T 1 --io-threads 1 --chunk-size 256M -K " +
                    std::string(kKey128) +
                    " p -o out) && { cmp -s out want && echo worked || echo \"wrong output at $v\"; }; done");
    EXPECT_EQ(r.out.find("wrong"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("cannot start a thread"), std::string::npos) << r.err;
    std::istringstream failures(r.err);
    for (std::string line; std::getline(failures, line);) {
        EXPECT_EQ(line.rfind("aesgpu: not enough memory", 0), 0u) << line;
    }
    EXPECT_GE(std::count(r.out.begin(), r.out.end(), '\n'), 95) << r.err;
}

TEST_F(Cli, ShortOfAddressSpaceEveryFailureIsOneClearLine) {
    if (under_sanitizer()) GTEST_SKIP() << "ulimit -v leaves no room for a sanitizer's shadow memory";
    const std::filesystem::path shm = "/dev/shm"; // split reads and mapped writes, and their threads
    const TempDir place = std::filesystem::is_directory(shm) ? TempDir(shm) : TempDir();
    const Bytes plain = random_bytes((5 << 20) + 3);
    write_file(place.file("p"), plain);
    write_file(place.file("want"), ecb(plain));
    // From too little to start at all up to room for a small ring: a run either works or ends in
    // one line that says what was short, never "std::bad_alloc" nor an abort.
    Outcome r = run("cd " + place.path().string() +
                    " && for v in $(seq 20000 250 30000) $(seq 31000 1000 90000); do rm -f out; "
                    "(ulimit -S -s 8192 2>/dev/null; ulimit -v $v && exec $AESGPU encrypt -q --backend cpu -T 2 "
                    "--io-threads 4 --chunk-size 32M -K " +
                    std::string(kKey128) +
                    " p -o out) 2> err; s=$?; if [ $s = 0 ]; then cmp -s out want || echo \"$v: wrong output\"; "
                    "elif [ $s != 1 ] || [ $(wc -l < err) != 1 ] || grep -q bad_alloc err || ! grep -q "
                    "'^aesgpu: \\(not enough memory\\|cannot start a thread\\)' err || [ -e out ]; then echo \"$v: "
                    "status $s: $(cat err)\"; fi; done");
    EXPECT_EQ(r.out, "") << r.err;
}

TEST_F(Cli, ShortOfAddressSpaceTheMappedWriterFallsBackToWrite) {
    if (under_sanitizer()) GTEST_SKIP() << "ulimit -v leaves no room for a sanitizer's shadow memory";
    const Bytes plain = random_bytes((100 << 20) + 5);
    write_file(file("p"), plain);
    // Room for everything (the ring of 4 MiB chunks, threads with 1 MiB stacks, one malloc arena;
    // about 40 MB) but a 64 MiB window of the output.
    Outcome r = run("ulimit -s 1024 && ulimit -v 80000 && MALLOC_ARENA_MAX=1 $AESGPU encrypt -q --backend cpu -T 2 "
                    "--io-threads 4 -K " +
                    kKey128 + " p -o out");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(read_file(file("out")) == ecb(plain));
}

// A block device is written into only with -f: the library refuses it, the command names -f.
TEST_F(Cli, ABlockDeviceOutputTakesForce) {
    write_file(file("p"), random_bytes(100));
    if (run("mknod blk b 7 0").status != 0) GTEST_SKIP() << "no mknod here";
    Outcome r = run("$AESGPU encrypt -K " + kKey128 + " p -o blk");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "aesgpu: refusing to write to block device 'blk' without -f\n");
}

TEST_F(Cli, AThreadLimitEndsTheRunWithOneClearLineAndNoOutput) {
    write_file(file("p"), random_bytes(5 << 20));
    // Thread 1 takes signals; the CPU cipher's first worker is the one refused.
    Outcome r = run("AESGPU_TEST_THREADS_ALLOWED=1 LD_PRELOAD=" + std::string(AESGPU_FAULT_INJECTION) +
                    " $AESGPU encrypt -q --backend cpu -T 4 -K " + kKey128 + " p -o out");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "aesgpu: cannot start a thread for the CPU cipher: Resource temporarily unavailable "
                     "(a limit on threads or memory: ulimit -u or -v?)\n");
    EXPECT_FALSE(std::filesystem::exists(file("out")));
    // A thread limit is not short memory: bench must not advise a smaller --size for it.
    Outcome bench = run("AESGPU_TEST_THREADS_ALLOWED=1 LD_PRELOAD=" + std::string(AESGPU_FAULT_INJECTION) +
                        " $AESGPU bench --backend cpu --size 1M --reps 1 --key-bits 128 --direction encrypt -T 4");
    EXPECT_EQ(bench.status, 1) << bench.err;
    EXPECT_NE(bench.out.find("failed: cpu: cannot start a thread"), std::string::npos) << bench.out;
    EXPECT_EQ(bench.out.find("--size"), std::string::npos) << bench.out;
}

// The bench's disk ceilings start several threads each: one refused must end the stage with one
// clear line, never abort (a joinable thread destroyed while the error unwound: status 134).
TEST_F(Cli, BenchShortOfThreadsNeverAbortsInTheDiskCeilings) {
    write_file(file("f"), random_bytes(5 << 20));
    for (const int allowed : {2, 6, 12}) {
        Outcome r = run("AESGPU_TEST_THREADS_ALLOWED=" + std::to_string(allowed) +
                        " LD_PRELOAD=" + std::string(AESGPU_FAULT_INJECTION) +
                        " $AESGPU bench --backend cpu --size 1M --reps 1 --key-bits 128 --direction encrypt "
                        "--mode ecb -T 1 --file f");
        EXPECT_EQ(r.status, 1) << allowed << ": " << r.err;
        EXPECT_NE(r.err.find("aesgpu: file: cannot start a thread for "), std::string::npos) << allowed << r.err;
        EXPECT_EQ(r.err.find("terminate"), std::string::npos) << allowed << ": " << r.err;
    }
}

TEST_F(Cli, AThreadLimitOnlySlowsSplitFileReadsAndWrites) {
    // More threads only speed split reads and mapped writes up: refused some, they go on with
    // fewer. Which thread is refused moves with N, so every N up to all of them is tried; a
    // refusal may end the run only for a thread the run needs.
    const std::filesystem::path shm = "/dev/shm"; // the mapped writer needs a file system that reserves blocks
    const TempDir place = std::filesystem::is_directory(shm) ? TempDir(shm) : TempDir();
    const Bytes plain = random_bytes((5 << 20) + 3);
    write_file(place.file("p"), plain);
    std::set<std::string> made_do;
    for (int allowed = 1; allowed <= 12; ++allowed) {
        std::filesystem::remove(place.file("out"));
        Outcome r = run("AESGPU_TEST_THREADS_ALLOWED=" + std::to_string(allowed) +
                        " LD_PRELOAD=" + std::string(AESGPU_FAULT_INJECTION) +
                        " $AESGPU encrypt -v --backend cpu -T 1 --io-threads 4 -K " + kKey128 + " " + place.file("p") +
                        " -o " + place.file("out"));
        for (const std::string purpose : {"reads", "writes"}) {
            if (r.err.find("parallel file " + purpose +
                           ": Resource temporarily unavailable (a limit on threads or "
                           "memory: ulimit -u or -v?); going on with ") != std::string::npos) {
                made_do.insert(purpose);
            }
        }
        if (r.status == 0) {
            EXPECT_TRUE(read_file(place.file("out")) == ecb(plain)) << allowed;
        } else {
            const std::string last_line = r.err.substr(r.err.rfind('\n', r.err.size() - 2) + 1);
            EXPECT_EQ(last_line.rfind("aesgpu: cannot start a thread for ", 0), 0u) << allowed << ": " << r.err;
            EXPECT_EQ(last_line.find("parallel file"), std::string::npos) << allowed << ": " << r.err;
            EXPECT_FALSE(std::filesystem::exists(place.file("out"))) << allowed;
        }
    }
    EXPECT_EQ(made_do, (std::set<std::string>{"reads", "writes"}));
}

TEST_F(Cli, BenchShortOfMemoryPrintsWhatItMeasuredAndFails) {
    if (under_sanitizer()) GTEST_SKIP() << "ulimit -v leaves no room for a sanitizer's shadow memory";
    write_file(file("f"), random_bytes(1 << 20));
    // The CPU stage needs two buffers of --size; the file stage little. glibc gives each thread
    // that allocates an arena of 64 MiB of address space, up to 8 per core: two arenas keep the
    // disk ceilings' 32 threads within the limit on a machine of any size.
    Outcome r =
        run("ulimit -v 1500000 && MALLOC_ARENA_MAX=2 $AESGPU bench --backend cpu --size 1G --reps 1 --key-bits 128 "
            "--direction encrypt --file f");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("file copy (cp)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("failed: cpu: not enough memory"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.rfind("aesgpu: cpu: not enough memory", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// --- found by trying to break the above ------------------------------------------------------------

TEST_F(Cli, CtrlZAtThePromptHidesThePassphraseAgainAfterFg) {
    if (!have_command("script")) GTEST_SKIP() << "util-linux `script` is not installed";
    write_file(file("p"), random_bytes(100));
    // An interactive shell under `script`: start aesgpu, stop it at the prompt, bring it back, type.
    Outcome r = run("(sleep 1; printf '$AESGPU encrypt -q p -o z.aes\n'; sleep 1; printf '\032'; sleep 0.5; "
                    "printf 'fg\n'; sleep 0.5; printf 'SECRETPW\n'; sleep 0.5; printf 'SECRETPW\n'; sleep 1; "
                    "printf 'exit\n') | timeout 20 script -qec 'bash --norc --noprofile -i' /dev/null");
    EXPECT_NE(r.out.find("password:"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("SECRETPW"), std::string::npos) << "the passphrase was echoed after fg:\n" << r.out;
    EXPECT_TRUE(std::filesystem::exists(file("z.aes"))) << r.out;
}

TEST_F(Cli, AStandardErrorWhoseReaderLeftCostsOnlyTheLogLines) {
    const Bytes plain = random_bytes(3 << 20);
    write_file(file("p"), plain);
    // stderr is a pipe whose reader exits at once: the log lines find no reader (EPIPE).
    Outcome r = run("$AESGPU encrypt -v --progress -K " + kKey128 +
                    " p -o out 2>&1 >/dev/null | (exec 0<&-); echo status=${PIPESTATUS[0]}");
    EXPECT_EQ(r.out, "status=0\n") << r.err;
    EXPECT_TRUE(read_file(file("out")) == ecb(plain));
}

TEST_F(Cli, WhatInfoHelpAndBenchPrintMustArrive) {
    for (const std::string command : {"$AESGPU info", "$AESGPU --help", "$AESGPU encrypt --help", "$AESGPU --version",
                                      "$AESGPU bench --backend cpu --size 1M --reps 1 --key-bits 128 --json"}) {
        Outcome full = run(command + " > /dev/full");
        EXPECT_EQ(full.status, 1) << command;
        EXPECT_EQ(full.err.rfind("aesgpu: error writing standard output", 0), 0u) << command << ": " << full.err;
        Outcome closed = run(command + " >&-");
        EXPECT_EQ(closed.status, 1) << command;
    }
}

TEST_F(Cli, StandardOutputNamedAsAFileIsStandardOutput) {
    write_file(file("p"), random_bytes(1000));
    const Bytes expected = ecb(read_file(file("p")));
    Outcome r = run("$AESGPU encrypt -q -K " + kKey128 + " p -o /dev/stdout > so.aes");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(read_file(file("so.aes")) == expected);
    r = run("echo PREVIOUS > log && $AESGPU encrypt -q -K " + kKey128 + " p -o /dev/stdout >> log");
    EXPECT_EQ(r.status, 0) << r.err;
    Bytes appended{'P', 'R', 'E', 'V', 'I', 'O', 'U', 'S', '\n'};
    appended.insert(appended.end(), expected.begin(), expected.end());
    EXPECT_TRUE(read_file(file("log")) == appended) << "`>>` must append, as -c does";
}

TEST_F(Cli, AnInputThatChangesSizeWhileReadFailsTheRun) {
    write_file(file("p"), random_bytes(4 << 20));
    // 16-byte chunks keep the run going long enough to cut the file under it.
    Outcome r = run("$AESGPU encrypt -q --backend cpu -T 1 --io-threads 1 --chunk-size 16 -K " + kKey128 +
                    " p -o out & pid=$!; sleep 0.2; truncate -s 1M p; wait $pid; echo status=$?");
    EXPECT_EQ(r.out, "status=1\n") << r.err;
    EXPECT_NE(r.err.find("'p' changed size while it was read"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(file("out")));
}

// Output that cannot be withdrawn (standard output) has had the data by the time the change is
// found: the message says so, instead of "nothing was written".
TEST_F(Cli, AnInputThatChangesSizeSaysWhatBecameOfAnOutputItCannotWithdraw) {
    write_file(file("p"), random_bytes(4 << 20));
    Outcome r = run("$AESGPU encrypt -q --backend cpu -T 1 --io-threads 1 --chunk-size 16 -K " + kKey128 +
                    " p -c > out & pid=$!; until [ -s out ] || ! kill -0 $pid 2>/dev/null; do sleep 0.01; done; "
                    "truncate -s 1M p; wait $pid; echo status=$?");
    EXPECT_EQ(r.out, "status=1\n") << r.err;
    EXPECT_NE(r.err.find("'p' changed size while it was read (4194304 bytes at the start, "), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("read); what was written to standard output matches no one version of it\n"),
              std::string::npos)
        << r.err;
}

// Files of proc and sysfs say 0 or 4096 bytes and make their contents as they are read: they are
// read to their end like a pipe, not held to a size they never had.
TEST_F(Cli, ProcAndSysFilesAreReadToTheirEnd) {
    for (const std::string source :
         {"/proc/version", "/proc/self/mounts", "/sys/kernel/mm/transparent_hugepage/enabled"}) {
        if (!std::filesystem::exists(source)) continue;
        SCOPED_TRACE(source);
        for (const std::string &mode : {std::string(" --mode gcm"), std::string(" --mode ecb"),
                                        std::string(" --mode ctr --iv 000102030405060708090a0b0c0d0e0f")}) {
            SCOPED_TRACE(mode);
            // As a file, through `<`, and split over I/O threads: each decrypts to what cat reads.
            for (const std::string &how :
                 {"-c " + source + " > out", "< " + source + " > out", "--io-threads 4 " + source + " -o out -f"}) {
                const Outcome r = run("$AESGPU encrypt -q" + mode + " -K " + kKey128 + " " + how +
                                      " && $AESGPU "
                                      "decrypt -q" +
                                      mode + " -K " + kKey128 + " -c out > back && cat " + source +
                                      " > expected && cmp back expected");
                EXPECT_EQ(r.status, 0) << how << ": " << r.err;
            }
        }
    }
}

TEST_F(Cli, LogLinesCannotCorruptAnOutputThatStandardErrorSharesWithIt) {
    write_file(file("p"), random_bytes(1000));
    for (const std::string redirect : {"> m.aes 2>&1", "2>&1 | cat > m.aes"}) {
        Outcome r = run("$AESGPU encrypt -K " + kKey128 + " -c p " + redirect + "; echo status=${PIPESTATUS[0]}");
        EXPECT_EQ(r.out, "status=2\n") << redirect;
        EXPECT_NE(slurp(file("m.aes")).find("standard error goes where the output goes"), std::string::npos)
            << redirect;
    }
    EXPECT_EQ(run("$AESGPU encrypt -q -K " + kKey128 + " p -o ''").status, 2) << "-o '' is an unset variable";
}

TEST_F(Cli, ParseErrorsQuoteNothingRaw) {
    Outcome r = run("$AESGPU encrypt -K " + kKey128 + " $'-x\\e[31mRED\\nl2'");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.find('\033'), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// --- also: `--` after files, names that are not plain text --------------------------------------

TEST_F(Cli, DoubleDashWorksAfterFilesToo) {
    write_file(file("a b"), random_bytes(100));
    write_file(file("-dash"), random_bytes(100));
    Outcome r = run("$AESGPU encrypt -q -K " + kKey128 + " 'a b' -- -dash");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(std::filesystem::exists(file("a b.aes")));
    EXPECT_TRUE(std::filesystem::exists(file("-dash.aes")));
}

TEST_F(Cli, FileNamesInMessagesCannotBreakLinesOrDriveTheTerminal) {
    Outcome r = run("$AESGPU encrypt -q -K " + kKey128 + " $'two\\nlines' $'\\e[31mred'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("aesgpu: cannot open $'two\\nlines': No such file or directory\n"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("aesgpu: cannot open $'\\E[31mred'"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\033'), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
}

} // namespace
} // namespace aesgpu::test
