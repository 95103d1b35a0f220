#include "verdicts/capture_plan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "verdicts/signed_rank.h"
#include "verdicts/verdict.h"

namespace nccl_roce::verdicts {

namespace {

// The positions of one graph that one round's turns keep (past the washout), by the turn's place in its round.
struct Round {
  std::vector<std::vector<int>> positionsByTurn;  // turnsPerRound lists
};

// Per graph, its rounds in capture order, as the tuner counts the captures' calls.
std::vector<std::vector<Round>> roundsOf(const CaptureLayout& l) {
  const uint64_t block = std::max<uint32_t>(l.block, 1), perRound = std::max<uint32_t>(l.turnsPerRound, 1);
  std::vector<std::vector<Round>> graphs(l.graphBuckets.size());
  for (size_t g = 0; g < graphs.size(); ++g) {
    const uint64_t first = l.callsBefore + g * (l.callsBetween + static_cast<uint64_t>(l.perGraph)) + l.callsBetween;
    std::map<uint64_t, Round> rounds;
    for (int p = 0; p < l.perGraph; ++p) {
      const uint64_t call = first + static_cast<uint64_t>(p), turn = call / block;
      if (call % block < l.washout) continue;
      Round& r = rounds[turn / perRound];
      r.positionsByTurn.resize(perRound);
      r.positionsByTurn[turn % perRound].push_back(p);
    }
    for (auto& [number, round] : rounds) graphs[g].push_back(std::move(round));
  }
  return graphs;
}

double meanOf(const std::vector<int>& positions, const std::vector<double>& effects) {
  double sum = 0;
  for (int p : positions) sum += effects.empty() ? 0 : effects[static_cast<size_t>(p)];
  return sum / static_cast<double>(positions.size());
}

// Whether `ab` says the arm differs, on the side of `effect`, from these units.
bool found(const std::vector<double>& units, double effect, double confidence, double minEffect) {
  StatusOr<RatioInterval> r = signedRankRatio(units, 1, confidence);
  if (!r.isOk()) return false;
  const Verdict v = verdictFor(*r, minEffect);
  return effect >= 0 ? v == Verdict::kSlower : v == Verdict::kFaster;
}

}  // namespace

std::vector<BucketPlan> planCaptures(const CapturePlanInputs& in) {
  const std::vector<std::vector<Round>> graphs = roundsOf(in.layout);
  const double shift = std::log1p(in.effect);
  std::map<int, BucketPlan> plans;
  for (size_t g = 0; g < graphs.size(); ++g) {
    BucketPlan& p = plans[in.layout.graphBuckets[g]];
    p.bucket = in.layout.graphBuckets[g];
    ++p.graphs;
  }
  std::mt19937_64 random(in.seed);
  std::normal_distribution<double> noise(0, in.unitNoise);
  const uint32_t perRound = std::max<uint32_t>(in.layout.turnsPerRound, 1);
  std::vector<uint32_t> order(perRound);
  // Draws come in mirrored pairs: the schedule's draw, then the same with arm and reference swapped in every round
  // (as likely a draw, the same replays' noise read the other way). A bucket whose verdict turns on the sign of one
  // round (a slow position kept in one turn) then gets its odds exactly, not give or take a coin's spread over the
  // draws; the power is unbiased either way.
  const int pairs = std::max(1, (in.draws + 1) / 2);
  for (int pair = 0; pair < pairs; ++pair) {
    std::map<int, std::vector<double>> differences;  // per bucket, arm minus reference before the effect
    for (int c = 0; c < in.communicators; ++c) {
      for (size_t g = 0; g < graphs.size(); ++g) {
        for (const Round& r : graphs[g]) {
          // The schedule's draw: which of the round's turns the arm holds (slot 0) and which the reference (slot 1).
          for (uint32_t i = 0; i < perRound; ++i) order[i] = i;
          std::shuffle(order.begin(), order.end(), random);
          const std::vector<int>& arm = r.positionsByTurn[order[0]];
          const std::vector<int>& reference = r.positionsByTurn[order[perRound > 1 ? 1 : 0]];
          if (arm.empty() || reference.empty() || perRound < 2) continue;
          differences[in.layout.graphBuckets[g]].push_back(meanOf(arm, in.positionEffects) -
                                                           meanOf(reference, in.positionEffects) + noise(random));
        }
      }
    }
    for (auto& [bucket, p] : plans) {
      const std::vector<double>& d = differences[bucket];
      p.units += static_cast<double>(d.size()) / in.communicators / pairs;
      for (double sign : {1.0, -1.0}) {
        std::vector<double> units;
        units.reserve(d.size());
        for (double x : d) units.push_back(shift + sign * x);
        p.power += found(units, in.effect, in.confidence, in.minEffect) ? 0.5 / pairs : 0;
      }
    }
  }
  std::vector<BucketPlan> out;
  out.reserve(plans.size());
  for (auto& [bucket, p] : plans) out.push_back(p);
  return out;
}

double powerOfObservedUnits(const std::vector<double>& differences, double effect, int copies, double confidence,
                            double minEffect, int draws, uint64_t seed) {
  if (differences.empty() || copies < 1) return 0;
  // Their centre, estimated as `ab` estimates it; what is left is each unit's own spread, a sign away from either.
  StatusOr<RatioInterval> centre = signedRankRatio(differences, 1, 0.5);
  const double middle = centre.isOk() ? std::log(centre->ratio) : differences[differences.size() / 2];
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<int> coin(0, 1);
  const double shift = std::log1p(effect);
  int hits = 0;
  std::vector<double> units;
  for (int draw = 0; draw < draws; ++draw) {
    units.clear();
    for (int c = 0; c < copies; ++c) {
      for (double d : differences) units.push_back(shift + (coin(random) ? 1 : -1) * std::fabs(d - middle));
    }
    hits += found(units, effect, confidence, minEffect);
  }
  return static_cast<double>(hits) / draws;
}

}  // namespace nccl_roce::verdicts
