# SPDX-License-Identifier: Apache-2.0
# Lays out include/ and lib/ like the cuDNN 8.2 archive, plus a CMake package and cudnn.pc.
include(CMakePackageConfigHelpers)
file(GLOB FREEDNN_INSTALL_HEADERS ${PROJECT_SOURCE_DIR}/include/*.h)
install(FILES ${FREEDNN_INSTALL_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS cudnn cudnn_static EXPORT freednnTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT freednnTargets NAMESPACE freednn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/freednn)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/freednnConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/freednnConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/freednn)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/freednnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/freednnConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/freednnConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/freednn)
configure_file(${PROJECT_SOURCE_DIR}/cmake/cudnn.pc.in ${CMAKE_CURRENT_BINARY_DIR}/cudnn.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/cudnn.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
