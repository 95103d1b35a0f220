// NCCL_IB_HCA as NCCL itself reads it (src/misc/utils.cc parseStringList/matchIfList, net_ib/init.cc), so the
// resolver can tell which ports a user-set list lets NCCL use and keep NVSHMEM, UCX and the GID index in step
// with it (KServe's script derives them from its own list whatever the user set).
//
//   [^][=]name[:port[:rail[:plane]]],...
//   '^' first: exclusion list; then '=': exact names, otherwise each name is a prefix (mlx5_1 matches mlx5_10).
//   Empty fields are "any"; numbers go through atoi. An empty list matches every port, so "^" alone excludes all.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nccl_roce::gid {

class NcclHcaList {
 public:
  struct Entry {
    std::string name;
    int port = -1;  // -1: any port
  };

  static NcclHcaList parse(std::string_view text);

  // Whether NCCL would use device `name`, port `port` under this list.
  bool admits(const std::string& name, int port) const;

  bool exclude() const { return exclude_; }
  bool exact() const { return exact_; }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  bool exclude_ = false;
  bool exact_ = false;
  std::vector<Entry> entries_;
};

// NCCL's MAX_IB_DEVS: it parses at most this many list entries.
inline constexpr size_t kNcclMaxHcaListEntries = 32;

}  // namespace nccl_roce::gid
