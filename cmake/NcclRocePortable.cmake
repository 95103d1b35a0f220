# How a shared object of ours is linked so that it loads into any serving image (docs/contracts.md):
# libstdc++ and libgcc linked in statically, nothing left undefined that libc does not define, and the two
# symbols the static GCC runtime would take from glibc >= 2.35 served by plugin/glibc_floor.cc instead, so
# the floor stays at the glibc the .deb declares (2.34). tests/portability checks the result.
set(NCCL_ROCE_GLIBC_FLOOR_SOURCE ${PROJECT_SOURCE_DIR}/plugin/glibc_floor.cc)
# The oldest glibc our ELF files load on: tests/portability pins it, the .deb's Depends follow from it
# (dpkg-shlibdeps), and the wheel's platform tag is manylinux_<floor>_<arch> (python/CMakeLists.txt).
set(NCCL_ROCE_GLIBC_FLOOR 2.34)

# The C++ runtime linked in, and the glibc stand-ins, for a target of either kind.
function(nccl_roce_portable_runtime target)
  target_sources(${target} PRIVATE ${NCCL_ROCE_GLIBC_FLOOR_SOURCE})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_options(${target} PRIVATE
    -static-libstdc++
    -static-libgcc
    -Wl,--wrap=_dl_find_object
    -Wl,--wrap=arc4random)
endfunction()

# The command: it runs wherever the library loads (the wheel carries it into images whose libstdc++ is older than
# the build machine's). Sanitizer builds keep the shared runtimes their instrumentation expects.
function(nccl_roce_portable_executable target)
  if(NOT NCCL_ROCE_SANITIZE AND NOT NCCL_ROCE_FUZZ)
    nccl_roce_portable_runtime(${target})
  endif()
endfunction()

function(nccl_roce_portable_shared_library target)
  nccl_roce_portable_runtime(${target})
  # Every symbol resolved at link time, so a missing dependency fails the build rather than NCCL's dlopen.
  # (Sanitizer builds take their runtime from the executable, so their symbols stay undefined here.)
  if(NOT NCCL_ROCE_SANITIZE AND NOT NCCL_ROCE_FUZZ)
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
endfunction()
