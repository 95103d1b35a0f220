#include "nccl-tests-integration/sweep/fit.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/strings.h"
#include "verdicts/unit_comparison.h"
#include "verdicts/winner_selection.h"

namespace nccl_roce::sweep {

namespace {

// What one fit compares: per series, the default's runs and each forced configuration's runs.
struct SeriesInput {
  FitSeries out;
  const Series* defaults = nullptr;
  std::vector<const Series*> forced;  // parallel to out.configs
};

// Each challenge (a configuration at a size) with the decision it informs.
struct ChallengeSource {
  size_t series = 0, size = 0, config = 0;
};

std::string replicateAdvice(int needed) {
  return "run at least " + std::to_string(needed) + " replicates per configuration (run-sweep.sh --replicates " +
         std::to_string(needed) + ")";
}

std::set<ForcedConfig> configsOf(const std::vector<PerfLog>& logs, FitResult* result) {
  std::set<ForcedConfig> configs;
  for (const PerfLog& log : logs) {
    for (const PerfRun& run : log.runs) {
      if (run.rows.empty()) continue;
      std::string why;
      if (std::optional<ForcedConfig> config = forcedConfigOf(run, &why)) {
        configs.insert(*config);
      } else {
        result->notes.push_back(log.source + ":" + std::to_string(run.firstLine) + ": run left out: " + why);
      }
    }
  }
  if (!configs.count(ForcedConfig{})) {
    result->errors.push_back(
        "no run of NCCL's default: add runs without NCCL_ALGO, NCCL_PROTO or channel settings "
        "(run-sweep.sh --default)");
  }
  if (configs.size() - configs.count(ForcedConfig{}) == 0) {
    result->errors.push_back(
        "no forced-configuration run: add runs with NCCL_ALGO and/or NCCL_PROTO set "
        "(run-sweep.sh --algos ... --protos ...)");
  }
  return configs;
}

SampleSet samplesOf(const std::vector<PerfLog>& logs, const ForcedConfig& wanted, Placement placement,
                    FitResult* result) {
  SampleSet set = collectSamples(logs, placement, [&](const PerfRun& run) {
    std::string why;
    std::optional<ForcedConfig> config = forcedConfigOf(run, &why);
    return config && *config == wanted;
  });
  for (const std::string& note : set.notes) result->notes.push_back(note);
  return set;
}

// A policy rule matches on bytes, not on data type: two types of one collective at one scale would give rules
// that overlap.
void checkOneTypePerScale(const SampleSet& defaults, FitResult* result) {
  std::map<std::pair<std::string, int>, std::string> typeOf;
  for (const auto& [key, series] : defaults.series) {
    auto [it, inserted] = typeOf.emplace(std::make_pair(key.collective, key.ranks), key.type + " " + key.redop);
    if (!inserted && it->second != key.type + " " + key.redop) {
      result->errors.push_back("several data types or operations of " + key.collective + " at " +
                               std::to_string(key.ranks) + " ranks (" + it->second + ", " + key.type + " " + key.redop +
                               "): fit one at a time");
    }
  }
}

// The series to fit, with the sizes the default measured often enough; configurations with too few runs are
// left out with a note.
std::vector<SeriesInput> seriesToFit(const SampleSet& defaults, const std::map<ForcedConfig, SampleSet>& forced,
                                     const FitOptions& options, FitResult* result) {
  std::vector<SeriesInput> inputs;
  const int needed = options.verdicts.minUnits;
  for (const auto& [key, defaultSeries] : defaults.series) {
    if (key.collective.empty()) {
      result->notes.push_back("a series of unknown collective was left out (the log does not say which)");
      continue;
    }
    SeriesInput in;
    in.out.key = key;
    in.out.nodes = options.nodes.value_or(defaultSeries.nodes);
    in.out.defaultRuns = static_cast<int>(defaultSeries.runs.size());
    in.defaults = &defaultSeries;
    for (const auto& [config, set] : forced) {
      auto found = set.series.find(key);
      if (found == set.series.end()) continue;
      int runs = static_cast<int>(found->second.runs.size());
      if (runs < needed) {
        result->notes.push_back(key.describe() + ": " + config.describe() + " has " + std::to_string(runs) +
                                " replicate runs, fewer than fit needs: left out; " + replicateAdvice(needed));
        continue;
      }
      in.out.configs.push_back(config);
      in.forced.push_back(&found->second);
    }
    if (in.out.defaultRuns < needed) {
      result->notes.push_back(key.describe() + ": NCCL's default has " + std::to_string(in.out.defaultRuns) +
                              " replicate runs, fewer than fit needs: left out; " + replicateAdvice(needed));
    } else if (in.out.configs.empty()) {
      result->notes.push_back("no forced configuration with enough replicates measured " + key.describe());
    } else {
      inputs.push_back(std::move(in));
    }
  }
  return inputs;
}

// Every configuration at every size the default measured at least minUnits times, as challenges to the default.
void collectChallenges(std::vector<SeriesInput>& inputs, const FitOptions& options,
                       std::vector<verdicts::Challenge>* challenges, std::vector<ChallengeSource>* sources) {
  const verdicts::Settings& st = options.verdicts;
  size_t group = 0;
  for (size_t si = 0; si < inputs.size(); ++si) {
    SeriesInput& in = inputs[si];
    std::set<uint64_t> sizes;
    for (const verdicts::Unit& run : in.defaults->runs) {
      for (const auto& [size, time] : run.values) sizes.insert(size);
    }
    for (uint64_t size : sizes) {
      std::vector<double> defaults = verdicts::valuesAt(in.defaults->runs, size);
      if (size == 0 || static_cast<int>(defaults.size()) < st.minUnits) continue;  // 0-byte rows move no data
      SizeDecision d;
      d.size = size;
      d.defaultUs = d.timeUs = verdicts::geometricMean(defaults);
      d.defaultReplicates = d.replicates = static_cast<int>(defaults.size());
      in.out.sizes.push_back(d);
      for (size_t ci = 0; ci < in.forced.size(); ++ci) {
        std::vector<double> times = verdicts::valuesAt(in.forced[ci]->runs, size);
        if (static_cast<int>(times.size()) < st.minUnits) continue;
        StatusOr<verdicts::RatioInterval> vs =
            verdicts::ratioOfGeometricMeans(defaults, times, st.confidence, st.degreesOfFreedom);
        if (!vs.isOk()) continue;
        challenges->push_back(verdicts::Challenge{group, *vs});
        sources->push_back(ChallengeSource{si, in.out.sizes.size() - 1, ci});
      }
      ++group;
    }
  }
}

void record(SizeDecision* d, const ForcedConfig& config, const verdicts::RatioInterval& vs, bool chosen) {
  if (chosen) {
    d->choice = config;
    d->timeUs = d->defaultUs * vs.ratio;
    d->replicates = vs.nB;
    d->ratio = vs.ratio;
    d->ciLow = vs.low;
    d->ciHigh = vs.high;
  } else if (d->fastestOther.empty() || vs.ratio < d->fastestOtherRatio) {
    d->fastestOther = config.describe();
    d->fastestOtherRatio = vs.ratio;
  }
}

}  // namespace

std::vector<FitBucket> mergeBuckets(const std::vector<SizeDecision>& sizes) {
  std::vector<FitBucket> buckets;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const SizeDecision& d = sizes[i];
    if (buckets.empty() || buckets.back().choice != d.choice) {
      if (!buckets.empty()) {
        // Half-way between the last size of the previous bucket and this one.
        uint64_t previous = sizes[i - 1].size;
        uint64_t boundary = previous + (d.size - previous) / 2;
        if (boundary == previous) boundary = d.size;  // neighbours 1 byte apart
        buckets.back().hi = boundary - 1;
      }
      FitBucket b;
      b.choice = d.choice;
      b.lo = buckets.empty() ? 0 : buckets.back().hi + 1;
      b.firstMeasured = d.size;
      b.bestRatio = b.worstRatio = b.widestCiHigh = d.ratio;
      if (d.choice) b.widestCiHigh = d.ciHigh;
      buckets.push_back(b);
    }
    FitBucket& b = buckets.back();
    b.lastMeasured = d.size;
    ++b.sizes;
    b.bestRatio = std::min(b.bestRatio, d.ratio);
    b.worstRatio = std::max(b.worstRatio, d.ratio);
    if (d.choice) b.widestCiHigh = std::max(b.widestCiHigh, d.ciHigh);
  }
  return buckets;
}

FitResult fitPolicy(const std::vector<PerfLog>& logs, const FitOptions& options) {
  FitResult result;
  if (options.verdicts.minUnits < kFitMinReplicates) {
    result.errors.push_back("fit needs at least " + std::to_string(kFitMinReplicates) +
                            " replicates per configuration to tell gains from noise (docs/statistics.md)");
    return result;
  }
  std::set<ForcedConfig> configs = configsOf(logs, &result);
  if (!result.errors.empty()) return result;
  SampleSet defaults = samplesOf(logs, ForcedConfig{}, options.placement, &result);
  std::map<ForcedConfig, SampleSet> forced;
  for (const ForcedConfig& config : configs) {
    if (!config.isDefault()) forced[config] = samplesOf(logs, config, options.placement, &result);
  }
  checkOneTypePerScale(defaults, &result);
  if (!result.errors.empty()) return result;

  std::vector<SeriesInput> inputs = seriesToFit(defaults, forced, options, &result);
  std::vector<verdicts::Challenge> challenges;
  std::vector<ChallengeSource> sources;
  collectChallenges(inputs, options, &challenges, &sources);
  size_t groups = challenges.empty() ? 0 : challenges.back().group + 1;
  std::vector<std::optional<size_t>> winners =
      verdicts::selectWinners(challenges, groups, options.verdicts, options.falseWinControl);
  result.challenges = static_cast<int>(challenges.size());
  for (size_t i = 0; i < challenges.size(); ++i) {
    const ChallengeSource& at = sources[i];
    SeriesInput& in = inputs[at.series];
    record(&in.out.sizes[at.size], in.out.configs[at.config], challenges[i].vsControl,
           winners[challenges[i].group] == i);
  }
  for (SeriesInput& in : inputs) {
    in.out.buckets = mergeBuckets(in.out.sizes);
    result.series.push_back(std::move(in.out));
  }
  if (result.series.empty()) {
    result.errors.push_back("no series has NCCL's default and a forced configuration with " +
                            std::to_string(options.verdicts.minUnits) +
                            " replicate runs each: " + replicateAdvice(options.verdicts.minUnits));
  }
  return result;
}

}  // namespace nccl_roce::sweep
