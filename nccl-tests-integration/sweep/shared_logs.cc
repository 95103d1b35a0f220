#include "nccl-tests-integration/sweep/shared_logs.h"

#include <map>
#include <set>

namespace nccl_roce::sweep {

SharedLogs sharedLogs(const std::vector<PerfLog>& a, const std::vector<PerfLog>& b) {
  SharedLogs shared;
  std::map<std::string, std::string> firstInA;  // digest -> A's first log with that text
  for (const PerfLog& log : a) {
    if (log.runs.empty() || log.textSha256.empty()) continue;
    ++shared.logsA;
    firstInA.emplace(log.textSha256, log.source);
  }
  for (const PerfLog& log : b) {
    if (log.runs.empty() || log.textSha256.empty()) continue;
    ++shared.logsB;
    auto inA = firstInA.find(log.textSha256);
    if (inA != firstInA.end()) shared.pairs.emplace_back(inA->second, log.source);
  }
  return shared;
}

std::string describeSharedLogs(const SharedLogs& shared, const std::string& labelA, const std::string& labelB) {
  if (shared.pairs.empty()) return "";
  std::set<std::string> inA;
  for (const auto& [a, b] : shared.pairs) inA.insert(a);
  size_t n = shared.pairs.size();
  std::string what;
  if (inA.size() == shared.logsA && n == shared.logsB) {
    what = "A (" + labelA + ") and B (" + labelB + ") are the same " + std::to_string(n) + " log(s)";
  } else if (n == shared.logsB) {
    what =
        "B (" + labelB + ") is a subset of A (" + labelA + "): all its " + std::to_string(n) + " log(s) are in A too";
  } else if (inA.size() == shared.logsA) {
    what = "A (" + labelA + ") is a subset of B (" + labelB + "): all its " + std::to_string(inA.size()) +
           " log(s) are in B too";
  } else {
    what = std::to_string(n) + " log(s) are on both sides";
  }
  const auto& [a, b] = shared.pairs.front();
  std::string example = a == b ? a + " is given on both sides" : b + " has the same text as " + a;
  return what + " (" + example + (n > 1 ? ", and " + std::to_string(n - 1) + " more" : "") +
         "): a run counted on both sides pulls every ratio toward 1 and hides the difference sought; give each "
         "side its own configuration's logs";
}

}  // namespace nccl_roce::sweep
