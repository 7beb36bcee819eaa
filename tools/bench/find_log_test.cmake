# SPDX-License-Identifier: Apache-2.0
# ctest bench.find_log: Find (freednn-bench --algo=any) with FREEDNN_FIND_LOG writes one line per timed
# implementation, and tools/calibrate_conv.py fits factors to them and reports the _v7 choice quality.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{FREEDNN_FIND_LOG} ${WORK}/find.log)
set(ENV{FREEDNN_DB_DISABLE} 1)
execute_process(COMMAND ${BENCH} --mode=P --no-yardsticks --algo=any --max-ms=2 --batch=${BATCH}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "freednn-bench exited with ${rc}\n${out}${err}")
endif()
file(STRINGS ${WORK}/find.log lines)
list(LENGTH lines n)
if(n LESS 4)
  message(FATAL_ERROR "expected Find timings in ${WORK}/find.log, got ${n} lines")
endif()
foreach(l ${lines})
  if(NOT l MATCHES "^conv [^\t]+\tCUDNN_CONVOLUTION_[A-Z_0-9]+\t(cpu|cuda):[a-z0-9_]+\t[0-9.e+-]+\t[0-9.e+-]+$")
    message(FATAL_ERROR "malformed Find log line: ${l}")
  endif()
endforeach()
execute_process(COMMAND ${PYTHON} ${SOURCE_DIR}/tools/calibrate_conv.py ${WORK}/find.log
                OUTPUT_VARIABLE cal ERROR_VARIABLE cerr RESULT_VARIABLE crc)
message("${cal}${cerr}")
if(NOT crc EQUAL 0 OR NOT cal MATCHES "factor" OR NOT cal MATCHES "_v7 first choice, calibrated: within 10% of")
  message(FATAL_ERROR "calibrate_conv.py failed (${crc})")
endif()
