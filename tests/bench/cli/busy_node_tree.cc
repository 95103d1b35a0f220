// Writes the busy node (tests/fixtures/busy_node.h) for the CLI to read: DIR/sys, its sysfs tree, and DIR/ifaddrs,
// this pod's addresses, so `nccl-roce detect --sysfs-root DIR/sys --ifaddrs DIR/ifaddrs` resolves it.
// Usage: busy_node_tree DIR
#include <cstdio>
#include <fstream>

#include "tests/fixtures/busy_node.h"
#include "tests/support/temp_dir.h"

int main(int argc, char** argv) {
  using nccl_roce::testing::BusyNode;
  if (argc != 2) {
    std::fprintf(stderr, "usage: busy_node_tree DIR\n");
    return 2;
  }
  std::string dir = argv[1];
  nccl_roce::testing::makeDirectories(dir + "/sys");
  BusyNode node(dir + "/sys");
  std::ofstream(dir + "/ifaddrs") << node.addressFile();
  return 0;
}
