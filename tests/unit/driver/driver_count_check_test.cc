// The GPU proof's count check on the statistics files of a real run (torch.distributed with CUDA graphs on an H200,
// tests/data/gpu-runs/h200-nccl-2.28.9/torch-graphs): what each rank issued against what the plugin timed and was
// asked, and the same files edited the ways a run goes wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/file.h"
#include "nccl-tests-integration/driver/count_check.h"
#include "tests/support/run_command.h"

namespace nccl_roce::driver {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string dataFile(const std::string& name) {
  StatusOr<std::string> text =
      readFileBounded(testing::sourcePath("tests/data/gpu-runs/h200-nccl-2.28.9/torch-graphs/" + name), 1 << 24);
  EXPECT_TRUE(text.isOk()) << text.status().toString();
  return text.isOk() ? *text : "";
}

std::pair<std::string, telemetry::StatsFile> statsOf(const std::string& name, const std::string& text) {
  StatusOr<telemetry::StatsFile> parsed = telemetry::parseStatsFile(text, name);
  EXPECT_TRUE(parsed.isOk()) << parsed.status().toString();
  return {name, parsed.isOk() ? *parsed : telemetry::StatsFile{}};
}

// What a rank of graph_ab.py issued (expected.rank<R>.json: per group and size its eager calls, the warm-up on the
// capture stream included, and its graph replays, 5 all-reduces captured per graph and replayed 10 times), as the
// driver would say it.
IssuedLine issuedBy(int rank, int64_t pid) {
  nlohmann::json expected = nlohmann::json::parse(dataFile("expected.rank" + std::to_string(rank) + ".json"));
  IssuedLine line{rank, pid, "vm", "AllReduce", {}};
  for (const auto& group : expected["groups"]) {
    for (const auto& [size, calls] : group["eager"].items()) line.counts.eager += calls.get<uint64_t>();
    for (const auto& [size, runs] : group["graph"].items()) {
      line.counts.replayed += runs.get<uint64_t>();
      line.counts.captured += 5;
      line.counts.graphLaunches += 10;
    }
  }
  return line;
}

TEST(CountCheck, EveryCollectiveOfTheRealGraphRunWasTimedOnceAndAskedForOnce) {
  std::vector<std::pair<std::string, telemetry::StatsFile>> stats{
      statsOf("stats.792.json", dataFile("stats.792.json")), statsOf("stats.793.json", dataFile("stats.793.json"))};
  std::vector<CountCheck> checks = checkCounts({issuedBy(0, 793), issuedBy(1, 792)}, stats);
  ASSERT_EQ(checks.size(), 2u);
  for (const CountCheck& c : checks) {
    EXPECT_TRUE(c.ok()) << describeCountCheck(c);
    EXPECT_EQ(c.timed, 3408u);       // 12 groups x (84 eager + 200 replayed)
    EXPECT_EQ(c.tunerCalls, 1248u);  // 12 groups x (84 eager + 20 captured): replays ask nothing
  }
  EXPECT_EQ(checks[0].statsFile, "stats.793.json");
  EXPECT_EQ(describeCountCheck(checks[0]),
            "rank 0 (pid 793) AllReduce: issued 1008 eager, 240 captured, 2400 replayed; timed 3408, tuner calls "
            "1248, 0 dropped");
}

TEST(CountCheck, ACollectiveTimedTooOftenOrNotAtAllOrAskedForWronglyIsNamed) {
  std::vector<std::pair<std::string, telemetry::StatsFile>> stats{
      statsOf("stats.793.json", dataFile("stats.793.json"))};
  IssuedLine more = issuedBy(0, 793);
  more.counts.replayed += 50;
  more.counts.captured += 5;
  CountCheck c = checkCounts({more}, stats)[0];
  EXPECT_THAT(c.problems, ElementsAre("timed 3408 collectives, but 3458 ran (1008 eager + 2450 replayed)",
                                      "the tuner was asked 1248 times, but 1253 collectives were planned (1008 eager "
                                      "+ 245 captured)"));
  IssuedLine elsewhere = issuedBy(0, 4242);
  EXPECT_THAT(checkCounts({elsewhere}, stats)[0].problems,
              ElementsAre("no statistics file of pid 4242 (was NCCL_ROCE_STATS set?)"));
  IssuedLine otherHost = issuedBy(0, 793);
  otherHost.host = "gpu-node-2";
  EXPECT_FALSE(checkCounts({otherHost}, stats)[0].ok()) << "a pid on another host is another process";
}

TEST(CountCheck, DropsALiveEntryAndAMissingPluginAreProblems) {
  nlohmann::json file = nlohmann::json::parse(dataFile("stats.793.json"));
  file["communicators"][1]["timing"]["dropped"]["incomplete"] = 3;
  file["communicators"][2]["state"] = "live";
  std::vector<std::pair<std::string, telemetry::StatsFile>> stats{statsOf("stats.793.json", file.dump())};
  CountCheck c = checkCounts({issuedBy(0, 793)}, stats)[0];
  EXPECT_THAT(c.problems, ElementsAre(HasSubstr("entry 3 of stats.793.json is a checkpoint of a live communicator"),
                                      "3 profiler events dropped"));

  nlohmann::json untimed = nlohmann::json::parse(dataFile("stats.793.json"));
  for (auto& comm : untimed["communicators"]) comm.erase("timing");
  CountCheck noProfiler = checkCounts({issuedBy(0, 793)}, {statsOf("stats.793.json", untimed.dump())})[0];
  EXPECT_THAT(noProfiler.problems, ElementsAre("the file has no timings (was NCCL_PROFILER_PLUGIN=roce set?)"));
}

}  // namespace
}  // namespace nccl_roce::driver
