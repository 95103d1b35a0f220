// Every struct NCCL passes to our plugins has NCCL's layout: the size of each and the offset of each member (union
// members included) of the newest versions, and the sizes of the older ones, against the numbers measured from
// NCCL's headers (tests/abi/nccl_layouts.def), for our declarations compiled as C++ (the library) and as C
// (tests/abi/layout_c.c, what NCCL compiles its side with).
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "plugin/nccl/profiler_v1.h"
#include "plugin/nccl/profiler_v2.h"
#include "plugin/nccl/profiler_v3.h"
#include "plugin/nccl/profiler_v4.h"
#include "plugin/nccl/profiler_v6.h"
#include "plugin/nccl/profiler_v7.h"
#include "plugin/nccl/tuner_v2.h"
#include "plugin/nccl/tuner_v3.h"
#include "plugin/nccl/tuner_v4.h"
#include "plugin/nccl/tuner_v7.h"

extern "C" {
extern const size_t ncclRoceLayoutsInC[];
extern const size_t ncclRoceLayoutCountInC;
}

namespace nccl_roce::testing {
namespace {

struct Layout {
  std::string what;  // "ncclTuner_v7_t" (its size) or "ncclProfilerEventDescr_v7_t.coll.userTag"
  size_t inCxx = 0;
  size_t nccl = 0;
};

const std::vector<Layout>& layouts() {
#define NCCL_SIZE(type, expected) {#type, sizeof(type), expected},
#define NCCL_LAYOUT(type, member, expected) {#type "." #member, offsetof(type, member), expected},
  static const std::vector<Layout> all = {
#include "tests/abi/nccl_layouts.def"
  };
#undef NCCL_SIZE
#undef NCCL_LAYOUT
  return all;
}

TEST(Layout, EveryStructNcclPassesHasNcclsSizeAndOffsetsInCxxAndInC) {
  ASSERT_EQ(ncclRoceLayoutCountInC, layouts().size());
  for (size_t i = 0; i < layouts().size(); ++i) {
    const Layout& l = layouts()[i];
    EXPECT_EQ(l.inCxx, l.nccl) << l.what << " as C++";
    EXPECT_EQ(ncclRoceLayoutsInC[i], l.nccl) << l.what << " as C";
  }
}

TEST(Layout, TheNewestTablesAreCheckedMemberByMember) {
  size_t profilerMembers = 0, tunerMembers = 0;
  for (const Layout& l : layouts()) {
    profilerMembers += l.what.rfind("ncclProfilerEventDescr_v7_t.", 0) == 0;
    tunerMembers += l.what.rfind("ncclTunerConstants_v7_t.", 0) == 0;
  }
  EXPECT_EQ(profilerMembers, 76u) << "every member of every union member of NCCL 2.31.2's descriptor";
  EXPECT_EQ(tunerMembers, 7u) << "every table of NCCL 2.32.6's constants";
}

}  // namespace
}  // namespace nccl_roce::testing
