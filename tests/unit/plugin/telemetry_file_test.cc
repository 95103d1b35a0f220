// The per-process statistics file: a whole, valid document after every report, every communicator once, and
// room for a second producer to add its fields to the communicators the tuner reported.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/file.h"
#include "plugin/telemetry_file.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::plugin {
namespace {

nlohmann::json readDocument(const std::string& path) {
  auto text = readFileBounded(path, 1 << 20);
  EXPECT_TRUE(text.isOk()) << text.status().toString();
  return text.isOk() ? nlohmann::json::parse(*text) : nlohmann::json();
}

TEST(StatisticsFile, HoldsEveryReportedCommunicatorAfterEachReport) {
  testing::TempDir dir;
  std::string path = TelemetryFiles::pathFor(dir.join("stats"), 4242);
  EXPECT_EQ(path, dir.join("stats.4242.json"));
  TelemetryFiles registry;
  for (int i = 0; i < 3; ++i) {
    TelemetryEntry entry = registry.claim(path, 7, "tuner");  // three local ranks of one communicator
    EXPECT_EQ(entry.ordinal, static_cast<uint32_t>(i));
    nlohmann::ordered_json fields;
    fields["rank_of_test"] = i;
    ASSERT_TRUE(registry.report(path, entry, fields).isOk());
    nlohmann::json doc = readDocument(path);  // a whole, valid document after every finalize
    ASSERT_EQ(doc["communicators"].size(), static_cast<size_t>(i + 1));
    EXPECT_EQ(doc["communicators"][static_cast<size_t>(i)]["rank_of_test"], i);
    EXPECT_TRUE(doc["pid"].is_number());
    EXPECT_TRUE(doc["host"].is_string());
  }
}

TEST(StatisticsFile, ASecondProducerAddsToTheSameCommunicators) {
  testing::TempDir dir;
  std::string path = dir.join("stats.1.json");
  TelemetryFiles registry;
  TelemetryEntry a = registry.claim(path, 0x11, "tuner");
  TelemetryEntry b = registry.claim(path, 0x22, "tuner");
  nlohmann::ordered_json decisions;
  decisions["calls"] = 5;
  ASSERT_TRUE(registry.report(path, b, decisions).isOk());
  ASSERT_TRUE(registry.report(path, a, decisions).isOk());
  // Another producer sees the same communicators, by the id NCCL gives every plugin.
  TelemetryEntry timedB = registry.claim(path, 0x22, "profiler");
  nlohmann::ordered_json timings;
  timings["timings"] = nlohmann::ordered_json::array();
  ASSERT_TRUE(registry.report(path, timedB, timings).isOk());
  nlohmann::json doc = readDocument(path);
  ASSERT_EQ(doc["communicators"].size(), 2u) << "no new entry: the profiler joined the tuner's";
  EXPECT_EQ(doc["communicators"][0]["calls"], 5);
  EXPECT_TRUE(doc["communicators"][0].contains("timings")) << "0x22 reported first, so it comes first";
  EXPECT_FALSE(doc["communicators"][1].contains("timings"));
}

TEST(StatisticsFile, AnUnwritablePathIsAnErrorNotACrash) {
  TelemetryFiles registry;
  std::string path = "/nonexistent-directory/stats.1.json";
  nlohmann::ordered_json fields;
  fields["calls"] = 1;
  EXPECT_FALSE(registry.report(path, registry.claim(path, 1, "tuner"), fields).isOk());
}

}  // namespace
}  // namespace nccl_roce::plugin
