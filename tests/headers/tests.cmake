# SPDX-License-Identifier: Apache-2.0
# The public headers against the cuDNN 8.2 facts: exact prototypes, enum values, struct layouts, and a
# warning-free compile as C99 / C++11 / C++20 (tools/check_headers.py).
add_test(NAME headers COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/check_headers.py -j2)
set_tests_properties(headers PROPERTIES LABELS headers TIMEOUT 600)
