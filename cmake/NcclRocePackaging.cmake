# Packages: `cpack --config build/CPackConfig.cmake` writes, per install component,
#   base    nccl-roce_<version>_<arch>.deb, nccl-roce-<version>-Linux.tar.gz: what a serving image needs, the
#           layout of docs/contracts.md (lib/libnccl-roce.so and its four plugin names, bin/nccl-roce,
#           share/nccl-roce/);
#   driver  nccl-roce-driver_<version>_<arch>.deb, nccl-roce-driver-<version>-Linux.tar.gz: the CUDA all-reduce
#           driver for sweeps on GPU hosts, only where it was built (it needs the CUDA runtime and NCCL).
# The .deb installs under /usr (CPackDeb's default prefix); the tarballs hold the same tree under one top folder.
# tests/packaging/deb_packages_test.sh checks both packages the way a new user meets them.

set(CPACK_PACKAGE_NAME nccl-roce)
set(CPACK_PACKAGE_VENDOR "nccl-roce")
set(CPACK_PACKAGE_CONTACT "nccl-roce maintainers")
set(CPACK_GENERATOR "TGZ;DEB")
set(CPACK_STRIP_FILES ON)

# One package per component (not one package holding everything).
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_ARCHIVE_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING IGNORE)
set(CPACK_ARCHIVE_BASE_FILE_NAME nccl-roce-${PROJECT_VERSION}-Linux)
set(CPACK_ARCHIVE_DRIVER_FILE_NAME nccl-roce-driver-${PROJECT_VERSION}-Linux)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_LIST_DIR}/NcclRoceCPackOptions.cmake)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Depends are computed from what the ELF files need (dpkg-shlibdeps and the distribution's symbols files): libc6
# (>= the newest GLIBC_ symbol version referenced; 2.34, tests/portability pins it) for libnccl-roce.so and
# nccl-roce alike (both carry their C++ runtime); the driver adds the CUDA runtime and NCCL.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# `nccl-roce ab --prometheus` opens libcurl with dlopen (fleet/curl_library.h), which dpkg-shlibdeps cannot see:
# suggested, not depended on, as no other command and no serving process needs it.
set(CPACK_DEBIAN_BASE_PACKAGE_SUGGESTS libcurl4)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS libcurl4)

set(CPACK_DEBIAN_BASE_PACKAGE_NAME nccl-roce)
# Descriptions: a synopsis line, then lines of at most 79 characters (Debian policy 5.6.13).
# The synopsis is the project's one-line description (the wheel's Summary too).
set(NCCL_ROCE_BASE_DESCRIPTION
    "${PROJECT_DESCRIPTION}
libnccl-roce.so resolves, at communicator init, which HCA ports this pod can
use and which RoCE v2 GID each needs, serves them to NCCL, and picks
algorithm, protocol and channels for inference all-reduce from a policy.
Select it with NCCL_NET_PLUGIN=roce, NCCL_TUNER_PLUGIN=roce and
NCCL_ENV_PLUGIN=roce. The library needs only libc; the nccl-roce command
detects, explains and checks the same settings.")
set(CPACK_DEBIAN_BASE_DESCRIPTION "${NCCL_ROCE_BASE_DESCRIPTION}")
# A build without the driver has the base component alone, which CPack packages with the package-wide settings.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "${NCCL_ROCE_BASE_DESCRIPTION}")

set(CPACK_DEBIAN_DRIVER_PACKAGE_NAME nccl-roce-driver)
set(CPACK_DEBIAN_DRIVER_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_DRIVER_DESCRIPTION
    "NCCL all-reduce driver for nccl-roce sweeps on GPU hosts
nccl-roce-allreduce-driver times ncclAllReduce the way nccl-tests'
all_reduce_perf does, for sweeps and A/B comparisons of nccl-roce policies
on hosts without nccl-tests. It needs the CUDA runtime and NCCL it was
built against; serving images need only the nccl-roce package.")
# The CUDA runtime and NCCL come from NVIDIA's or the distribution's packages, not from dpkg-shlibdeps: set by
# nccl-tests-integration/driver/CMakeLists.txt for the toolkit it found.
get_property(NCCL_ROCE_DRIVER_DEB_DEPENDS GLOBAL PROPERTY NCCL_ROCE_DRIVER_DEB_DEPENDS)
get_property(NCCL_ROCE_DRIVER_LIBRARY_DIRS GLOBAL PROPERTY NCCL_ROCE_DRIVER_LIBRARY_DIRS)
set(CPACK_DEBIAN_DRIVER_PACKAGE_DEPENDS "${NCCL_ROCE_DRIVER_DEB_DEPENDS}")
set(CPACK_DEBIAN_DRIVER_PACKAGE_RECOMMENDS "nccl-roce (= ${PROJECT_VERSION})")
# Lets dpkg-shlibdeps find libcudart and libnccl where the toolkit is not on the loader's path.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${NCCL_ROCE_DRIVER_LIBRARY_DIRS}")

include(CPack)
