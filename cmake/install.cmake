# SPDX-License-Identifier: Apache-2.0
# Lays out include/ and lib/ like the cuDNN 8.2 archive, plus a CMake package and cudnn.pc.
# The package is relocatable (tests/install/run_install_test.sh installs it into a temporary prefix):
#   freednnTargets.cmake        freednn::cudnn (shared; no link dependencies for consumers) + CUDNN::cudnn
#   freednnStaticTargets.cmake  freednn::cudnn_static (needs OpenMP, CUDA runtime), loaded when they are found
include(CMakePackageConfigHelpers)
file(GLOB FREEDNN_INSTALL_HEADERS ${PROJECT_SOURCE_DIR}/include/*.h)
install(FILES ${FREEDNN_INSTALL_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS cudnn EXPORT freednnTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS cudnn_static EXPORT freednnStaticTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT freednnTargets NAMESPACE freednn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/freednn)
install(EXPORT freednnStaticTargets NAMESPACE freednn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/freednn)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/freednnConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/freednnConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/freednn)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/freednnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/freednnConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/freednnConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/freednn)
# cudnn.pc finds its prefix from its own location (${pcfiledir}), so the installed tree can move.
file(RELATIVE_PATH FREEDNN_PC_TO_PREFIX /_prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /_prefix)
string(REGEX REPLACE "/$" "" FREEDNN_PC_TO_PREFIX "${FREEDNN_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/cudnn.pc.in ${CMAKE_CURRENT_BINARY_DIR}/cudnn.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/cudnn.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
