# SPDX-License-Identifier: Apache-2.0
# docs/api-coverage.md must match the code (tools/gen_coverage.py --check prints how to regenerate it).
add_test(NAME api_coverage COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/gen_coverage.py --check)
set_tests_properties(api_coverage PROPERTIES LABELS docs)
