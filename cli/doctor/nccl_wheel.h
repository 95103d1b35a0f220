// The NCCL of PyTorch's pip wheel (nvidia-nccl-cu12 and its kin: the `nvidia.nccl` package, with
// lib/libnccl.so.2), as the python3 on the user's PATH imports it. vLLM loads that NCCL: importing torch loads it,
// and vLLM's own dlopen of libnccl.so.2 then gets the copy already loaded.
#pragma once

#include <string>

#include "common/env.h"

namespace nccl_roce::doctor {

struct NcclWheel {
  std::string python;   // the python3 asked; empty when PATH has none
  std::string library;  // <package>/lib/<library name>; empty when python3 imports no wheel that holds it
  std::string why;      // when `library` is empty: what python3 said, in words for the doctor's line
};

// Asks the python3 on env's PATH where `import nvidia.nccl` comes from, and looks for lib/<libraryName> there.
// python3 runs as a child process (python_probe.h: env's PATH, PYTHONPATH, HOME, ...) and is killed after
// `timeoutMs`. A namespace package (no __init__.py: __path__, no __file__) may have several portions; the
// first that holds the library counts.
NcclWheel findNcclWheel(const Environment& env, const std::string& libraryName, int timeoutMs);

}  // namespace nccl_roce::doctor
