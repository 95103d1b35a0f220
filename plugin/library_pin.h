// Keeps this library mapped for the rest of the process, whatever dlclose NCCL calls. NCCL closes the tuner and
// profiler libraries when their last communicator is finalized and opens them again for the next one
// (ncclTunerPluginUnload, ncclProfilerPluginUnload -> ncclClosePluginLib, 2.27-2.30): without the pin, the
// unmap would take the process context with it (the policies a process must keep deciding from, the statistics
// of communicators already finalized) and any of our threads still running its code.
#pragma once

namespace nccl_roce::plugin {

// dlopen of this library's own file with RTLD_NOLOAD | RTLD_NODELETE: no second copy, one more reference that is
// never dropped, and glibc never unmaps a NODELETE object. Idempotent; does nothing where the code is not in a
// shared object (the tests' executables).
void keepThisLibraryLoaded() noexcept;

}  // namespace nccl_roce::plugin
