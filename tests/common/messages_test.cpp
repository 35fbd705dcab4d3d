// SPDX-License-Identifier: Apache-2.0
// File names in messages: quoted as the shell would read them back, one line each, never a
// terminal control sequence.
#include "common/errors.hpp"

#include <gtest/gtest.h>

namespace aesgpu::test {
namespace {

TEST(QuotedName, PlainNamesInSingleQuotes) {
    EXPECT_EQ(quoted_name("report.pdf"), "'report.pdf'");
    EXPECT_EQ(quoted_name("a b"), "'a b'");
    EXPECT_EQ(quoted_name("it's"), "'it'\\''s'");
    EXPECT_EQ(quoted_name("caf\xC3\xA9 \xE2\x82\xAC"), "'caf\xC3\xA9 \xE2\x82\xAC'") << "UTF-8 stays readable";
}

TEST(QuotedName, ControlCharactersAndBadBytesAreEscaped) {
    EXPECT_EQ(quoted_name("two\nlines"), "$'two\\nlines'");
    EXPECT_EQ(quoted_name("\033[31mred"), "$'\\E[31mred'");
    EXPECT_EQ(quoted_name("tab\there's"), "$'tab\\there\\'s'");
    EXPECT_EQ(quoted_name("latin1 \xE9"), "$'latin1 \\xE9'");
    EXPECT_EQ(quoted_name("c1 \xC2\x9B"), "$'c1 \\xC2\\x9B'") << "U+009B is a C1 control (CSI)";
    EXPECT_EQ(quoted_name(std::string("nul\0x", 5)), "$'nul\\x00x'");
    EXPECT_EQ(quoted_name("del\x7F"), "$'del\\x7F'");
    EXPECT_EQ(quoted_name("back\\slash\n"), "$'back\\\\slash\\n'");
}

} // namespace
} // namespace aesgpu::test
