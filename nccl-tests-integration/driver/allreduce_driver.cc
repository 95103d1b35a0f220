// nccl-roce-allreduce-driver: ncclAllReduce timed the way nccl-tests' all_reduce_perf times it, for GPU hosts
// without nccl-tests. Host code only (CUDA runtime and NCCL; no kernels). Prints nccl-tests' table, so the
// sweep commands read its output like any nccl-tests log. docs/sweep.md, "The driver".
#include <cuda_runtime.h>
#include <nccl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "nccl-tests-integration/driver/check_pattern.h"
#include "nccl-tests-integration/driver/driver_options.h"
#include "nccl-tests-integration/driver/issued_counts.h"
#include "nccl-tests-integration/driver/perf_table.h"
#include "nccl-tests-integration/driver/rank_launcher.h"
#include "nccl-tests-integration/driver/rendezvous.h"

namespace nccl_roce::driver {
namespace {

constexpr const char* kName = "nccl-roce-allreduce-driver";
constexpr int kExitNoDevice = 77;

// What a rank tells rank 0 about itself, exchanged with ncclAllGather as raw bytes.
struct DeviceRecord {
  int32_t rank;
  int32_t device;
  int64_t pid;
  char host[64];
  char busId[32];
  char name[96];
};

bool cudaOk(cudaError_t e, const char* what, int rank) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s: rank %d: %s: %s\n", kName, rank, what, cudaGetErrorString(e));
  return false;
}

bool ncclOk(ncclResult_t r, const char* what, int rank, ncclComm_t comm = nullptr) {
  if (r == ncclSuccess) return true;
  std::fprintf(stderr, "%s: rank %d: %s: %s (%s)\n", kName, rank, what, ncclGetErrorString(r), ncclGetLastError(comm));
  return false;
}

void copyText(char* out, size_t size, const std::string& text) {
  std::snprintf(out, size, "%s", text.c_str());
}

std::string versionLine() {
  int nccl = 0, runtime = 0;
  ncclGetVersion(&nccl);
  cudaRuntimeGetVersion(&runtime);
  int major = nccl / 10000, minor = nccl / 100 % 100, patch = nccl % 100;
  char line[160];
  std::snprintf(line, sizeof line, "NCCL version %d.%d.%d (%s, CUDA runtime %d.%d)", major, minor, patch, kName,
                runtime / 1000, runtime % 1000 / 10);
  return line;
}

DeviceRecord describeSelf(int rank, int device) {
  DeviceRecord r{};
  r.rank = rank;
  r.device = device;
  r.pid = static_cast<int64_t>(getpid());
  // What NCCL groups ranks into nodes by. NOLINTNEXTLINE(concurrency-mt-unsafe): the driver never sets it
  const char* hostId = std::getenv("NCCL_HOSTID");
  copyText(r.host, sizeof r.host, hostId && *hostId ? hostId : shortHostName());
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess) {
    std::string text(bus);
    copyText(r.busId, sizeof r.busId, text.substr(0, text.rfind('.')));  // "0000:19:00.0" -> "0000:19:00"
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) copyText(r.name, sizeof r.name, prop.name);
  return r;
}

// The measurement proper, once the communicator exists.
template <typename T>
class Sweep {
 public:
  Sweep(const DriverOptions& o, int rank, ncclComm_t comm, ncclDataType_t type, DriverIssued* issued)
      : o_(o), rank_(rank), comm_(comm), type_(type), issued_(*issued) {}
  ~Sweep() {
    for (void* p : {send_, recv_, stats_, records_}) cudaFree(p);
    if (stream_) cudaStreamDestroy(stream_);
  }

  bool run() {
    const std::vector<uint64_t> sizes = sweepSizes(o_);
    const size_t maxCount = sizes.back() / sizeof(T);
    pattern_.resize(maxCount);
    fillInput(&pattern_, rank_);
    if (!cudaOk(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate", rank_) ||
        !cudaOk(cudaMalloc(&send_, maxCount * sizeof(T)), "cudaMalloc (send buffer)", rank_) ||
        !cudaOk(cudaMalloc(&recv_, maxCount * sizeof(T)), "cudaMalloc (receive buffer)", rank_) ||
        !cudaOk(cudaMalloc(&stats_, 4 * sizeof(double)), "cudaMalloc", rank_) || !printHeader()) {
      return false;
    }
    std::vector<MeasuredSize> rows;
    for (uint64_t bytes : sizes) {
      MeasuredSize row;
      row.bytes = bytes;
      if (!measure(bytes / sizeof(T), &row)) return false;
      if (rank_ == 0) {
        std::fputs(tableRow(row, o_.type, o_.nranks).c_str(), stdout);
        std::fflush(stdout);  // a sweep cut short still leaves its rows
      }
      rows.push_back(row);
    }
    if (rank_ == 0) std::fputs(tableFooter(rows, o_.nranks).c_str(), stdout);
    return true;
  }

 private:
  bool printHeader() {
    const size_t bytes = sizeof(DeviceRecord) * static_cast<size_t>(o_.nranks);
    if (!cudaOk(cudaMalloc(&records_, bytes), "cudaMalloc", rank_)) return false;
    int device = 0;
    cudaGetDevice(&device);
    DeviceRecord self = describeSelf(rank_, device);
    char* slot = static_cast<char*>(records_) + sizeof(DeviceRecord) * static_cast<size_t>(rank_);
    std::vector<DeviceRecord> all(static_cast<size_t>(o_.nranks));
    ++issued_.allGather.eager;
    if (!copy(slot, &self, sizeof self) ||
        !ncclOk(ncclAllGather(slot, records_, sizeof(DeviceRecord), ncclChar, comm_, stream_), "ncclAllGather", rank_,
                comm_) ||
        !cudaOk(cudaStreamSynchronize(stream_), "device list exchange", rank_) || !copy(all.data(), records_, bytes)) {
      return false;
    }
    if (rank_ != 0) return true;
    std::vector<RankDevice> devices;
    devices.reserve(all.size());
    for (const DeviceRecord& r : all) devices.push_back({r.rank, r.pid, r.host, r.device, r.busId, r.name});
    std::fputs(tableHeader(o_, versionLine(), devices).c_str(), stdout);
    std::fflush(stdout);
    return true;
  }

  // Every copy is ordered on the NCCL stream and waited for: a plain cudaMemcpy runs on the legacy stream,
  // which a non-blocking stream does not wait for, and may return before a pageable-source copy has landed.
  bool copy(void* dst, const void* src, size_t bytes) {
    return cudaOk(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_), "cudaMemcpyAsync", rank_) &&
           cudaOk(cudaStreamSynchronize(stream_), "cudaMemcpyAsync", rank_);
  }

  bool load(void* buffer, size_t count) { return copy(buffer, pattern_.data(), count * sizeof(T)); }

  // One all-reduce on the stream, counted as eager or as captured into the graph being recorded.
  bool allReduce(const void* in, void* out, size_t count, ncclDataType_t type, bool captured = false) {
    ++(captured ? issued_.allReduce.captured : issued_.allReduce.eager);
    return ncclOk(ncclAllReduce(in, out, count, type, ncclSum, comm_, stream_), "ncclAllReduce", rank_, comm_);
  }

  // Warm-up then timed iterations; the time is per iteration, host clock around the launches, like nccl-tests.
  bool timed(const void* in, void* out, size_t count, double* us) {
    for (int i = 0; i < o_.warmupIters; ++i) {
      if (!allReduce(in, out, count, type_)) return false;
    }
    if (!cudaOk(cudaStreamSynchronize(stream_), "warm-up", rank_)) return false;
    if (o_.graphLaunches > 0) return timedGraph(in, out, count, us);
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < o_.iters; ++i) {
      if (!allReduce(in, out, count, type_)) return false;
    }
    if (!cudaOk(cudaStreamSynchronize(stream_), "timed iterations", rank_)) return false;
    std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;
    *us = elapsed.count() / o_.iters;
    return true;
  }

  // nccl-tests' -G: the timed iterations captured into a CUDA graph once, the graph launched graphLaunches times,
  // the time per iteration over every launch. NCCL plans the captured collectives once (the tuner is asked then) and
  // every launch runs them again (the profiler times each).
  bool timedGraph(const void* in, void* out, size_t count, double* us) {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    if (!cudaOk(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture", rank_)) {
      return false;
    }
    bool captured = true;
    for (int i = 0; i < o_.iters && captured; ++i) captured = allReduce(in, out, count, type_, true);
    bool ended = cudaOk(cudaStreamEndCapture(stream_, &graph), "cudaStreamEndCapture", rank_);
    bool ok =
        captured && ended && cudaOk(cudaGraphInstantiateWithFlags(&exec, graph, 0), "cudaGraphInstantiate", rank_);
    auto start = std::chrono::steady_clock::now();
    for (int l = 0; ok && l < o_.graphLaunches; ++l) {
      ok = cudaOk(cudaGraphLaunch(exec, stream_), "cudaGraphLaunch", rank_);
      if (ok) {
        ++issued_.allReduce.graphLaunches;
        issued_.allReduce.replayed += static_cast<uint64_t>(o_.iters);
      }
    }
    ok = ok && cudaOk(cudaStreamSynchronize(stream_), "graph launches", rank_);
    std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    *us = elapsed.count() / (static_cast<double>(o_.iters) * o_.graphLaunches);
    return ok;
  }

  bool wrongIn(const void* result, size_t count, double* wrong) {
    if (!o_.check) return true;
    std::vector<T> host(count);
    if (!copy(host.data(), result, count * sizeof(T))) {
      return false;
    }
    *wrong = static_cast<double>(countWrong(host.data(), count, o_.nranks));
    return true;
  }

  bool measure(size_t count, MeasuredSize* row) {
    double local[4] = {0, 0, 0, 0};  // out-of-place us, in-place us, wrong out-of-place, wrong in-place
    // Out of place: the input is never written, so the output after the timed loop is one clean sum.
    if (!load(send_, count) || !timed(send_, recv_, count, &local[0]) || !wrongIn(recv_, count, &local[2])) {
      return false;
    }
    // In place: the timed loop keeps summing into the buffer, so the check is a fresh single call.
    if (!load(recv_, count) || !timed(recv_, recv_, count, &local[1])) return false;
    if (o_.check) {
      if (!load(recv_, count) || !allReduce(recv_, recv_, count, type_) ||
          !cudaOk(cudaStreamSynchronize(stream_), "in-place check", rank_) || !wrongIn(recv_, count, &local[3])) {
        return false;
      }
    }
    // Times are averaged over ranks and wrong counts summed, as nccl-tests does by default (-a 1).
    double total[4];
    if (!copy(stats_, local, sizeof local) || !allReduce(stats_, stats_, 4, ncclDouble) ||
        !cudaOk(cudaStreamSynchronize(stream_), "result exchange", rank_) || !copy(total, stats_, sizeof total)) {
      return false;
    }
    row->outOfPlace = {total[0] / o_.nranks, o_.check ? static_cast<int64_t>(total[2]) : -1};
    row->inPlace = {total[1] / o_.nranks, o_.check ? static_cast<int64_t>(total[3]) : -1};
    return true;
  }

  const DriverOptions& o_;
  const int rank_;
  ncclComm_t comm_;
  ncclDataType_t type_;
  DriverIssued& issued_;
  std::vector<T> pattern_;
  cudaStream_t stream_ = nullptr;
  void* send_ = nullptr;
  void* recv_ = nullptr;
  void* stats_ = nullptr;
  void* records_ = nullptr;
};

// This rank's counts, after the communicator is gone (so the profiler has timed everything it will); a finished
// sweep that issued other than expectedIssued says so, a bug of the driver's own.
void printIssued(const DriverOptions& o, int rank, const DriverIssued& issued, bool finished) {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  for (const auto& [name, counts] :
       {std::pair<const char*, const IssuedCounts&>{"AllReduce", issued.allReduce}, {"AllGather", issued.allGather}}) {
    std::fputs(formatIssuedLine({rank, static_cast<int64_t>(getpid()), host, name, counts}).c_str(), stdout);
  }
  std::fflush(stdout);
  DriverIssued expected = expectedIssued(o);
  if (finished && !(expected.allReduce == issued.allReduce && expected.allGather == issued.allGather)) {
    std::fprintf(stderr,
                 "%s: rank %d counted other calls than its options imply (all-reduce: eager %llu, captured %llu, "
                 "replayed %llu expected): a bug of the driver\n",
                 kName, rank, static_cast<unsigned long long>(expected.allReduce.eager),
                 static_cast<unsigned long long>(expected.allReduce.captured),
                 static_cast<unsigned long long>(expected.allReduce.replayed));
  }
}

bool exchangeUniqueId(const DriverOptions& o, int rank, const std::string& rendezvous, ncclUniqueId* id) {
  if (rank == 0) {
    if (!ncclOk(ncclGetUniqueId(id), "ncclGetUniqueId", rank)) return false;
    if (o.nranks == 1) return true;
    Status s = publishUniqueId(rendezvous, std::string(id->internal, sizeof id->internal));
    if (!s.isOk()) std::fprintf(stderr, "%s: rank 0: %s\n", kName, s.toString().c_str());
    return s.isOk();
  }
  Status got = awaitUniqueId(rendezvous, id->internal, sizeof id->internal, o.timeoutSeconds * 1000);
  if (!got.isOk()) std::fprintf(stderr, "%s: rank %d: %s\n", kName, rank, got.toString().c_str());
  return got.isOk();
}

// Whether this host can run the ranks at all; printed once, before any rank starts. Returns an exit status.
int checkDevices(const DriverOptions& o, int* deviceCount) {
  cudaError_t e = cudaGetDeviceCount(deviceCount);
  if (e != cudaSuccess || *deviceCount == 0) {
    std::fprintf(stderr, "%s: no usable CUDA device (%s): it measures NCCL on GPUs; nothing was run\n", kName,
                 e != cudaSuccess ? cudaGetErrorString(e) : "the runtime reports 0 devices");
    return kExitNoDevice;
  }
  const char* hostId = std::getenv("NCCL_HOSTID");  // NOLINT(concurrency-mt-unsafe): one thread, before NCCL
  if (!o.rank && !o.distinctHostId && *deviceCount < o.nranks && !(hostId && *hostId)) {
    std::fprintf(stderr,
                 "%s: %d ranks on %d GPU(s): NCCL refuses two ranks of one host on one GPU; add "
                 "--distinct-hostid to run them as separate nodes\n",
                 kName, o.nranks, *deviceCount);
    return 2;
  }
  if (o.device && *o.device >= *deviceCount) {
    std::fprintf(stderr, "%s: --device %d, but there are %d devices\n", kName, *o.device, *deviceCount);
    return 2;
  }
  return 0;
}

int runRank(const DriverOptions& o, int rank, const std::string& rendezvous) {
  int deviceCount = 0;
  if (int status = checkDevices(o, &deviceCount); status != 0) return status;
  int device = o.device.value_or(rank % deviceCount);
  if (!cudaOk(cudaSetDevice(device), "cudaSetDevice", rank)) return 1;
  ncclUniqueId id;
  if (!exchangeUniqueId(o, rank, rendezvous, &id)) return 1;
  ncclComm_t comm = nullptr;
  if (!ncclOk(ncclCommInitRank(&comm, o.nranks, id, rank), "ncclCommInitRank", rank)) return 1;
  if (rank == 0 && o.nranks > 1) unlink(rendezvous.c_str());  // every rank has read it: init needs them all
  DriverIssued issued;
  bool ok = o.type == DataType::kDouble ? Sweep<double>(o, rank, comm, ncclDouble, &issued).run()
                                        : Sweep<float>(o, rank, comm, ncclFloat, &issued).run();
  ncclCommFinalize(comm);
  ncclCommDestroy(comm);
  printIssued(o, rank, issued, ok);
  return ok ? 0 : 1;
}

int driverMain(const std::vector<std::string>& args) {
  StatusOr<DriverOptions> parsed = parseDriverOptions(args);
  if (!parsed.isOk()) {
    std::fprintf(stderr, "%s: %s\n", kName, parsed.status().message().c_str());
    return 2;
  }
  const DriverOptions& o = *parsed;
  if (o.help) {
    std::fputs(driverUsage().c_str(), stdout);
    return 0;
  }
  if (o.rank) return runRank(o, *o.rank, o.rendezvous);
  if (o.nranks == 1) return runRank(o, 0, "");
  // A CUDA context does not survive fork, so a child looks at the devices first; the ranks start only if
  // they can run, and a host without GPUs gets one message instead of one per rank.
  LaunchResult probe = launchRanks(1, false, [&](int) {
    int count = 0;
    return checkDevices(o, &count);
  });
  if (probe.exitCode != 0) return probe.exitCode;
  // Every rank from here: a private directory for the rendezvous file.
  const char* tmp = std::getenv("TMPDIR");  // NOLINT(concurrency-mt-unsafe): one thread, before NCCL
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/nccl-roce-driver.XXXXXX";
  if (!mkdtemp(dir.data())) {
    std::perror("nccl-roce-allreduce-driver: mkdtemp");
    return 1;
  }
  const std::string rendezvous = dir + "/unique-id";
  LaunchResult result = launchRanks(o.nranks, o.distinctHostId, [&](int rank) { return runRank(o, rank, rendezvous); });
  unlink(rendezvous.c_str());
  rmdir(dir.c_str());
  if (result.failedRank >= 0) {
    std::fprintf(stderr, "%s: rank %d failed (exit status %d); the other ranks were stopped\n", kName,
                 result.failedRank, result.exitCode);
  }
  return result.exitCode;
}

}  // namespace
}  // namespace nccl_roce::driver

int main(int argc, char** argv) {
  return nccl_roce::driver::driverMain(std::vector<std::string>(argv + 1, argv + argc));
}
