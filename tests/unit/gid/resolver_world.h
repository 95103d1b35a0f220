// A machine under test: a fake sysfs tree, the addresses of the pod's namespace and the user's environment,
// resolved exactly as the plugin resolves the real machine.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/env.h"
#include "gid/resolution_json.h"
#include "gid/resolve.h"
#include "tests/fixtures/fake_sysfs.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {

class ResolverWorld {
 public:
  ResolverWorld() : sys(dir.path()) {}

  // An address of this namespace, as `ip addr` would show it: address("net1", "10.0.0.5/24").
  void address(const std::string& ifname, const std::string& cidr) {
    auto parsed = gid::parseCidr(ifname, cidr);
    if (!parsed.isOk()) throw std::invalid_argument(cidr);
    addresses.push_back(*parsed);
    addressesKnown = true;
  }

  gid::Resolution resolve(const gid::FileAccess& files = gid::realFileAccess(),
                          const gid::IbvFunctions* verbs = nullptr) {
    gid::SysfsReader reader(sys.root(), files);
    gid::FixedAddressSource source(addresses);
    gid::ResolverSources sources;
    sources.sysfs = &reader;
    if (addressesKnown) {
      sources.addresses = &source;
      sources.addressSourceName = "test";
    }
    sources.verbs = verbs;
    sources.verbsSourceName = "test table";
    gid::Resolution r = gid::resolve(sources, env);
    expectDesignJson(r);
    return r;
  }

  // Every scenario's `detect --format json` document keeps DESIGN.md section 3's shape.
  static void expectDesignJson(const gid::Resolution& r) {
    auto doc = gid::resolutionToJson(r);
    EXPECT_EQ(doc["devices"].size(), r.ports.size());
    for (const auto& d : doc["devices"]) {
      for (const char* key : {"name", "port", "link_layer", "state", "selected", "gid_index", "gid", "netdev", "reason"}) {
        EXPECT_TRUE(d.contains(key)) << key;
      }
      EXPECT_EQ(d["selected"].get<bool>(), d["reason"].get<std::string>().rfind("active", 0) == 0) << d.dump();
      if (d["link_layer"] == "InfiniBand") {
        EXPECT_TRUE(d["gid_index"].is_null());
      }
    }
    EXPECT_EQ(doc["env"].contains("NCCL_IB_HCA"), r.anySelected() || doc["kept"].dump().find("NCCL_IB_HCA") != std::string::npos);
    EXPECT_NO_THROW(gid::dumpJson(doc));
  }

  TempDir dir;
  FakeSysfs sys;
  MapEnvironment env;
  std::vector<gid::InterfaceAddress> addresses;
  bool addressesKnown = false;
};

inline const gid::PortDecision& portOf(const gid::Resolution& r, const std::string& device, int port) {
  for (const auto& p : r.ports) {
    if (p.device == device && p.port == port) return p;
  }
  throw std::out_of_range(device + ":" + std::to_string(port) + " not in the resolution");
}

// The value served for `name` (resolved or kept); "<unset>" when absent.
inline std::string envOf(const gid::Resolution& r, const std::string& name) {
  for (const auto& s : r.env) {
    if (s.name == name) return s.value;
  }
  return "<unset>";
}

inline std::string joinedWarnings(const gid::Resolution& r) {
  std::string out;
  for (const auto& w : r.warnings) out += w + "\n";
  return out;
}

}  // namespace nccl_roce::testing
