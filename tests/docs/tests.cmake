# SPDX-License-Identifier: Apache-2.0
# docs/api-coverage.md must match the code (tools/gen_coverage.py --check prints how to regenerate it).
add_test(NAME api_coverage COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/gen_coverage.py --check)
set_tests_properties(api_coverage PROPERTIES LABELS docs)
# Every kernel launched by launch_pdl waits for its predecessor before touching memory (tools/check_pdl.py).
add_test(NAME pdl_waits COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/check_pdl.py)
set_tests_properties(pdl_waits PROPERTIES LABELS docs)
