// Prints the calibration tables of docs/statistics.md: how often each interval method gives a false verdict and
// how often its intervals cover the truth, at the replicate counts people use and at small and unequal splits;
// what the chosen degrees of freedom cost in width and power; the power of the chosen method; and how `sweep
// fit`'s control of false wins behaves. Deterministic (fixed seeds), so the tables reproduce.
//   build/tests/calibration/calibration_report [--trials N]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/calibration/bootstrap_methods.h"
#include "tests/calibration/fit_simulation.h"
#include "tests/calibration/simulation.h"
#include "verdicts/multiple_testing.h"
#include "verdicts/verdict.h"
#include "verdicts/winner_selection.h"

namespace nccl_roce::verdicts::calibration {
namespace {

const Settings kCompare{0.95, 0.01, 2};

struct Tally {
  Rate sizeVerdict, rangeVerdict, sizeCovered, rangeCovered;
};

bool differs(double ratio, double low, double high) {
  return (high < 1 && ratio <= 1 - kCompare.minEffect) || (low > 1 && ratio >= 1 + kCompare.minEffect);
}

void count(Tally& t, const SimpleInterval& i, double truth, bool range) {
  bool verdict = differs(i.estimate, i.low, i.high);
  bool covered = i.low <= truth && truth <= i.high;
  (range ? t.rangeVerdict : t.sizeVerdict).add(verdict);
  (range ? t.rangeCovered : t.sizeCovered).add(covered);
}

enum class Method { kSmallerSide, kWelchSatterthwaite, kMedianBootstrap, kClusterBootstrap };

Settings settingsOf(Method method) {
  Settings s = kCompare;
  if (method == Method::kWelchSatterthwaite) s.degreesOfFreedom = DegreesOfFreedom::kWelchSatterthwaite;
  return s;
}

Tally run(Method method, int unitsA, int unitsB, double effect, const Noise& noise, int trials, uint64_t seed) {
  Simulator sim(seed);
  std::mt19937_64 rng(seed ^ 0x5bd1e995u);
  std::vector<uint64_t> cells = sweepSizes();
  double truth = 1 - effect;
  auto candidate = [truth](uint64_t s) { return modelTimeUs(s) * truth; };
  Tally t;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<Unit> a = sim.side(unitsA, cells, modelTimeUs, noise, /*withOutlier=*/true);
    std::vector<Unit> b = sim.side(unitsB, cells, candidate, noise);
    if (method == Method::kSmallerSide || method == Method::kWelchSatterthwaite) {
      UnitComparison c = compareUnits(a, b, 0, UINT64_MAX, settingsOf(method));
      for (const CellComparison& z : c.cells) {
        if (z.interval) count(t, {z.ratio, z.interval->low, z.interval->high}, truth, false);
      }
      if (c.range.interval)
        count(t, {c.range.interval->ratio, c.range.interval->low, c.range.interval->high}, truth, true);
      continue;
    }
    MethodResult r = method == Method::kMedianBootstrap ? medianPercentileBootstrap(a, b, cells, 0.95, 1000, rng)
                                                        : clusterBootstrap(a, b, cells, 0.95, 1000, rng);
    for (const SimpleInterval& i : r.cells) count(t, i, truth, false);
    count(t, r.range, truth, true);
  }
  return t;
}

Tally run(Method method, int units, double effect, const Noise& noise, int trials, uint64_t seed) {
  return run(method, units, units, effect, noise, trials, seed);
}

std::string pct(const Rate& r) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * r.value());
  return text;
}

void methodsTable(int trials) {
  std::printf("### Interval methods, A/A (no difference) and a 5%% difference\n\n");
  std::printf(
      "Noise: %s; sizes 8K-64M (14); %d trials per row; verdicts need the 95%% interval to exclude 1 and a "
      "1%% effect.\n\n",
      Noise{}.describe().c_str(), trials);
  std::printf(
      "| method | replicates per side | A/A: sizes with a verdict | A/A: summary verdicts | coverage per size "
      "| coverage of the summary |\n|---|---:|---:|---:|---:|---:|\n");
  const char* names[] = {"Welch t on log times, smaller side's degrees of freedom (chosen)",
                         "Welch t on log times, Welch-Satterthwaite degrees of freedom (before)",
                         "percentile bootstrap of medians (earlier)", "cluster bootstrap of runs, percentile"};
  for (Method m :
       {Method::kSmallerSide, Method::kWelchSatterthwaite, Method::kMedianBootstrap, Method::kClusterBootstrap}) {
    for (int units : {2, 3, 5, 10}) {
      int n = m == Method::kSmallerSide || m == Method::kWelchSatterthwaite ? trials : trials / 4;
      Tally aa = run(m, units, 0, Noise{}, n, 1000 + static_cast<uint64_t>(units));
      Tally fx = run(m, units, 0.05, Noise{}, n, 2000 + static_cast<uint64_t>(units));
      std::printf("| %s | %d | %s | %s | %s | %s |\n", names[static_cast<int>(m)], units, pct(aa.sizeVerdict).c_str(),
                  pct(aa.rangeVerdict).c_str(), pct(fx.sizeCovered).c_str(), pct(fx.rangeCovered).c_str());
    }
  }
  std::printf("\n");
}

// Mean ratio of the chosen interval's width (on the log scale) to Welch-Satterthwaite's, over the same data.
double widthRatio(int unitsA, int unitsB, int trials, uint64_t seed) {
  Simulator sim(seed);
  std::vector<uint64_t> cells = sweepSizes();
  double sum = 0;
  long n = 0;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<Unit> a = sim.side(unitsA, cells, modelTimeUs, Noise{}),
                      b = sim.side(unitsB, cells, modelTimeUs, Noise{});
    UnitComparison chosen = compareUnits(a, b, 0, UINT64_MAX, settingsOf(Method::kSmallerSide));
    UnitComparison before = compareUnits(a, b, 0, UINT64_MAX, settingsOf(Method::kWelchSatterthwaite));
    for (size_t i = 0; i < chosen.cells.size(); ++i) {
      const auto& x = chosen.cells[i].interval;
      const auto& y = before.cells[i].interval;
      if (!x || !y) continue;
      sum += std::log(x->high / x->low) / std::log(y->high / y->low);
      ++n;
    }
  }
  return n ? sum / static_cast<double>(n) : 0;
}

void splitsTable(int trials) {
  std::printf("### Small and unequal sides\n\n");
  std::printf(
      "Noise: %s; A/A and a 5%% difference (B faster); %d trials per row. Chosen: Welch's statistic on the "
      "smaller side's degrees of freedom; before: Welch-Satterthwaite's estimate.\n\n",
      Noise{}.describe().c_str(), trials);
  std::printf(
      "| units (A / B) | A/A sizes with a verdict, chosen (before) | A/A summaries, chosen (before) | interval "
      "width against before | 5%%: summary called faster, chosen (before) |\n|---|---:|---:|---:|---:|\n");
  const std::pair<int, int> splits[] = {{2, 2},  {3, 3},  {5, 5},  {10, 10}, {20, 20}, {10, 2},
                                        {30, 2}, {30, 3}, {40, 5}, {40, 10}, {40, 20}};
  for (const auto& [a, b] : splits) {
    uint64_t seed = 9000 + static_cast<uint64_t>(a * 100 + b);
    Tally chosen = run(Method::kSmallerSide, a, b, 0, Noise{}, trials, seed);
    Tally before = run(Method::kWelchSatterthwaite, a, b, 0, Noise{}, trials, seed);
    Tally chosenFx = run(Method::kSmallerSide, a, b, 0.05, Noise{}, trials, seed + 1);
    Tally beforeFx = run(Method::kWelchSatterthwaite, a, b, 0.05, Noise{}, trials, seed + 1);
    std::printf("| %d / %d | %s (%s) | %s (%s) | %+.0f%% | %s (%s) |\n", a, b, pct(chosen.sizeVerdict).c_str(),
                pct(before.sizeVerdict).c_str(), pct(chosen.rangeVerdict).c_str(), pct(before.rangeVerdict).c_str(),
                100 * (widthRatio(a, b, trials / 4, seed + 2) - 1), pct(chosenFx.rangeVerdict).c_str(),
                pct(beforeFx.rangeVerdict).c_str());
  }
  std::printf("\n");
}

void robustnessTable(int trials) {
  std::printf(
      "### Heavy tails and an outlier run (chosen method, A/A)\n\n| noise | replicates per side | sizes with a "
      "verdict | summary verdicts | coverage per size (5%% effect) | coverage of the summary |\n"
      "|---|---:|---:|---:|---:|---:|\n");
  Noise heavy;
  heavy.heavyTails = true;
  Noise outlier;
  outlier.outlierRun = 1.3;
  for (const Noise& noise : {heavy, outlier}) {
    for (int units : {3, 5, 10}) {
      Tally aa = run(Method::kSmallerSide, units, 0, noise, trials, 3000 + static_cast<uint64_t>(units));
      Tally fx = run(Method::kSmallerSide, units, 0.05, noise, trials, 4000 + static_cast<uint64_t>(units));
      std::printf("| %s | %d | %s | %s | %s | %s |\n", noise.describe().c_str(), units, pct(aa.sizeVerdict).c_str(),
                  pct(aa.rangeVerdict).c_str(), pct(fx.sizeCovered).c_str(), pct(fx.rangeCovered).c_str());
    }
  }
  std::printf("\n");
}

void powerTable(int trials) {
  std::printf("### Power: how often a real difference gets its verdict (chosen method)\n\n");
  std::printf("B faster by the effect at every size; noise %s; 95%%, 1%% minimum effect.\n\n",
              Noise{}.describe().c_str());
  std::printf(
      "| effect | replicates per side | sizes called faster | summary called faster |\n|---:|---:|---:|---:|\n");
  for (double effect : {0.02, 0.05, 0.10}) {
    for (int units : {3, 5, 10}) {
      Tally t = run(Method::kSmallerSide, units, effect, Noise{}, trials, 5000 + static_cast<uint64_t>(units));
      std::printf("| %.0f%% | %d | %s | %s |\n", effect * 100, units, pct(t.sizeVerdict).c_str(),
                  pct(t.rangeVerdict).c_str());
    }
  }
  std::printf("\n");
}

struct FitTally {
  Rate anyFalse, falseShare, power;
};

FitTally fitTrials(const FitScenario& scenario, int units, FalseWinControl control, int trials, uint64_t seed) {
  Simulator sim(seed);
  Settings settings{0.95, 0.02, 2};
  FitTally t;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<std::vector<Unit>> sides = simulateSides(scenario, units, Noise{}, sim);
    std::vector<Challenge> challenges;
    std::vector<size_t> configOf;
    for (size_t i = 0; i < scenario.sizes.size(); ++i) {
      std::vector<double> d = valuesAt(sides[0], scenario.sizes[i]);
      for (size_t c = 0; c + 1 < sides.size(); ++c) {
        StatusOr<RatioInterval> vs = ratioOfGeometricMeans(d, valuesAt(sides[c + 1], scenario.sizes[i]), 0.95);
        if (!vs.isOk()) continue;
        challenges.push_back({i, *vs});
        configOf.push_back(c);
      }
    }
    std::vector<std::optional<size_t>> winners = selectWinners(challenges, scenario.sizes.size(), settings, control);
    std::vector<std::optional<size_t>> chosen(scenario.sizes.size());
    for (size_t i = 0; i < winners.size(); ++i) {
      if (winners[i]) chosen[i] = configOf[*winners[i]];
    }
    FitOutcome o = judgeChoices(chosen, scenario);
    t.anyFalse.add(o.anyFalseRule);
    for (int r = 0; r < o.rules; ++r) t.falseShare.add(r < o.falseRules);
    for (int w = 0; w < o.winnableSizes; ++w) t.power.add(w < o.won);
  }
  return t;
}

void fitTable(int trials) {
  std::printf("### Fit: false wins across 9 configurations x 20 sizes (180 comparisons)\n\n");
  std::printf(
      "Noise %s. Null: every configuration ties the default. Mixed: Tree/LL 15%% faster at 5 sizes, "
      "Ring/Simple/16 channels 10%% faster at 6 sizes, the rest slower or tied.\n\n",
      Noise{}.describe().c_str());
  std::printf(
      "| control | replicates | null: fits with any rule | mixed: fits with a false rule | mixed: share of "
      "rules that are false | mixed: winnable sizes won |\n|---|---:|---:|---:|---:|---:|\n");
  for (FalseWinControl control : {FalseWinControl::kFamilyWise, FalseWinControl::kFalseDiscoveryRate}) {
    for (int units : {3, 4, 5, 7, 10}) {
      FitTally null = fitTrials(nullScenario(), units, control, trials, 6000 + static_cast<uint64_t>(units));
      FitTally mixed = fitTrials(mixedScenario(), units, control, trials, 7000 + static_cast<uint64_t>(units));
      std::printf("| %s | %d | %s | %s | %s | %s |\n",
                  control == FalseWinControl::kFamilyWise ? "Holm (family-wise)" : "Benjamini-Hochberg (FDR)", units,
                  pct(null.anyFalse).c_str(), pct(mixed.anyFalse).c_str(), pct(mixed.falseShare).c_str(),
                  pct(mixed.power).c_str());
    }
  }
  std::printf("\n");
}

}  // namespace
}  // namespace nccl_roce::verdicts::calibration

int main(int argc, char** argv) {
  CLI::App app{
      "Prints docs/statistics.md's tables: error rates, coverage and power of the verdicts of sweep compare "
      "and sweep fit, from simulations with deterministic seeds"};
  int trials = 2000;
  app.add_option("--trials", trials, "Simulated comparisons per row")
      ->check(CLI::Range(4, 1000000))
      ->capture_default_str();
  app.footer("Exit status 0; 2 on a usage error.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  using namespace nccl_roce::verdicts::calibration;
  methodsTable(trials);
  splitsTable(trials);
  robustnessTable(trials);
  powerTable(trials);
  fitTable(trials / 4);
  return 0;
}
