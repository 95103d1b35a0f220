// The table behind docs/statistics.md's "Collectives replayed from CUDA graphs": vLLM's decode under a switchback
// (tests/calibration/capture_simulation.h), A/A and with a 5% slower arm, through position effects inside the
// graphs, judged by capture rounds and, for comparison, by windows that hold the replays (the method before).
// Deterministic seeds: the same table every run.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "telemetry/size_bucket.h"
#include "tests/calibration/capture_simulation.h"
#include "verdicts/capture_plan.h"

namespace {

using nccl_roce::fleet::calibration::CaptureSpec;
using nccl_roce::fleet::calibration::CaptureTally;

// --only: the rows whose first column holds this text (every row when empty), to rerun one row of a table.
std::string only;

bool chosen(const std::string& what) {
  return only.empty() || what.find(only) != std::string::npos;
}

// The position effects of the trial and more: the first all-reduce twice as long, the MLP's 10% slower
// than attention's, a 3% periodic load over 8 positions, and a fixed 2% random factor per position.
CaptureSpec withPositionEffects(CaptureSpec s) {
  s.stepSkew = 2.0;
  s.mlpFactor = 1.1;
  s.periodicLoad = 0.03;
  s.positionNoise = 0.02;
  return s;
}

std::string percent(int k, int n) {
  char out[48];
  std::snprintf(out, sizeof out, "%.1f%% (%d of %d)", n ? 100.0 * k / n : 0.0, k, n);
  return out;
}

void row(const std::string& what, CaptureSpec spec, int trials) {
  if (!chosen(what)) return;
  CaptureTally t = nccl_roce::fleet::calibration::tallyCaptureTrials(spec, trials);
  int single = 0, singleFound = 0, multi = 0, multiFound = 0, insufficient = 0;
  double units = 0;
  for (const auto& [bucket, b] : t.buckets) {
    const bool oneGraph = bucket <= 17 || bucket == 23;  // batch 1, 2, 4, 8 and 512 sit alone in their buckets
    (oneGraph ? single : multi) += b.verdicts;
    (oneGraph ? singleFound : multiFound) += b.slower;
    insufficient += b.insufficient;
    units += b.units;
  }
  const bool aa = spec.candidateEffect == 1.0;
  std::printf("| %s | %d | %.0f | %s | %s | %s | %s | %.1f%% |\n", what.c_str(), trials,
              t.cells() ? units / t.cells() : 0.0, aa ? percent(t.calls(), t.cells()).c_str() : "-",
              aa ? percent(t.summarySlower + t.summaryFaster, t.summaries).c_str() : "-",
              aa ? "-" : (percent(singleFound, single) + " / " + percent(multiFound, multi)).c_str(),
              percent(insufficient, t.cells()).c_str(), 100 * t.coverage());
  std::fflush(stdout);
}

// What `nccl-roce ab plan --graphs` predicts for this simulation (cli/ab_plan_graphs.cc lays it out alike).
std::map<int, double> planned(const CaptureSpec& s) {
  nccl_roce::verdicts::CapturePlanInputs in;
  const int perGraph = 2 * s.layers + (s.embedding ? 1 : 0);
  in.layout.perGraph = perGraph;
  in.layout.callsBefore = static_cast<uint64_t>(perGraph);
  in.layout.callsBetween = static_cast<uint64_t>(s.warmups * perGraph);
  in.layout.block = s.block;
  in.layout.washout = s.washout;
  for (auto b = s.batchSizes.rbegin(); b != s.batchSizes.rend(); ++b) {
    in.layout.graphBuckets.push_back(nccl_roce::telemetry::sizeBucket(static_cast<uint64_t>(*b) * 16384));
  }
  const int first = s.embedding ? 1 : 0;
  in.positionEffects.assign(static_cast<size_t>(perGraph), 0.0);
  in.positionEffects[0] = std::log(s.stepSkew);
  for (int p = first; p < perGraph; ++p) {
    if ((p - first) % 2 == 1) in.positionEffects[static_cast<size_t>(p)] += std::log(s.mlpFactor);
  }
  const double kept = s.block - s.washout, replays = static_cast<double>(s.steps) / s.batchSizes.size();
  in.unitNoise = std::sqrt(2 * (s.noise * s.noise / replays + s.positionNoise * s.positionNoise) / kept);
  in.communicators = s.communicators;
  in.effect = s.candidateEffect - 1;
  std::map<int, double> out;
  for (const nccl_roce::verdicts::BucketPlan& p : nccl_roce::verdicts::planCaptures(in)) out[p.bucket] = p.power;
  return out;
}

// The design: how each (block, washout) fares, A/A through the carry-over and every position effect, and with a 5%
// slower arm, one communicator.
void designs(const CaptureSpec& base, int trials) {
  std::printf(
      "Layouts of arms over captures, one communicator, every position effect above and the carry-over "
      "(the candidate's first 2 collectives after a change of arm 30%% slower), %d runs each:\n\n"
      "| block, washout | capture rounds per graph of 64 | A/A: buckets called | 5%% slower: found, one-graph / "
      "several-graph buckets | insufficient data |\n|---|---:|---:|---:|---:|\n",
      trials);
  const uint32_t layouts[][2] = {{2, 0}, {2, 1}, {4, 1}, {4, 2}, {8, 2}, {16, 2}};
  for (const auto& l : layouts) {
    if (!chosen(std::to_string(l[0]) + ", " + std::to_string(l[1]))) continue;
    CaptureSpec s = withPositionEffects(base);
    s.block = l[0];
    s.washout = l[1];
    CaptureTally aa = nccl_roce::fleet::calibration::tallyCaptureTrials(s, trials);
    s.candidateEffect = 1.05;
    CaptureTally five = nccl_roce::fleet::calibration::tallyCaptureTrials(s, trials);
    int single = 0, singleFound = 0, multi = 0, multiFound = 0;
    for (const auto& [bucket, b] : five.buckets) {
      const bool oneGraph = bucket <= 17 || bucket == 23;
      (oneGraph ? single : multi) += b.verdicts;
      (oneGraph ? singleFound : multiFound) += b.slower;
    }
    int insufficient = 0;
    for (const auto& [bucket, b] : five.buckets) insufficient += b.insufficient;
    std::printf("| %u, %u | %u | %s | %s / %s | %s |\n", l[0], l[1], 64 / (2 * l[0]),
                percent(aa.calls(), aa.cells()).c_str(), percent(singleFound, single).c_str(),
                percent(multiFound, multi).c_str(), percent(insufficient, five.cells()).c_str());
    std::fflush(stdout);
  }
  std::printf("\n");
}

// The simulation's runs come in mirrored pairs (tallyCaptureTrials): where a verdict turns on the sign of one round,
// as in the buckets of one graph with a slow position kept in one turn, a run's verdict is that coin, and 400 single
// runs would measure the coin's luck over their seeds (±0.025) rather than the plan.
void planAgainstSimulation(const std::string& what, const CaptureSpec& s, int trials) {
  if (!chosen(what)) return;
  CaptureTally t = nccl_roce::fleet::calibration::tallyCaptureTrials(s, trials, /*mirroredPairs=*/true);
  std::map<int, double> plan = planned(s);
  std::printf("| %s |", what.c_str());
  double worst = 0;
  for (const auto& [bucket, b] : t.buckets) {
    const double simulated = b.verdicts ? static_cast<double>(b.slower) / b.verdicts : 0;
    std::printf(" %.2f / %.2f |", plan[bucket], simulated);
    worst = std::max(worst, std::fabs(plan[bucket] - simulated));
  }
  std::printf(" %.2f |\n", worst);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Calibration of switchback verdicts on vLLM's CUDA-graph decode (docs/statistics.md)"};
  int trials = 40;
  uint64_t steps = 20000;
  app.add_option("--trials", trials, "Simulated runs per row")->capture_default_str();
  app.add_option("--steps", steps, "Decode steps per run")->capture_default_str();
  uint32_t block = 4, washout = 2;
  app.add_option("--block", block, "The switchback's block, unless a row says")->capture_default_str();
  app.add_option("--washout", washout, "Its washout")->capture_default_str();
  bool planOnly = false, designOnly = false;
  app.add_flag("--plan", planOnly, "Only the table of ab plan's predictions against the simulation");
  app.add_flag("--designs", designOnly, "Only the table of layouts (block, washout)");
  app.add_option("--only", only, "Only the rows whose first column holds this text, such as \"40 layers\"");
  CLI11_PARSE(app, argc, argv);

  CaptureSpec base;
  base.steps = steps;
  base.block = block;
  base.washout = washout;
  std::printf(
      "vLLM's decode: 67 graphs (batch 1, 2, 4, 8..512 by 8) captured largest first, 32 layers x 2 all-reduces "
      "of batch x 16 KiB, %llu decode steps, an eager prefill every ~20, drift 30%%, noise 10%% (AR 0.7), "
      "2 ranks; block 4, washout 2 unless said. Position effects: first all-reduce 2x, MLP 1.1x, 3%% "
      "periodic over 8 positions, 2%% per position.\n\n",
      static_cast<unsigned long long>(steps));
  if (!planOnly) designs(base, trials);
  if (designOnly) return 0;
  {
    std::printf(
        "`nccl-roce ab plan --graphs` against the simulation, 5%% slower, one communicator: chance of a "
        "verdict per size bucket, planned / simulated (%d runs)\n\n| what |",
        trials);
    for (int b = 14; b <= 23; ++b) std::printf(" %s |", nccl_roce::telemetry::bucketLabel(b).c_str());
    std::printf(" largest difference |\n|---|");
    for (int b = 14; b <= 24; ++b) std::printf("---:|");
    std::printf("\n");
    CaptureSpec p = base;
    p.candidateEffect = 1.05;
    p.stepSkew = 2.0;
    p.mlpFactor = 1.1;
    planAgainstSimulation("first all-reduce 2x, MLP 1.1x", p, trials);
    p.layers = 40;
    p.embedding = true;
    planAgainstSimulation("the same, 40 layers + embedding", p, trials);
    p.communicators = 2;  // what the plan advises where one communicator gives even odds
    planAgainstSimulation("the same, 40 layers + embedding, 2 communicators", p, trials);
    p.communicators = 1;
    p.layers = 32;
    p.embedding = false;
    p.positionNoise = 0.02;
    planAgainstSimulation("the same, 32 layers, 2% per position", p, trials);
    std::printf("\n");
    if (planOnly) return 0;
  }
  std::printf(
      "| what | runs | units per bucket | A/A: buckets called | A/A: summaries called | 5%% slower: found, "
      "one-graph / several-graph buckets | insufficient data | intervals covering the truth |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|\n");
  CaptureSpec s = withPositionEffects(base);
  row("capture rounds, no position effect", base, trials);
  {
    CaptureSpec skew = base;
    skew.stepSkew = 2.0;
    row("capture rounds, first all-reduce 2x", skew, trials);
  }
  row("capture rounds, all position effects", s, trials);
  {
    CaptureSpec e = s;
    e.layers = 40;
    e.embedding = true;
    row("capture rounds, 40 layers + embedding (81 per graph)", e, trials);
  }
  {
    CaptureSpec e = s;
    e.batchSizes = nccl_roce::fleet::calibration::vllmCaptureSizes(true);
    row("capture rounds, vLLM's current sizes (51 graphs)", e, trials);
  }
  {
    CaptureSpec e = s;
    e.communicators = 2;
    row("capture rounds, 2 communicators", e, trials);
  }
  {
    CaptureSpec e = s;
    e.block = 16;
    row("capture rounds, block 16", e, trials);
  }
  {
    CaptureSpec e = s;
    e.candidateEffect = 1.05;
    row("capture rounds, all position effects, 5% slower", e, trials);
    e.layers = 40;
    e.embedding = true;
    row("capture rounds, 40 layers + embedding, 5% slower", e, trials);
    e.layers = 32;
    e.embedding = false;
    e.communicators = 2;
    row("capture rounds, 2 communicators, 5% slower", e, trials);
  }
  {
    CaptureSpec before = base;
    before.tellCaptures = false;
    before.block = 16;
    before.stepSkew = 2.0;
    row("windows holding replays (before), block 16, first all-reduce 2x", before, trials);
    before.block = 4;
    row("windows holding replays (before), block 4, first all-reduce 2x", before, trials);
  }
  return 0;
}
