# cmake -DPYTHON=python3 -DSCRATCH=DIR -P nccl_wheel_test.cmake
# The driver's build finds NCCL in a pip wheel laid out as nvidia-nccl-cu13 installs it (site-packages/nvidia/nccl/
# {include/nccl.h,lib/libnccl.so.2}, `nvidia` a namespace package without __init__.py, beside another nvidia wheel),
# and finds nothing where no wheel is installed.
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/NcclRoceNcclWheel.cmake)

file(REMOVE_RECURSE "${SCRATCH}")
set(site "${SCRATCH}/site-packages")
file(MAKE_DIRECTORY "${site}/nvidia/nccl/include" "${site}/nvidia/nccl/lib" "${site}/nvidia/cu13/lib")
file(WRITE "${site}/nvidia/nccl/include/nccl.h" "/* the wheel's header */\n")
file(WRITE "${site}/nvidia/nccl/lib/libnccl.so.2" "")
file(WRITE "${site}/nvidia/cu13/lib/libcudart.so.13" "")

set(ENV{PYTHONPATH} "${site}")
nccl_roce_find_nccl_wheel("${PYTHON}" WHEEL_NCCL_INCLUDE WHEEL_NCCL_LIBRARY)
if(NOT WHEEL_NCCL_INCLUDE STREQUAL "${site}/nvidia/nccl/include")
  message(FATAL_ERROR "nccl.h of the wheel not found: got '${WHEEL_NCCL_INCLUDE}'")
endif()
if(NOT WHEEL_NCCL_LIBRARY STREQUAL "${site}/nvidia/nccl/lib/libnccl.so.2")
  message(FATAL_ERROR "libnccl.so.2 of the wheel not found: got '${WHEEL_NCCL_LIBRARY}'")
endif()

set(ENV{PYTHONPATH} "${SCRATCH}/empty")
unset(WHEEL_NCCL_INCLUDE CACHE)
unset(WHEEL_NCCL_LIBRARY CACHE)
nccl_roce_find_nccl_wheel("${PYTHON}" NO_WHEEL_INCLUDE NO_WHEEL_LIBRARY)
if(NO_WHEEL_INCLUDE OR NO_WHEEL_LIBRARY)
  message(FATAL_ERROR "found NCCL without a wheel: '${NO_WHEEL_INCLUDE}' '${NO_WHEEL_LIBRARY}'")
endif()
file(REMOVE_RECURSE "${SCRATCH}")
message(STATUS "the wheel's nccl.h and libnccl.so.2 found; nothing found without it")
