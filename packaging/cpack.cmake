# The Debian package (`cpack -G DEB` in the build folder): pcie-dma-toolkit_<version>_<arch>.deb,
# installed under /usr, its Depends computed by dpkg-shlibdeps from the tools' shared libraries
# (libpci3, libpciaccess0, libboost-program-options1.74.0, libstdc++6, ...), so that apt
# installs them from Debian. scripts/test_deb.sh installs it on a clean Debian 12.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pcie-dma-toolkit)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "pcie-dma-toolkit")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "command-line tools to identify and DMA-test FPGA designs on PCIe (VFIO, XDMA)")
set(CPACK_PACKAGE_DESCRIPTION
    "Small command-line tools for FPGA engineers, on one user-space VFIO access layer: identify the\n"
    "FPGA designs on the PCI bus, soak-test AMD/Xilinx XDMA (PG195) DMA channels with every byte\n"
    "verified, retrain a PCIe link, dump config space. The tool names and output lines follow\n"
    "fpga_sio. Every tool also runs on simulated designs (--sim_design), without hardware.")
string(REPLACE ";" "" CPACK_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION electronics)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "pcie-dma-toolkit maintainers <maintainers@users.noreply.a-seed-e2caefcb.example>")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "man-db, bash-completion")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "pciutils")
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)

# The group whose members get the vfio devices (packaging/udev/*.rules, GROUP="..."): the
# postinst creates it, when the tree has such a rule.
set(PDT_VFIO_GROUP "")
foreach(rule ${PDT_UDEV_RULES})
  file(STRINGS ${rule} group_lines REGEX "GROUP=\"[a-z_][a-z0-9_-]*\"")
  foreach(line ${group_lines})
    if(line MATCHES "GROUP=\"([a-z_][a-z0-9_-]*)\"")
      set(PDT_VFIO_GROUP ${CMAKE_MATCH_1})
    endif()
  endforeach()
endforeach()
if(PDT_VFIO_GROUP)
  configure_file(${CMAKE_CURRENT_SOURCE_DIR}/debian/postinst.in ${CMAKE_CURRENT_BINARY_DIR}/debian/postinst @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_BINARY_DIR}/debian/postinst)
  set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
  message(STATUS "packaging: the .deb's postinst creates the system group ${PDT_VFIO_GROUP} (from ${PDT_UDEV_RULES})")
endif()

include(CPack)
