# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE): settings that differ between generators.
if(CPACK_GENERATOR STREQUAL "TGZ")
  # Each tarball unpacks into one folder, nccl-roce-<version>-Linux/ (the driver's too, so both can be unpacked
  # into one tree). The .deb keeps its files at /usr.
  set(CPACK_COMPONENT_INCLUDE_TOPLEVEL_DIRECTORY ON)
endif()
