// The `nccl-roce detect --format json` document (docs/contracts.md): devices, env, warnings, plus the
// error line, the variables kept from the user and where the facts came from. CLI-side only.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gid/resolve.h"

namespace nccl_roce::gid {

nlohmann::ordered_json resolutionToJson(const Resolution& resolution);
// Dumps without ever throwing on non-UTF-8 device names (invalid bytes become U+FFFD).
std::string dumpJson(const nlohmann::ordered_json& document, int indent = 2);

// `export NAME='value'` lines for a pod entrypoint; kept and unresolved variables appear as comments.
std::string resolutionToShell(const Resolution& resolution);
// A human-readable report: one line per port with its reason, then settings and warnings.
std::string resolutionToText(const Resolution& resolution);

// Single-quotes a value for sh, so any byte sequence survives `eval`.
std::string shellQuote(const std::string& value);

}  // namespace nccl_roce::gid
