// An address range in NCCL_IB_ADDR_RANGE's form ("10.156.0.0/16", "fd00:1::/64"), matched against GIDs.
#pragma once

#include <string>
#include <vector>

#include "gid/gid_value.h"

namespace nccl_roce::gid {

class AddressRange {
 public:
  // The longest prefix shared by all addresses (all of one family; at least one address).
  static AddressRange covering(const std::vector<GidValue>& addresses);

  bool contains(const GidValue& address) const;
  // IPv4 ranges print as dotted quads with a 0..32 prefix, IPv6 ranges in inet_ntop form.
  std::string toString() const;

 private:
  GidValue base_;
  int prefixBits_ = 0;  // counted over all 128 bits (IPv4: 96 + the IPv4 prefix)
};

}  // namespace nccl_roce::gid
