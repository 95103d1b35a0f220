// Ranks of one communicator agree on every switchback decision, driven as NCCL drives them: each rank a thread of
// its own (ncclCommInitAll's ranks in one process; two communicators at once), 10^5 getCollInfo calls each in the
// order NCCL makes them for a vLLM-like program (tests/abi/nccl_call_order.h): CUDA-graph captures of the decode
// forward at start-up (regBuff 1), eager prefills whose buffers each rank registered or not (regBuff differs
// between ranks), groups of several collectives (aggregated, pipelined), multi-root broadcasts (one all-gather
// query), symmetric-window collectives (NCCL 2.31's query that offers nothing, its check of the ordinary choice and,
// when the tuner's answer makes NCCL fall back, the ordinary call; 2.30's check) and 2.31's per-call algorithm
// selections (a call with the selection's table, another without when nothing in it runs). Under NCCL 2.30's call
// sites (tuner v6), 2.31.2's and 2.32.3's (v6) and 2.32.6's (v7). A rank that decides differently from its peers
// hangs the job; so the comparison is call by call.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "plugin/nccl/tuner_v6.h"
#include "plugin/nccl/tuner_v7.h"
#include "tests/abi/nccl_call_order.h"
#include "tests/abi/plugin_library.h"
#include "tests/support/nccl_log_capture.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

constexpr int kAllGather = 2, kReduceScatter = 3, kAllReduce = 4, kBroadcast = 1;  // ncclFunc_t
constexpr int kAlgorithms = 7, kProtocols = 3;
constexpr size_t kCallsPerRank = 100'000;

// The arms decide differently wherever they decide, so a rank on the wrong turn shows in what NCCL runs.
const char* kControl = R"([policy]
name = "control"
[[rule]]
collective = "allreduce"
size = "..1M"
algorithm = "ring"
protocol = "ll128"
[[rule]]
collective = "allreduce"
size = "1M.."
algorithm = "tree"
protocol = "simple"
channels = 16
[[rule]]
collective = "allgather"
algorithm = "ring"
protocol = "simple"
)";
const char* kCandidate = R"([policy]
name = "candidate"
[[rule]]
collective = "allreduce"
size = "..1M"
algorithm = "ring"
protocol = "ll"
channels = 8
[[rule]]
collective = "allreduce"
size = "1M.."
algorithm = "nvls"
protocol = "simple"
[[rule]]
collective = "allgather"
algorithm = "pat"
protocol = "simple"
)";

std::string experimentText(int block) {
  return "[experiment]\nname = \"decode\"\ndesign = \"switchback\"\nblock = " + std::to_string(block) +
         "\n[[experiment.arm]]\nname = \"control\"\npolicy = \"control.toml\"\nweight = 50\n"
         "[[experiment.arm]]\nname = \"candidate\"\npolicy = \"candidate.toml\"\nweight = 50\n";
}

// NCCL's cost table for a call: the same on every rank (NCCL computes it from the topology every rank agreed on at
// init), varying with the collective and its size so that NCCL's own pick varies too. -1 where NCCL offers nothing,
// and, for a call with a per-call selection, outside that selection.
std::array<float, kAlgorithms * kProtocols> costTable(const TunerCall& call) {
  std::array<float, kAlgorithms * kProtocols> t;
  t.fill(-1.0f);
  if (call.offersNothing) return t;
  const float kb = static_cast<float>(call.bytes) / 1024.0f;
  for (int a : {0, 1}) {  // Tree, Ring: every protocol
    for (int p = 0; p < kProtocols; ++p) t[a * kProtocols + p] = 5.0f + 3.0f * p + kb / (1.0f + 4.0f * p) + a;
  }
  if (call.function == kAllReduce) t[4 * kProtocols + 2] = 9.0f + kb / 20.0f;  // NVLS / Simple
  if (call.function == kAllGather || call.function == kReduceScatter) t[6 * kProtocols + 2] = 7.0f + kb / 12.0f;
  if (call.selection != 0) {
    for (size_t i = 0; i < t.size(); ++i) {
      if (!(call.selection & (1u << i))) t[i] = -1.0f;
    }
  }
  return t;
}

// What NCCL runs after the call: the cheapest entry, algorithm-major (0.0 where the tuner chose), and the channels.
struct Ran {
  int algorithm = -1, protocol = -1, channels = 0;
  bool operator==(const Ran& o) const {
    return algorithm == o.algorithm && protocol == o.protocol && channels == o.channels;
  }
  bool operator<(const Ran& o) const {
    return std::tie(algorithm, protocol, channels) < std::tie(o.algorithm, o.protocol, o.channels);
  }
};

Ran ranOf(const std::array<float, kAlgorithms * kProtocols>& t, int channels) {
  Ran ran{-1, -1, channels};
  float best = 3.4e38f;
  for (int i = 0; i < kAlgorithms * kProtocols; ++i) {
    if (t[static_cast<size_t>(i)] >= 0 && t[static_cast<size_t>(i)] < best) {
      best = t[static_cast<size_t>(i)];
      ran.algorithm = i / kProtocols;
      ran.protocol = i % kProtocols;
    }
  }
  return ran;
}

// One step of the program every rank runs: a launch of collectives, or a replay of a captured graph (no call).
struct Step {
  Launch launch;
  bool replay = false;
};

// A vLLM-like program on a tensor-parallel communicator: decode forwards captured for 35 batch sizes (two
// all-reduces per layer, 32 layers, and the sampler's all-gather), then serving: replays of decode, eager prefills,
// and now and then a group of mixed collectives, multi-root broadcasts, symmetric-window all-reduces (each kind of
// kernel NCCL's symmetric model may pick) or an all-reduce with a per-call selection (Ring/LL and Ring/Simple, or
// NVLS/LL, which NCCL never offers: asked again without).
std::vector<Step> vllmProgram(uint64_t seed, size_t calls) {
  std::mt19937_64 random(seed);
  std::vector<Step> program;
  size_t made = 0;
  auto add = [&](Launch launch) {
    made += tunerCallsOf(launch, false, NcclCallSites::k231).size();
    program.push_back({std::move(launch), false});
  };
  auto forward = [&](size_t tokens, bool capturing) {
    for (int layer = 0; layer < 32; ++layer) {
      for (int i = 0; i < 2; ++i) add({{{kAllReduce, tokens * 8192 * 2}}, capturing});
    }
    add({{{kAllGather, tokens * 32000 * 2}}, capturing});
  };
  for (size_t batch = 1; batch <= 256 && made < calls; batch = batch < 8 ? batch * 2 : batch + 8) forward(batch, true);
  while (made < calls) {
    const uint64_t kind = random() % 100;
    if (kind < 60) {
      program.push_back({{}, true});
    } else if (kind < 85) {
      forward(512 + random() % 7680, false);
    } else if (kind < 93) {
      Launch group;
      for (uint64_t n = 2 + random() % 9; n > 0; --n) {
        static const int kFunctions[] = {kAllGather, kReduceScatter, kAllReduce};
        group.collectives.push_back(
            {kFunctions[random() % 3], size_t{4096} << (random() % 12), 0, static_cast<int>(random() % 2)});
      }
      add(group);
    } else if (kind < 97) {
      Launch broadcasts;
      for (int root = 0; root < 4; ++root)
        broadcasts.collectives.push_back({kBroadcast, size_t{65536} << root, 0, 0, root});
      add(broadcasts);
    } else if (kind < 98) {
      EnqueuedCollective symmetric{kAllReduce, size_t{16384} << (random() % 4)};
      symmetric.symmetric = true;
      static const SymmetricKernel kKernels[] = {SymmetricKernel::kRuns, SymmetricKernel::kLLCheck,
                                                 SymmetricKernel::kNone};
      symmetric.kernel = kKernels[random() % 3];
      add({{symmetric}, false});
    } else {
      EnqueuedCollective selected{kAllReduce, size_t{4096} << (random() % 10)};
      selected.selection =
          random() % 2 ? (1u << (1 * kProtocols + 0)) | (1u << (1 * kProtocols + 2)) : 1u << (4 * kProtocols + 0);
      add({{selected}, false});
    }
  }
  return program;
}

// One rank of a communicator: its own tuner context in the shared library, its own registrations, NCCL's calls as
// `sites` makes them (each answered with what NCCL runs, which a symmetric batch's fallback depends on).
template <typename Tuner>
std::vector<Ran> runRank(const Tuner* tuner, NcclCallSites sites, uint64_t commId, size_t nRanks,
                         const std::vector<Step>& program, uint64_t registrationSeed,
                         const std::vector<size_t>& simulatedBefore = {}) {
  void* context = nullptr;
  EXPECT_EQ(tuner->init(&context, commId, nRanks, 2, captureNcclLog, nullptr, nullptr), ncclSuccess);
  std::mt19937_64 registrations(registrationSeed);
  std::vector<Ran> ran;
  auto call = [&](const TunerCall& c) {
    std::array<float, kAlgorithms* kProtocols> table = costTable(c);
    int channels = 0;
    tuner->getCollInfo(context, static_cast<ncclFunc_t>(c.function), c.bytes, c.pipeOps,
                       reinterpret_cast<float**>(table.data()), kAlgorithms, kProtocols, c.regBuff, &channels);
    return ranOf(table, channels);
  };
  for (size_t s = 0; s < program.size(); ++s) {
    const Step& step = program[s];
    if (step.replay) continue;
    // ncclGroupSimulateEnd: the same preparation, on this rank only, and nothing runs.
    for (size_t at : simulatedBefore) {
      if (at != s) continue;
      driveLaunch(step.launch, false, sites, [&](const TunerCall& c) {
        Ran r = call(c);
        return NcclRan{r.algorithm, r.protocol};
      });
    }
    driveLaunch(step.launch, registrations() % 3 == 0, sites, [&](const TunerCall& c) {
      ran.push_back(call(c));
      return NcclRan{ran.back().algorithm, ran.back().protocol};
    });
  }
  tuner->finalize(context);
  return ran;
}

struct Communicator {
  uint64_t id;
  size_t ranks;
  std::vector<Step> program;
  std::vector<std::vector<Ran>> ran;  // per rank, per call
};

class SwitchbackRanks : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.writeFile("control.toml", kControl);
    dir_.writeFile("candidate.toml", kCandidate);
    policy_ = std::make_unique<ScopedEnv>("NCCL_ROCE_POLICY", dir_.writeFile("experiment.toml", experimentText(16)));
    ASSERT_TRUE(library_.loaded()) << library_.error();
    tuner_ = library_.table<ncclTuner_v6_t>("ncclTunerPlugin_v6");
    tunerV7_ = library_.table<ncclTuner_v7_t>("ncclTunerPlugin_v7");
    ASSERT_TRUE(tuner_ != nullptr && tunerV7_ != nullptr);
    clearCapturedNcclLog();
  }
  void TearDown() override { EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN), 0u) << "the experiment loaded"; }

  // Two communicators (4 and 2 ranks), each rank a thread, every call compared across ranks.
  template <typename Tuner>
  void everyRankDecidesAlike(const Tuner* tuner, NcclCallSites sites, size_t calls, uint64_t seed);

  TempDir dir_;
  std::unique_ptr<ScopedEnv> policy_;
  PluginLibrary library_;
  const ncclTuner_v6_t* tuner_ = nullptr;
  const ncclTuner_v7_t* tunerV7_ = nullptr;
};

template <typename Tuner>
void SwitchbackRanks::everyRankDecidesAlike(const Tuner* tuner, NcclCallSites sites, size_t calls, uint64_t seed) {
  std::vector<Communicator> comms = {{0x51d0c0ffee000001ull + seed, 4, vllmProgram(seed, calls), {}},
                                     {0x51d0c0ffee000002ull + seed, 2, vllmProgram(seed + 1, calls), {}}};
  std::vector<std::thread> threads;
  for (Communicator& c : comms) {
    c.ran.resize(c.ranks);
    for (size_t r = 0; r < c.ranks; ++r) {
      threads.emplace_back([&, r] { c.ran[r] = runRank(tuner, sites, c.id, c.ranks, c.program, 100 * c.id + r); });
    }
  }
  for (std::thread& t : threads) t.join();

  for (const Communicator& c : comms) {
    ASSERT_GE(c.ran[0].size(), calls * 9 / 10);
    for (size_t r = 1; r < c.ranks; ++r) {
      ASSERT_EQ(c.ran[r].size(), c.ran[0].size());
      for (size_t i = 0; i < c.ran[0].size(); ++i) {
        ASSERT_TRUE(c.ran[r][i] == c.ran[0][i])
            << "rank " << r << " of comm " << std::hex << c.id << std::dec << " decided call " << i
            << " differently from rank 0: the job would hang";
      }
    }
    // Both arms decided inside the one communicator: small all-reduces ran Ring/LL128 (control) and Ring/LL on 8
    // channels (candidate), about half each.
    std::map<Ran, size_t> small;
    for (const Ran& ran : c.ran[0]) {
      if (ran.algorithm == 1 && ran.protocol <= 1) ++small[ran];
    }
    const size_t control = small[Ran{1, 1, 0}], candidate = small[Ran{1, 0, 8}];
    EXPECT_GT(control, 0.35 * static_cast<double>(control + candidate)) << control << " vs " << candidate;
    EXPECT_GT(candidate, 0.35 * static_cast<double>(control + candidate)) << control << " vs " << candidate;
  }
}

// NCCL 2.32.6 (v7) with 2.31's call sites, 10^5 calls per rank; 2.31.2 and 2.32.3 (v6, the same sites) and 2.30
// (v6, its own) on shorter programs.
TEST_F(SwitchbackRanks, EveryRankDecidesAlikeThroughCapturesGroupsAndRegistrations) {
  everyRankDecidesAlike(tunerV7_, NcclCallSites::k231, kCallsPerRank, 1);
  everyRankDecidesAlike(tuner_, NcclCallSites::k231, kCallsPerRank / 5, 3);
  everyRankDecidesAlike(tuner_, NcclCallSites::k230, kCallsPerRank / 5, 5);
}

// The one way known for NCCL to make a call on some ranks only: ncclGroupSimulateEnd prepares a group (and asks
// the tuner) on the ranks that call it. Every later turn of that rank is one call off: docs/ab-testing.md says so,
// and `nccl-roce ab` leaves such a communicator out (its ranks' tuner calls by arm differ).
TEST_F(SwitchbackRanks, ASimulatedGroupOnOneRankShiftsItsTurns) {
  const std::vector<Step> program = vllmProgram(3, 20'000);
  size_t firstEager = 0;
  while (program[firstEager].replay || program[firstEager].launch.capturing) ++firstEager;
  std::vector<Ran> plain, simulated;
  std::thread a([&] { plain = runRank(tunerV7_, NcclCallSites::k231, 0x51d0c0ffee000003ull, 2, program, 1); });
  std::thread b(
      [&] { simulated = runRank(tunerV7_, NcclCallSites::k231, 0x51d0c0ffee000003ull, 2, program, 2, {firstEager}); });
  a.join();
  b.join();
  ASSERT_EQ(plain.size(), simulated.size());
  size_t differ = 0;
  for (size_t i = 0; i < plain.size(); ++i) differ += !(plain[i] == simulated[i]);
  EXPECT_GT(differ, 0u) << "one extra call moves every later turn boundary";
}

}  // namespace
}  // namespace nccl_roce::testing
