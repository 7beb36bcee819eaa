# SPDX-License-Identifier: Apache-2.0
# Installs this build into a temporary prefix and builds consumers against it (C99 + compiler flags,
# CMake find_package, pkg-config); checks the exported symbols and their version node.
add_test(NAME install
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_install_test.sh
          --build ${PROJECT_BINARY_DIR} --source ${PROJECT_SOURCE_DIR}
          --cc ${CMAKE_C_COMPILER} --cmake ${CMAKE_COMMAND} --python ${Python3_EXECUTABLE})
# RUN_SERIAL: it installs the build tree and builds consumers; alongside other tests it was seen to fail.
set_tests_properties(install PROPERTIES LABELS install TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT "FREEDNN_BACKEND=cpu")
