#include "tests/calibration/fit_simulation.h"

#include <algorithm>

#include "telemetry/nccl_names.h"

namespace nccl_roce::verdicts::calibration {

namespace {

std::vector<uint64_t> fitSizes() {
  std::vector<uint64_t> sizes;
  for (uint64_t s = 1024; s <= (uint64_t{512} << 20); s *= 2) sizes.push_back(s);
  return sizes;
}

std::vector<sweep::ForcedConfig> nineConfigs() {
  int tree = *telemetry::parseAlgorithm("tree"), ring = *telemetry::parseAlgorithm("ring");
  int ll = *telemetry::parseProtocol("ll"), ll128 = *telemetry::parseProtocol("ll128"),
      simple = *telemetry::parseProtocol("simple");
  return {{{telemetry::Choice::of(tree, ll, 0)}},      {{telemetry::Choice::of(tree, ll128, 0)}},
          {{telemetry::Choice::of(tree, simple, 0)}},  {{telemetry::Choice::of(ring, ll, 0)}},
          {{telemetry::Choice::of(ring, ll128, 0)}},   {{telemetry::Choice::of(ring, simple, 0)}},
          {{telemetry::Choice::of(ring, simple, 16)}}, {{telemetry::Choice::of(ring, simple, 8)}},
          {{telemetry::Choice::of(tree, simple, 16)}}};
}

std::map<std::string, std::string> environmentOf(const sweep::ForcedConfig& c) {
  std::map<std::string, std::string> env;
  const telemetry::Choice& forced = c.choice;
  if (forced.algorithm >= 0) env["NCCL_ALGO"] = telemetry::algorithmName(forced.algorithm);
  if (forced.protocol >= 0) env["NCCL_PROTO"] = telemetry::protocolName(forced.protocol);
  if (forced.channels > 0) env["NCCL_MIN_NCHANNELS"] = env["NCCL_MAX_NCHANNELS"] = std::to_string(forced.channels);
  if (forced.chunkSize != 0) {
    env["NCCL_TUNER_PLUGIN"] = "roce";
    env["NCCL_ROCE_CHUNK_SIZE"] = telemetry::formatChunkSize(forced.chunk());
  }
  return env;
}

sweep::PerfLog logOf(const Unit& unit, const std::map<std::string, std::string>& environment) {
  sweep::PerfRun run;
  run.collective = "all_reduce";
  run.environment = environment;
  run.parameters.threads = 16;  // ranks() without device lines
  run.parameters.gpusPerThread = 1;
  for (const auto& [size, time] : unit.values) {
    sweep::PerfRow row;
    row.size = size;
    row.count = size / 4;
    row.type = "float";
    row.redop = "sum";
    row.root = -1;
    row.outOfPlace = sweep::PerfHalf{};
    row.outOfPlace->timeUs = time;
    row.outOfPlace->wrong = 0;
    run.rows.push_back(row);
  }
  run.footer = sweep::RunFooter{};
  sweep::PerfLog log;
  log.source = "simulated.log";
  log.runs.push_back(std::move(run));
  return log;
}

}  // namespace

FitScenario nullScenario() {
  return {fitSizes(), nineConfigs(), [](size_t, size_t) { return 1.0; }};
}

FitScenario mixedScenario() {
  return {fitSizes(), nineConfigs(), [](size_t config, size_t size) {
            switch (config) {
              case 0:
                return size < 5 ? 0.85 : 1.3;  // Tree/LL below 32K
              case 6:
                return size >= 14 ? 0.9 : 1.2;  // Ring/Simple/16 channels from 16M
              case 4:
                return 1.05;  // Ring/LL128
              default:
                return 1.0;
            }
          }};
}

std::vector<std::vector<Unit>> simulateSides(const FitScenario& scenario, int replicates, const Noise& noise,
                                             Simulator& simulator) {
  std::vector<std::vector<Unit>> sides{simulator.side(replicates, scenario.sizes, modelTimeUs, noise)};
  for (size_t c = 0; c < scenario.configs.size(); ++c) {
    auto truth = [&](uint64_t size) {
      size_t i =
          static_cast<size_t>(std::find(scenario.sizes.begin(), scenario.sizes.end(), size) - scenario.sizes.begin());
      return modelTimeUs(size) * scenario.trueRatio(c, i);
    };
    sides.push_back(simulator.side(replicates, scenario.sizes, truth, noise));
  }
  return sides;
}

std::vector<sweep::PerfLog> asLogs(const FitScenario& scenario, const std::vector<std::vector<Unit>>& sides) {
  std::vector<sweep::PerfLog> logs;
  for (size_t s = 0; s < sides.size(); ++s) {
    auto env = s == 0 ? std::map<std::string, std::string>{} : environmentOf(scenario.configs[s - 1]);
    for (const Unit& unit : sides[s]) logs.push_back(logOf(unit, env));
  }
  return logs;
}

FitOutcome judgeChoices(const std::vector<std::optional<size_t>>& chosen, const FitScenario& scenario) {
  FitOutcome out;
  for (size_t i = 0; i < scenario.sizes.size(); ++i) {
    bool winnable = false;
    for (size_t c = 0; c < scenario.configs.size(); ++c) winnable |= scenario.trueRatio(c, i) < 1.0;
    out.winnableSizes += winnable;
    if (i >= chosen.size() || !chosen[i]) continue;
    bool falseWin = scenario.trueRatio(*chosen[i], i) >= 1.0;
    ++out.rules;
    out.falseRules += falseWin;
    out.anyFalseRule |= falseWin;
    out.won += winnable && !falseWin;
  }
  return out;
}

FitOutcome judgeFit(const sweep::FitResult& fit, const FitScenario& scenario) {
  std::vector<std::optional<size_t>> chosen(scenario.sizes.size());
  if (!fit.series.empty()) {
    for (const sweep::SizeDecision& d : fit.series[0].sizes) {
      size_t i =
          static_cast<size_t>(std::find(scenario.sizes.begin(), scenario.sizes.end(), d.size) - scenario.sizes.begin());
      if (!d.choice || i >= chosen.size()) continue;
      chosen[i] = static_cast<size_t>(std::find(scenario.configs.begin(), scenario.configs.end(), *d.choice) -
                                      scenario.configs.begin());
    }
  }
  return judgeChoices(chosen, scenario);
}

}  // namespace nccl_roce::verdicts::calibration
