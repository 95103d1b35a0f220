// The checks of `nccl-roce doctor`, each a pure function of DoctorInputs. Ids are stable (automation greps them).
#pragma once

#include <vector>

#include "cli/doctor/check.h"
#include "cli/doctor/inputs.h"

namespace nccl_roce::doctor {

// checks_rdma.cc: what the resolver saw.
CheckResult checkPortState(const DoctorInputs& in);         // "port-state"
CheckResult checkGidQualification(const DoctorInputs& in);  // "gid-qualification"
CheckResult checkRoceV2(const DoctorInputs& in);            // "roce-v2"
CheckResult checkMtu(const DoctorInputs& in);               // "mtu"
CheckResult checkDeviceAccess(const DoctorInputs& in);      // "device-access"

// checks_process.cc: what this process and kernel allow.
CheckResult checkMemlock(const DoctorInputs& in);     // "memlock"
CheckResult checkPeerMemory(const DoctorInputs& in);  // "peer-memory"

// checks_settings.cc: user settings that contradict the resolution.
CheckResult checkUserSettings(const DoctorInputs& in);  // "user-settings"

// policy_pin.cc: the tuner policy against NCCL_ROCE_POLICY_DIGEST.
CheckResult checkPolicyPin(const DoctorInputs& in);  // "policy-pin"

// affinity.cc: GPU <-> NIC PCIe distance through hwloc (dlopen'd).
CheckResult checkAffinity(const DoctorInputs& in);  // "gpu-nic-affinity"

// nccl_library.cc: which NCCL and which of our plugins it will load.
CheckResult checkNcclLibrary(const DoctorInputs& in);  // "nccl-library"

std::vector<CheckResult> runAllChecks(const DoctorInputs& in);

}  // namespace nccl_roce::doctor
