// Which libnccl.so.2 a vLLM process loads, and every other one this environment offers. vLLM opens the file named
// by VLLM_NCCL_SO_PATH; without it, libnccl.so.2, which is the copy importing torch already loaded: PyTorch's
// NCCL wheel (site-packages/nvidia/nccl/lib). Without a wheel the loader searches LD_LIBRARY_PATH, then the
// system folders. So the doctor looks in that order.
#pragma once

#include <string>
#include <vector>

#include "cli/doctor/inputs.h"

namespace nccl_roce::doctor {

enum class NcclSource { kGiven, kVllmVariable, kWheel, kLibraryPath, kSystem };

struct NcclCandidate {
  std::string path;
  NcclSource source;
};

struct NcclSearch {
  // Each library found once (by file: links to one file count once), in the order vLLM prefers them: the first
  // is the one it loads, unless `brokenVariable`.
  std::vector<NcclCandidate> found;
  // Why the places before the first found gave nothing, in order ("VLLM_NCCL_SO_PATH unset", "no python3 on
  // PATH", ...), for the doctor's line.
  std::vector<std::string> missed;
  std::string python;           // the python3 asked; empty if none or not asked
  bool brokenVariable = false;  // VLLM_NCCL_SO_PATH names a file that is not there: vLLM fails to load NCCL
};

// With in.ncclLibrary set, that file alone (kGiven); otherwise the search above, python3 bounded by
// in.pythonTimeoutMs.
NcclSearch searchNccl(const DoctorInputs& in);

// "named by VLLM_NCCL_SO_PATH", "LD_LIBRARY_PATH", ...: where a candidate came from, in a few words.
const char* sourceName(NcclSource source);

}  // namespace nccl_roce::doctor
