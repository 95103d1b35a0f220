// The PCIe distance word between two hwloc PCI objects (PIX, PXB, PHB, NODE, SYS), as nvidia-smi and NCCL use it.
#pragma once

#include <hwloc.h>

#include <string>

namespace nccl_roce::doctor {

std::string pcieDistance(hwloc_obj_t a, hwloc_obj_t b);

}  // namespace nccl_roce::doctor
