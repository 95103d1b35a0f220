// nccl-roce's own wheel (`pip install nccl-roce`: the nccl_roce package with lib/libnccl-roce.so). In a vLLM
// process its entry point sets NCCL_NET_PLUGIN, NCCL_TUNER_PLUGIN and NCCL_ENV_PLUGIN to that library's path
// (python/nccl_roce/vllm_plugin.py), so a shell in the same image shows them unset: the doctor asks the python3
// on PATH whether it imports the package, and recognises a plugin path that lies inside one.
#pragma once

#include <optional>
#include <string>

#include "common/env.h"

namespace nccl_roce::doctor {

struct RoceWheel {
  std::string python;      // the python3 asked; empty when PATH has none
  std::string library;     // nccl_roce.library_path(); empty when python3 imports no nccl_roce
  std::string version;     // nccl_roce.__version__
  bool autoEnable = true;  // false: NCCL_ROCE_AUTO_ENABLE=0 keeps the vLLM plugin from setting anything
  std::string why;         // when `library` is empty: why, in words for the doctor's line
  bool broken = false;     // python3 finds the package but fails to import it (`why` says what it said)
};

// Asks the python3 on env's PATH (python_probe.h) for `import nccl_roce`, and what its vLLM plugin would do with
// env's NCCL_ROCE_AUTO_ENABLE. Killed after `timeoutMs`.
RoceWheel findRoceWheel(const Environment& env, int timeoutMs);

// "nccl-roce 0.1.0 wheel" when `path` is the library of an installed nccl-roce wheel, from the files alone:
// <dir>/nccl_roce/lib/libnccl-roce.so with the package's __init__.py, and <dir>/nccl_roce-<version>.dist-info
// beside it, as pip installs it. nullopt otherwise.
std::optional<std::string> wheelHolding(const std::string& path);

}  // namespace nccl_roce::doctor
