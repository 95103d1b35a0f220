// sweep fit on synthetic forced-config sweeps whose best configuration per size is known, and its output
// checked with the tuner's own parser and lint.
#include "nccl-tests-integration/sweep/fit.h"

#include <gtest/gtest.h>

#include <limits>

#include "nccl-tests-integration/sweep/fit_policy_text.h"
#include "policy/policy_checks.h"
#include "policy/policy_toml.h"
#include "telemetry/nccl_names.h"
#include "tests/unit/sweep/sweep_test_data.h"
#include "tests/unit/sweep/synthetic_sweep.h"

namespace nccl_roce::sweep {
namespace {

using testing::baseTimeUs;
using testing::powersOfTwo;
using testing::syntheticLog;
using testing::SyntheticRun;

constexpr uint64_t kK = 1024, kM = 1024 * 1024;
constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
const int kTree = *telemetry::parseAlgorithm("tree"), kRing = *telemetry::parseAlgorithm("ring");
const int kLL = *telemetry::parseProtocol("ll"), kLL128 = *telemetry::parseProtocol("ll128"),
          kSimple = *telemetry::parseProtocol("simple");

using Factor = std::function<double(uint64_t)>;

// Five replicates (the fewest fit accepts) of one configuration, each slowed or sped up as a whole by its
// noise factor; `env` as the runner records it.
const std::vector<double> kFiveReplicates{0.99, 0.995, 1.0, 1.005, 1.01};

void addConfig(std::vector<PerfLog>* logs, std::map<std::string, std::string> env, Factor factor,
               std::vector<double> noise = kFiveReplicates) {
  for (double n : noise) {
    SyntheticRun run;
    run.sizes = powersOfTwo(8, 64 * kM);
    run.timeUs = [n, factor](uint64_t s) { return baseTimeUs(s) * factor(s) * n; };
    run.environment = env;
    logs->push_back(syntheticLog(run, "config.log"));
  }
}

std::map<std::string, std::string> forced(const char* algo, const char* proto) {
  std::map<std::string, std::string> env{{"NCCL_ROCE_POLICY", "nccl"}};
  if (algo) env["NCCL_ALGO"] = algo;
  if (proto) env["NCCL_PROTO"] = proto;
  return env;
}

// Tree/LL halves the time up to 4K and is slower above; Ring/Simple takes 40% off from 4M; Ring/LL128 is what
// NCCL picks anyway.
std::vector<PerfLog> knownSweep() {
  std::vector<PerfLog> logs;
  addConfig(&logs, {{"NCCL_ROCE_POLICY", "nccl"}}, [](uint64_t) { return 1.0; });
  addConfig(&logs, forced("Tree", "LL"), [](uint64_t s) { return s <= 4 * kK ? 0.5 : 1.5; });
  addConfig(&logs, forced("Ring", "Simple"), [](uint64_t s) { return s >= 4 * kM ? 0.6 : 1.3; });
  addConfig(&logs, forced("Ring", "LL128"), [](uint64_t) { return 1.0; });
  return logs;
}

TEST(Fit, PicksTheKnownBestPerSizeAndKeepsTheDefaultInBetween) {
  FitResult fit = fitPolicy(knownSweep(), FitOptions{});
  ASSERT_TRUE(fit.ok()) << (fit.errors.empty() ? "" : fit.errors[0]);
  ASSERT_EQ(fit.series.size(), 1u);
  const FitSeries& s = fit.series[0];
  EXPECT_EQ(s.key.collective, "all_reduce");
  EXPECT_EQ(s.key.ranks, 16);
  EXPECT_EQ(s.nodes, 2);
  EXPECT_EQ(s.defaultRuns, 5);
  EXPECT_EQ(fit.challenges, 3 * 24);  // every configuration at every size, the family of the control
  EXPECT_EQ(s.configs.size(), 3u);
  ASSERT_EQ(s.sizes.size(), 24u);
  for (const SizeDecision& d : s.sizes) {
    SCOPED_TRACE(d.size);
    if (d.size <= 4 * kK) {
      ASSERT_TRUE(d.choice);
      EXPECT_EQ(*d.choice, (ForcedConfig{telemetry::Choice::of(kTree, kLL, 0)}));
      EXPECT_NEAR(d.ratio, 0.5, 2e-3);
    } else if (d.size >= 4 * kM) {
      ASSERT_TRUE(d.choice);
      EXPECT_EQ(*d.choice, (ForcedConfig{telemetry::Choice::of(kRing, kSimple, 0)}));
      EXPECT_NEAR(d.ratio, 0.6, 2e-3);
    } else {
      EXPECT_FALSE(d.choice);  // Ring/LL128 ties the default: not beyond the noise
    }
  }
  // Boundaries half-way between measured sizes: 6K between 4K and 8K, 3M between 2M and 4M.
  ASSERT_EQ(s.buckets.size(), 3u);
  EXPECT_EQ(s.buckets[0].lo, 0u);
  EXPECT_EQ(s.buckets[0].hi, 6 * kK - 1);
  EXPECT_FALSE(s.buckets[1].choice);
  EXPECT_EQ(s.buckets[1].lo, 6 * kK);
  EXPECT_EQ(s.buckets[1].hi, 3 * kM - 1);
  EXPECT_EQ(s.buckets[2].lo, 3 * kM);
  EXPECT_EQ(s.buckets[2].hi, kMax);  // past the largest measured size (64M) too
  EXPECT_EQ(s.buckets[2].firstMeasured, 4 * kM);
  EXPECT_EQ(s.buckets[2].lastMeasured, 64 * kM);
  EXPECT_EQ(s.buckets[2].sizes, 5);
}

TEST(Fit, ThePolicyLintsCleanAndSaysWhatTheFitSaid) {
  FitOptions options;
  options.policyName = "cluster-a";
  FitResult fit = fitPolicy(knownSweep(), options);
  std::string toml = fittedPolicyToml(fit, options);
  policy::PolicyDocument doc = policy::parsePolicyToml(toml, "fitted.toml");
  ASSERT_TRUE(doc.ok()) << policy::joinErrors(doc.errors) << "\n" << toml;
  EXPECT_TRUE(policy::checkPolicy(*doc.policy).empty()) << policy::joinErrors(policy::checkPolicy(*doc.policy));
  const policy::Policy& policy = *doc.policy;
  EXPECT_EQ(policy.name, "cluster-a");
  ASSERT_EQ(policy.rules.size(), 2u) << toml;
  const policy::Rule& small = policy.rules[0];
  EXPECT_EQ(small.collectives, 1u << telemetry::kCollAllReduce);
  EXPECT_EQ(small.bytes.lo, 0u);
  EXPECT_EQ(small.bytes.hi, 6 * kK - 1);
  EXPECT_EQ(small.nodes.lo, 2u);
  EXPECT_EQ(small.nodes.hi, 2u);
  EXPECT_EQ(small.ranks.lo, 16u);
  EXPECT_EQ(small.ranks.hi, 16u);
  ASSERT_EQ(small.choices.size(), 1u);
  EXPECT_EQ(small.choices[0].algorithm, kTree);
  EXPECT_EQ(small.choices[0].protocol, kLL);
  EXPECT_EQ(small.channels, 0);
  const policy::Rule& large = policy.rules[1];
  EXPECT_EQ(large.bytes.lo, 3 * kM);
  EXPECT_EQ(large.bytes.hi, kMax);
  EXPECT_EQ(large.choices[0].algorithm, kRing);
  EXPECT_EQ(large.choices[0].protocol, kSimple);
  // Evidence is in the comments, and the gap says NCCL decides there.
  EXPECT_NE(toml.find("# Tree/LL for ..6K: measured at 8-4K (10 sizes): 0.50-0.50x NCCL's default time"),
            std::string::npos)
      << toml;
  EXPECT_NE(toml.find("# 6K..3M: no rule; measured at 8K-2M (9 sizes): nothing beat NCCL's default"), std::string::npos)
      << toml;
  EXPECT_NE(toml.find("size = \"3M..\""), std::string::npos);
  // The report lists every size.
  std::string report = fitReportMarkdown(fit, options);
  EXPECT_NE(report.find("| 64M |"), std::string::npos);
  EXPECT_NE(report.find("fastest other: Ring/LL128 at"), std::string::npos) << report;
}

TEST(Fit, AGainSmallerThanTheNoiseIsNotTaken) {
  std::vector<PerfLog> logs;
  addConfig(&logs, {}, [](uint64_t) { return 1.0; }, {0.97, 0.985, 1.0, 1.015, 1.03});
  addConfig(&logs, forced("Tree", "LL"), [](uint64_t) { return 0.98; }, {1.03, 0.97, 1.015, 1.0, 0.985});
  FitResult fit = fitPolicy(logs, FitOptions{});
  ASSERT_TRUE(fit.ok());
  for (const SizeDecision& d : fit.series[0].sizes) EXPECT_FALSE(d.choice) << d.size;
  ASSERT_EQ(fit.series[0].buckets.size(), 1u);
  EXPECT_EQ(fittedPolicyToml(fit, FitOptions{}).find("[[rule]]"), std::string::npos);
}

TEST(Fit, MinimumEffectDecidesCertainButSmallGains) {
  const std::vector<double> quiet{0.999, 0.9995, 1.0, 1.0005, 1.001};
  std::vector<PerfLog> logs;
  addConfig(
      &logs, {}, [](uint64_t) { return 1.0; }, quiet);
  addConfig(
      &logs, forced("Tree", "LL"), [](uint64_t) { return 0.985; }, quiet);
  FitOptions options;  // default: 2%
  FitResult fit = fitPolicy(logs, options);
  EXPECT_FALSE(fit.series.at(0).sizes.back().choice);
  options.verdicts.minEffect = 0.01;
  fit = fitPolicy(logs, options);
  EXPECT_TRUE(fit.series.at(0).sizes.back().choice);  // 64M: 0.1% and 1.5% survive two printed decimals
}

TEST(Fit, IdenticalReplicatesAreNoEvidence) {
  std::vector<PerfLog> logs;
  addConfig(
      &logs, {}, [](uint64_t) { return 1.0; }, std::vector<double>(5, 1.0));  // one log copied five times
  addConfig(
      &logs, forced("Tree", "LL"), [](uint64_t) { return 0.5; }, std::vector<double>(5, 1.0));
  FitResult fit = fitPolicy(logs, FitOptions{});
  ASSERT_TRUE(fit.ok());
  for (const SizeDecision& d : fit.series[0].sizes) EXPECT_FALSE(d.choice) << d.size;
}

TEST(Fit, TheSameChoiceOnBothSidesOfTheDefaultGivesTwoRules) {
  std::vector<PerfLog> logs;
  addConfig(&logs, {}, [](uint64_t) { return 1.0; });
  addConfig(&logs, forced("Ring", "Simple"), [](uint64_t s) { return s <= 1 * kK || s >= 16 * kM ? 0.7 : 1.2; });
  FitResult fit = fitPolicy(logs, FitOptions{});
  ASSERT_EQ(fit.series.at(0).buckets.size(), 3u);
  policy::PolicyDocument doc = policy::parsePolicyToml(fittedPolicyToml(fit, FitOptions{}), "f");
  ASSERT_TRUE(doc.ok());
  EXPECT_TRUE(policy::checkPolicy(*doc.policy).empty());
  ASSERT_EQ(doc.policy->rules.size(), 2u);
  EXPECT_EQ(doc.policy->rules[0].bytes.hi, 1536u - 1);  // half-way between 1K and 2K
  EXPECT_EQ(doc.policy->rules[1].bytes.lo, 12 * kM);    // half-way between 8M and 16M
}

TEST(Fit, ChannelsAndAlgorithmOnlyConfigurationsBecomeRulesOfTheirOwnShape) {
  std::vector<PerfLog> logs;
  addConfig(&logs, {}, [](uint64_t) { return 1.0; });
  std::map<std::string, std::string> channels = forced("Ring", "Simple");
  channels["NCCL_MIN_NCHANNELS"] = channels["NCCL_MAX_NCHANNELS"] = "16";
  addConfig(&logs, channels, [](uint64_t s) { return s >= 1 * kM ? 0.5 : 2.0; });
  addConfig(&logs, forced("Tree", nullptr), [](uint64_t s) { return s <= 1 * kK ? 0.5 : 2.0; });
  FitResult fit = fitPolicy(logs, FitOptions{});
  policy::PolicyDocument doc = policy::parsePolicyToml(fittedPolicyToml(fit, FitOptions{}), "f");
  ASSERT_TRUE(doc.ok()) << policy::joinErrors(doc.errors);
  ASSERT_EQ(doc.policy->rules.size(), 2u);
  EXPECT_EQ(doc.policy->rules[0].choices[0].algorithm, kTree);
  EXPECT_EQ(doc.policy->rules[0].choices[0].protocol, -1);  // NCCL's cheapest protocol for Tree
  EXPECT_EQ(doc.policy->rules[1].channels, 16);
  EXPECT_EQ(doc.policy->rules[1].choices[0].protocol, kSimple);
}

// What the sweep runner records for a chunk size forced through our tuner.
std::map<std::string, std::string> chunked(std::map<std::string, std::string> env, const char* chunk) {
  env["NCCL_TUNER_PLUGIN"] = "roce";
  env["NCCL_ROCE_CHUNK_SIZE"] = chunk;
  return env;
}

TEST(Fit, AChunkSizeIsOneMoreDimensionOfAConfigurationAndGoesIntoTheRule) {
  std::vector<PerfLog> logs;
  addConfig(&logs, {{"NCCL_ROCE_POLICY", "nccl"}}, [](uint64_t) { return 1.0; });
  // Ring/Simple alone takes 10% off from 1M; with a 1M chunk, 30%; with NCCL's own halved, nothing.
  addConfig(&logs, forced("Ring", "Simple"), [](uint64_t s) { return s >= 1 * kM ? 0.9 : 1.3; });
  addConfig(&logs, chunked(forced("Ring", "Simple"), "1M"), [](uint64_t s) { return s >= 1 * kM ? 0.7 : 1.3; });
  addConfig(&logs, chunked(forced("Ring", "Simple"), "x0.5"), [](uint64_t) { return 1.3; });
  // NCCL's own algorithm and protocol with a 256K chunk: 20% off at 64K-512K, where NCCL picks Simple or LL128.
  addConfig(&logs, chunked({{"NCCL_ROCE_POLICY", "nccl"}}, "256K"),
            [](uint64_t s) { return s >= 64 * kK && s < 1 * kM ? 0.8 : 1.0; });
  FitResult fit = fitPolicy(logs, FitOptions{});
  ASSERT_TRUE(fit.ok()) << (fit.errors.empty() ? "" : fit.errors[0]);
  EXPECT_EQ(fit.challenges, 4 * 24) << "each chunk size one more configuration under the false discovery control";
  const std::vector<FitBucket>& buckets = fit.series[0].buckets;
  ASSERT_EQ(buckets.size(), 3u);
  EXPECT_EQ(buckets[1].choice->describe(), "any/any/chunk 256K");
  EXPECT_EQ(buckets[2].choice->describe(), "Ring/Simple/chunk 1M");
  std::string toml = fittedPolicyToml(fit, FitOptions{});
  policy::PolicyDocument doc = policy::parsePolicyToml(toml, "f");
  ASSERT_TRUE(doc.ok()) << policy::joinErrors(doc.errors) << toml;
  ASSERT_EQ(doc.policy->rules.size(), 2u);
  // 256K is whole Simple grains within its buffer, but past LL's 32K and not whole LL128 grains: where the sweep
  // measured it, NCCL used it with Simple only, and so does the rule.
  EXPECT_NE(toml.find("name = \"fit-allreduce-16r-chunk256k-48K..768K\"\ncollective = \"allreduce\"\n"
                      "size = \"48K..768K\"\nnodes = 2\nranks = 16\nchunk_size = { simple = \"256K\" }\n"),
            std::string::npos)
      << toml;
  EXPECT_NE(toml.find("algorithm = \"ring\"\nprotocol = \"simple\"\nchunk_size = \"1M\"\n"), std::string::npos);
  EXPECT_EQ(doc.policy->rules[1].chunkSizes.forProtocol(kSimple), telemetry::ChunkSize::ofBytes(1 * kM));
}

TEST(Fit, AChunkSizeThatCouldNotApplyIsLeftOutWithAReason) {
  std::vector<PerfLog> logs = knownSweep();
  addConfig(&logs, chunked(forced("Ring", "LL"), "256K"), [](uint64_t) { return 0.1; }, {1.0});
  std::map<std::string, std::string> noTuner = forced("Ring", "Simple");
  noTuner["NCCL_ROCE_CHUNK_SIZE"] = "256K";
  addConfig(&logs, noTuner, [](uint64_t) { return 0.1; }, {1.0});
  addConfig(&logs, chunked(forced("Ring", "Simple"), "7Q"), [](uint64_t) { return 0.1; }, {1.0});
  FitResult fit = fitPolicy(logs, FitOptions{});
  ASSERT_TRUE(fit.ok());
  ASSERT_EQ(fit.notes.size(), 3u);
  EXPECT_NE(fit.notes[0].find("NCCL_ROCE_CHUNK_SIZE=256K is a chunk size NCCL can use for none of this run's calls "
                              "(Ring/LL/chunk 256K), so NCCL kept its own"),
            std::string::npos)
      << fit.notes[0];
  EXPECT_NE(fit.notes[1].find("NCCL_ROCE_CHUNK_SIZE=256K without NCCL_TUNER_PLUGIN=roce forces nothing"),
            std::string::npos)
      << fit.notes[1];
  EXPECT_NE(fit.notes[2].find("NCCL_ROCE_CHUNK_SIZE=7Q: "), std::string::npos) << fit.notes[2];
  EXPECT_EQ(fit.series[0].buckets.size(), 3u);  // the same fit as without them
}

TEST(Fit, NodesCanBeOverriddenForRanksThatShareAHost) {
  FitOptions options;
  options.nodes = 4;
  FitResult fit = fitPolicy(knownSweep(), options);
  policy::PolicyDocument doc = policy::parsePolicyToml(fittedPolicyToml(fit, options), "f");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc.policy->rules[0].nodes.lo, 4u);
}

TEST(Fit, WithoutADefaultRunThereIsNothingToBeat) {
  std::vector<PerfLog> logs;
  addConfig(&logs, forced("Tree", "LL"), [](uint64_t) { return 1.0; });
  FitResult fit = fitPolicy(logs, FitOptions{});
  EXPECT_FALSE(fit.ok());
  ASSERT_EQ(fit.errors.size(), 1u);
  EXPECT_NE(fit.errors[0].find("no run of NCCL's default"), std::string::npos);
}

TEST(Fit, WithoutAForcedRunThereIsNothingToChoose) {
  std::vector<PerfLog> logs;
  addConfig(&logs, {}, [](uint64_t) { return 1.0; });
  FitResult fit = fitPolicy(logs, FitOptions{});
  ASSERT_EQ(fit.errors.size(), 1u);
  EXPECT_NE(fit.errors[0].find("no forced-configuration run"), std::string::npos);
}

TEST(Fit, PolicyRunsAndListsOfAlgorithmsAreLeftOutWithAReason) {
  std::vector<PerfLog> logs = knownSweep();
  addConfig(&logs, {{"NCCL_TUNER_PLUGIN", "roce"}, {"NCCL_ROCE_POLICY", "inference"}}, [](uint64_t) { return 0.1; },
            {1.0});
  addConfig(&logs, forced("Ring,Tree", nullptr), [](uint64_t) { return 0.1; }, {1.0});
  FitResult fit = fitPolicy(logs, FitOptions{});
  ASSERT_TRUE(fit.ok());
  ASSERT_EQ(fit.notes.size(), 2u);
  EXPECT_NE(fit.notes[0].find("ran under tuner policy 'inference'"), std::string::npos);
  EXPECT_NE(fit.notes[1].find("NCCL_ALGO=Ring,Tree is not a single algorithm"), std::string::npos);
  EXPECT_EQ(fit.series[0].buckets.size(), 3u);  // the same fit as without them
}

TEST(Fit, TooFewReplicatesAreRefusedWithHowManyToRun) {
  std::vector<PerfLog> logs;
  addConfig(&logs, {}, [](uint64_t) { return 1.0; }, {0.99, 1.0, 1.01});
  addConfig(&logs, forced("Tree", "LL"), [](uint64_t) { return 0.5; });
  FitResult fit = fitPolicy(logs, FitOptions{});
  EXPECT_FALSE(fit.ok());
  ASSERT_EQ(fit.errors.size(), 1u);
  EXPECT_NE(fit.errors[0].find("run at least 5 replicates per configuration (run-sweep.sh --replicates 5)"),
            std::string::npos)
      << fit.errors[0];
  ASSERT_FALSE(fit.notes.empty());
  EXPECT_NE(fit.notes[0].find("NCCL's default has 3 replicate runs, fewer than fit needs"), std::string::npos)
      << fit.notes[0];
}

TEST(Fit, AConfigurationWithTooFewReplicatesIsLeftOutAndNamed) {
  std::vector<PerfLog> logs = knownSweep();
  addConfig(&logs, forced("Tree", "Simple"), [](uint64_t) { return 0.5; }, {0.99, 1.0, 1.01});
  FitResult fit = fitPolicy(logs, FitOptions{});
  ASSERT_TRUE(fit.ok());
  EXPECT_EQ(fit.series[0].configs.size(), 3u);  // Tree/Simple is not among them
  bool named = false;
  for (const std::string& note : fit.notes) named |= note.find("Tree/Simple has 3 replicate runs") != std::string::npos;
  EXPECT_TRUE(named) << ::testing::PrintToString(fit.notes);
}

TEST(Fit, TheReplicateFloorCannotBeLowered) {
  FitOptions options;
  options.verdicts.minUnits = 2;
  FitResult fit = fitPolicy(knownSweep(), options);
  ASSERT_EQ(fit.errors.size(), 1u);
  EXPECT_EQ(fit.errors[0],
            "fit needs at least 5 replicates per configuration to tell gains from noise (docs/statistics.md)");
}

TEST(Fit, TwoDataTypesOfOneCollectiveCannotShareByteRules) {
  std::vector<PerfLog> logs = knownSweep();
  std::string text = testing::syntheticLogText({powersOfTwo(8, 64), baseTimeUs, 16, 2, {}});
  for (size_t at = text.find(" float "); at != std::string::npos; at = text.find(" float ", at)) {
    text.replace(at, 7, " double ");
  }
  logs.push_back(parsePerfLog(text, "double.log"));
  FitResult fit = fitPolicy(logs, FitOptions{});
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.errors.at(0).find("several data types or operations of all_reduce at 16 ranks"), std::string::npos)
      << fit.errors.at(0);
}

TEST(MergeBuckets, AdjacentEqualChoicesMergeAndBoundsMeetHalfWay) {
  ForcedConfig x{telemetry::Choice::of(kRing, kLL128, 0)};
  std::vector<SizeDecision> sizes(4);
  sizes[0].size = 8;
  sizes[0].choice = x;
  sizes[1].size = 16;
  sizes[1].choice = x;
  sizes[2].size = 32;
  sizes[3].size = 33;
  std::vector<FitBucket> buckets = mergeBuckets(sizes);
  ASSERT_EQ(buckets.size(), 2u);
  EXPECT_EQ(buckets[0].lo, 0u);
  EXPECT_EQ(buckets[0].hi, 23u);
  EXPECT_EQ(buckets[0].sizes, 2);
  EXPECT_EQ(buckets[1].lo, 24u);
  EXPECT_EQ(buckets[1].hi, kMax);
  EXPECT_EQ(buckets[1].sizes, 2);
}

// The published AWS p5 runs (2 nodes, 16 H100, NCCL's default choices, measured twice) as the baseline, with
// real noise between the two replicates.
std::vector<PerfLog> publishedDefaultRuns() {
  return {testing::parsePublishedLog("aws-p5_2node_h100x16_efa_allreduce_default-run-a.txt"),
          testing::parsePublishedLog("aws-p5_2node_h100x16_efa_allreduce_default-run-b.txt")};
}

// The same runs relabelled as a forced configuration, each time scaled by `factor(size)`.
std::vector<PerfLog> asForced(std::vector<PerfLog> logs, const char* algo, const char* proto, Factor factor) {
  for (PerfLog& log : logs) {
    for (PerfRun& run : log.runs) {
      run.environment = forced(algo, proto);
      for (PerfRow& row : run.rows) {
        for (std::optional<PerfHalf>* half : {&row.outOfPlace, &row.inPlace}) {
          if (*half && (*half)->timeUs) *(*half)->timeUs *= factor(row.size);
        }
      }
    }
  }
  return logs;
}

TEST(FitOnPublishedLogs, DefaultRunsAloneGiveNoPolicyAndSayWhatToAdd) {
  FitResult fit = fitPolicy(publishedDefaultRuns(), FitOptions{});
  EXPECT_FALSE(fit.ok());
  ASSERT_EQ(fit.errors.size(), 1u);
  EXPECT_NE(fit.errors[0].find("no forced-configuration run"), std::string::npos) << fit.errors[0];
}

TEST(FitOnPublishedLogs, TwoPublishedReplicatesAreTooFewAndTheFitSaysHowManyToRun) {
  std::vector<PerfLog> logs = publishedDefaultRuns();
  for (PerfLog& log :
       asForced(publishedDefaultRuns(), "Tree", "LL", [](uint64_t s) { return s <= 64 * kK ? 0.7 : 1.2; })) {
    logs.push_back(log);
  }
  FitResult fit = fitPolicy(logs, FitOptions{});
  EXPECT_FALSE(fit.ok());
  ASSERT_EQ(fit.errors.size(), 1u);
  EXPECT_NE(fit.errors[0].find("run at least 5 replicates"), std::string::npos) << fit.errors[0];
}

}  // namespace
}  // namespace nccl_roce::sweep
