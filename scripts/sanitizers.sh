#!/usr/bin/env bash
# The sanitizer suites: ASan+UBSan over the whole test suite, TSan over the concurrency tests (concurrent tuner
# inits, getEnv from many threads, the resolver from several communicators), valgrind memcheck over the ABI
# harness. Tests that must run in an uninstrumented process are left to the plain build: the real-NCCL test
# (NCCL's own process loads the instrumented plugin), the exports/DT_NEEDED test and the C loader (sanitizers
# add their runtime), the glibc-floor test (likewise), packaging and the ci checks (an uninstrumented example
# project). scripts/ctest.sh lists the tests each suite skipped, with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# -O1 -g1: what sanitizers' reports need (line tables for their stacks), and 40% less compile time than the
# plain build's -O2 -g, which is most of these suites' time on CI's two cores.
quick=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
       "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
common=(-DNCCL_ROCE_WERROR=ON -DNCCL_ROCE_BUILD_BENCHMARKS=OFF "${quick[@]}")

echo "== ASan + UBSan: whole suite"
cmake -S . -B build-asan "${common[@]}" -DNCCL_ROCE_SANITIZE=address,undefined >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ./scripts/ctest.sh build-asan --no-tests=error --output-on-failure -j"$jobs" -LE 'real-nccl|exports|packaging|portability|ci'

echo "== TSan: concurrency tests"
cmake -S . -B build-tsan "${common[@]}" -DNCCL_ROCE_SANITIZE=thread >/dev/null
cmake --build build-tsan -j"$jobs" --target abi_tuner_test abi_env_net_test abi_profiler_test plugin_env_net_test \
  plugin_tuner_concurrency_test plugin_stalled_device_test plugin_metrics_textfile_test plugin_telemetry_file_test \
  plugin_periodic_writer_test plugin_policy_registry_test gid_concurrency_test profiler_concurrency_test \
  abi_shared_directory_test \
  abi_init_order_test \
  common_spin_lock_test
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ./scripts/ctest.sh build-tsan --no-tests=error --output-on-failure \
  -L concurrency

echo "== valgrind memcheck: ABI harness"
build=${BUILD_DIR:-build}
cmake --build "$build" -j"$jobs" --target abi_tuner_test abi_env_net_test abi_profiler_test
for harness in abi_tuner_test abi_env_net_test abi_profiler_test; do
  valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
    "$build/tests/abi/$harness" --gtest_brief=1
done
echo "sanitizer suites passed"
