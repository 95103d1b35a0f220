#include "nccl-tests-integration/sweep/fit.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/strings.h"
#include "nccl-tests-integration/sweep/compare.h"
#include "nccl-tests-integration/sweep/statistics.h"

namespace nccl_roce::sweep {

namespace {

struct Candidate {
  ForcedConfig config;
  const std::vector<double>* times;
  double median;
};

// The series keys both the default and at least one forced configuration measured, grouped for fitting.
SizeDecision decide(uint64_t size, const std::vector<double>& defaults, const std::vector<Candidate>& candidates,
                    const FitOptions& options, uint64_t salt) {
  SizeDecision d;
  d.size = size;
  d.defaultMedianUs = median(defaults);
  d.defaultReplicates = static_cast<int>(defaults.size());
  d.medianUs = d.defaultMedianUs;
  d.replicates = d.defaultReplicates;
  const Candidate* best = nullptr;
  double bestLow = 1, bestHigh = 1;
  const Candidate* fastest = nullptr;
  uint64_t index = 0;
  for (const Candidate& c : candidates) {
    ++index;
    if (!fastest || c.median < fastest->median) fastest = &c;
    if (static_cast<int>(c.times->size()) < options.minReplicates) continue;
    std::vector<double> draws = bootstrapMedianRatios(defaults, *c.times, options.resamples, seedFor(size, salt + index));
    auto [low, high] = percentileInterval(draws, options.confidence);
    double ratio = c.median / d.defaultMedianUs;
    if (verdictFor(ratio, low, high, options.minEffect) != Verdict::kFaster) continue;
    if (!best || c.median < best->median) {
      best = &c;
      bestLow = low;
      bestHigh = high;
    }
  }
  if (best) {
    d.choice = best->config;
    d.medianUs = best->median;
    d.ratio = best->median / d.defaultMedianUs;
    d.ciLow = bestLow;
    d.ciHigh = bestHigh;
    d.replicates = static_cast<int>(best->times->size());
  } else if (fastest) {
    d.fastestOther = fastest->config.describe();
    d.fastestOtherRatio = fastest->median / d.defaultMedianUs;
  }
  return d;
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
  // Which configuration each run measured.
  std::set<ForcedConfig> configs;
  for (const PerfLog& log : logs) {
    for (const PerfRun& run : log.runs) {
      if (run.rows.empty()) continue;
      std::string why;
      if (std::optional<ForcedConfig> config = forcedConfigOf(run, &why)) {
        configs.insert(*config);
      } else {
        result.notes.push_back(log.source + ":" + std::to_string(run.firstLine) + ": run left out: " + why);
      }
    }
  }
  auto samplesOf = [&](const ForcedConfig& wanted) {
    return collectSamples(logs, options.placement, [&](const PerfRun& run) {
      std::string why;
      std::optional<ForcedConfig> config = forcedConfigOf(run, &why);
      return config && *config == wanted;
    });
  };
  ForcedConfig defaultConfig;
  if (!configs.count(defaultConfig)) {
    result.errors.push_back("no run of NCCL's default: add runs without NCCL_ALGO, NCCL_PROTO or channel settings "
                            "(run-sweep.sh --default)");
  }
  if (configs.size() - configs.count(defaultConfig) == 0) {
    result.errors.push_back("no forced-configuration run: add runs with NCCL_ALGO and/or NCCL_PROTO set "
                            "(run-sweep.sh --algos ... --protos ...)");
  }
  if (!result.errors.empty()) return result;

  SampleSet defaults = samplesOf(defaultConfig);
  for (const std::string& note : defaults.notes) result.notes.push_back(note);
  std::map<ForcedConfig, SampleSet> forced;
  for (const ForcedConfig& config : configs) {
    if (config.isDefault()) continue;
    forced[config] = samplesOf(config);
    for (const std::string& note : forced[config].notes) result.notes.push_back(note);
  }

  // A policy rule matches on bytes, not on data type: two types of one collective at one scale would give
  // rules that overlap.
  std::map<std::pair<std::string, int>, std::string> typeOf;
  for (const auto& [key, series] : defaults.series) {
    auto [it, inserted] = typeOf.emplace(std::make_pair(key.collective, key.ranks), key.type + " " + key.redop);
    if (!inserted && it->second != key.type + " " + key.redop) {
      result.errors.push_back("several data types or operations of " + key.collective + " at " +
                              std::to_string(key.ranks) + " ranks (" + it->second + ", " + key.type + " " +
                              key.redop + "): fit one at a time");
    }
  }
  if (!result.errors.empty()) return result;

  uint64_t salt = 0;
  for (const auto& [key, defaultSeries] : defaults.series) {
    if (key.collective.empty()) {
      result.notes.push_back("a series of unknown collective was left out (the log does not say which)");
      continue;
    }
    FitSeries fs;
    fs.key = key;
    fs.nodes = options.nodes.value_or(defaultSeries.nodes);
    fs.defaultRuns = defaultSeries.runs;
    for (const auto& [config, set] : forced) {
      if (set.series.count(key)) fs.configs.push_back(config);
    }
    if (fs.configs.empty()) {
      result.notes.push_back("only the default measured " + key.describe());
      continue;
    }
    ++salt;
    for (const auto& [size, defaultTimes] : defaultSeries.timesUs) {
      if (size == 0) continue;  // nccl-tests' 0-byte rows move no data
      if (static_cast<int>(defaultTimes.size()) < options.minReplicates) {
        result.notes.push_back(formatByteSize(size) + ": NCCL's default has " + std::to_string(defaultTimes.size()) +
                               " replicates, fewer than " + std::to_string(options.minReplicates) +
                               ": kept as NCCL decides");
      }
      std::vector<Candidate> candidates;
      for (const ForcedConfig& config : fs.configs) {
        const Series& s = forced.at(config).series.at(key);
        auto found = s.timesUs.find(size);
        if (found == s.timesUs.end()) continue;
        candidates.push_back({config, &found->second, median(found->second)});
      }
      bool enough = static_cast<int>(defaultTimes.size()) >= options.minReplicates;
      fs.sizes.push_back(decide(size, defaultTimes, enough ? candidates : std::vector<Candidate>{}, options, salt << 16));
    }
    fs.buckets = mergeBuckets(fs.sizes);
    result.series.push_back(std::move(fs));
  }
  if (result.series.empty()) result.errors.push_back("no series was measured by both the default and a forced run");
  return result;
}

}  // namespace nccl_roce::sweep
