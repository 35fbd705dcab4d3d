// SPDX-License-Identifier: Apache-2.0
// zstd's habits for many files (issue 28): -r walks directories (regular files only, symbolic
// links met on the way not followed, decrypt takes only names with the suffix), --output-dir puts
// every output in one directory and refuses two inputs of one output name before any work,
// --filelist reads the names (one a line, NUL-separated with --null, '-' for standard input), and
// encrypt skips inputs that already end in the suffix. The rules of every run hold for the files
// found: decrypt --rm only for what reads as GCM, never the key file as an input or output.
#include "support/cli_fixture.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

namespace aesgpu::test {
namespace {

namespace fs = std::filesystem;

const std::string kKey = " -K " + kKey128;
// Encrypting: GCM, which decrypt recognises without --mode (a random ECB file reads as GCM one
// time in 256), and no ECB warning.
const std::string kGcm = " --mode gcm" + kKey;

class ManyFilesCli : public Cli {
protected:
    bool exists(const std::string &name) const { return fs::exists(fs::symlink_status(file(name))); }
    void write(const std::string &name, std::size_t bytes) const {
        fs::create_directories(fs::path(file(name)).parent_path());
        write_file(file(name), random_bytes(bytes));
    }
};

// tree/a, tree/sub/b, tree/sub/deeper/c (regular files), tree/sub/link (a link to outside/x),
// tree/fifo (a named pipe, which would block a reader): -r takes the three files and no more.
TEST_F(ManyFilesCli, DashREncryptsAndDecryptsATreeOfRegularFilesOnly) {
    write("tree/a", 1000);
    write("tree/sub/b", 70000);
    write("tree/sub/deeper/c", 0);
    write("outside/x", 100);
    fs::create_symlink("../../outside/x", file("tree/sub/link"));
    ASSERT_EQ(::mkfifo(file("tree/fifo").c_str(), 0600), 0);
    ASSERT_EQ(run("cp -r tree orig").status, 0);

    const Outcome encrypted = run("timeout 60 $AESGPU encrypt -r tree" + kGcm);
    EXPECT_EQ(encrypted.status, 0) << encrypted.err;
    EXPECT_EQ(encrypted.err, "aesgpu: warning: -r: 'tree/sub/link' is a symbolic link: not followed (name it to take "
                             "it)\naesgpu: encrypted 3 of 3 files\n")
        << "a link left out is said without -v";
    for (const char *name : {"tree/a.aes", "tree/sub/b.aes", "tree/sub/deeper/c.aes"}) EXPECT_TRUE(exists(name));
    EXPECT_FALSE(exists("tree/sub/link.aes")) << "a link met on the way is not followed";
    EXPECT_FALSE(exists("outside/x.aes"));
    EXPECT_FALSE(exists("tree/fifo.aes"));

    ASSERT_EQ(run("rm tree/a tree/sub/b tree/sub/deeper/c").status, 0);
    const Outcome decrypted = run("timeout 60 $AESGPU decrypt -r --rm tree" + kKey);
    EXPECT_EQ(decrypted.status, 0) << decrypted.err;
    EXPECT_EQ(decrypted.err, "aesgpu: decrypted 3 of 3 files\n") << "decrypt -r would not take 'link' anyway";
    EXPECT_EQ(run("cd tree && find . | sort").out, run("cd orig && find . | sort").out) << "no .aes file left";
    for (const char *name : {"a", "sub/b", "sub/deeper/c"}) {
        EXPECT_EQ(slurp(file("tree/") + name), slurp(file("orig/") + name)) << name;
    }

    // A link named on the command line is followed.
    const Outcome named = run("timeout 60 $AESGPU encrypt -r tree/sub/link" + kGcm);
    EXPECT_EQ(named.status, 0) << named.err;
    EXPECT_TRUE(exists("tree/sub/link.aes"));
}

// A directory -r cannot read (mode 000) is said before any work; the rest of the tree is done,
// its files are left as they are, and the run fails at its end (as gzip -r does), even with --rm.
// Before, the whole run stopped with nothing done. Run as another user where the tests run as
// root, which reads any directory.
TEST_F(ManyFilesCli, DashRGoesOnPastADirectoryItCannotReadAndFailsAtTheEnd) {
    std::string as_user;
    if (::geteuid() == 0) {
        if (!have_command("setpriv")) GTEST_SKIP() << "as root, needs setpriv to run as another user";
        as_user = "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all ";
        ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
    }
    write("tree/a", 1000);
    write("tree/locked/b", 2000);
    write("tree/z/c", 3000);
    ASSERT_EQ(run("cp -r tree orig && chown -R 65534 tree 2>/dev/null; chmod 000 tree/locked").status, 0);

    const Outcome r = run(as_user + "timeout 60 $AESGPU encrypt -r --rm tree" + kGcm);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.err, "aesgpu: -r cannot read directory 'tree/locked': Permission denied: its files were left as "
                     "they are\naesgpu: encrypted 2 of 2 files\n");
    EXPECT_TRUE(exists("tree/a.aes"));
    EXPECT_TRUE(exists("tree/z/c.aes"));
    EXPECT_FALSE(exists("tree/a"));
    ASSERT_EQ(::chmod(file("tree/locked").c_str(), 0755), 0);
    EXPECT_EQ(slurp(file("tree/locked/b")), slurp(file("orig/locked/b"))) << "left as it was";
    EXPECT_FALSE(exists("tree/locked/b.aes"));

    // Nothing else to do: said, and still a failure.
    ASSERT_EQ(::chmod(file("tree/locked").c_str(), 0), 0);
    const Outcome none = run(as_user + "timeout 60 $AESGPU encrypt -r tree/locked" + kGcm);
    EXPECT_EQ(none.status, 1) << none.err;
    EXPECT_EQ(none.err, "aesgpu: -r cannot read directory 'tree/locked': Permission denied: its files were left "
                        "as they are\naesgpu: warning: no files to encrypt\n");
    ASSERT_EQ(::chmod(file("tree/locked").c_str(), 0755), 0); // for the fixture to remove it
}

TEST_F(ManyFilesCli, DecryptDashRTakesOnlyNamesWithTheSuffix) {
    write("d/one", 100);
    write("d/sub/two", 200);
    ASSERT_EQ(run("$AESGPU encrypt -q -r d" + kGcm + " && mv d/one orig-one && mv d/sub/two orig-two").status, 0);
    write("d/notes.txt", 50); // not ciphertext: left alone
    const Outcome r = run("$AESGPU decrypt -r d" + kKey);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "aesgpu: decrypted 2 of 2 files\n");
    EXPECT_EQ(slurp(file("d/one")), slurp(file("orig-one")));
    EXPECT_EQ(slurp(file("d/sub/two")), slurp(file("orig-two")));
    EXPECT_FALSE(exists("d/notes")) << "only names that end in the suffix";

    const Outcome other_suffix = run("$AESGPU decrypt -r -S .enc d" + kKey);
    EXPECT_EQ(other_suffix.status, 0);
    EXPECT_EQ(other_suffix.err, "aesgpu: warning: no files to decrypt (decrypt -r takes the files whose names end in "
                                "'.enc')\n");
}

TEST_F(ManyFilesCli, OutputDirIsFlatAndTwoInputsOfOneNameRefuseTheRunBeforeAnyWork) {
    write("a/x", 100);
    write("b/x", 200);
    write("b/y", 300);
    fs::create_directory(file("out"));
    for (const std::string force : {"", " -f"}) {
        SCOPED_TRACE(force);
        const Outcome r = run("$AESGPU encrypt -r --output-dir out a b" + force + kKey);
        EXPECT_EQ(r.status, 2);
        EXPECT_EQ(r.err, "aesgpu: 'a/x' and 'b/x' would both be written to 'out/x.aes' (--output-dir keeps file "
                         "names only): rename one, or run them apart\n");
        EXPECT_EQ(count_entries(file("out")), 0u) << "nothing written, not even the first";
    }
    const Outcome encrypted = run("$AESGPU encrypt -q --output-dir out a/x b/y" + kGcm);
    EXPECT_EQ(encrypted.status, 0) << encrypted.err;
    EXPECT_TRUE(exists("out/x.aes") && exists("out/y.aes"));
    fs::create_directory(file("back"));
    const Outcome decrypted = run("$AESGPU decrypt -r --output-dir back out" + kKey);
    EXPECT_EQ(decrypted.status, 0) << decrypted.err;
    EXPECT_EQ(slurp(file("back/x")), slurp(file("a/x")));
    EXPECT_EQ(slurp(file("back/y")), slurp(file("b/y")));

    const Outcome missing = run("$AESGPU encrypt --output-dir nowhere a/x" + kKey);
    EXPECT_EQ(missing.status, 2);
    EXPECT_EQ(missing.err, "aesgpu: --output-dir 'nowhere' is not a directory: make it first (mkdir -p 'nowhere')\n");
}

// zstd's --output-dir-mirror: the outputs keep the inputs' paths under DIR, which are made as
// needed; a path that climbs out with '..' cannot be mirrored.
TEST_F(ManyFilesCli, OutputDirMirrorKeepsTheTree) {
    write("tree/a", 1000);
    write("tree/sub/b", 3000);
    fs::create_directory(file("out"));
    fs::create_directory(file("back"));
    const Outcome encrypted = run("$AESGPU encrypt -r tree --output-dir-mirror out" + kGcm);
    EXPECT_EQ(encrypted.status, 0) << encrypted.err;
    EXPECT_TRUE(exists("out/tree/a.aes") && exists("out/tree/sub/b.aes"));
    EXPECT_FALSE(exists("tree/a.aes"));
    const Outcome decrypted = run("cd out && $AESGPU decrypt -r ./tree --output-dir-mirror ../back" + kKey);
    EXPECT_EQ(decrypted.status, 0) << decrypted.err;
    EXPECT_EQ(slurp(file("back/tree/sub/b")), slurp(file("tree/sub/b")));
    EXPECT_EQ(slurp(file("back/tree/a")), slurp(file("tree/a")));
    const Outcome climbs = run("cd tree && $AESGPU encrypt ../tree/a --output-dir-mirror ../out" + kGcm);
    EXPECT_EQ(climbs.status, 2) << climbs.err;
    EXPECT_NE(climbs.err.find("--output-dir-mirror cannot mirror '../tree/a': its path climbs out with '..'"),
              std::string::npos)
        << climbs.err;
    const Outcome both = run("$AESGPU encrypt tree/a --output-dir out --output-dir-mirror out" + kGcm);
    EXPECT_EQ(both.status, 2) << both.err;
}

TEST_F(ManyFilesCli, AFileListNamesTheInputsOneALineOrNulSeparatedOrOnStandardInput) {
    write("with space", 100);
    write("plain", 200);
    write("dir/inner", 300);
    ASSERT_EQ(run("printf 'with space\\n\\nplain\\n' > list").status, 0);
    const Outcome lines = run("$AESGPU encrypt --filelist list" + kGcm);
    EXPECT_EQ(lines.status, 0) << lines.err;
    EXPECT_EQ(lines.err, "aesgpu: encrypted 2 of 2 files\n");
    EXPECT_TRUE(exists("with space.aes") && exists("plain.aes"));

    fs::create_directory(file("back"));
    const Outcome nul = run("printf 'with space.aes\\0plain.aes\\0' | $AESGPU decrypt --filelist - --null "
                            "--output-dir back" +
                            kKey);
    EXPECT_EQ(nul.status, 0) << nul.err;
    EXPECT_EQ(slurp(file("back/with space")), slurp(file("with space")));
    EXPECT_EQ(slurp(file("back/plain")), slurp(file("plain")));

    // With -r, a directory in the list is walked; without, it is refused.
    const Outcome walked = run("echo dir | $AESGPU encrypt -r --filelist -" + kGcm);
    EXPECT_EQ(walked.status, 0) << walked.err;
    EXPECT_TRUE(exists("dir/inner.aes"));
    EXPECT_EQ(run("echo dir | $AESGPU encrypt --filelist -" + kKey).status, 2);
}

// A file list is names: a NUL byte in a list of lines (a name cut there would lose its suffix),
// a line longer than a path, or more names than a run takes is refused before any work, with the
// line it is in; /dev/zero is refused at once, in bounded memory.
TEST_F(ManyFilesCli, AFileListIsBoundedAndANulByteInALineIsRefused) {
    write("a", 100);
    write("a.txt", 100);
    fs::create_directory(file("out"));
    const struct {
        std::string list;
        std::string options;
        std::string message;
    } cases[] = {
        {"printf 'a.txt\\na\\0.txt\\n'", "", "the file list 'list' has a NUL byte in line 2"},
        {"printf 'a.txt\\na\\0.txt\\n'", "", "give --null for NUL-ended names"},
        {"head -c 5000 /dev/zero | tr '\\0' x", "", "the file list 'list': line 1 is longer than a path may be"},
        {"head -c 5000 /dev/zero | tr '\\0' x", " --null", "the file list 'list': name 1 is longer than a path"},
        {"yes a | head -n 1000001", "", "the file list 'list' has more than 1000000 names"},
        {"head -c 1000001 /dev/zero", " --null", "the file list 'list' has more than 1000000 names"},
    };
    for (const auto &[list, options, message] : cases) {
        SCOPED_TRACE(list + options);
        ASSERT_EQ(run(list + " > list").status, 0);
        const Outcome r = run("$AESGPU encrypt --output-dir out --filelist list" + options + kGcm);
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_TRUE(fs::is_empty(file("out")));
    }
    for (const std::string options : {"", " --null"}) {
        // About 1 GB of address space (a sanitizer's shadow memory needs terabytes).
        const std::string limit = under_sanitizer() ? "" : "ulimit -v 1000000; ";
        const Outcome zero = run(limit + "timeout 20 $AESGPU encrypt --filelist /dev/zero" + options + kGcm);
        EXPECT_EQ(zero.status, 2) << zero.err;
    }
}

TEST_F(ManyFilesCli, StandardInputIsReadForOneThingOnly) {
    write("f", 100);
    ASSERT_EQ(run("echo f > list && $AESGPU keygen -o my.key").status, 0);
    const struct {
        std::string arguments;
        std::string message;
    } cases[] = {
        {"encrypt --filelist - -" + kKey,
         "--filelist - reads the names from standard input, and so would the data ('-'): give one of them a file"},
        {"encrypt --filelist - --key-file -", "--filelist - reads the names from standard input, and so would "
                                              "--key-file -: give one of them a file"},
        {"encrypt --filelist - -p stdin", "and so would -p stdin"},
        {"encrypt --filelist list -" + kKey, "'-' (standard input) cannot be an input with --filelist: name files"},
        {"encrypt -r" + kKey, "-r walks the directories given: name one (standard input is none)"},
        {"encrypt -r -" + kKey, "'-' (standard input) cannot be an input with -r: name files"},
        {"encrypt -r f -o g" + kKey, "-r gives each file its own output: drop -o/-c (--output-dir DIR puts them all"},
        {"encrypt --filelist list -c" + kKey, "--filelist gives each file its own output: drop -o/-c"},
        {"encrypt --null f" + kKey, "--null says how --filelist's names end: give --filelist FILE"},
        {"encrypt --output-dir ." + kKey, "--output-dir names output files; standard input has none"},
        {"encrypt -r --mode ctr --iv " + kKey128 + " f" + kKey, "would encrypt every file -r finds with the same"},
        {"encrypt --filelist nolist" + kKey, "cannot open the file list 'nolist': No such file or directory"},
    };
    for (const auto &[arguments, message] : cases) {
        SCOPED_TRACE(arguments);
        const Outcome r = run("echo f | $AESGPU " + arguments);
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line";
        EXPECT_FALSE(exists("f.aes"));
    }
}

TEST_F(ManyFilesCli, EncryptSkipsInputsThatEndInTheSuffixAndSaysSo) {
    write("a", 100);
    write("b.aes", 100);
    const Outcome r = run("$AESGPU encrypt a b.aes" + kGcm);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "aesgpu: warning: 'b.aes' already ends in '.aes': skipped (to encrypt it anyway, give -o OUT or "
                     "another -S)\naesgpu: encrypted 1 of 2 files, 1 skipped\n");
    EXPECT_TRUE(exists("a.aes"));
    EXPECT_FALSE(exists("b.aes.aes"));
    // One file, skipped: the warning alone, exit 0. -o names the output: then it is encrypted.
    const Outcome alone = run("$AESGPU encrypt b.aes" + kGcm);
    EXPECT_EQ(alone.status, 0);
    EXPECT_NE(alone.err.find("skipped"), std::string::npos) << alone.err;
    EXPECT_EQ(run("$AESGPU encrypt b.aes -o twice" + kGcm).status, 0);
    EXPECT_TRUE(exists("twice"));
    // A failure beside a skip: the summary counts both, the exit status is the failure's.
    const Outcome failed = run("$AESGPU encrypt missing b.aes" + kGcm);
    EXPECT_EQ(failed.status, 1);
    EXPECT_NE(failed.err.find("aesgpu: encrypted 0 of 2 files, 1 failed, 1 skipped\n"), std::string::npos)
        << failed.err;
}

// A named input is never replaced by another's output, skipped or not: encrypt -f a a.aes skips
// a.aes (it ends in the suffix) and used to replace it with a's ciphertext, exit 0.
TEST_F(ManyFilesCli, AnInputSkippedForItsSuffixIsNeverAnotherInputsOutput) {
    write("a", 1000);
    write("a.aes", 2000);
    const std::string before = slurp(file("a.aes"));
    const Outcome r = run("$AESGPU encrypt -f a a.aes" + kGcm);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("the output of 'a' would be 'a.aes', named in this run (and skipped for its suffix)"),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(slurp(file("a.aes")) == before) << "a.aes was replaced";
    // Found by -r and skipped, it is no input: a second run with -f encrypts the tree again.
    write("e/b", 500);
    const Outcome twice = run("$AESGPU encrypt -q -r e" + kGcm + " && $AESGPU encrypt -q -f -r e" + kGcm);
    EXPECT_EQ(twice.status, 0) << twice.err;
}

// decrypt -r: a file named just the suffix has no name to decrypt to: said and counted, not
// left out without a word.
TEST_F(ManyFilesCli, DecryptDashRSaysItLeavesOutAFileNamedJustTheSuffix) {
    write("d/x", 100);
    ASSERT_EQ(run("$AESGPU encrypt -q d/x" + kGcm + " && cp d/x.aes d/.aes && rm d/x").status, 0);
    const Outcome r = run("$AESGPU decrypt -r d" + kKey);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("'d/.aes' is named just '.aes': decrypting it would leave no name; skipped (give it with "
                         "-o OUT)"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("decrypted 1 of 2 files, 1 skipped"), std::string::npos) << r.err;
    EXPECT_TRUE(exists("d/x"));
}

// A GPU named with --devices that is not there is an error with every backend, not a run on the
// CPU: here there is no GPU at all (a CPU-only build, or no driver, or no device 63).
TEST_F(ManyFilesCli, AGpuNamedThatIsNotThereIsAnError) {
    write("p", 1000);
    for (const std::string backend : {"", " --backend auto", " --backend all", " --backend gpu"}) {
        SCOPED_TRACE(backend);
        const Outcome r = run("$AESGPU encrypt --devices 63" + backend + " p -o out" + kGcm);
        EXPECT_EQ(r.status, 1) << r.err;
        EXPECT_NE(r.err.find("no usable CUDA device"), std::string::npos) << r.err;
        EXPECT_FALSE(exists("out"));
    }
    EXPECT_EQ(run("$AESGPU encrypt p -o out" + kGcm).status, 0) << "none named: the CPU stands in";
}

TEST_F(ManyFilesCli, ADirectoryWithoutDashRSaysWhatToDo) {
    write("a", 100);
    write("photos/p", 100);
    const Outcome encrypt = run("$AESGPU encrypt a photos" + kKey);
    EXPECT_EQ(encrypt.status, 2);
    EXPECT_EQ(encrypt.err,
              "aesgpu: 'photos' is a directory (use -r, or tar it: tar c 'photos' | aesgpu encrypt ...)\n");
    EXPECT_FALSE(exists("a.aes")) << "refused before any work";
    const Outcome decrypt = run("$AESGPU decrypt photos" + kKey);
    EXPECT_EQ(decrypt.status, 2);
    EXPECT_EQ(decrypt.err, "aesgpu: 'photos' is a directory (use -r to decrypt the files under it that end in "
                           "'.aes')\n");
}

// decrypt --rm without --mode is judged per file: -r's files too.
TEST_F(ManyFilesCli, DecryptDashRRmRemovesWhatReadsAsGcmAndRefusesEcbPerFile) {
    // Zeros: the ECB ciphertext is always the same, and does not start as a GCM file would.
    fs::create_directory(file("d"));
    write_file(file("d/ecb"), Bytes(100));
    write("d/gcm", 100);
    ASSERT_EQ(run("$AESGPU encrypt -q --mode ecb --rm d/ecb" + kKey + " && $AESGPU encrypt -q d/gcm" + kGcm +
                  " && mv d/gcm gcm.orig")
                  .status,
              0);
    const Outcome r = run("$AESGPU decrypt -r --rm d" + kKey);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("'d/ecb.aes' reads as --mode ecb"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("decrypted 1 of 2 files, 1 failed"), std::string::npos) << r.err;
    EXPECT_TRUE(exists("d/ecb.aes")) << "kept";
    EXPECT_FALSE(exists("d/ecb"));
    EXPECT_FALSE(exists("d/gcm.aes")) << "GCM proved the key: removed";
    EXPECT_EQ(slurp(file("d/gcm")), slurp(file("gcm.orig")));
}

// The key file is never an input or an output, however it was found.
TEST_F(ManyFilesCli, TheKeyFileFoundByDashROrAFileListRefusesTheRun) {
    write("d/data", 100);
    ASSERT_EQ(run("$AESGPU keygen -o d/my.key && echo d/my.key > list && mkdir out && cp d/my.key out/data.aes").status,
              0);
    const std::string refused = "'d/my.key' is the key file (--key-file 'd/my.key'), which cannot be an input too";
    for (const std::string &arguments : {std::string("-r d"), std::string("--filelist list d/data")}) {
        SCOPED_TRACE(arguments);
        const Outcome r = run("$AESGPU encrypt --rm --key-file d/my.key " + arguments);
        EXPECT_EQ(r.status, 2);
        EXPECT_NE(r.err.find(refused), std::string::npos) << r.err;
        EXPECT_TRUE(exists("d/my.key") && exists("d/data"));
        EXPECT_FALSE(exists("d/data.aes")) << "nothing done";
    }
    const Outcome output = run("$AESGPU encrypt -f --output-dir out --key-file out/data.aes d/data");
    EXPECT_EQ(output.status, 2);
    EXPECT_NE(output.err.find("the output 'out/data.aes' is the key file"), std::string::npos) << output.err;
}

} // namespace
} // namespace aesgpu::test
