# How a shared object of ours is linked so that it loads into any serving image (docs/contracts.md):
# libstdc++ and libgcc linked in statically, nothing left undefined that libc does not define, and the two
# symbols the static GCC runtime would take from glibc >= 2.35 served by plugin/glibc_floor.cc instead, so
# the floor stays at the glibc the .deb declares (2.34). tests/portability checks the result.
set(NCCL_ROCE_GLIBC_FLOOR_SOURCE ${PROJECT_SOURCE_DIR}/plugin/glibc_floor.cc)

function(nccl_roce_portable_shared_library target)
  target_sources(${target} PRIVATE ${NCCL_ROCE_GLIBC_FLOOR_SOURCE})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_options(${target} PRIVATE
    -static-libstdc++
    -static-libgcc
    -Wl,--wrap=_dl_find_object
    -Wl,--wrap=arc4random)
  # Every symbol resolved at link time, so a missing dependency fails the build rather than NCCL's dlopen.
  # (Sanitizer builds take their runtime from the executable, so their symbols stay undefined here.)
  if(NOT NCCL_ROCE_SANITIZE AND NOT NCCL_ROCE_FUZZ)
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
endfunction()
