// SPDX-License-Identifier: Apache-2.0
// The bench report's renderings: JSON that any parser accepts, and a table that names each row.
#include "app/bench_report.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace aesgpu::test {
namespace {

TEST(BenchReport, JsonStringsEscapeWhatJsonForbids) {
    EXPECT_EQ(json_string("NVIDIA H200"), "\"NVIDIA H200\"");
    EXPECT_EQ(json_string("a\"b\\c\nd\te"), "\"a\\\"b\\\\c\\nd\\te\"");
    EXPECT_EQ(json_string(std::string("x\x01y", 3)), "\"x\\u0001y\"");
    EXPECT_EQ(json_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x91"), "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x91\"")
        << "UTF-8 passes through";
    EXPECT_EQ(json_string("a\xff\xc3("), "\"a\\ufffd\\ufffd(\"") << "Latin-1 and cut sequences do not";
    EXPECT_EQ(json_string("\xc0\xaf\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"")
        << "overlong forms and surrogates do not";
}

TEST(BenchReport, JsonUsesNullForWhatDoesNotApply) {
    BenchReport report;
    report.machine = "test \"machine\"";
    report.size_bytes = 1024;
    report.reps = 3;
    BenchResult ceiling;
    ceiling.backend = "gpu";
    ceiling.stage = "ceiling";
    ceiling.what = "pinned H2D";
    ceiling.bytes = 2e9;
    ceiling.seconds = 0.5;
    BenchResult kernel = ceiling;
    kernel.stage = "kernel";
    kernel.what = "AES-256 decrypt";
    kernel.key_bits = 256;
    kernel.direction = Direction::decrypt;
    kernel.ratio = 0.25;
    kernel.ratio_text = "25% of device copy";
    report.results = {ceiling, kernel};
    report.unavailable = {{"gpu", "none"}};
    std::ostringstream json;
    print_bench_json(report, json);
    const std::string text = json.str();
    EXPECT_NE(text.find(R"("machine": "test \"machine\"")"), std::string::npos) << text;
    EXPECT_NE(text.find(R"({"backend": "gpu", "stage": "ceiling", "what": "pinned H2D", "key_bits": null, )"
                        R"("direction": null, "threads": null, "bytes": 2000000000, "seconds": 0.5, "gbps": 4, )"
                        R"("ratio": null, "ratio_text": ""})"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(R"("key_bits": 256, "direction": "decrypt", "threads": null, "bytes": 2000000000, )"
                        R"("seconds": 0.5, "gbps": 4, "ratio": 0.25, "ratio_text": "25% of device copy"})"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(R"("unavailable": ["gpu: none"])"), std::string::npos) << text;

    std::ostringstream table;
    print_bench_table(report, table);
    EXPECT_NE(table.str().find("gpu      kernel    AES-256 decrypt"), std::string::npos) << table.str();
    EXPECT_NE(table.str().find("unavailable: gpu: none\n"), std::string::npos) << table.str();
}

} // namespace
} // namespace aesgpu::test
