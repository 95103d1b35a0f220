// A shared object linked exactly like libnccl-roce.so (cmake/NcclRocePortable.cmake), whose only job is to
// throw and catch inside itself: if the unwinder could not find this object's unwind tables through the
// _dl_find_object stand-in, the throw would end in std::terminate instead of the catch.
#include <stdexcept>
#include <string>

namespace {

__attribute__((noinline)) int throwFrom(int depth) {
  if (depth <= 0) throw std::runtime_error("thrown " + std::to_string(depth) + " frames down");
  int below = throwFrom(depth - 1);
  return below + 1;  // not a tail call: every level keeps its frame
}

}  // namespace

// 1 when an exception thrown `depth` frames down was caught here.
extern "C" __attribute__((visibility("default"))) int nccl_roce_probe_catches(int depth);

int nccl_roce_probe_catches(int depth) {
  try {
    return throwFrom(depth) < 0 ? 2 : 3;  // never reached: the innermost frame always throws
  } catch (const std::runtime_error&) {
    return 1;
  } catch (...) {
    return 4;
  }
}
