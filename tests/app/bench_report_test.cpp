// SPDX-License-Identifier: Apache-2.0
// The bench report's renderings: JSON that any parser accepts, and a table that names each row.
#include "app/bench_report.hpp"
#include "app/json_text.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace aesgpu::test {
namespace {

TEST(JsonText, StringsThatAreNotUtf8GetReplacementCharacters) {
    using nlohmann::ordered_json;
    EXPECT_EQ(json_text(ordered_json("a\"b\\c\nd\te")), R"("a\"b\\c\nd\te")");
    EXPECT_EQ(json_text(ordered_json(std::string("x\x01y", 3))), R"("x\u0001y")");
    EXPECT_EQ(json_text(ordered_json("caf\xc3\xa9 \xf0\x9f\x94\x91")), "\"caf\xc3\xa9 \xf0\x9f\x94\x91\"")
        << "UTF-8 passes through";
    EXPECT_EQ(json_text(ordered_json("a\xff\xc3(")), "\"a\xef\xbf\xbd\xef\xbf\xbd(\"")
        << "Latin-1 and cut sequences become U+FFFD instead of failing the document";
}

// The table's first line gives the size as given: a --size under 1 MiB is not "0 MiB".
TEST(BenchReport, TheTableSaysHowMuchEachMeasurementTakes) {
    for (const auto &[bytes, expected] :
         std::vector<std::pair<std::size_t, std::string>>{{16, "aesgpu bench: 16 B per in-memory measurement"},
                                                          {std::size_t{256} << 10, "aesgpu bench: 256.0 KiB per"},
                                                          {std::size_t{1} << 30, "aesgpu bench: 1.0 GiB per"}}) {
        BenchReport report;
        report.size_bytes = bytes;
        report.reps = 3;
        std::ostringstream table;
        print_bench_table(report, table);
        EXPECT_EQ(table.str().rfind(expected, 0), 0u) << table.str();
    }
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
    const auto document = nlohmann::json::parse(json.str());
    EXPECT_EQ(document["machine"], "test \"machine\"");
    EXPECT_TRUE(document["file"].is_null());
    ASSERT_EQ(document["results"].size(), 2U) << json.str();
    const auto &first = document["results"][0];
    EXPECT_EQ(first["stage"], "ceiling");
    for (const char *absent : {"key_bits", "direction", "threads", "ratio"}) {
        EXPECT_TRUE(first[absent].is_null()) << absent << " in " << json.str();
    }
    EXPECT_EQ(first["bytes"], 2e9);
    EXPECT_EQ(first["gbps"], 4.0);
    const auto &second = document["results"][1];
    EXPECT_EQ(second["key_bits"], 256);
    EXPECT_EQ(second["direction"], "decrypt");
    EXPECT_EQ(second["ratio"], 0.25);
    EXPECT_EQ(second["ratio_text"], "25% of device copy");
    EXPECT_EQ(document["unavailable"], nlohmann::json::array({"gpu: none"}));
    EXPECT_EQ(document["failed"], nlohmann::json::array());

    std::ostringstream table;
    print_bench_table(report, table);
    EXPECT_NE(table.str().find("gpu      kernel    AES-256 decrypt"), std::string::npos) << table.str();
    EXPECT_NE(table.str().find("unavailable: gpu: none\n"), std::string::npos) << table.str();
}

// Which GPUs the GPU rows ran on (--devices, or every one), in both renderings; none where no
// GPU ran.
TEST(BenchReport, NamesTheGpusItsRowsRanOn) {
    BenchReport report;
    report.size_bytes = 1024;
    for (const auto &[devices, line] : std::vector<std::pair<std::vector<int>, std::string>>{
             {{}, ""}, {{1}, "GPU rows: CUDA device 1\n"}, {{0, 2, 3}, "GPU rows: CUDA devices 0, 2, 3\n"}}) {
        report.devices = devices;
        std::ostringstream table;
        print_bench_table(report, table);
        EXPECT_EQ(table.str().find(line.empty() ? "GPU rows" : line) == std::string::npos, line.empty()) << table.str();
        std::ostringstream json;
        print_bench_json(report, json);
        EXPECT_EQ(nlohmann::json::parse(json.str())["devices"], nlohmann::json(devices)) << json.str();
    }
}

// A row through several lanes says what each took and how fast it went while busy; other rows
// have no lanes.
TEST(BenchReport, RowsThroughSeveralLanesShowEachLanesPart) {
    BenchReport report;
    report.size_bytes = 1024;
    BenchResult alone;
    alone.backend = "gpu";
    alone.stage = "pipeline";
    alone.what = "AES-128-ECB encrypt, pinned host to host";
    BenchResult together = alone;
    together.backend = "all";
    together.what = "AES-128-ECB encrypt, 2 GPUs and the CPU";
    together.lanes = {{"CPU", 2e9, 0.05}, {"GPU 0", 3e9, 0.1}, {"GPU 1", 5e9, 0}};
    report.results = {alone, together};
    std::ostringstream table;
    print_bench_table(report, table);
    EXPECT_NE(table.str().find("lanes of the pipeline rows (share of the bytes, pace while busy):\n"
                               "all      AES-128-ECB encrypt, 2 GPUs and the CPU: CPU 20% at 40.0 GB/s; GPU 0 30% at "
                               "30.0 GB/s; GPU 1 50% at 0.0 GB/s\n"),
              std::string::npos)
        << table.str();
    std::ostringstream json;
    print_bench_json(report, json);
    const auto document = nlohmann::json::parse(json.str());
    EXPECT_EQ(document["results"][0]["lanes"], nlohmann::json::array());
    ASSERT_EQ(document["results"][1]["lanes"].size(), 3u) << json.str();
    EXPECT_EQ(document["results"][1]["lanes"][1],
              nlohmann::json({{"name", "GPU 0"}, {"bytes", 3e9}, {"busy_seconds", 0.1}}));
}

// The bench says what happened; the command adds what to do about --size, in the table, the JSON
// and the error alike.
TEST(BenchReport, AdviceAboutTheSizeIsTheCommandsAndNamesItsFlag) {
    BenchReport report;
    report.size_bytes = std::size_t{1} << 30;
    report.failed = {{"cpu", "not enough pinned memory", SizeAdvice::smaller},
                     {"bench", "not enough memory", SizeAdvice::no_memory},
                     {"file", "cannot start a thread", SizeAdvice::none}};
    report.unavailable = {{"gcm", "the size is below one segment (1 MiB)", SizeAdvice::below_one_segment}};
    EXPECT_EQ(stage_note_text(report.failed[0], report.size_bytes),
              "cpu: not enough pinned memory (try a smaller --size)");
    EXPECT_EQ(stage_note_text(report.failed[1], report.size_bytes),
              "bench: not enough memory for --size 1.0 GiB (try a smaller one)");
    EXPECT_EQ(stage_note_text(report.failed[2], report.size_bytes), "file: cannot start a thread");
    EXPECT_EQ(stage_reason(report.unavailable[0], report.size_bytes), "--size is below one segment (1 MiB)");

    std::ostringstream json;
    print_bench_json(report, json);
    const nlohmann::json document = nlohmann::json::parse(json.str());
    EXPECT_EQ(document["failed"][1], "bench: not enough memory for --size 1.0 GiB (try a smaller one)");
    EXPECT_EQ(document["unavailable"][0], "gcm: --size is below one segment (1 MiB)");
    std::ostringstream table;
    print_bench_table(report, table);
    EXPECT_NE(table.str().find("failed: cpu: not enough pinned memory (try a smaller --size)\n"), std::string::npos)
        << table.str();
}

} // namespace
} // namespace aesgpu::test
