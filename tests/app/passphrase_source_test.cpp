// SPDX-License-Identifier: Apache-2.0
// Passphrase sources: openssl's -pass syntax, read exactly as openssl 3 reads them.
#include "app/passphrase_source.hpp"
#include "common/errors.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cstdlib>

namespace aesgpu::test {
namespace {

std::string text(const GivenPassphrase &given) {
    return std::string(given.bytes.text());
}

std::string from_file(const TempDir &dir, const std::string &content) {
    write_file(dir.file("p"), Bytes(content.begin(), content.end()));
    return text(read_passphrase("file:" + dir.file("p"), nullptr));
}

template <typename Error>
std::string message_of(const std::function<void()> &call) {
    try {
        call();
    } catch (const Error &e) {
        return e.what();
    }
    ADD_FAILURE() << "no exception of the expected type";
    return {};
}

TEST(Passphrase, ReadsEachSource) {
    TempDir dir;
    EXPECT_EQ(text(read_passphrase("pass:open sesame", nullptr)), "open sesame");
    setenv("AESGPU_TEST_PASS", "from env", 1);
    EXPECT_EQ(text(read_passphrase("env:AESGPU_TEST_PASS", nullptr)), "from env");
    EXPECT_EQ(from_file(dir, "first line\nsecond line\n"), "first line");
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(write(fds[1], "piped\nrest", 10), 10);
    close(fds[1]);
    EXPECT_EQ(text(read_passphrase("fd:" + std::to_string(fds[0]), nullptr)), "piped");
    char rest[8] = {};
    EXPECT_EQ(read(fds[0], rest, sizeof rest), 4) << "the line was read past its newline";
    EXPECT_EQ(std::string(rest), "rest");
    close(fds[0]);
}

TEST(Passphrase, AnEnvironmentPassphraseIsWipedWhereItLies) {
    setenv("AESGPU_TEST_WIPED", "hunter2", 1);
    EXPECT_EQ(text(read_passphrase("env:AESGPU_TEST_WIPED", nullptr)), "hunter2");
    const char *left = std::getenv("AESGPU_TEST_WIPED");
    ASSERT_NE(left, nullptr);
    EXPECT_EQ(std::string(left), "") << "the environment (and /proc/PID/environ) still holds it";
}

TEST(Passphrase, FileLinesReadAsOpensslAppGetPassReadsThem) {
    // BIO_gets into 1024 bytes, cut at the first newline, then used as a C string.
    TempDir dir;
    EXPECT_EQ(from_file(dir, "secret\r\n"), "secret\r") << "openssl keeps the carriage return";
    EXPECT_EQ(from_file(dir, "secret\r"), "secret\r");
    EXPECT_EQ(from_file(dir, "no newline"), "no newline");
    EXPECT_EQ(from_file(dir, std::string("sec\0ret\n", 8)), "sec") << "a NUL byte ends the passphrase";
    // The line whole, up to 64 KiB (openssl's formats then take its first 1023 bytes, as
    // KeySource::openssl_line gives them); past that it is marked longer.
    const std::string long_line(2000, 'x');
    EXPECT_EQ(from_file(dir, long_line + "\n"), long_line);
    EXPECT_EQ(from_file(dir, std::string(1023, 'y') + "\nz"), std::string(1023, 'y'));
    write_file(dir.file("p"), Bytes(kMaxPassphraseBytes, 'z'));
    const GivenPassphrase longest = read_passphrase("file:" + dir.file("p"), nullptr);
    EXPECT_TRUE(longest.line);
    EXPECT_FALSE(longest.longer);
    EXPECT_EQ(longest.bytes.size(), kMaxPassphraseBytes);
    Bytes exactly(kMaxPassphraseBytes, 'z');
    exactly.push_back('\n');
    write_file(dir.file("p"), exactly);
    EXPECT_FALSE(read_passphrase("file:" + dir.file("p"), nullptr).longer) << "the newline ends it at the bound";
    write_file(dir.file("p"), Bytes(kMaxPassphraseBytes + 1, 'z'));
    const GivenPassphrase longer = read_passphrase("file:" + dir.file("p"), nullptr);
    EXPECT_TRUE(longer.longer);
    EXPECT_EQ(longer.bytes.size(), kMaxPassphraseBytes);
    EXPECT_EQ(longer.from, "passphrase file '" + dir.file("p") + "'");
    EXPECT_FALSE(read_passphrase("pass:x", nullptr).line) << "pass: and env: are no lines: openssl keeps them whole";
}

TEST(Passphrase, EmptyPassphrasesAreRefused) {
    TempDir dir;
    EXPECT_THROW((void)read_passphrase("pass:", nullptr), EmptyPassphrase);
    setenv("AESGPU_TEST_EMPTY", "", 1);
    EXPECT_THROW((void)read_passphrase("env:AESGPU_TEST_EMPTY", nullptr), EmptyPassphrase);
    EXPECT_THROW((void)from_file(dir, "\n"), EmptyPassphrase);
    EXPECT_THROW((void)from_file(dir, std::string("\0secret\n", 8)), EmptyPassphrase);
    EXPECT_THROW((void)from_file(dir, ""), KeyError) << "an empty file holds no line at all";
}

TEST(Passphrase, RejectsBadSpecsWithoutShowingThem) {
    unsetenv("AESGPU_TEST_UNSET");
    EXPECT_THROW((void)read_passphrase("env:AESGPU_TEST_UNSET", nullptr), UsageError);
    for (const std::string spec : {"hunter2", "fd:hunter2", "Pass:hunter2"}) {
        const std::string message = message_of<UsageError>([&] { (void)read_passphrase(spec, nullptr); });
        EXPECT_EQ(message.find("hunter2"), std::string::npos) << message;
    }
    struct stat data {};
    ASSERT_EQ(fstat(STDIN_FILENO, &data), 0);
    EXPECT_THROW((void)read_passphrase("stdin", &data), UsageError);
    EXPECT_THROW((void)read_passphrase("fd:0", &data), UsageError);
    EXPECT_THROW((void)read_passphrase("file:/nonexistent/pass", nullptr), KeyError);
}

TEST(Passphrase, RefusesTheFileTheDataComesFrom) {
    TempDir dir;
    write_file(dir.file("data"), Bytes{'p', 'w', '\n'});
    struct stat data {};
    ASSERT_EQ(stat(dir.file("data").c_str(), &data), 0);
    EXPECT_THROW((void)read_passphrase("file:" + dir.file("data"), &data), KeyError);
    EXPECT_EQ(text(read_passphrase("file:" + dir.file("data"), nullptr)), "pw");
}

} // namespace
} // namespace aesgpu::test
