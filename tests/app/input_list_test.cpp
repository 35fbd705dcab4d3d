// SPDX-License-Identifier: Apache-2.0
// The inputs of a run as zstd finds them: a file list's names, -r's walk (regular files, in name
// order, symbolic links met on the way not followed), decrypt -r's suffix, encrypt's skip of
// names that end in the suffix, a directory without -r, and --output-dir's collisions.
#include "app/input_list.hpp"
#include "common/errors.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace aesgpu::test {
namespace {

using Names = std::vector<std::string>;

Bytes to_bytes(const std::string &text) {
    return Bytes(text.begin(), text.end());
}

CipherOptions options_for(Direction direction, bool recursive = true) {
    CipherOptions options;
    options.direction = direction;
    options.recursive = recursive;
    return options;
}

// Expects a UsageError whose text holds `words`.
template <typename Call>
void expect_usage_error(Call call, const std::string &words) {
    try {
        call();
        ADD_FAILURE() << "no error; expected one saying " << words;
    } catch (const UsageError &e) {
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
}

TEST(InputList, AFileListHoldsOneNameALineOrNulSeparatedNames) {
    EXPECT_EQ(parse_file_list("a\nb c\n\n d \nlast", false), (Names{"a", "b c", " d ", "last"}));
    EXPECT_EQ(parse_file_list("", false), Names{});
    EXPECT_EQ(parse_file_list("\n\n", false), Names{});
    using std::string_literals::operator""s;
    EXPECT_EQ(parse_file_list("a\nb\0c\0\0"s, true), (Names{"a\nb", "c"}));
    EXPECT_EQ(parse_file_list("one\n"s, true), Names{"one\n"}) << "with --null a newline is part of a name";
}

// Fed in pieces as a read gives them: a name split across pieces is one name, and the bounds
// count across pieces too.
TEST(InputList, AFileListFedInPiecesGivesTheSameNamesAndTheSameBounds) {
    using std::string_literals::operator""s;
    const std::string text = "first\nsecond name\n\nthird";
    for (std::size_t piece = 1; piece <= text.size(); ++piece) {
        FileListParser parser(false, "the list");
        for (std::size_t at = 0; at < text.size(); at += piece) parser.feed(std::string_view(text).substr(at, piece));
        EXPECT_EQ(parser.finish(), (Names{"first", "second name", "third"})) << piece;
    }
    expect_usage_error(
        [] {
            FileListParser parser(false, "the list");
            parser.feed("a\nb");
            parser.feed("\0c\n"s);
        },
        "the list has a NUL byte in line 2");
    expect_usage_error(
        [] {
            FileListParser parser(true, "the list");
            parser.feed(std::string(kMaxListedNameBytes, 'x'));
            parser.feed("y");
        },
        "name 1 is longer than a path may be (4095 bytes)");
    FileListParser longest(true, "the list");
    longest.feed(std::string(kMaxListedNameBytes, 'x') + '\0');
    EXPECT_EQ(longest.finish().size(), 1u);
    expect_usage_error(
        [] {
            FileListParser parser(false, "the list");
            parser.feed(std::string(kMaxListedNames, '\n'));
            parser.feed("\n");
        },
        "has more than 1000000 names");
    expect_usage_error(
        [] {
            FileListParser parser(false, "the list");
            const std::string line = std::string(4000, 'n') + '\n';
            for (std::size_t bytes = 0; bytes <= kMaxListedBytes; bytes += 4000) parser.feed(line);
        },
        "holds more than 128 MiB of names");
    FileListParser most(false, "the list");
    most.feed(std::string(kMaxListedNames - 1, '\n') + "last");
    EXPECT_EQ(most.finish(), Names{"last"});
}

Names names_of(const std::vector<SkippedInput> &skipped) {
    Names names;
    for (const SkippedInput &input : skipped) names.push_back(input.name);
    return names;
}

class InputTree : public testing::Test {
protected:
    // d/b, d/a.aes, d/sub/c, d/sub/deeper/e.aes, d/link-to-file, d/link-to-dir, d/fifo; outside/x.
    void SetUp() override {
        namespace fs = std::filesystem;
        fs::create_directories(path("d/sub/deeper"));
        fs::create_directories(path("outside"));
        for (const char *name : {"d/b", "d/a.aes", "d/sub/c", "d/sub/deeper/e.aes", "outside/x"}) {
            write_file(path(name), Bytes(3));
        }
        fs::create_symlink(path("outside/x"), path("d/link-to-file"));
        fs::create_directory_symlink(path("outside"), path("d/link-to-dir"));
        ASSERT_EQ(::mkfifo(path("d/fifo").c_str(), 0600), 0);
    }
    std::string path(const std::string &name) const { return dir.file(name); }
    Names paths(const Names &names) const {
        Names full;
        for (const std::string &name : names) full.push_back(path(name));
        return full;
    }
    TempDir dir;
};

TEST_F(InputTree, EncryptDashRTakesTheRegularFilesInNameOrderAndSkipsSuffixedOnes) {
    const InputList list = expand_inputs(options_for(Direction::encrypt), {path("d")});
    EXPECT_EQ(list.inputs, paths({"d/b", "d/sub/c"})) << "no link followed, no FIFO, each directory sorted";
    EXPECT_EQ(names_of(list.skipped), paths({"d/a.aes", "d/sub/deeper/e.aes"}));
}

TEST(InputList, EachDirectoryIsTakenInNameOrder) {
    // Made in an order no file system lists them in by chance; a subdirectory is walked in its place.
    const TempDir dir;
    std::filesystem::create_directories(dir.file("d/m"));
    Names names{"m"}; // each directory's entries sorted by name: "m" comes before "m-file"
    for (const char letter : std::string("qwertyuiopasdfghjklzxcvbnm")) {
        names.push_back(std::string(1, letter) + "-file");
        write_file(dir.file("d/" + names.back()), Bytes(1));
    }
    write_file(dir.file("d/m/inner"), Bytes(1));
    std::sort(names.begin(), names.end());
    Names expected;
    for (const std::string &name : names) expected.push_back(dir.file("d/" + (name == "m" ? "m/inner" : name)));
    EXPECT_EQ(expand_inputs(options_for(Direction::encrypt), {dir.file("d")}).inputs, expected);
}

TEST_F(InputTree, DecryptDashRTakesOnlyNamesWithTheSuffix) {
    const InputList list = expand_inputs(options_for(Direction::decrypt), {path("d")});
    EXPECT_EQ(list.inputs, paths({"d/a.aes", "d/sub/deeper/e.aes"}));
    EXPECT_TRUE(list.skipped.empty());
    CipherOptions enc = options_for(Direction::decrypt);
    enc.suffix = ".enc";
    EXPECT_TRUE(expand_inputs(enc, {path("d")}).inputs.empty());
    // A FILE argument is taken as given, suffix or not (its output name is its own problem).
    EXPECT_EQ(expand_inputs(options_for(Direction::decrypt), {path("d/b")}).inputs, paths({"d/b"}));
}

TEST_F(InputTree, ALinkGivenIsFollowed) {
    const InputList list =
        expand_inputs(options_for(Direction::encrypt), {path("d/link-to-dir"), path("d/link-to-file")});
    EXPECT_EQ(list.inputs, paths({"d/link-to-dir/x", "d/link-to-file"}));
}

TEST_F(InputTree, EncryptSkipsSuffixedNamesOnlyWhereTheOutputNameIsMadeFromThem) {
    const InputList named = expand_inputs(options_for(Direction::encrypt, false), {path("d/a.aes"), path("d/b")});
    EXPECT_EQ(named.inputs, paths({"d/b"}));
    EXPECT_EQ(names_of(named.skipped), paths({"d/a.aes"}));
    CipherOptions with_output = options_for(Direction::encrypt, false);
    with_output.output = path("out");
    EXPECT_EQ(expand_inputs(with_output, {path("d/a.aes")}).inputs, paths({"d/a.aes"}));
    CipherOptions to_stdout = options_for(Direction::encrypt, false);
    to_stdout.to_stdout = true;
    EXPECT_EQ(expand_inputs(to_stdout, {path("d/a.aes")}).inputs, paths({"d/a.aes"}));
    CipherOptions other_suffix = options_for(Direction::encrypt, false);
    other_suffix.suffix = ".enc";
    EXPECT_EQ(expand_inputs(other_suffix, {path("d/a.aes")}).inputs, paths({"d/a.aes"}));
}

TEST_F(InputTree, ADirectoryWithoutDashRIsAUsageErrorThatSaysWhatToDo) {
    const CipherOptions encrypt = options_for(Direction::encrypt, false);
    const InputList list = expand_inputs(encrypt, {path("d/b"), path("d")});
    EXPECT_EQ(list.inputs, paths({"d/b", "d"})) << "kept in place for the checks that come first";
    EXPECT_EQ(list.directories, paths({"d"}));
    expect_usage_error([&] { refuse_directories(encrypt, list); }, "is a directory (use -r, or tar it: tar c");
    const CipherOptions decrypt = options_for(Direction::decrypt, false);
    expect_usage_error([&] { refuse_directories(decrypt, expand_inputs(decrypt, {path("d")})); },
                       "is a directory (use -r");
    refuse_directories(encrypt, expand_inputs(encrypt, {path("d/b")}));
    // What is not there fails later, when it is opened, as without -r.
    EXPECT_EQ(expand_inputs(options_for(Direction::encrypt), {path("missing")}).inputs, paths({"missing"}));
}

TEST_F(InputTree, AFileListAddsItsNamesAfterTheArguments) {
    write_file(path("list"), to_bytes(path("d/sub") + "\n" + path("d/b") + "\n"));
    CipherOptions options = options_for(Direction::encrypt);
    options.inputs = {path("outside/x")};
    options.file_list = path("list");
    EXPECT_EQ(gather_inputs(options).inputs, paths({"outside/x", "d/sub/c", "d/b"}));
    options.recursive = false;
    EXPECT_EQ(gather_inputs(options).directories, paths({"d/sub"}));

    write_file(path("nul-list"), to_bytes(path("d/b") + '\0'));
    CipherOptions nul = options_for(Direction::encrypt);
    nul.file_list = path("nul-list");
    nul.null_separated = true;
    EXPECT_EQ(gather_inputs(nul).inputs, paths({"d/b"}));

    write_file(path("dash-list"), to_bytes("-\n"));
    nul.file_list = path("dash-list");
    nul.null_separated = false;
    expect_usage_error([&] { (void)gather_inputs(nul); }, "names '-'");
    nul.file_list = path("no-list");
    expect_usage_error([&] { (void)gather_inputs(nul); }, "cannot open the file list");
    EXPECT_EQ(gather_inputs(options_for(Direction::encrypt)).inputs, Names{"-"}) << "no FILE: standard input";
}

TEST_F(InputTree, OutputDirRefusesTwoInputsOfOneOutputName) {
    std::filesystem::create_directories(path("out"));
    write_file(path("outside/b"), Bytes(3));
    CipherOptions options = options_for(Direction::encrypt);
    options.output_dir = path("out");
    check_output_dir(options, paths({"d/b", "d/sub/c"}));
    expect_usage_error(
        [&] {
            check_output_dir(options, paths({"d/b", "d/sub/c", "outside/b"}));
        },
        "would both be written to '" + path("out/b.aes") + "'");
    CipherOptions decrypt = options_for(Direction::decrypt);
    decrypt.output_dir = path("out");
    expect_usage_error([&] { check_output_dir(decrypt, paths({"d/x.aes", "outside/x.aes"})); }, "would both");
    options.output_dir = path("not-there");
    expect_usage_error([&] { check_output_dir(options, paths({"d/b"})); }, "is not a directory: make it first");
}

} // namespace
} // namespace aesgpu::test
