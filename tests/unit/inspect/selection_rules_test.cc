// A decision means the same under both ways NCCL picks from its cost table (tests/support/nccl_selection.h): through
// 2.30 the smallest entry >= 0 (the first of equals), from 2.31 the plain minimum over the entries it computed,
// negative values not skipped (the last of equals). For random policies of every kind the policy language has
// (named entries, algorithm or protocol wildcards, preference lists, NCCL's CSV with its fall-through, rules keeping
// NCCL's choice with or without channels, pipe_ops/reg_buff/nodes selectors, A/B experiments with generated arms,
// switchbacks) and random cost tables (zeros and -0.0, ties, -1, NCCL's FP8 -1024, NaN; 6 algorithms as before NCCL
// 2.23, 7 after), each call goes through the tuner as NCCL makes it, and both lines must run what `policy explain`
// says for that call: the entry it names, or, where it says NCCL decides, NCCL's own pick from a table left as
// NCCL passed it; with the channel count it names. And no entry NCCL offered ever holds a negative cost.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/strings.h"
#include "inspect/explain.h"
#include "plugin/process_context.h"
#include "plugin/tuner_plugin.h"
#include "policy/policy_loader.h"
#include "telemetry/nccl_names.h"
#include "tests/support/nccl_selection.h"
#include "tests/support/temp_dir.h"
#include "tuner/switchback_schedule.h"

namespace nccl_roce::plugin {
namespace {

using testing::NcclLine;

constexpr int kProtocols = 3;

// ------------------------------------------------------------------------------------------------------------
// Random policies, valid for lint (so that the tuner runs them, not the passthrough).

const char* const kAlgorithmWords[] = {"tree", "ring", "collnetdirect", "collnetchain", "nvls", "nvlstree", "pat"};
const char* const kProtocolWords[] = {"ll", "ll128", "simple"};
const char* const kCollectiveWords[] = {"broadcast", "reduce", "allgather", "reducescatter", "allreduce"};

std::string list(std::mt19937_64& random, const char* const* words, size_t count, size_t most) {
  std::vector<std::string> picked;
  size_t n = 1 + random() % most;
  while (picked.size() < n) {
    std::string w = words[random() % count];
    bool seen = false;
    for (const auto& p : picked) seen |= p == w;
    if (!seen) picked.push_back(w);
  }
  if (picked.size() == 1 && random() % 2) return "\"" + picked[0] + "\"";
  std::string out = "[";
  for (size_t i = 0; i < picked.size(); ++i) out += (i ? ", \"" : "\"") + picked[i] + "\"";
  return out + "]";
}

// The outputs of one rule: a preference (named pairs, lists, wildcards) or none, and maybe channels.
std::string outputs(std::mt19937_64& random) {
  std::string out;
  switch (random() % 6) {
    case 0:
      break;  // keeps NCCL's algorithm and protocol
    case 1:
      out += "algorithm = " + list(random, kAlgorithmWords, 7, 3) + "\n";  // NCCL's cheapest protocol for them
      break;
    case 2:
      out += "protocol = " + list(random, kProtocolWords, 3, 2) + "\n";  // NCCL's cheapest algorithm offering them
      break;
    default:
      out += "algorithm = " + list(random, kAlgorithmWords, 7, 3) +
             "\nprotocol = " + list(random, kProtocolWords, 3, 3) + "\n";
  }
  if (random() % 3 == 0) out += "channels = " + std::to_string(1 + random() % 32) + "\n";
  return out;
}

// Size segments that never overlap; in each, rules with one selector of distinct kinds (never covering each other)
// before, sometimes, a rule for the whole segment: nothing shadowed, nothing overlapping.
std::string tomlPolicy(std::mt19937_64& random, const std::string& name) {
  static const uint64_t kBounds[] = {0, 1024, 4096, 65536, 1 << 20, 16 << 20, 256 << 20};
  std::string text = "[policy]\nname = \"" + name + "\"\n";
  const size_t segments = 1 + random() % 6;
  for (size_t s = 0; s < segments; ++s) {
    const std::string size = s + 1 < segments ? std::to_string(kBounds[s]) + ".." + std::to_string(kBounds[s + 1])
                                              : std::to_string(kBounds[s]) + "..";
    static const char* const kSelectors[] = {"pipe_ops = 0\n", "pipe_ops = \"2..\"\n", "reg_buff = true\n",
                                             "nodes = \"2..\"\n", nullptr};
    std::vector<int> kinds;
    for (int k = 0; k < 4; ++k) {
      if (random() % 3 == 0 && !(k == 1 && !kinds.empty() && kinds.back() == 0)) kinds.push_back(k);
    }
    for (int k : kinds) {
      text += "[[rule]]\nsize = \"" + size + "\"\n" + kSelectors[k];
      if (random() % 2) text += "collective = \"" + std::string(kCollectiveWords[random() % 5]) + "\"\n";
      text += outputs(random);
    }
    if (kinds.empty() || random() % 2) text += "[[rule]]\nsize = \"" + size + "\"\n" + outputs(random);
  }
  return text;
}

// NCCL's example CSV: overlapping rules, one named choice each, an unavailable one passing the call on.
std::string csvPolicy(std::mt19937_64& random) {
  static const char* const kCsvAlgorithms[] = {"tree",      "ring", "collnet_direct", "collnet_chain", "nvls",
                                               "nvls_tree", "pat"};
  static const char* const kCsvProtocols[] = {"ll", "ll128", "simple"};
  static const uint64_t kSizes[] = {0, 1023, 1024, 4096, 65535, 65536, 1 << 20};
  std::string text;
  for (size_t n = 1 + random() % 12; n > 0; --n) {
    uint64_t a = kSizes[random() % 7], b = kSizes[random() % 7];
    if (a > b) std::swap(a, b);
    text += std::string(kCollectiveWords[random() % 5]) + "," + std::to_string(a) + "," +
            (random() % 3 ? std::to_string(b) : "-1") + "," + kCsvAlgorithms[random() % 7] + "," +
            kCsvProtocols[random() % 3] + "," + (random() % 2 ? "-1" : std::to_string(1 + random() % 32)) + "," +
            (random() % 2 ? "-1" : std::to_string(1 + random() % 3)) + ",-1";
    if (random() % 3 == 0) text += "," + std::string(random() % 2 ? "-1" : std::to_string(random() % 3));
    text += "\n";
  }
  return text;
}

// ------------------------------------------------------------------------------------------------------------
// What `policy explain` says, read back into what NCCL must run.

// One preference in explain's words, against a table: the entry it names, -1 when the table does not offer it.
// "Ring/LL"; "Ring with NCCL's cheapest protocol for it"; "LL on NCCL's cheapest algorithm offering it" (a tie goes
// to the first entry, as the tuner resolves a wildcard before it marks it).
std::optional<int> resolve(const std::string& words, const std::vector<float>& table, int numAlgo) {
  auto available = [&](int a, int p) {
    return a >= 0 && a < numAlgo && table[static_cast<size_t>(a * kProtocols + p)] >= 0.0f;
  };
  auto cheapest = [&](int a0, int p0, bool alongRow) {
    int found = -1;
    float best = 3.4e38f;
    for (int i = 0; i < (alongRow ? kProtocols : numAlgo); ++i) {
      int a = alongRow ? a0 : i, p = alongRow ? i : p0;
      if (available(a, p) && table[static_cast<size_t>(a * kProtocols + p)] < best) {
        best = table[static_cast<size_t>(a * kProtocols + p)];
        found = a * kProtocols + p;
      }
    }
    return found;
  };
  const std::string kRow = " with NCCL's cheapest protocol for it",
                    kColumn = " on NCCL's cheapest algorithm offering it";
  if (endsWith(words, kRow)) {
    std::optional<int> a = telemetry::parseAlgorithm(words.substr(0, words.size() - kRow.size()));
    if (!a) return std::nullopt;
    return *a < numAlgo ? cheapest(*a, 0, true) : -1;
  }
  if (endsWith(words, kColumn)) {
    std::optional<int> p = telemetry::parseProtocol(words.substr(0, words.size() - kColumn.size()));
    if (!p) return std::nullopt;
    return cheapest(0, *p, false);
  }
  size_t slash = words.find('/');
  if (slash == std::string::npos) return std::nullopt;
  std::optional<int> a = telemetry::parseAlgorithm(words.substr(0, slash)),
                     p = telemetry::parseProtocol(words.substr(slash + 1));
  if (!a || !p) return std::nullopt;
  return available(*a, *p) ? *a * kProtocols + *p : -1;
}

int channelsIn(const std::string& text) {
  size_t at = text.find("nChannels ");
  return at == std::string::npos ? 0 : std::atoi(text.c_str() + at + 10);
}

// What NCCL must run: an entry and its channels, or NCCL's own choice (entry -1) with the channels a rule may set.
struct Explained {
  int entry = -1;
  int channels = 0;
  bool parsed = false;
};

// The full explanation of the communicator's policy (explainCall's "rule:" and "NCCL is told:" lines, then each
// fallback in order).
Explained fromFullExplanation(const std::string& text, const std::vector<float>& table, int numAlgo) {
  Explained out;
  std::istringstream lines(text);
  std::string line;
  int ruleChannels = 0;
  bool inFallbacks = false;
  while (std::getline(lines, line)) {
    if (startsWith(line, "rule: none matches")) {
      out.parsed = true;
      return out;
    }
    if (startsWith(line, "NCCL is told: keep its own algorithm and protocol; ")) {
      out.channels = channelsIn(line);
      out.parsed = true;
      return out;
    }
    const std::string kTold = "NCCL is told: cost 0.0 on ";
    if (startsWith(line, kTold)) {
      std::string rest = line.substr(kTold.size());
      ruleChannels = channelsIn(rest);
      std::optional<int> entry = resolve(rest.substr(0, rest.find("; ")), table, numAlgo);
      if (!entry) return out;
      if (*entry >= 0) return {*entry, ruleChannels, true};
      continue;
    }
    if (startsWith(line, "if unavailable")) {
      inFallbacks = true;
      continue;
    }
    if (!inFallbacks || !startsWith(line, "  then ")) continue;
    std::string then = line.substr(7);
    if (startsWith(then, "NCCL's own choice")) return {-1, 0, true};
    if (startsWith(then, "line ")) {  // a fall-through rule (NCCL's CSV): its own choice and channels
      std::string what = then.substr(then.find(": ") + 2);
      int channels = channelsIn(what);
      what = what.substr(0, what.find("; "));
      if (what == "NCCL's algorithm and protocol") return {-1, channels, true};
      std::optional<int> entry = resolve(what, table, numAlgo);
      if (!entry) return out;
      if (*entry >= 0) return {*entry, channels, true};
      continue;
    }
    std::optional<int> entry = resolve(then, table, numAlgo);
    if (!entry) return out;
    if (*entry >= 0) return {*entry, ruleChannels, true};
  }
  return out;
}

// One arm's line of a switchback's explanation ("    this call: rule line 3: Ring/LL, else Tree with NCCL's
// cheapest protocol for it, else NCCL's own choice; nChannels 8"), for the arm named `arm`.
Explained fromArmSummary(const std::string& text, const std::string& arm, const std::vector<float>& table,
                         int numAlgo) {
  Explained out;
  size_t at = text.find("\n  " + arm + ": ");
  if (at == std::string::npos) at = text.find("\n    " + arm + ": ");
  if (at == std::string::npos) return out;
  at = text.find("this call: ", at);
  if (at == std::string::npos) return out;
  std::string line = text.substr(at + 11, text.find('\n', at) - at - 11);
  if (startsWith(line, "no rule matches")) return {-1, 0, true};
  line = line.substr(line.find(": ", 5) + 2);  // past "rule line N 'name'"
  const int channels = channelsIn(line);
  std::string choices = line.substr(0, line.rfind("; nChannels"));
  if (startsWith(choices, "NCCL's algorithm and protocol")) return {-1, channels, true};
  while (!choices.empty()) {
    size_t comma = choices.find(", else ");
    std::string one = choices.substr(0, comma);
    if (one == "NCCL's own choice") return {-1, 0, true};
    std::optional<int> entry = resolve(one, table, numAlgo);
    if (!entry) return out;
    if (*entry >= 0) return {*entry, channels, true};
    choices = comma == std::string::npos ? "" : choices.substr(comma + 7);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------------------

// NCCL's table: -1 where it offers nothing, and among the rest 0.0, -0.0 and small whole numbers (ties), a few real
// costs; NCCL's FP8 -1024 and NaN are unavailable too.
std::vector<float> randomTable(std::mt19937_64& random, int numAlgo) {
  std::vector<float> t(static_cast<size_t>(numAlgo * kProtocols));
  for (float& e : t) {
    uint64_t r = random() % 100;
    e = r < 30   ? -1.0f
        : r < 40 ? 0.0f
        : r < 43 ? -0.0f
        : r < 46 ? -1024.0f
        : r < 48 ? std::numeric_limits<float>::quiet_NaN()
        : r < 85 ? static_cast<float>(1 + random() % 4)
                 : 0.5f + static_cast<float>(random() % 10000) / 100.0f;
  }
  return t;
}

uint64_t randomBytes(std::mt19937_64& random) {
  static const uint64_t kNear[] = {0,     1023,          1024,    4095,     4096,     65535,
                                   65536, (1 << 20) - 1, 1 << 20, 16 << 20, 256 << 20};
  uint64_t b = kNear[random() % 11];
  return random() % 4 == 0 ? b + random() % 3 : b;
}

struct Counts {
  size_t calls = 0, chosen = 0, ncclsOwn = 0, ties = 0;
};

// Drives `calls` getCollInfo calls of one communicator and checks each against what explain says.
void checkCommunicator(const std::string& policyPath, const std::string& label, std::mt19937_64& random, size_t calls,
                       Counts& counts) {
  std::vector<policy::PolicyError> errors;
  std::shared_ptr<const policy::ActivePolicy> active = policy::loadPolicySpec(policyPath, &errors);
  ASSERT_TRUE(active->error().empty()) << label << ": " << active->error();
  const auto& experiment = active->experiment();
  const bool switchback = experiment && experiment->design == policy::ExperimentDesign::kSwitchback;
  MapEnvironment env({{"NCCL_ROCE_POLICY", policyPath}});
  ProcessContext process(env);
  const uint64_t commId = random();
  const uint64_t nNodes = 1 + random() % 3, nRanks = nNodes * (1 + random() % 8);
  void* context = nullptr;
  ASSERT_EQ(tunerInit(process, &context, commId, nRanks, nNodes, nullptr), ncclSuccess);
  std::unique_ptr<tuner::SwitchbackSchedule> schedule;
  if (switchback) schedule = std::make_unique<tuner::SwitchbackSchedule>(*experiment, commId);
  uint64_t offering = 0;  // calls whose table offers something: a switchback's turns count them
  for (size_t call = 0; call < calls; ++call) {
    const int numAlgo = random() % 4 == 0 ? 6 : 7;
    const std::vector<float> passed = randomTable(random, numAlgo);
    const tuner::CallInputs inputs{static_cast<int>(random() % 5), randomBytes(random), static_cast<int>(random() % 4),
                                   static_cast<int>(random() % 2)};
    std::string text = inspect::explainCall(*active, {nRanks, nNodes, commId, inputs});
    bool offers = false;
    for (float e : passed) offers |= e >= 0.0f;
    Explained expected;
    if (switchback) {
      // A call whose table offers nothing takes no turn: it keeps the arm of the last call that did (the first
      // arm before any).
      const size_t armIndex = offers          ? schedule->armOf(offering / experiment->switchback.block)
                              : offering == 0 ? 0
                                              : schedule->armOf((offering - 1) / experiment->switchback.block);
      expected = fromArmSummary(text, schedule->arms()[armIndex]->name, passed, numAlgo);
    } else {
      expected = fromFullExplanation(text, passed, numAlgo);
    }
    if (offers) ++offering;
    ASSERT_TRUE(expected.parsed) << label << ": explain's text not understood:\n" << text;

    std::vector<float> returned = passed;
    int nChannels = 0;
    ASSERT_EQ(
        tunerGetCollInfo(context, static_cast<ncclFunc_t>(inputs.collective), inputs.bytes, inputs.pipeOps,
                         reinterpret_cast<float**>(returned.data()), numAlgo, kProtocols, inputs.regBuff, &nChannels),
        ncclSuccess);
    const std::string where = label + " call " + std::to_string(call) + "\n" + text;
    for (size_t i = 0; i < passed.size(); ++i) {
      if (passed[i] >= 0.0f) {
        ASSERT_GE(returned[i], 0.0f) << "a negative cost written into an entry NCCL offers: " << where;
      } else {
        ASSERT_EQ(std::memcmp(&passed[i], &returned[i], sizeof(float)), 0) << "an unavailable entry written: " << where;
      }
    }
    if (expected.entry >= 0) {
      for (NcclLine line : {NcclLine::k230, NcclLine::k231}) {
        ASSERT_EQ(testing::ncclRuns(line, passed, returned), expected.entry)
            << (line == NcclLine::k230 ? "NCCL 2.30" : "NCCL 2.31+")
            << " runs another entry than explain says: " << where;
      }
      ++counts.chosen;
    } else {
      ASSERT_EQ(std::memcmp(passed.data(), returned.data(), passed.size() * sizeof(float)), 0)
          << "explain says NCCL decides, and the table was changed: " << where;
      ++counts.ncclsOwn;
    }
    ASSERT_EQ(nChannels, expected.channels) << where;
    int minima = 0;
    float least = 3.4e38f;
    for (float e : passed) least = e >= 0.0f && e < least ? e : least;
    for (float e : passed) minima += e == least;
    counts.ties += minima > 1;
    ++counts.calls;
  }
  EXPECT_EQ(tunerFinalize(context), ncclSuccess);
}

TEST(SelectionRules, BothNcclLinesRunWhatExplainSaysForEveryKindOfDecision) {
  testing::TempDir dir;
  std::mt19937_64 random(20261205);
  Counts counts;
  for (int i = 0; i < 160; ++i) {
    std::string path = dir.writeFile("p" + std::to_string(i) + ".toml", tomlPolicy(random, "p" + std::to_string(i)));
    checkCommunicator(path, "policy " + path, random, 120, counts);
  }
  for (int i = 0; i < 80; ++i) {
    std::string path = dir.writeFile("c" + std::to_string(i) + ".csv", csvPolicy(random));
    checkCommunicator(path, "CSV policy " + path, random, 120, counts);
  }
  for (int i = 0; i < 40; ++i) {
    const std::string n = std::to_string(i);
    dir.writeFile("a" + n + ".toml", tomlPolicy(random, "a" + n));
    dir.writeFile("b" + n + ".toml", tomlPolicy(random, "b" + n));
    const bool switchback = i % 2 == 1;
    std::string text = "[experiment]\nname = \"e" + n + "\"\n";
    if (switchback) text += "design = \"switchback\"\nblock = " + std::to_string(1 + random() % 4) + "\n";
    text += "[[experiment.arm]]\nname = \"control\"\npolicy = \"" +
            std::string(i % 4 < 2 ? "nccl" : "a" + n + ".toml") +
            "\"\nweight = 40\n[[experiment.arm]]\nname = \"candidate\"\npolicy = \"b" + n +
            ".toml\"\nweight = 40\n"
            "[experiment.explore]\nweight = 20\nbase = \"candidate\"\ncollective = \"allreduce\"\n"
            "algorithm = [\"ring\", \"tree\"]\nprotocol = [\"ll\", \"simple\"]\nchannels = [0, 4]\n";
    std::string path = dir.writeFile("e" + n + ".toml", text);
    for (int comm = 0; comm < 4; ++comm) checkCommunicator(path, "experiment " + path, random, 100, counts);
  }
  EXPECT_GT(counts.chosen, counts.calls / 5) << "rules chose entries";
  EXPECT_GT(counts.ncclsOwn, counts.calls / 5) << "and left NCCL's own choice";
  EXPECT_GT(counts.ties, counts.calls / 5) << "over tables where NCCL's own minimum was tied";
}

}  // namespace
}  // namespace nccl_roce::plugin
