# Builds the wheel from a built tree: cmake -DSETTINGS=<build>/python/wheel_settings.cmake -DOUT_DIR=DIR
# -DWORK_DIR=DIR -P python/build_wheel.cmake (the `wheel` target does; so does tests/packaging/wheel_test.sh).
#   1. `cmake --install --component base --strip` into WORK_DIR/prefix: the files the .deb and the tarball hold.
#   2. A source tree for setuptools in WORK_DIR/src: python/nccl_roce plus, inside the package, lib/libnccl-roce.so
#      (the plugin names are not copied: a wheel holds no links, see nccl_roce/__init__.py), bin/nccl-roce and
#      share/nccl-roce/ (the tarball's layout, so the command finds its data as it does there).
#   3. python3 -m build --wheel --no-isolation: offline, with the python3-build, -setuptools and -wheel installed.
# Prints the wheel's path.
cmake_minimum_required(VERSION 3.22)
foreach(var SETTINGS OUT_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "build_wheel.cmake: -D${var}=... is required")
  endif()
endforeach()
include(${SETTINGS})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE failed OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(failed)
    message(FATAL_ERROR "build_wheel.cmake: ${what} failed:\n${out}")
  endif()
endfunction()

run("checking ${PYTHON}" ${PYTHON} -c "import build, setuptools, wheel")
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(src ${WORK_DIR}/src)
set(package ${src}/nccl_roce)
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --component base --prefix ${prefix} --strip)

file(COPY ${SOURCE_DIR}/python/nccl_roce DESTINATION ${src} PATTERN __pycache__ EXCLUDE)
file(COPY ${prefix}/lib/libnccl-roce.so DESTINATION ${package}/lib)
file(COPY ${prefix}/bin/nccl-roce DESTINATION ${package}/bin)
file(COPY ${prefix}/share/nccl-roce DESTINATION ${package}/share)
file(WRITE ${package}/_version.py "VERSION = \"${NCCL_ROCE_VERSION}\"  # written by python/build_wheel.cmake\n")
file(COPY ${SOURCE_DIR}/python/setup.py DESTINATION ${src})
configure_file(${SOURCE_DIR}/python/README.md ${src}/README.md @ONLY)
if(NCCL_ROCE_URL)
  set(NCCL_ROCE_URLS "[project.urls]\nHomepage = \"${NCCL_ROCE_URL}\"\n")
endif()
configure_file(${SOURCE_DIR}/python/pyproject.toml.in ${src}/pyproject.toml @ONLY)
file(WRITE ${src}/setup.cfg "[bdist_wheel]\nplat_name = ${NCCL_ROCE_WHEEL_PLATFORM}\n")

file(MAKE_DIRECTORY ${OUT_DIR})
file(REMOVE ${OUT_DIR}/${NCCL_ROCE_WHEEL_FILE})
run("${PYTHON} -m build" ${PYTHON} -m build --wheel --no-isolation --outdir ${OUT_DIR} ${src})
if(NOT EXISTS ${OUT_DIR}/${NCCL_ROCE_WHEEL_FILE})
  file(GLOB written ${OUT_DIR}/*.whl)
  message(FATAL_ERROR "build_wheel.cmake: expected ${NCCL_ROCE_WHEEL_FILE}; found ${written}")
endif()
message("${OUT_DIR}/${NCCL_ROCE_WHEEL_FILE}")
