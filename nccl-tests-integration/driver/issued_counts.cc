#include "nccl-tests-integration/driver/issued_counts.h"

#include "common/strings.h"

namespace nccl_roce::driver {

namespace {

constexpr std::string_view kPrefix = "# nccl-roce-issued: ";

std::optional<uint64_t> field(const std::vector<std::string_view>& words, std::string_view name) {
  for (std::string_view w : words) {
    if (startsWith(w, name) && w.size() > name.size() && w[name.size()] == '=')
      return parseUnsigned(w.substr(name.size() + 1));
  }
  return std::nullopt;
}

std::optional<std::string_view> text(const std::vector<std::string_view>& words, std::string_view name) {
  for (std::string_view w : words) {
    if (startsWith(w, name) && w.size() > name.size() && w[name.size()] == '=') return w.substr(name.size() + 1);
  }
  return std::nullopt;
}

}  // namespace

DriverIssued expectedIssued(const DriverOptions& o) {
  DriverIssued out;
  out.allGather.eager = 1;
  const uint64_t warmup = static_cast<uint64_t>(o.warmupIters), iters = static_cast<uint64_t>(o.iters);
  const uint64_t launches = static_cast<uint64_t>(o.graphLaunches);
  for (size_t i = 0; i < sweepSizes(o).size(); ++i) {
    IssuedCounts& c = out.allReduce;
    c.eager += 2 * warmup + (o.check ? 1 : 0) + 1;  // warm-ups, the in-place check, the results' exchange
    if (launches == 0) {
      c.eager += 2 * iters;
    } else {
      c.captured += 2 * iters;
      c.graphLaunches += 2 * launches;
      c.replayed += 2 * iters * launches;
    }
  }
  return out;
}

std::string formatIssuedLine(const IssuedLine& l) {
  return std::string(kPrefix) + "rank=" + std::to_string(l.rank) + " pid=" + std::to_string(l.pid) +
         " host=" + (l.host.empty() ? "-" : l.host) + " collective=" + l.collective +
         " eager=" + std::to_string(l.counts.eager) + " captured=" + std::to_string(l.counts.captured) +
         " graph_launches=" + std::to_string(l.counts.graphLaunches) +
         " replayed=" + std::to_string(l.counts.replayed) + "\n";
}

std::optional<IssuedLine> parseIssuedLine(std::string_view line) {
  size_t at = line.find(kPrefix);
  if (at == std::string_view::npos) return std::nullopt;
  std::vector<std::string_view> words;
  for (std::string_view w : split(trim(line.substr(at + kPrefix.size())), ' ')) {
    if (!w.empty()) words.push_back(w);
  }
  IssuedLine out;
  std::optional<uint64_t> rank = field(words, "rank"), pid = field(words, "pid"), eager = field(words, "eager"),
                          captured = field(words, "captured"), launches = field(words, "graph_launches"),
                          replayed = field(words, "replayed");
  std::optional<std::string_view> host = text(words, "host"), collective = text(words, "collective");
  if (!rank || !pid || !eager || !captured || !launches || !replayed || !host || !collective || *rank > (1u << 30)) {
    return std::nullopt;
  }
  out.rank = static_cast<int>(*rank);
  out.pid = static_cast<int64_t>(*pid);
  out.host = *host == "-" ? "" : std::string(*host);
  out.collective = std::string(*collective);
  out.counts = {*eager, *captured, *launches, *replayed};
  return out;
}

std::vector<IssuedLine> issuedLinesOf(std::string_view all) {
  std::vector<IssuedLine> out;
  for (std::string_view line : split(all, '\n')) {
    if (std::optional<IssuedLine> l = parseIssuedLine(line)) out.push_back(*l);
  }
  return out;
}

}  // namespace nccl_roce::driver
