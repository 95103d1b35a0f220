// What tests/abi/nccl_lifecycle.c publishes in `run` mode, in a file both it and the test that kills it map: how
// many all-reduces it had finished by each millisecond of its run, which the test compares with the checkpoints
// the killed process left (tests/abi/checkpoint_kill_test.cc). Plain C, shared by both.
#pragma once

#include <stdint.h>

enum { kLifecycleMaxMs = 60000 };  // a run stops by itself after a minute

struct LifecycleProgress {
  uint64_t ready;    // 1 once the communicator is created and startMs set
  uint64_t startMs;  // CLOCK_REALTIME, milliseconds since the epoch: the clock of the file's "updated" stamps
  // doneBy[ms]: all-reduces finished (decided and timed) by the end of millisecond startMs + ms; 0 where the
  // process finished none in that millisecond (the count is the largest earlier entry then).
  uint64_t doneBy[kLifecycleMaxMs];
};
