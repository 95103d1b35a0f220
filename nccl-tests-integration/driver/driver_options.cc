#include "nccl-tests-integration/driver/driver_options.h"

#include <limits>
#include <optional>

#include "common/strings.h"

namespace nccl_roce::driver {

const char* dataTypeName(DataType type) {
  return type == DataType::kDouble ? "double" : "float";
}
int dataTypeSize(DataType type) {
  return type == DataType::kDouble ? 8 : 4;
}

namespace {

constexpr size_t kMaxSizes = 4096;

Status badValue(const std::string& flag, const std::string& value, const std::string& why) {
  return Status(StatusCode::kInvalidArgument, flag + " '" + value + "': " + why);
}

StatusOr<int64_t> wholeNumber(const std::string& flag, const std::string& value, int64_t lo, int64_t hi) {
  std::optional<uint64_t> n = parseUnsigned(value);
  if (!n || *n < static_cast<uint64_t>(lo) || *n > static_cast<uint64_t>(hi)) {
    return badValue(flag, value, "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
  }
  return static_cast<int64_t>(*n);
}

StatusOr<uint64_t> byteSize(const std::string& flag, const std::string& value) {
  StatusOr<uint64_t> bytes = parseByteSize(value);
  if (!bytes.isOk()) return badValue(flag, value, bytes.status().message());
  return *bytes;
}

// Sets *out (an integer option) to `value` when it is a whole number from lo to hi.
template <typename T>
Status setNumber(const std::string& flag, const std::string& value, int64_t lo, int64_t hi, T* out) {
  StatusOr<int64_t> n = wholeNumber(flag, value, lo, hi);
  if (!n.isOk()) return n.status();
  *out = static_cast<T>(*n);
  return Status::ok();
}

Status setSize(const std::string& flag, const std::string& value, uint64_t* out) {
  StatusOr<uint64_t> n = byteSize(flag, value);
  if (!n.isOk()) return n.status();
  *out = *n;
  return Status::ok();
}

// nccl-tests' flags for what is measured; nullopt when `flag` is not one of them.
std::optional<Status> applyMeasurementValue(const std::string& flag, const std::string& value, DriverOptions* o) {
  if (flag == "-b" || flag == "--minbytes") return setSize(flag, value, &o->minBytes);
  if (flag == "-e" || flag == "--maxbytes") return setSize(flag, value, &o->maxBytes);
  if (flag == "-i" || flag == "--stepbytes") {
    o->stepIsFactor = false;
    return setSize(flag, value, &o->stepBytes);
  }
  if (flag == "-f" || flag == "--stepfactor") {
    Status s = setNumber(flag, value, 1, 1 << 20, &o->stepFactor);
    o->stepIsFactor = o->stepFactor > 1;  // nccl-tests: -f 1 steps by -i
    return s;
  }
  if (flag == "-n" || flag == "--iters") return setNumber(flag, value, 1, 1 << 24, &o->iters);
  if (flag == "-w" || flag == "--warmup_iters") return setNumber(flag, value, 0, 1 << 24, &o->warmupIters);
  if (flag == "-c" || flag == "--check") {
    int check = 0;
    Status s = setNumber(flag, value, 0, 1 << 24, &check);
    o->check = check != 0;
    return s;
  }
  if (flag == "-d" || flag == "--datatype") {
    if (value == "float") {
      o->type = DataType::kFloat;
    } else if (value == "double") {
      o->type = DataType::kDouble;
    } else {
      return badValue(flag, value, "the driver measures float or double");
    }
    return Status::ok();
  }
  if (flag == "-G" || flag == "--cudagraph") return setNumber(flag, value, 0, 1 << 20, &o->graphLaunches);
  if (flag == "-o" || flag == "--op") {
    return value == "sum" ? Status::ok() : badValue(flag, value, "the driver measures sum");
  }
  return std::nullopt;
}

// The flags for how ranks are started (nccl-tests' -g and -t accepted only as 1); nullopt when `flag` is not one.
std::optional<Status> applyLaunchValue(const std::string& flag, const std::string& value, DriverOptions* o) {
  if (flag == "-g" || flag == "--ngpus" || flag == "-t" || flag == "--nthreads") {
    return value == "1" ? Status::ok()
                        : badValue(flag, value, "one GPU per process: start more ranks with --nranks instead");
  }
  if (flag == "--nranks" || flag == "-np") return setNumber(flag, value, 1, 4096, &o->nranks);
  if (flag == "--rank") {
    int rank = 0;
    Status s = setNumber(flag, value, 0, 4095, &rank);
    o->rank = rank;
    return s;
  }
  if (flag == "--device") {
    int device = 0;
    Status s = setNumber(flag, value, 0, 1023, &device);
    o->device = device;
    return s;
  }
  if (flag == "--timeout") return setNumber(flag, value, 1, 86400, &o->timeoutSeconds);
  if (flag == "--rendezvous") {
    if (value.empty()) return badValue(flag, value, "expected a file path");
    o->rendezvous = value;
    return Status::ok();
  }
  return std::nullopt;
}

// Applies one "flag value" pair. Flags are listed in driverUsage().
Status applyValue(const std::string& flag, const std::string& value, DriverOptions* o) {
  if (std::optional<Status> s = applyMeasurementValue(flag, value, o)) return *s;
  if (std::optional<Status> s = applyLaunchValue(flag, value, o)) return *s;
  return Status(StatusCode::kInvalidArgument, "unknown option '" + flag + "' (see --help)");
}

}  // namespace

StatusOr<DriverOptions> parseDriverOptions(const std::vector<std::string>& args) {
  DriverOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "-h" || flag == "--help") {
      o.help = true;
      continue;
    }
    if (flag == "--distinct-hostid") {
      o.distinctHostId = true;
      continue;
    }
    if (flag.size() < 2 || flag[0] != '-') {
      return Status(StatusCode::kInvalidArgument, "unexpected argument '" + flag + "' (see --help)");
    }
    if (i + 1 >= args.size()) return Status(StatusCode::kInvalidArgument, flag + " needs a value");
    Status s = applyValue(flag, args[++i], &o);
    if (!s.isOk()) return s;
  }
  if (o.help) return o;
  if (o.minBytes > o.maxBytes) {
    return Status(StatusCode::kInvalidArgument,
                  "minimum size " + formatByteSize(o.minBytes) + " is above the maximum " + formatByteSize(o.maxBytes));
  }
  if (!o.stepIsFactor && o.stepBytes == 0 && o.minBytes < o.maxBytes) {
    return Status(StatusCode::kInvalidArgument, "-i 0 never reaches the maximum size");
  }
  if (o.stepIsFactor && o.minBytes == 0) {
    return Status(StatusCode::kInvalidArgument, "-b 0 with -f never grows: start at one element (-b 8)");
  }
  if (o.rank) {
    if (*o.rank >= o.nranks) {
      return Status(StatusCode::kInvalidArgument,
                    "--rank " + std::to_string(*o.rank) + " is not below --nranks " + std::to_string(o.nranks));
    }
    if (o.nranks > 1 && o.rendezvous.empty()) {
      return Status(StatusCode::kInvalidArgument, "--rank needs --rendezvous FILE to meet the other ranks");
    }
    if (o.distinctHostId) {
      return Status(StatusCode::kInvalidArgument,
                    "--distinct-hostid is for ranks the driver starts itself; a launcher sets NCCL_HOSTID per rank");
    }
  }
  if (sweepSizes(o).empty()) {
    return Status(StatusCode::kInvalidArgument,
                  "no size between -b and -e holds a whole " + std::string(dataTypeName(o.type)) + " element");
  }
  return o;
}

std::vector<uint64_t> sweepSizes(const DriverOptions& o) {
  std::vector<uint64_t> sizes;
  const uint64_t element = static_cast<uint64_t>(dataTypeSize(o.type));
  uint64_t size = o.minBytes;
  while (size <= o.maxBytes && sizes.size() < kMaxSizes) {
    uint64_t whole = size / element * element;
    if (whole > 0 && (sizes.empty() || sizes.back() != whole)) sizes.push_back(whole);
    uint64_t next = o.stepIsFactor ? size * o.stepFactor : size + o.stepBytes;
    bool overflow = o.stepIsFactor ? size > std::numeric_limits<uint64_t>::max() / o.stepFactor : next < size;
    if (overflow || next == size) break;
    size = next;
  }
  return sizes;
}

std::string driverUsage() {
  return "Usage: nccl-roce-allreduce-driver [nccl-tests flags] [--nranks N [--distinct-hostid] | --rank R --nranks N "
         "--rendezvous FILE]\n"
         "Measures ncclAllReduce (sum) like nccl-tests' all_reduce_perf and prints the same table.\n"
         "  -b, --minbytes S      smallest size (default 32M; K, M, G are powers of 1024)\n"
         "  -e, --maxbytes S      largest size (default 32M)\n"
         "  -f, --stepfactor F    multiply the size by F each step\n"
         "  -i, --stepbytes S     or add S each step (default 1M)\n"
         "  -n, --iters N         timed iterations per size (default 20)\n"
         "  -w, --warmup_iters N  untimed iterations first (default 1)\n"
         "  -c, --check 0|1       count wrong elements (default 1; 0 prints N/A)\n"
         "  -d, --datatype T      float (default) or double\n"
         "  -G, --cudagraph N     capture each size's timed iterations in a CUDA graph and launch it N times\n"
         "                        (default 0: no graph); time per iteration over the launches, as nccl-tests\n"
         "  --nranks N            ranks; without --rank the driver starts all N processes itself\n"
         "  --distinct-hostid     give each self-started rank its own NCCL_HOSTID (<host>-rank<R>), so NCCL\n"
         "                        treats the ranks as separate nodes: its network paths on one host, one GPU\n"
         "  --rank R              this process is rank R of N, started by a launcher (run-sweep.sh --launcher local)\n"
         "  --rendezvous FILE     where rank 0 writes NCCL's unique id and the other ranks read it\n"
         "  --device D            CUDA device (default: rank modulo the number of devices)\n"
         "  --timeout S           seconds to wait for the unique id (default 120)\n"
         "Each rank ends with its counts, one '# nccl-roce-issued:' line per collective (eager, captured, replayed).\n"
         "Exit status: 0 measured; 2 bad arguments; 77 no usable CUDA device; 1 any other failure.\n";
}

}  // namespace nccl_roce::driver
