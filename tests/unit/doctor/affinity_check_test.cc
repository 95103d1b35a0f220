// GPU <-> NIC PCIe distance through hwloc, read from hwloc 2 XML topologies (as `lstopo foo.xml` writes them):
// one where the GPU and the NIC share a PCIe switch, one where they hang off different sockets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/unit/doctor/doctor_world.h"

namespace nccl_roce::testing {
namespace {

using doctor::Outcome;
using ::testing::HasSubstr;

TEST(AffinityCheck, PassesWhenTheNicSharesTheGpusPcieSwitch) {
  DoctorWorld w;
  w.hwlocXml = sourcePath("tests/data/hwloc/one-switch.xml");
  auto r = doctor::checkAffinity(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.detail;
  EXPECT_EQ(r.detail, "GPU 0000:1b:00.0: mlx5_0=PIX");
}

TEST(AffinityCheck, WarnsWhenTheGpusOnlyNicIsAcrossTheCpuInterconnect) {
  DoctorWorld w;
  w.sys.device("mlx5_0").pci("0000:9c:00.0", 1, /*vf=*/false);
  w.hwlocXml = sourcePath("tests/data/hwloc/cross-socket.xml");
  auto r = doctor::checkAffinity(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kWarn) << r.detail;
  EXPECT_THAT(r.detail, HasSubstr("GPU 0000:1b:00.0: mlx5_0=SYS"));
  EXPECT_THAT(r.remedy, HasSubstr("same PCIe switch"));
}

TEST(AffinityCheck, IsSkippedWithTheReasonWhenHwlocCannotBeLoaded) {
  DoctorWorld w;
  doctor::DoctorInputs in = w.inputs();
  in.hwlocLibrary = "libhwloc-not-installed.so.15";
  auto r = doctor::checkAffinity(in);
  EXPECT_EQ(r.outcome, Outcome::kSkip);
  EXPECT_THAT(r.detail, HasSubstr("hwloc not available"));
}

TEST(AffinityCheck, IsSkippedWhenTheTopologyHasNoNvidiaGpu) {
  DoctorWorld w;
  w.hwlocXml = w.dir.writeFile("no-gpu.xml", R"(<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" allowed_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" allowed_nodeset="0x00000001" gp_index="1">
    <object type="NUMANode" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="3" local_memory="1073741824"/>
    <object type="PU" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="2"/>
  </object>
</topology>
)");
  auto r = doctor::checkAffinity(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kSkip);
  EXPECT_THAT(r.detail, HasSubstr("no NVIDIA GPU"));
}

TEST(AffinityCheck, IsSkippedWhenTheTopologyFileCannotBeRead) {
  DoctorWorld w;
  w.hwlocXml = w.dir.join("missing.xml");
  auto r = doctor::checkAffinity(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kSkip);
  EXPECT_THAT(r.detail, HasSubstr("hwloc could not"));
}

TEST(AffinityCheck, IsSkippedForAnotherMachinesTreeWithoutATopology) {
  DoctorWorld w;
  w.live = false;
  w.hwlocXml.clear();
  EXPECT_EQ(doctor::checkAffinity(w.inputs()).outcome, Outcome::kSkip);
}

}  // namespace
}  // namespace nccl_roce::testing
