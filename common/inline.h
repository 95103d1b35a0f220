// Inlining the profiler's per-collective path depends on (docs/performance.md, Profiler), made explicit:
// NCCL_ROCE_ALWAYS_INLINE for the functions that must be inlined into the exported entry points, so each NCCL
// event is one call level (`inline` alone is a hint that GCC's -O2 declines for functions of this size), and
// NCCL_ROCE_NOINLINE for the few that must stay apart (see plugin/exports_profiler.cc). Callgrind measures the
// path, so the attributes are what its figure depends on.
#pragma once

#define NCCL_ROCE_ALWAYS_INLINE inline __attribute__((always_inline))
#define NCCL_ROCE_NOINLINE __attribute__((noinline))
