// Keeps libnccl-roce.so loadable on glibc 2.34 (RHEL/UBI 9, Ubuntu 22.04, Debian 12) although it is built on
// newer glibc. The statically linked GCC runtime would otherwise bind two symbols that only newer glibc has,
// and dlopen of the plugin would fail inside the serving image (NCCL then logs one INFO line and runs without
// us):
//   _dl_find_object (GLIBC_2.35): libgcc_eh's unwinder asks it for the .eh_frame_hdr of the object holding a pc.
//   arc4random      (GLIBC_2.36): libstdc++'s std::random_device, linked in behind the exception classes.
// The link wraps both (cmake/NcclRocePortable.cmake: -Wl,--wrap=...), so those references land here and are
// served with interfaces glibc has had for decades: dl_iterate_phdr and getrandom. This is exactly how the
// unwinder found unwind tables before glibc 2.35. tests/portability checks the floor and that exceptions still
// unwind inside a library linked this way.
#include "plugin/glibc_floor.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

// The wrappers the linker substitutes (-Wl,--wrap=NAME binds references to NAME to __wrap_NAME): names the
// linker makes, hence reserved ones.
// NOLINTBEGIN(bugprone-reserved-identifier)
extern "C" {
#ifdef DLFO_STRUCT_HAS_EH_DBASE
int __wrap__dl_find_object(void* pc, struct dl_find_object* result);
#endif
uint32_t __wrap_arc4random(void);
}
// NOLINTEND(bugprone-reserved-identifier)

namespace {

struct ObjectSearch {
  uintptr_t pc;
  bool found;
  uintptr_t start;
  uintptr_t end;
  const void* ehFrameHdr;
};

// Called once per loaded object, under the loader's lock: finds the object whose PT_LOAD segments hold the pc.
int findObject(struct dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<ObjectSearch*>(data);
  bool holdsPc = false;
  uintptr_t start = UINTPTR_MAX, end = 0;
  const void* ehFrameHdr = nullptr;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD) {
      uintptr_t limit = begin + segment.p_memsz;
      holdsPc = holdsPc || (search->pc >= begin && search->pc < limit);
      if (begin < start) start = begin;
      if (limit > end) end = limit;
    } else if (segment.p_type == PT_GNU_EH_FRAME) {
      ehFrameHdr = reinterpret_cast<const void*>(begin);  // NOLINT(performance-no-int-to-ptr): ELF gives addresses
    }
  }
  if (!holdsPc) return 0;
  *search = ObjectSearch{search->pc, true, start, end, ehFrameHdr};
  return 1;  // stop iterating
}

}  // namespace

extern "C" {

int nccl_roce_find_object(void* pc, NcclRoceFoundObject* out) {
  ObjectSearch search{reinterpret_cast<uintptr_t>(pc), false, 0, 0, nullptr};
  dl_iterate_phdr(findObject, &search);
  if (!search.found) return -1;
  // NOLINTBEGIN(performance-no-int-to-ptr): the program headers give addresses as integers
  out->mapStart = reinterpret_cast<void*>(search.start);
  out->mapEnd = reinterpret_cast<void*>(search.end);
  // NOLINTEND(performance-no-int-to-ptr)
  out->ehFrameHdr = const_cast<void*>(search.ehFrameHdr);
  return 0;
}

#ifdef DLFO_STRUCT_HAS_EH_DBASE  // glibc >= 2.35 headers: libgcc_eh references _dl_find_object
static_assert(DLFO_STRUCT_HAS_EH_DBASE == 0,
              "this target's unwinder also needs the data base address, which dl_iterate_phdr does not give");

int __wrap__dl_find_object(void* pc, struct dl_find_object* result) {
  NcclRoceFoundObject found;
  if (nccl_roce_find_object(pc, &found) != 0) return -1;
  std::memset(result, 0, sizeof(*result));
  result->dlfo_map_start = found.mapStart;
  result->dlfo_map_end = found.mapEnd;
  result->dlfo_eh_frame = found.ehFrameHdr;
  return 0;
}
#endif

// Only reachable through std::random_device, which nccl-roce never constructs; still a real random source.
uint32_t __wrap_arc4random(void) {
  uint32_t value = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&value);
  size_t filled = 0;
  while (filled < sizeof(value)) {
    ssize_t n = getrandom(bytes + filled, sizeof(value) - filled, 0);
    if (n > 0) {
      filled += static_cast<size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      break;  // kernels before 3.17 only; NCCL needs far newer ones
    }
  }
  return value;
}

}  // extern "C"
