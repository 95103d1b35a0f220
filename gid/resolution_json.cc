#include "gid/resolution_json.h"

#include "common/log.h"
#include "gid/reasons.h"

namespace nccl_roce::gid {

namespace {

nlohmann::ordered_json portToJson(const PortDecision& p) {
  nlohmann::ordered_json j;
  j["name"] = p.device;
  j["port"] = p.port > 0 ? nlohmann::ordered_json(p.port) : nlohmann::ordered_json(nullptr);
  j["link_layer"] = linkLayerName(p.linkLayer);
  j["state"] = p.state ? nlohmann::ordered_json(p.state->text) : nlohmann::ordered_json(nullptr);
  j["rate_gbps"] = p.rateGbps ? nlohmann::ordered_json(*p.rateGbps) : nlohmann::ordered_json(nullptr);
  j["selected"] = p.selected;
  j["gid_index"] = p.gidIndex ? nlohmann::ordered_json(*p.gidIndex) : nlohmann::ordered_json(nullptr);
  j["gid"] = p.gid ? nlohmann::ordered_json(p.gid->toKernelString()) : nlohmann::ordered_json(nullptr);
  j["netdev"] = p.netdev ? nlohmann::ordered_json(*p.netdev) : nlohmann::ordered_json(nullptr);
  j["reason"] = reasonText(p);
  j["pci"] = p.pciAddress ? nlohmann::ordered_json(*p.pciAddress) : nlohmann::ordered_json(nullptr);
  j["numa_node"] = p.numaNode ? nlohmann::ordered_json(*p.numaNode) : nlohmann::ordered_json(nullptr);
  j["function"] = p.role == FunctionRole::kUnknown ? nlohmann::ordered_json(nullptr)
                                                   : nlohmann::ordered_json(functionRoleName(p.role));
  return j;
}

}  // namespace

nlohmann::ordered_json resolutionToJson(const Resolution& r) {
  nlohmann::ordered_json doc;
  doc["devices"] = nlohmann::ordered_json::array();
  for (const auto& p : r.ports) doc["devices"].push_back(portToJson(p));
  doc["env"] = nlohmann::ordered_json::object();
  doc["kept"] = nlohmann::ordered_json::array();
  for (const auto& s : r.env) {
    doc["env"][s.name] = s.value;
    if (s.keptFromUser) doc["kept"].push_back(s.name);
  }
  doc["warnings"] = r.warnings;
  doc["error"] = r.error.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.error);
  doc["fabric"] = r.fabric ? nlohmann::ordered_json(linkLayerName(*r.fabric)) : nlohmann::ordered_json(nullptr);
  doc["address_family"] = r.family ? nlohmann::ordered_json(familyName(*r.family)) : nlohmann::ordered_json(nullptr);
  doc["sources"] = {{"sysfs_root", r.sysfsRoot},
                    {"addresses", r.addressSource},
                    {"verbs", r.verbsSource},
                    {"files_read", r.filesRead}};
  return doc;
}

std::string dumpJson(const nlohmann::ordered_json& document, int indent) {
  return document.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string shellQuote(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string resolutionToShell(const Resolution& r) {
  std::string out = "# nccl-roce env: RDMA settings resolved for this pod\n";
  if (!r.anySelected()) out += "# " + r.error + "\n";
  for (const auto& s : r.env) {
    if (s.keptFromUser) {
      out += "# " + s.name + " kept: " + s.note + "\n";
    } else {
      out += "export " + s.name + "=" + shellQuote(s.value) + "\n";
    }
  }
  for (const auto& w : r.warnings) out += "# warning: " + w + "\n";
  return out;
}

std::string resolutionToText(const Resolution& r) {
  std::string out = "sysfs " + r.sysfsRoot + "; addresses: " + r.addressSource + "; verbs: " + r.verbsSource + "\n";
  if (r.ports.empty()) out += "no RDMA devices\n";
  for (const auto& p : r.ports) {
    std::string where = p.device + (p.port > 0 ? ":" + std::to_string(p.port) : "");
    out += format("%s %-20s %-10s %-7s", p.selected ? "[x]" : "[ ]", where.c_str(), linkLayerName(p.linkLayer),
                  p.state ? p.state->text.c_str() : "?");
    out += " " + reasonText(p) + "\n";
  }
  if (!r.env.empty()) out += "\nsettings:\n";
  for (const auto& s : r.env) {
    out += "  " + s.name + "=" + s.value + (s.keptFromUser ? "  (kept: set by the user)" : "") + "\n";
  }
  if (!r.warnings.empty()) out += "\nwarnings:\n";
  for (const auto& w : r.warnings) out += "  " + w + "\n";
  if (!r.anySelected()) out += "\nerror: " + r.error + "\n";
  return out;
}

}  // namespace nccl_roce::gid
