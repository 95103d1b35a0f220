// share/nccl-roce/grafana/nccl-roce-collectives.json queries what the textfile holds: every metric and every
// label its queries name is one renderTextfile writes, so the dashboard cannot drift from the exporter.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "common/log.h"
#include "telemetry/open_metrics.h"

namespace nccl_roce::telemetry {
namespace {

nlohmann::json dashboard() {
  std::ifstream in(NCCL_ROCE_DASHBOARD);
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

// Metric names and label names of the textfile, from a rendering with one key and one dropped event.
void exported(std::set<std::string>& metrics, std::set<std::string>& labels) {
  CommunicatorSnapshot c;
  c.timings.emplace();
  KeyTimings k;
  k.key = cellKey(4, 65536, 1, 0, 4);
  k.key.source = TimingSource::kKernelGpu;
  k.histogram.record(40000);
  c.timings->keys.push_back(k);
  c.timings->dropped[static_cast<size_t>(Drop::kMissingParent)] = 1;
  std::string text = renderTextfile({"serving", "vllm-0", "node-1", 1}, {c});
  std::regex sample(R"(^([a-z_]+)\{([^}]*)\})");
  std::regex label(R"(([a-z_]+)=)");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, sample)) continue;
    metrics.insert(m[1]);
    std::string list = m[2];
    for (std::sregex_iterator it(list.begin(), list.end(), label), end; it != end; ++it) labels.insert((*it)[1]);
  }
}

TEST(GrafanaDashboard, QueriesOnlyMetricsAndLabelsTheTextfileHas) {
  nlohmann::json d = dashboard();
  ASSERT_TRUE(d.is_object()) << "not valid JSON: " << NCCL_ROCE_DASHBOARD;
  std::set<std::string> metrics, labels;
  exported(metrics, labels);
  ASSERT_TRUE(metrics.count("nccl_roce_collective_duration_seconds_bucket"));
  std::vector<std::string> queries;
  for (const auto& panel : d["panels"]) {
    for (const auto& target : panel["targets"]) queries.push_back(target["expr"]);
  }
  for (const auto& variable : d["templating"]["list"]) {
    if (variable["type"] == "query") queries.push_back(variable["query"]["query"]);
  }
  ASSERT_GE(queries.size(), 6u);
  std::regex metric(R"(nccl_roce_[a-z_]+)");
  std::regex grouping(R"((?:by \(|label_values\([a-z_]+, )([a-z_, ]+)\))");
  std::regex matcher(R"(([a-z_]+)=~?")");
  std::regex made(R"re(\), "([a-z_]+)", ")re");  // label_replace(SERIES, "made", ...) adds a label of its own
  for (const std::string& q : queries) {
    std::set<std::string> known = labels;
    for (std::sregex_iterator it(q.begin(), q.end(), made), end; it != end; ++it) known.insert((*it)[1]);
    for (std::sregex_iterator it(q.begin(), q.end(), metric), end; it != end; ++it) {
      EXPECT_TRUE(metrics.count(it->str())) << it->str() << " in " << q;
    }
    for (std::sregex_iterator it(q.begin(), q.end(), grouping), end; it != end; ++it) {
      std::istringstream names((*it)[1]);
      for (std::string name; std::getline(names, name, ',');) {
        name.erase(0, name.find_first_not_of(' '));
        EXPECT_TRUE(name == "le" || known.count(name)) << "label " << name << " in " << q;
      }
    }
    for (std::sregex_iterator it(q.begin(), q.end(), matcher), end; it != end; ++it) {
      EXPECT_TRUE(labels.count((*it)[1])) << "label " << (*it)[1] << " in " << q;
    }
  }
}

TEST(GrafanaDashboard, ShowsLatencyPerSizeBucketPerArm) {
  nlohmann::json d = dashboard();
  bool perBucketPerArm = false;
  for (const auto& panel : d["panels"]) {
    if (panel["targets"].empty()) continue;  // a row
    std::string expr = panel["targets"][0]["expr"];
    perBucketPerArm |= expr.find("histogram_quantile") != std::string::npos &&
                       expr.find("by (le, message_size, arm)") != std::string::npos;
  }
  EXPECT_TRUE(perBucketPerArm);
}

// The dashboard shows the statistics `nccl-roce ab` decides on, from the same series `ab --prometheus` reads.
TEST(GrafanaDashboard, ShowsTheGeometricMeanAbDecidesOnFromItsSeries) {
  nlohmann::json d = dashboard();
  bool geometricMean = false;
  for (const auto& panel : d["panels"]) {
    if (panel["targets"].empty()) continue;  // a row
    std::string expr = panel["targets"][0]["expr"];
    geometricMean |= expr.find("rate(nccl_roce_ab_log_duration_sum{") != std::string::npos &&
                     expr.find("rate(nccl_roce_ab_log_duration_count{") != std::string::npos &&
                     expr.find("by (message_size, arm)") != std::string::npos;
  }
  EXPECT_TRUE(geometricMean);
}

// Successive experiments each have their own control arm, and an edited experiment keeps its name: every timing
// panel filters on the experiment, its digest and the rest, so picking one never mixes in another's collectives.
TEST(GrafanaDashboard, EveryTimingPanelFiltersOnEveryVariable) {
  nlohmann::json d = dashboard();
  std::vector<std::string> variables;
  for (const auto& variable : d["templating"]["list"]) {
    if (variable["type"] == "query") variables.push_back(variable["name"]);
  }
  for (const char* name : {"namespace", "experiment", "experiment_hash", "policy_hash", "arm"}) {
    EXPECT_NE(std::find(variables.begin(), variables.end(), name), variables.end()) << "no $" << name;
  }
  for (const auto& panel : d["panels"]) {
    std::string title = panel["title"];
    for (const auto& target : panel["targets"]) {
      std::string expr = target["expr"];
      if (expr.find("_duration") == std::string::npos) continue;
      for (const std::string& name : variables) {
        EXPECT_NE(expr.find(name + "=~\"$" + name + "\""), std::string::npos)
            << "panel '" << title << "' ignores $" << name;
      }
    }
  }
}

// One fleet at a time, and every fleet selectable: an experiment by its name, and the pods that run a plain policy
// (their series have no experiment label) by a value that matches only the empty label. Grafana inserts the value
// of a variable with neither multi nor All as it is (its Prometheus datasource's interpolateQueryExpr: no regex
// escaping), and takes an option's value and text from the named groups of the variable's regex; the test command
// evaluates every query so for every fleet (tests/prometheus/journey_test.sh, dashboard_queries.py).
TEST(GrafanaDashboard, EveryFleetIsSelectableAPlainPolicyToo) {
  nlohmann::json d = dashboard();
  int found = 0;
  for (const auto& variable : d["templating"]["list"]) {
    std::string name = variable["name"];
    if (name != "experiment" && name != "experiment_hash") continue;
    ++found;
    EXPECT_TRUE(variable["includeAll"] == false && variable["multi"] == false) << name << ": one at a time";
    std::string query = variable["query"]["query"];
    EXPECT_EQ(query.rfind("query_result(", 0), 0u) << name;
    EXPECT_NE(query.find("label_replace("), std::string::npos) << name;
    const std::string absentBecomesEmptyGroup = format(R"q(, "%s", "()", "%s", ""))q", name.c_str(), name.c_str());
    EXPECT_NE(query.find(absentBecomesEmptyGroup), std::string::npos)
        << name << ": an absent label becomes the value \"()\"";
    EXPECT_NE(query.find("[$__range]"), std::string::npos) << name << ": finished fleets too";
    std::string regex = variable["regex"];
    EXPECT_NE(regex.find("(?<value>"), std::string::npos) << name;
    EXPECT_NE(regex.find("(?<text>"), std::string::npos) << name;
  }
  EXPECT_EQ(found, 2);
  // What Prometheus makes of `experiment=~"()"`: a fully anchored regex that only the empty value matches.
  std::regex onlyEmpty("()");
  EXPECT_TRUE(std::regex_match(std::string(), onlyEmpty));
  EXPECT_FALSE(std::regex_match(std::string("inference-vs-nccl"), onlyEmpty));
}

// A switchback's communicators run every arm: their series carry each arm apart, so the arm variable and every
// panel grouped by arm show them (telemetry/open_metrics.h).
TEST(GrafanaDashboard, ASwitchbacksArmsAreItsSeriesArms) {
  CommunicatorSnapshot c;
  c.identity.emplace();
  c.identity->experiment = "sb";
  c.identity->design = "switchback";
  c.timings.emplace();
  KeyTimings k;
  k.key = cellKey(4, 16384, 1, 0, 1);
  k.key.source = TimingSource::kKernelGpu;
  k.histogram.record(34000);
  c.timings->keys.push_back(k);
  c.decisions = std::vector<DecisionCount>{{cellKey(4, 16384, 1, 0, 0), DecisionSource::kRule, "ll", "inference", 1}};
  SwitchbackTimings t;
  t.arms = {"control", "inference"};
  t.cells = {{4, 14, 1, 1, 1000}};
  c.timings->switchback = t;
  std::string text = renderTextfile({"decode", "decode-0", "node-1", 1}, {c});
  EXPECT_NE(text.find("nccl_roce_ab_log_duration_count{namespace=\"decode\",pod=\"decode-0\",node=\"node-1\","
                      "pid=\"1\",experiment=\"sb\",experiment_hash=\"\",arm=\"inference\""),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("_bucket{namespace=\"decode\",pod=\"decode-0\",node=\"node-1\",pid=\"1\",experiment=\"sb\","
                      "experiment_hash=\"\",arm=\"\""),
            std::string::npos)
      << "no histogram of the switchback without its arm";
}

// Rates go blank when a job ends: the panels over the dashboard's range keep its figures (the test command runs
// them on a real Prometheus after the pods exit: tests/prometheus/pods_test.sh).
TEST(GrafanaDashboard, ShowsAFinishedJobOverTheTimeRange) {
  nlohmann::json d = dashboard();
  bool geometricMean = false, median = false;
  for (const auto& panel : d["panels"]) {
    for (const auto& target : panel["targets"]) {
      std::string expr = target["expr"];
      if (expr.find("[$__range]") == std::string::npos) continue;
      EXPECT_EQ(expr.find("rate("), std::string::npos) << "a rate over the range is blank after the job";
      EXPECT_TRUE(target.contains("instant") && target["instant"] == true) << "one figure for the whole range";
      geometricMean |= expr.find("last_over_time(nccl_roce_ab_log_duration_sum{") != std::string::npos;
      median |= expr.find("histogram_quantile(0.5") != std::string::npos;
    }
  }
  EXPECT_TRUE(geometricMean);
  EXPECT_TRUE(median);
}

}  // namespace
}  // namespace nccl_roce::telemetry
