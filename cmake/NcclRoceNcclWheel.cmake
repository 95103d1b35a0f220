# NCCL from a pip wheel: vLLM and PyTorch images carry NCCL only as the nvidia-nccl-cu12 / nvidia-nccl-cu13 wheel
# (PyTorch's dependency), with nccl.h in the package's include/ and libnccl.so.2 (no libnccl.so link) in its lib/.
# `nvidia` is a namespace package spread over several wheels, so the package's directory comes from
# nvidia.nccl.__path__, as the interpreter that has the wheel sees it (-DPython3_EXECUTABLE=... picks a venv's).

# Sets INCLUDE_VAR and LIBRARY_VAR (cache entries, as find_path/find_library do) to the wheel's nccl.h directory and
# libnccl.so.2 when `python` can import nvidia.nccl; leaves them NOTFOUND otherwise.
function(nccl_roce_find_nccl_wheel python include_var library_var)
  execute_process(
    COMMAND "${python}" -c "import nvidia.nccl as n; print(next(iter(n.__path__)))"
    OUTPUT_VARIABLE wheel_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
  if(failed OR NOT wheel_dir)
    return()
  endif()
  find_path(${include_var} nccl.h PATHS "${wheel_dir}/include" NO_DEFAULT_PATH)
  find_library(${library_var} NAMES nccl libnccl.so.2 PATHS "${wheel_dir}/lib" NO_DEFAULT_PATH)
endfunction()
