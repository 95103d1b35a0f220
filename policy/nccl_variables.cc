#include "policy/nccl_variables.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <vector>

#include "common/strings.h"

namespace nccl_roce::policy {

const char* const kNcclVariablesReleases = "2.19.1 to 2.30.7";

namespace {

// Every NCCL_* variable src/ of NVIDIA/nccl reads in the release tags v2.19.1-1 to v2.30.7-1 (the releases this
// plugin serves): NCCL_PARAM(_, "X", _) and DEFINE_NCCL_PARAM(_, type, NCCL_X, ...) declarations, and literal
// names passed to ncclGetEnv, getenv and ncclGetLevel. A name one release reads counts: older releases are still
// served. Integer: every release reads it as a number (NCCL_PARAM's strtoll; NCCL_COLLNET_ENABLE and
// NCCL_P2P_DISABLE with strtol, NCCL_SOCKET_MAGIC with strtoull); NCCL_SET_THREAD_NAME and
// NCCL_WARN_ENABLE_DEBUG_INFO stay integers, since releases before 2.30 read "TRUE" as 0. Text: read as a string
// by the newest release that reads it (NCCL_CTA_POLICY takes names from 2.29 on). Sorted, for binary search.

constexpr std::string_view kIntegerVariables[] = {
    "NCCL_AGG_CHANNEL_SIZE",
    "NCCL_ALLGATHERV_ENABLE",
    "NCCL_ALLOC_P2P_NET_LL_BUFFERS",
    "NCCL_BUFFSIZE",
    "NCCL_CGA_CLUSTER_SIZE",
    "NCCL_CHECK_POINTERS",
    "NCCL_CHUNK_SIZE",
    "NCCL_COLLNET_ENABLE",
    "NCCL_COLLNET_NODE_THRESHOLD",
    "NCCL_COMM_BLOCKING",
    "NCCL_COMM_SHRINK_SHARE_RESOURCES",
    "NCCL_COMM_SPLIT_SHARE_RESOURCES",
    "NCCL_CONNECT_ROUND_MAX_PEERS",
    "NCCL_CREATE_THREAD_CONTEXT",
    "NCCL_CROSS_NIC",
    "NCCL_CUMEM_ENABLE",
    "NCCL_CUMEM_HOST_ENABLE",
    "NCCL_DEV_API_JIT",
    "NCCL_DISABLE_MEM_MANAGER",
    "NCCL_DMABUF_ENABLE",
    "NCCL_ELASTIC_BUFFER_REGISTER",
    "NCCL_ENABLE_VERSION_CHECK",
    "NCCL_GDAKI_USE_RELIABLE_DB",
    "NCCL_GDRCOPY_ENABLE",
    "NCCL_GDRCOPY_FIFO_ENABLE",
    "NCCL_GDRCOPY_FLUSH_ENABLE",
    "NCCL_GDRCOPY_SYNC_ENABLE",
    "NCCL_GDR_FLUSH_DISABLE",
    "NCCL_GIN_COUNTER_POOL_SIZE",
    "NCCL_GIN_ENABLE",
    "NCCL_GIN_ERROR_QUERY_SEC",
    "NCCL_GIN_EXCLUSIVE_CONTEXTS",
    "NCCL_GIN_GDAKI_MAX_DEST_RD_ATOMIC",
    "NCCL_GIN_GDAKI_MAX_QP_RD_ATOMIC",
    "NCCL_GIN_GDAKI_NIC_HANDLER",
    "NCCL_GIN_GDAKI_QP_DEPTH",
    "NCCL_GIN_IB_TC",
    "NCCL_GIN_NCONNECTIONS",
    "NCCL_GIN_NCONTEXTS",
    "NCCL_GIN_PLUGIN_REF_COUNT",
    "NCCL_GIN_PROXY_QUEUE_SIZE",
    "NCCL_GIN_SIGNAL_POOL_SIZE",
    "NCCL_GIN_TYPE",
    "NCCL_GRAPH_DUMP_FILE_RANK",
    "NCCL_GRAPH_HELPER_DISABLE",
    "NCCL_GRAPH_MIXING_SUPPORT",
    "NCCL_GRAPH_REGISTER",
    "NCCL_GRAPH_STREAM_ORDERING",
    "NCCL_GROUP_CUDA_STREAM",
    "NCCL_IB_ADAPTIVE_ROUTING",
    "NCCL_IB_AR_THRESHOLD",
    "NCCL_IB_DATA_DIRECT",
    "NCCL_IB_DEVICE_PCI_ORDER",
    "NCCL_IB_DISABLE",
    "NCCL_IB_ECE_ENABLE",
    "NCCL_IB_FIFO_TC",
    "NCCL_IB_GID_INDEX",
    "NCCL_IB_MERGE_NICS",
    "NCCL_IB_MERGE_VFS",
    "NCCL_IB_MQP_RETRY_ALL",
    "NCCL_IB_MQP_RETRY_CNT",
    "NCCL_IB_MQP_RETRY_SLEEP_MSEC",
    "NCCL_IB_OOO_RQ",
    "NCCL_IB_PCI_RELAXED_ORDERING",
    "NCCL_IB_PKEY",
    "NCCL_IB_PREPOST_RECEIVE_WORK_REQUESTS",
    "NCCL_IB_QPS_PER_CONNECTION",
    "NCCL_IB_QUERY_PORT_SPEED",
    "NCCL_IB_RECEIVER_SIDE_MATCHING_SCHEME",
    "NCCL_IB_RESILIENCY_PORT_FAILOVER",
    "NCCL_IB_RESILIENCY_PORT_FAILOVER_MAX_ATTEMPTS",
    "NCCL_IB_RESILIENCY_PORT_FAILOVER_PROBE_DELAY",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ACK_TIMEOUT",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_BATCH_INTERVAL",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_BATCH_SIZE",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_SEQUENCE_SIZE",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_TIMEOUT",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ATTEMPTS_MAX",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_START_DELAY",
    "NCCL_IB_RETRY_CNT",
    "NCCL_IB_RETURN_ASYNC_EVENTS",
    "NCCL_IB_ROCE_VERSION_NUM",
    "NCCL_IB_ROUTABLE_FLID_GID_INDEX",
    "NCCL_IB_SL",
    "NCCL_IB_SPLIT_DATA_ON_QPS",
    "NCCL_IB_SUBNET_AWARE_ROUTING",
    "NCCL_IB_SUBNET_PREFIX_LEN",
    "NCCL_IB_TC",
    "NCCL_IB_TIMEOUT",
    "NCCL_IB_USE_INLINE",
    "NCCL_IB_WARN_RAIL_LOCAL",
    "NCCL_IGNORE_COLLNET_MISMATCH",
    "NCCL_IGNORE_CPU_AFFINITY",
    "NCCL_IGNORE_DISABLED_P2P",
    "NCCL_IGNORE_NET_MISMATCH",
    "NCCL_IPC_USE_ABSTRACT_SOCKET",
    "NCCL_L1_SHARED_MEMORY_CARVEOUT",
    "NCCL_LAUNCH_ORDER_IMPLICIT",
    "NCCL_LAUNCH_RACE_FATAL",
    "NCCL_LEGACY_CUDA_REGISTER",
    "NCCL_LL128_BUFFSIZE",
    "NCCL_LL128_C2C",
    "NCCL_LL128_NTHREADS",
    "NCCL_LL_BUFFSIZE",
    "NCCL_LOCAL_REGISTER",
    "NCCL_LSA_TEAM_SIZE",
    "NCCL_MAX_CTAS",
    "NCCL_MAX_NCHANNELS",
    "NCCL_MAX_NRINGS",
    "NCCL_MAX_P2P_NCHANNELS",
    "NCCL_MEM_SYNC_DOMAIN",
    "NCCL_MIN_CTAS",
    "NCCL_MIN_NCHANNELS",
    "NCCL_MIN_NRINGS",
    "NCCL_MIN_P2P_NCHANNELS",
    "NCCL_MLOPART_RDMA_ENABLE",
    "NCCL_MNNVL",
    "NCCL_MNNVL_CLIQUE_ID",
    "NCCL_MNNVL_CROSS_CLIQUE",
    "NCCL_MNNVL_ENABLE",
    "NCCL_MNNVL_RAIL_PER_HOST",
    "NCCL_MNNVL_SCATTER_NETS_ENABLE",
    "NCCL_MNNVL_UUID",
    "NCCL_MULTI_RANK_GPU_ENABLE",
    "NCCL_MULTI_SEGMENT_REGISTER",
    "NCCL_NCHANNELS_PER_NET_PEER",
    "NCCL_NET_DISABLE_INTRA",
    "NCCL_NET_FORCE_FLUSH",
    "NCCL_NET_GDR_C2C",
    "NCCL_NET_GDR_MLOPART",
    "NCCL_NET_GDR_READ",
    "NCCL_NET_OPTIONAL_RECV_COMPLETION",
    "NCCL_NET_OVERHEAD",
    "NCCL_NET_PLUGIN_REF_COUNT",
    "NCCL_NET_SHARED_BUFFERS",
    "NCCL_NET_SHARED_COMMS",
    "NCCL_NSOCKS_PERTHREAD",
    "NCCL_NTHREADS",
    "NCCL_NUM_RMA_CTX",
    "NCCL_NVB_DISABLE",
    "NCCL_NVB_PRECONNECT",
    "NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE",
    "NCCL_NVLSTREE_MAX_CHUNKSIZE",
    "NCCL_NVLS_CHUNKSIZE",
    "NCCL_NVLS_ENABLE",
    "NCCL_NVLS_NCHANNELS",
    "NCCL_NVTX_DISABLE",
    "NCCL_OOB_NET_ENABLE",
    "NCCL_P2P_DIRECT_DISABLE",
    "NCCL_P2P_DISABLE",
    "NCCL_P2P_EPOCH_ENABLE",
    "NCCL_P2P_LL_THRESHOLD",
    "NCCL_P2P_MAX_PEERS",
    "NCCL_P2P_NET_CHUNKSIZE",
    "NCCL_P2P_NVL_CHUNKSIZE",
    "NCCL_P2P_PCI_CHUNKSIZE",
    "NCCL_P2P_PER_CHANNEL_NET_BW",
    "NCCL_P2P_PXN_LEVEL",
    "NCCL_P2P_READ_ENABLE",
    "NCCL_P2P_SCHEDULE_GROUP_SIZE",
    "NCCL_P2P_USE_CUDA_MEMCPY",
    "NCCL_PAT_ENABLE",
    "NCCL_PROGRESS_APPENDOP_FREQ",
    "NCCL_PROXY_APPEND_BATCH_SIZE",
    "NCCL_PROXY_DUMP_SIGNAL",
    "NCCL_PXN_C2C",
    "NCCL_PXN_DISABLE",
    "NCCL_RAS_ENABLE",
    "NCCL_RAS_TIMEOUT_FACTOR",
    "NCCL_REPORT_CONNECT_PROGRESS",
    "NCCL_RMA_DISABLE",
    "NCCL_RMA_PLUGIN_REF_COUNT",
    "NCCL_RMA_PROXY_DUMP_SIGNAL",
    "NCCL_RMA_PROXY_QUEUE_SIZE",
    "NCCL_RUNTIME_CONNECT",
    "NCCL_SET_CPU_STACK_SIZE",
    "NCCL_SET_STACK_SIZE",
    "NCCL_SET_THREAD_NAME",
    "NCCL_SHADOW_MEMPOOL_MAX_SIZE",
    "NCCL_SHM_DISABLE",
    "NCCL_SHM_LOCALITY",
    "NCCL_SHM_MEMCPY_MODE",
    "NCCL_SHM_USE_CUDA_MEMCPY",
    "NCCL_SINGLE_PROC_MEM_REG_ENABLE",
    "NCCL_SOCKET_INLINE",
    "NCCL_SOCKET_MAGIC",
    "NCCL_SOCKET_MIN_TASKSIZE",
    "NCCL_SOCKET_NTHREADS",
    "NCCL_SOCKET_POLL_TIMEOUT_MSEC",
    "NCCL_SOCKET_RCVBUF",
    "NCCL_SOCKET_RETRY_CNT",
    "NCCL_SOCKET_RETRY_SLEEP_MSEC",
    "NCCL_SOCKET_SNDBUF",
    "NCCL_SYM_CE_THRESHOLD",
    "NCCL_SYM_CTAS",
    "NCCL_SYM_GIN_KERNELS_ENABLE",
    "NCCL_SYM_NOWIN_ENABLE",
    "NCCL_SYM_REUSE_SYSMEM_HANDLES",
    "NCCL_SYM_RS_GIN_CHUNK_SIZE",
    "NCCL_SYM_TMA_ENABLE",
    "NCCL_TOPO_DUMP_FILE_RANK",
    "NCCL_TOPO_SPLIT_MLOPART",
    "NCCL_UID_STAGGER_RATE",
    "NCCL_UID_STAGGER_THRESHOLD",
    "NCCL_UNPACK_DOUBLE_NCHANNELS",
    "NCCL_WARN_ENABLE_DEBUG_INFO",
    "NCCL_WIN_ENABLE",
    "NCCL_WIN_STRIDE",
    "NCCL_WORK_ARGS_BYTES",
    "NCCL_WORK_FIFO_BYTES",
    "NCCL_WORK_FIFO_DEPTH",
};

constexpr std::string_view kTextVariables[] = {
    "NCCL_ALGO",
    "NCCL_CHECK_MODE",
    "NCCL_COMM_ID",
    "NCCL_CONF_FILE",
    "NCCL_CTA_POLICY",
    "NCCL_CUDA_PATH",
    "NCCL_DEBUG",
    "NCCL_DEBUG_FILE",
    "NCCL_DEBUG_SUBSYS",
    "NCCL_DEBUG_TIMESTAMP_FORMAT",
    "NCCL_DEBUG_TIMESTAMP_LEVELS",
    "NCCL_ENV_PLUGIN",
    "NCCL_GIN_PLUGIN",
    "NCCL_GRAPH_DUMP_FILE",
    "NCCL_GRAPH_FILE",
    "NCCL_HOSTID",
    "NCCL_IBVERBS_LIB",
    "NCCL_IB_ADDR_FAMILY",
    "NCCL_IB_ADDR_RANGE",
    "NCCL_IB_HCA",
    "NCCL_LAUNCH_MODE",
    "NCCL_NET",
    "NCCL_NETDEVS_POLICY",
    "NCCL_NET_FORCE_MERGE",
    "NCCL_NET_GDR_LEVEL",
    "NCCL_NET_MERGE_LEVEL",
    "NCCL_NET_MERGE_POLICY",
    "NCCL_NET_PLUGIN",
    "NCCL_NO_CACHE",
    "NCCL_OOB_NET_IFNAME",
    "NCCL_P2P_LEVEL",
    "NCCL_PROFILER_PLUGIN",
    "NCCL_PROTO",
    "NCCL_PROXY_CPUSET",
    "NCCL_PROXY_PROFILE",
    "NCCL_RAS_ADDR",
    "NCCL_RMA_PLUGIN",
    "NCCL_SOCKET_FAMILY",
    "NCCL_SOCKET_IFNAME",
    "NCCL_SYM_KERNEL",
    "NCCL_THREAD_THRESHOLDS",
    "NCCL_TOPO_DUMP_FILE",
    "NCCL_TOPO_FILE",
    "NCCL_TUNER_PLUGIN",
};

constexpr std::string_view kBooleanVariables[] = {
    "NCCL_PARAM_DUMP_ALL",
};

// Read with getenv before NCCL loads any plugin (src/misc/param.cc initEnv, src/plugin/env.cc): neither the env
// plugin nor the net plugin's setenv reaches them.
constexpr std::string_view kReadBeforePlugins[] = {"NCCL_CONF_FILE", "NCCL_ENV_PLUGIN"};

template <size_t N>
bool listed(const std::string_view (&names)[N], std::string_view name) {
  return std::binary_search(std::begin(names), std::end(names), name);
}

// Optimal string alignment distance: a swap of neighbours ("QSP") is one edit, as a typing slip is.
size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string quoted(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

// A word operators write for a flag NCCL reads as a number.
std::optional<int> flagWord(std::string_view text) {
  const std::string word = toLower(trim(text));
  if (word == "true" || word == "yes" || word == "on") return 1;
  if (word == "false" || word == "no" || word == "off") return 0;
  return std::nullopt;
}

// NCCL's ncclLoadParam: strtoll(value, nullptr, 0) on a non-empty value; on overflow (errno) its default.
std::string integerProblem(std::string_view value) {
  if (value.empty()) return "an empty value means NCCL's default: remove the line";
  const std::string text(value);
  errno = 0;
  char* end = nullptr;
  const long long read = std::strtoll(text.c_str(), &end, 0);
  if (errno == ERANGE) {
    return quoted(value) + " is out of range, and NCCL would keep its default: write a whole number below 2^63";
  }
  const bool whole = end != text.c_str() && *end == '\0';
  std::string_view digits = trim(value);
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
  const std::optional<uint64_t> decimal = parseUnsigned(digits);
  if (decimal && digits.size() > 1 && digits.front() == '0') {
    const bool negative = trim(value).front() == '-';
    if (whole && std::to_string(read) == (negative ? "-" : "") + std::to_string(*decimal)) return "";  // "007"
    std::string stripped = std::to_string(*decimal);
    return "NCCL reads a leading 0 as octal and would take " + quoted(value) + " as " + std::to_string(read) +
           ": write " + quoted(stripped) + " without the 0" + (whole ? " or " + quoted(std::to_string(read)) : "");
  }
  if (whole) return "";
  std::string problem =
      "NCCL reads it as a whole number and would take " + quoted(value) + " as " + std::to_string(read) + ": write ";
  if (std::optional<uint64_t> exact = parseUnsigned(trim(value))) return problem + quoted(std::to_string(*exact));
  if (std::optional<int> flag = flagWord(value)) return problem + quoted(std::to_string(*flag));
  if (StatusOr<uint64_t> bytes = parseByteSize(value); bytes.isOk()) {
    return problem + quoted(std::to_string(*bytes)) + " for " + std::string(trim(value)) + " (bytes, no suffix)";
  }
  return problem + "a whole number (decimal, or hex with 0x)";
}

// NCCL 2.30's bool parser (src/include/param/parser_default.h): anything else keeps the default.
std::string booleanProblem(std::string_view value) {
  if (value.empty()) return "an empty value means NCCL's default: remove the line";
  const std::string word = toLower(value);
  if (word == "1" || word == "t" || word == "true" || word == "0" || word == "f" || word == "false") return "";
  std::optional<int> flag = flagWord(value);
  return "NCCL reads it as 1, T, TRUE, 0, F or FALSE and would keep its default for " + quoted(value) + ": write " +
         (flag ? quoted(std::to_string(*flag)) : std::string("\"1\" or \"0\""));
}

// Every variable once, sorted by name (the lists above are the source of truth).
const std::vector<NcclVariable>& table() {
  static const std::vector<NcclVariable> all = [] {
    std::vector<NcclVariable> out;
    auto add = [&out](std::string_view name, NcclValueKind kind) {
      out.push_back({name, kind, listed(kReadBeforePlugins, name)});
    };
    for (std::string_view name : kIntegerVariables) add(name, NcclValueKind::kInteger);
    for (std::string_view name : kTextVariables) add(name, NcclValueKind::kText);
    for (std::string_view name : kBooleanVariables) add(name, NcclValueKind::kBoolean);
    std::sort(out.begin(), out.end(), [](const NcclVariable& a, const NcclVariable& b) { return a.name < b.name; });
    return out;
  }();
  return all;
}

}  // namespace

const NcclVariable* findNcclVariable(std::string_view name) {
  const std::vector<NcclVariable>& all = table();
  auto it = std::lower_bound(all.begin(), all.end(), name,
                             [](const NcclVariable& v, std::string_view n) { return v.name < n; });
  return it != all.end() && it->name == name ? &*it : nullptr;
}

std::string closestNcclVariable(std::string_view name) {
  // Edits allowed: a third of the letters after NCCL_, 1 to 3: "NCCL_QPS_PER_CONNECTION" (IB_ left out) is near
  // enough, "NCCL_FOO" is near nothing. Ties go to the first name in order, so the answer never varies.
  const size_t letters = name.size() > 5 ? name.size() - 5 : 0;
  size_t bestDistance = std::max<size_t>(1, std::min<size_t>(3, letters / 3)) + 1;
  std::string_view best;
  for (const NcclVariable& known : table()) {
    size_t distance = editDistance(name, known.name);
    if (distance < bestDistance) {
      best = known.name;
      bestDistance = distance;
    }
  }
  return std::string(best);
}

std::string ncclValueProblem(const NcclVariable& variable, std::string_view value) {
  switch (variable.kind) {
    case NcclValueKind::kInteger:
      return integerProblem(value);
    case NcclValueKind::kBoolean:
      return booleanProblem(value);
    case NcclValueKind::kText:
      return "";
  }
  return "";
}

}  // namespace nccl_roce::policy
