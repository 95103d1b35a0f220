#include "tests/calibration/simulation.h"

#include <cstdio>

namespace nccl_roce::verdicts::calibration {

std::string Noise::describe() const {
  char text[160];
  std::snprintf(text, sizeof text, "run %.0f%%, size %.0f%%%s%s", runSigma * 100, cellSigma * 100,
                heavyTails ? ", heavy tails (t3)" : "", outlierRun != 1.0 ? ", one outlier run" : "");
  return text;
}

double Simulator::draw(double sigma, bool heavyTails) {
  if (sigma == 0) return 0;
  if (!heavyTails) return std::normal_distribution<double>(0, sigma)(rng_);
  // t with 3 df has variance 3: scaled to the same standard deviation as the normal case.
  return sigma * std::student_t_distribution<double>(3)(rng_) / std::sqrt(3.0);
}

std::vector<Unit> Simulator::side(int units, const std::vector<uint64_t>& cells, const Truth& truth, const Noise& noise,
                                  bool withOutlier) {
  std::vector<Unit> out;
  for (int u = 0; u < units; ++u) {
    Unit unit;
    unit.name = "unit " + std::to_string(u);
    double runFactor = std::exp(draw(noise.runSigma, noise.heavyTails));
    if (withOutlier && u == 0) runFactor *= noise.outlierRun;
    for (uint64_t cell : cells) {
      unit.values[cell] = truth(cell) * runFactor * std::exp(draw(noise.cellSigma, noise.heavyTails));
    }
    out.push_back(std::move(unit));
  }
  return out;
}

std::vector<uint64_t> sweepSizes() {
  std::vector<uint64_t> sizes;
  for (uint64_t s = uint64_t{8} << 10; s <= uint64_t{64} << 20; s *= 2) sizes.push_back(s);
  return sizes;
}

double modelTimeUs(uint64_t size) {
  return 20.0 + static_cast<double>(size) / 40e3;
}

}  // namespace nccl_roce::verdicts::calibration
