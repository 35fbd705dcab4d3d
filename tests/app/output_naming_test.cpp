// SPDX-License-Identifier: Apache-2.0
// Output names: .aes added when encrypting, taken off when decrypting, -o and -c win, standard
// input goes to standard output.
#include "app/output_naming.hpp"
#include "common/errors.hpp"

#include <gtest/gtest.h>

namespace aesgpu::test {
namespace {

CipherOptions options_for(Direction direction, const std::string &output = {}) {
    CipherOptions options;
    options.direction = direction;
    options.output = output;
    return options;
}

TEST(OutputNaming, EncryptAddsTheSuffixAndDecryptTakesItOff) {
    EXPECT_EQ(resolve_output_path(options_for(Direction::encrypt), "report.pdf"), "report.pdf.aes");
    EXPECT_EQ(resolve_output_path(options_for(Direction::encrypt), "dir/x.aes"), "dir/x.aes.aes");
    EXPECT_EQ(resolve_output_path(options_for(Direction::decrypt), "report.pdf.aes"), "report.pdf");
    EXPECT_EQ(resolve_output_path(options_for(Direction::decrypt), "a/.b.aes"), "a/.b");
}

TEST(OutputNaming, DecryptingANameWithoutTheSuffixNeedsToBeToldWhere) {
    for (const std::string input : {"data.bin", ".aes", "dir/.aes", "x.AES", "x.aes.gz"}) {
        SCOPED_TRACE(input);
        try {
            (void)resolve_output_path(options_for(Direction::decrypt), input);
            ADD_FAILURE() << "named an output for " << input;
        } catch (const UsageError &e) {
            EXPECT_NE(std::string(e.what()).find("give one with -o OUT, -S SUFFIX, or -c"), std::string::npos)
                << e.what();
        }
    }
}

TEST(OutputNaming, TheSuffixOptionReplacesAes) {
    CipherOptions encrypt = options_for(Direction::encrypt);
    encrypt.suffix = ".enc";
    EXPECT_EQ(resolve_output_path(encrypt, "notes.txt"), "notes.txt.enc");
    CipherOptions decrypt = options_for(Direction::decrypt);
    decrypt.suffix = ".enc";
    EXPECT_EQ(resolve_output_path(decrypt, "notes.txt.enc"), "notes.txt");
    EXPECT_THROW((void)resolve_output_path(decrypt, "notes.txt.aes"), UsageError);
}

TEST(OutputNaming, OutputAndStdoutOptionsWinAndStandardInputGoesToStandardOutput) {
    for (const auto direction : {Direction::encrypt, Direction::decrypt}) {
        EXPECT_EQ(resolve_output_path(options_for(direction, "out.bin"), "data.bin"), "out.bin");
        EXPECT_EQ(resolve_output_path(options_for(direction, "-"), "data.bin"), "");
        CipherOptions to_stdout = options_for(direction);
        to_stdout.to_stdout = true;
        EXPECT_EQ(resolve_output_path(to_stdout, "data.bin"), "");
        EXPECT_EQ(resolve_output_path(options_for(direction), "-"), "");
    }
}

TEST(OutputNaming, OutputDirKeepsTheFileNameOnly) {
    CipherOptions encrypt = options_for(Direction::encrypt);
    encrypt.output_dir = "out";
    EXPECT_EQ(resolve_output_path(encrypt, "a/b/report.pdf"), "out/report.pdf.aes");
    EXPECT_EQ(resolve_output_path(encrypt, "report.pdf"), "out/report.pdf.aes");
    CipherOptions decrypt = options_for(Direction::decrypt);
    decrypt.output_dir = "/tmp/out/";
    EXPECT_EQ(resolve_output_path(decrypt, "a/report.pdf.aes"), "/tmp/out/report.pdf");
    EXPECT_THROW((void)resolve_output_path(decrypt, "a/report.pdf"), UsageError);
    EXPECT_EQ(resolve_output_path(decrypt, "-"), "") << "standard input still goes to standard output";
}

TEST(OutputNaming, ANameEndsInTheSuffixWithSomethingBeforeIt) {
    EXPECT_TRUE(ends_in_suffix("x.aes", ".aes"));
    EXPECT_TRUE(ends_in_suffix("d/x.aes", ".aes"));
    EXPECT_FALSE(ends_in_suffix(".aes", ".aes"));
    EXPECT_FALSE(ends_in_suffix("d/.aes", ".aes"));
    EXPECT_FALSE(ends_in_suffix("x.aes.gz", ".aes"));
}

} // namespace
} // namespace aesgpu::test
