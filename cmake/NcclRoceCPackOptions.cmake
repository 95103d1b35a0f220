# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE): settings that differ between generators.
if(CPACK_GENERATOR STREQUAL "TGZ")
  # Each tarball unpacks into one folder, nccl-roce-<version>-Linux/ (the driver's too, so both can be unpacked
  # into one tree). The .deb keeps its files at /usr.
  set(CPACK_COMPONENT_INCLUDE_TOPLEVEL_DIRECTORY ON)
endif()
if(CPACK_GENERATOR STREQUAL "DEB")
  # Without dpkg-shlibdeps CPackDeb writes a .deb with no Depends at all, and says so only in passing.
  find_program(NCCL_ROCE_DPKG_SHLIBDEPS dpkg-shlibdeps)
  if(NOT NCCL_ROCE_DPKG_SHLIBDEPS)
    message(FATAL_ERROR "dpkg-shlibdeps (Debian package dpkg-dev) not found: the .deb's Depends are computed with it")
  endif()
endif()
