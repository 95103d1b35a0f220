// The checks of what this process and kernel allow: the locked-memory limit (IPC_LOCK) and peer memory for
// GPUDirect RDMA. /proc/modules lines are as the kernel writes them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/unit/doctor/doctor_world.h"

namespace nccl_roce::testing {
namespace {

using doctor::Outcome;
using ::testing::HasSubstr;

constexpr const char* kNvidiaModules =
    "nvidia_uvm 1536000 0 - Live 0x0000000000000000 (POE)\n"
    "nvidia_drm 77824 0 - Live 0x0000000000000000 (POE)\n"
    "nvidia 56717312 2 nvidia_uvm,nvidia_drm, Live 0x0000000000000000 (POE)\n"
    "mlx5_ib 479232 0 - Live 0x0000000000000000\n";
constexpr const char* kPeermem = "nvidia_peermem 16384 0 - Live 0x0000000000000000 (POE)\n";

TEST(MemlockCheck, PassesWhenUnlimited) {
  DoctorWorld w;
  auto r = doctor::checkMemlock(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kPass);
  EXPECT_EQ(r.detail, "unlimited");
}

TEST(MemlockCheck, FailsOnTheContainerDefaultOf8MiBAndNamesIpcLock) {
  DoctorWorld w;
  w.memlock = 8ull << 20;
  auto r = doctor::checkMemlock(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.detail, HasSubstr("8M"));
  EXPECT_THAT(r.remedy, HasSubstr("IPC_LOCK"));
}

TEST(MemlockCheck, PassesWithALargeFiniteLimit) {
  DoctorWorld w;
  w.memlock = 256ull << 30;
  EXPECT_EQ(doctor::checkMemlock(w.inputs()).outcome, Outcome::kPass);
}

TEST(MemlockCheck, IsSkippedForASnapshotOfAnotherMachine) {
  DoctorWorld w;
  w.live = false;
  w.memlock = 8ull << 20;
  EXPECT_EQ(doctor::checkMemlock(w.inputs()).outcome, Outcome::kSkip);
}

TEST(PeerMemoryCheck, PassesWithNvidiaPeermemLoaded) {
  DoctorWorld w;
  w.dir.writeFile("proc/modules", std::string(kPeermem) + kNvidiaModules);
  auto r = doctor::checkPeerMemory(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kPass);
  EXPECT_EQ(r.detail, "nvidia_peermem is loaded");
}

TEST(PeerMemoryCheck, SeesModulesInSysfsToo) {
  DoctorWorld w;
  w.sys.write("module/nvidia/refcnt", "2\n");
  w.sys.write("module/nvidia_peermem/refcnt", "0\n");
  EXPECT_EQ(doctor::checkPeerMemory(w.inputs()).outcome, Outcome::kPass);
}

TEST(PeerMemoryCheck, WarnsThatDmaBufIsTheRouteOnANewKernelWithoutPeermem) {
  DoctorWorld w;
  w.dir.writeFile("proc/modules", kNvidiaModules);
  w.dir.writeFile("proc/sys/kernel/osrelease", "5.15.0-91-generic\n");
  auto r = doctor::checkPeerMemory(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kWarn);
  EXPECT_THAT(r.detail, HasSubstr("kernel 5.15 supports dma-buf"));
}

TEST(PeerMemoryCheck, FailsOnAKernelBeforeDmaBufWithoutPeermem) {
  DoctorWorld w;
  w.dir.writeFile("proc/modules", kNvidiaModules);
  w.dir.writeFile("proc/sys/kernel/osrelease", "4.18.0-513.el8.x86_64\n");
  auto r = doctor::checkPeerMemory(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.remedy, HasSubstr("modprobe nvidia_peermem"));
}

TEST(PeerMemoryCheck, IsSkippedWithoutTheNvidiaDriver) {
  DoctorWorld w;
  w.dir.writeFile("proc/modules", "mlx5_ib 479232 0 - Live 0x0000000000000000\n");
  auto r = doctor::checkPeerMemory(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kSkip);
  EXPECT_THAT(r.detail, HasSubstr("no NVIDIA driver"));
}

}  // namespace
}  // namespace nccl_roce::testing
