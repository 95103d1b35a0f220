#include "plugin/bounded_resolution.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "plugin/library_pin.h"

namespace nccl_roce::plugin {

namespace {

// Log lines held for the caller: the worker never writes to NCCL's logger itself.
class HeldLog final : public Logger {
 public:
  void log(LogLevel level, unsigned long subsystem, const char* file, int line, const std::string& message) override {
    lines_.push_back({level, subsystem, file, line, message});
  }
  void replayTo(Logger& log) const {
    for (const Line& l : lines_) log.log(l.level, l.subsystem, l.file, l.line, l.message);
  }

 private:
  struct Line {
    LogLevel level;
    unsigned long subsystem;
    const char* file;  // __FILE__ of this library, which stays mapped
    int line;
    std::string message;
  };
  std::vector<Line> lines_;
};

// Everything the worker touches, owned jointly by the worker and the caller.
struct Job {
  Job(SettingsResolver r, const Environment& e) : resolver(std::move(r)), env(e) {}
  const SettingsResolver resolver;
  const Environment& env;
  HeldLog log;
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;   // under mutex
  bool threw = false;  // under mutex
  ServedSettings result;
};

void runJob(const std::shared_ptr<Job>& job) noexcept {
  ServedSettings result;
  bool threw = false;
  try {
    result = job->resolver(job->env, job->log);
  } catch (...) {
    threw = true;
  }
  std::lock_guard<std::mutex> lock(job->mutex);
  job->result = std::move(result);
  job->threw = threw;
  job->done = true;
  job->finished.notify_all();
}

// Serves nothing, saying why. Takes the text as a pointer: building a std::string could throw here.
ServedSettings failed(const char* why) noexcept {
  ServedSettings out;
  try {
    out.failure = why;
  } catch (...) {
    // Out of memory: nothing is served either way.
  }
  return out;
}

}  // namespace

ServedSettings resolveWithin(const SettingsResolver& resolver, const Environment& env,
                             std::chrono::milliseconds deadline, Logger& log) noexcept {
  try {
    auto job = std::make_shared<Job>(resolver, env);
    std::thread worker;
    try {
      worker = std::thread(runJob, job);
    } catch (const std::system_error& e) {
      return failed((std::string("resolution failed: no thread to run it on (") + e.what() + ")").c_str());
    }
    std::unique_lock<std::mutex> lock(job->mutex);
    if (!job->finished.wait_for(lock, deadline, [&job] { return job->done; })) {
      keepThisLibraryLoaded();  // an abandoned worker may still be running its code
      worker.detach();
      return failed(("resolution did not finish within " + std::to_string(deadline.count()) +
                     " ms (a device whose verbs or sysfs calls block?)")
                        .c_str());
    }
    lock.unlock();
    // A worker on time is joined, not left: after its notify it still runs this library's code (the unlock, its
    // reference to the job, the thread's own exit in the static libstdc++), and NCCL may dlclose us right after
    // we return. Seen as a SIGSEGV at exit in about 2% of real-NCCL runs before the join.
    worker.join();
    job->log.replayTo(log);
    if (job->threw) return failed("resolution failed");
    return std::move(job->result);
  } catch (...) {
    return failed("resolution failed");
  }
}

}  // namespace nccl_roce::plugin
