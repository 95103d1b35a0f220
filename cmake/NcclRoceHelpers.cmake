# Small helpers so each folder's CMakeLists.txt stays a list of sources (rdma-core / abseil style).

set(NCCL_ROCE_WARNINGS
  -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-declarations -Wnull-dereference
  -Wimplicit-fallthrough -Wno-unused-parameter)

function(nccl_roce_apply_flags target)
  target_compile_options(${target} PRIVATE ${NCCL_ROCE_WARNINGS})
  if(NCCL_ROCE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(NCCL_ROCE_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=${NCCL_ROCE_SANITIZE} -fno-omit-frame-pointer
                                             -fno-sanitize-recover=all)
    target_link_options(${target} PRIVATE -fsanitize=${NCCL_ROCE_SANITIZE})
  endif()
endfunction()

# nccl_roce_library(NAME SRCS a.cc b.cc DEPS lib...)
function(nccl_roce_library name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SRCS})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  nccl_roce_apply_flags(${name})
endfunction()

# nccl_roce_test(NAME SRCS a_test.cc DEPS lib... [LABELS l...])
# Tests are discovered at ctest time, so a build never runs test code.
function(nccl_roce_test name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SRCS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} nccl_roce_test_support GTest::gtest GTest::gtest_main
                                        GTest::gmock)
  nccl_roce_apply_flags(${name})
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST)
  # Properties are set after discovery: passed through gtest_discover_tests' PROPERTIES, a list keeps only its first
  # label, and `ctest -L concurrency` (the TSan suite) would silently select nothing. A GTEST_SKIP prints
  # "[  SKIPPED ]" and exits 0: the expression makes ctest report it skipped, not passed (newer CMake versions
  # set it on discovered tests too; 3.22, our floor, may not).
  set(properties_file "${CMAKE_CURRENT_BINARY_DIR}/${name}_properties.cmake")
  file(WRITE "${properties_file}" "if(${name}_TESTS)\n  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"${ARG_LABELS}\"\n    SKIP_REGULAR_EXPRESSION [==[\\[  SKIPPED \\]]==])\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${properties_file}")
endfunction()
