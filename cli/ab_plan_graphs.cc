#include "cli/ab_plan_graphs.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "cli/fleet_inputs.h"
#include "common/log.h"
#include "common/strings.h"
#include "fleet/capture_rounds.h"
#include "fleet/switchback_comparison.h"
#include "policy/policy.h"
#include "telemetry/size_bucket.h"
#include "verdicts/capture_plan.h"
#include "verdicts/signed_rank.h"

namespace nccl_roce::cli {

namespace {

// "vllm": 1, 2, 4, 8..512 by 8 (vLLM through 0.10); "vllm-current": 8..248 by 8, then 256..512 by 16; else a list of
// sizes and ranges "8-512/8". Ascending; empty on a bad list.
std::vector<int> graphSizes(const std::string& text) {
  std::vector<int> sizes = {1, 2, 4};
  if (text == "vllm" || text == "vllm-current") {
    for (int b = 8; b <= 512; b += text == "vllm-current" && b >= 256 ? 16 : 8) sizes.push_back(b);
    return sizes;
  }
  sizes.clear();
  for (std::string_view view : split(text, ',')) {
    const std::string part(view);
    int from = 0, to = 0, step = 1;
    char dash = 0, slash = 0;
    const int read = std::sscanf(part.c_str(), "%d%c%d%c%d", &from, &dash, &to, &slash, &step);
    if (read == 1) to = from;
    if (from < 1 || (read != 1 && (dash != '-' || to < from)) || (read == 5 && (slash != '/' || step < 1)) ||
        read == 2 || read == 4) {
      return {};
    }
    for (int b = from; b <= to; b += step) sizes.push_back(b);
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

std::string sizesText(const std::vector<int>& sizes) {
  return std::to_string(sizes.size()) + " graphs (batch " + std::to_string(sizes.front()) + ".." +
         std::to_string(sizes.back()) + ")";
}

struct Row {
  int bucket = 0;
  int graphs = 0;
  double units = 0, power = 0;
  std::string remedy;
};

std::string table(const std::vector<Row>& rows, double effect) {
  std::string out = format("| size bucket | graphs | capture rounds | chance of a verdict on %.1f%% | to reach it |\n",
                           effect * 100) +
                    "|---|---:|---:|---:|---|\n";
  for (const Row& r : rows) {
    out += "| " + telemetry::bucketLabel(r.bucket) + " | " + (r.graphs > 0 ? std::to_string(r.graphs) : "-") + " | " +
           format("%.0f", r.units) + " | " + format("%.2f", r.power) + " | " + (r.remedy.empty() ? "-" : r.remedy) +
           " |\n";
  }
  return out;
}

// What would reach the asked power where the layout falls short: more communicators (each pod's capture is a draw
// of its own), never a longer block.
void remedies(std::vector<Row>& rows, verdicts::CapturePlanInputs in, double power) {
  const int needed = verdicts::fewestUnitsFor(in.confidence);
  std::map<int, Row*> open;
  for (Row& r : rows) {
    if (r.power >= power) continue;
    open[r.bucket] = &r;
    if (r.units < needed) {
      r.remedy = format("insufficient data: %.0f rounds, a verdict needs %d", r.units, needed);
    }
  }
  for (int communicators = in.communicators * 2; communicators <= 64 && !open.empty(); communicators *= 2) {
    in.communicators = communicators;
    for (const verdicts::BucketPlan& p : verdicts::planCaptures(in)) {
      auto r = open.find(p.bucket);
      if (r == open.end() || p.power < power) continue;
      r->second->remedy += format("%s%d communicators (pods, or communicators carrying it): %.2f",
                                  r->second->remedy.empty() ? "" : "; ", communicators, p.power);
      open.erase(r);
    }
  }
  for (auto& [bucket, r] : open) r->remedy += std::string(r->remedy.empty() ? "" : "; ") + "not with 64 communicators";
}

std::string planFromLayout(const GraphPlanOptions& g, const verdicts::CapturePlanInputs& base, double power,
                           double noise, int* exitCode) {
  std::vector<int> sizes = graphSizes(g.graphs);
  if (sizes.empty()) {
    *exitCode = 2;
    return "error: --graphs '" + g.graphs +
           "' is not vllm, vllm-current or a list of batch sizes such as 1,2,4,8-512/8";
  }
  verdicts::CapturePlanInputs in = base;
  const int perGraph = 2 * g.layers + (g.embedding ? 1 : 0);
  in.layout.perGraph = perGraph;
  in.layout.callsBefore = static_cast<uint64_t>(perGraph);  // vLLM's profile run, an eager forward
  in.layout.callsBetween = static_cast<uint64_t>(g.warmups) * static_cast<uint64_t>(perGraph);
  for (auto size = sizes.rbegin(); size != sizes.rend(); ++size) {  // captured largest first
    in.layout.graphBuckets.push_back(telemetry::sizeBucket(static_cast<uint64_t>(*size) * g.bytesPerBatch));
  }
  const int first = g.embedding ? 1 : 0;
  in.positionEffects.assign(static_cast<size_t>(perGraph), 0.0);
  in.positionEffects[0] += std::log(g.stepSkew);
  for (int p = first; p < perGraph; ++p) {
    if ((p - first) % 2 == 1) in.positionEffects[static_cast<size_t>(p)] += std::log(g.mlpFactor);
  }
  // A unit's difference: two turns' means over their kept positions, each position's mean over its replays, and its
  // own fixed speed where positions differ at random.
  const double kept = std::max<uint32_t>(in.layout.block - in.layout.washout, 1);
  in.unitNoise =
      std::sqrt(2 * (noise * noise / std::max(g.replaysPerGraph, 1.0) + g.positionNoise * g.positionNoise) / kept);
  std::vector<Row> rows;
  for (const verdicts::BucketPlan& p : verdicts::planCaptures(in)) {
    rows.push_back({p.bucket, p.graphs, p.units * in.communicators, p.power, ""});
  }
  remedies(rows, in, power);
  std::string out = format(
      "%s captured largest first, %d all-reduces each of batch x %s; block %u, washout %u, %u turns per round; "
      "%d communicator%s (each pod's capture is a draw of its own); position effects: the first all-reduce "
      "x%.2f, the MLP's x%.2f, %.3f per position (log-sd); %.0f replays per graph at noise %.2f; %.0f%% "
      "confidence.\n\n",
      sizesText(sizes).c_str(), perGraph, formatByteSize(g.bytesPerBatch).c_str(), in.layout.block, in.layout.washout,
      in.layout.turnsPerRound, in.communicators, in.communicators == 1 ? "" : "s", g.stepSkew, g.mlpFactor,
      g.positionNoise, g.replaysPerGraph, noise, in.confidence * 100);
  return out + table(rows, in.effect);
}

std::string planFromStatistics(const GraphPlanOptions& g, const verdicts::CapturePlanInputs& in, int* exitCode) {
  StatusOr<fleet::Fleet> f = readFleet(g.stats, "", /*skipUnreadable=*/false);
  if (!f.isOk()) {
    *exitCode = 3;
    return "error: " + f.status().message();
  }
  std::string reference, arm;
  int observed = 0;
  for (const fleet::FleetCommunicator& c : f->communicators) {
    if (!c.switchback || !c.switchback->capturesTracked || c.switchback->arms.size() < 2) continue;
    reference = c.switchback->arms[0];
    arm = c.switchback->arms[1];
    ++observed;
  }
  if (observed == 0) {
    *exitCode = 3;
    return "error: no communicator in these statistics captured collectives into CUDA graphs with its replays told "
           "apart (a switchback of this version on NCCL 2.28+)";
  }
  const int copies = std::max(1, static_cast<int>(std::lround(static_cast<double>(in.communicators) / observed)));
  std::vector<Row> rows;
  for (const auto& [cell, units] : fleet::captureUnits(*f, reference, arm, telemetry::kCollAllReduce)) {
    std::vector<double> d;
    for (double bins : units.differences) d.push_back(bins * fleet::logBinWidth());
    Row r{fleet::bucketOfCell(cell), static_cast<int>(units.sizes.size()),
          static_cast<double>(d.size() * static_cast<size_t>(copies)), 0, ""};
    r.power = verdicts::powerOfObservedUnits(d, in.effect, copies, in.confidence, in.minEffect, in.draws, in.seed);
    if (r.units < verdicts::fewestUnitsFor(in.confidence)) {
      r.remedy = format("insufficient data: %.0f rounds, a verdict needs %d", r.units,
                        verdicts::fewestUnitsFor(in.confidence));
    }
    rows.push_back(r);
  }
  std::string out = format(
      "The capture rounds of %d communicator%s of experiment '%s' (%s against %s, all-reduce), each replayed "
      "round's spread as observed, redrawn %d time%s over for %d communicator%s; %.0f%% confidence.\n\n",
      observed, observed == 1 ? "" : "s", f->experiment.c_str(), arm.c_str(), reference.c_str(), copies,
      copies == 1 ? "" : "s", in.communicators, in.communicators == 1 ? "" : "s", in.confidence * 100);
  return out + table(rows, in.effect);
}

}  // namespace

std::string planGraphs(const GraphPlanOptions& g, const std::vector<uint32_t>& weights, uint32_t block,
                       uint32_t washout, int communicators, double effect, double confidence, double power,
                       double noise, int* exitCode) {
  *exitCode = 0;
  if (block > policy::kMaxSwitchbackBlock) {
    *exitCode = 2;
    return format(
        "error: --block %u: policy lint refuses a switchback block past %u, which leaves a CUDA graph too "
        "few rounds of turns (docs/ab-testing.md, \"Choosing the block\")",
        block, policy::kMaxSwitchbackBlock);
  }
  if (washout >= block) {
    *exitCode = 2;
    return format(
        "error: --washout %u: a washout of a whole block (%u) or more keeps no collective of any turn, so no "
        "capture round would compare the arms; policy lint refuses it (at most %u)",
        washout, block, block - 1);
  }
  verdicts::CapturePlanInputs in;
  in.layout.block = block;
  in.layout.washout = washout;
  uint32_t common = 0;
  for (uint32_t w : weights) common = std::gcd(common, w);
  in.layout.turnsPerRound = 0;
  for (uint32_t w : weights) in.layout.turnsPerRound += common > 0 ? w / common : 0;
  in.communicators = communicators;
  in.effect = effect;
  in.confidence = confidence;
  in.draws = g.draws;
  std::string head = format(
      "# nccl-roce ab plan: an `ab` verdict on a %.1f%% difference, collectives replayed from "
      "CUDA graphs\n\n",
      effect * 100);
  std::string body =
      g.stats.empty() ? planFromLayout(g, in, power, noise, exitCode) : planFromStatistics(g, in, exitCode);
  return *exitCode == 0 ? head + body : body;
}

}  // namespace nccl_roce::cli
