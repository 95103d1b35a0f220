// Our declarations of the enumerations NCCL's tuner ABI passes (values fixed by NCCL's nccl_common.h and
// nccl_tuner.h). Only collectives 0..4 ever reach a tuner.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "plugin/nccl/common.h"
#include "plugin/nccl/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ncclFuncBroadcast = 0,
  ncclFuncReduce = 1,
  ncclFuncAllGather = 2,
  ncclFuncReduceScatter = 3,
  ncclFuncAllReduce = 4,
  ncclFuncSendRecv = 5,
  ncclFuncSend = 6,
  ncclFuncRecv = 7,
  ncclNumFuncs = 8
} ncclFunc_t;

// Algorithm rows of the cost table. NCCL < 2.23 has 6 rows (no PAT); numAlgo says which.
#define NCCL_ALGO_UNDEF -1
#define NCCL_ALGO_TREE 0
#define NCCL_ALGO_RING 1
#define NCCL_ALGO_COLLNET_DIRECT 2
#define NCCL_ALGO_COLLNET_CHAIN 3
#define NCCL_ALGO_NVLS 4
#define NCCL_ALGO_NVLS_TREE 5
#define NCCL_ALGO_PAT 6

// Protocol columns; the row stride is always 3.
#define NCCL_PROTO_UNDEF -1
#define NCCL_PROTO_LL 0
#define NCCL_PROTO_LL128 1
#define NCCL_PROTO_SIMPLE 2

#define NCCL_ALGO_PROTO_IGNORE -1.0

#ifdef __cplusplus
}
#endif
