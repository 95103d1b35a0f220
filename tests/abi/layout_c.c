/* Our declarations of NCCL's plugin structs laid out by the C compiler, for tests/abi/layout_test.cc: NCCL and most
   plugins are built from C headers, so the C layout is the one that must match. */
#include <stddef.h>

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

#define NCCL_SIZE(type, expected) sizeof(type),
#define NCCL_LAYOUT(type, member, expected) offsetof(type, member),
const size_t ncclRoceLayoutsInC[] = {
#include "tests/abi/nccl_layouts.def"
};
#undef NCCL_SIZE
#undef NCCL_LAYOUT
const size_t ncclRoceLayoutCountInC = sizeof(ncclRoceLayoutsInC) / sizeof(ncclRoceLayoutsInC[0]);
