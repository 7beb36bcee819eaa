# SPDX-License-Identifier: Apache-2.0
# CUTLASS / CuTe headers for the tensor-core convolutions (CUDA builds only). Looked for, in order:
# FREEDNN_CUTLASS_DIR (a folder holding include/cutlass/cutlass.h), <repo>/.deps/cutlass (tools/deps/get_cutlass.sh,
# run here when pip can reach its index), then the `nvidia-cutlass` Python package. Without them the CUDA backend
# builds without its CUTLASS implementations (their ids are absent from the registry; docs/developing.md).
set(FREEDNN_CUTLASS_DIR "" CACHE PATH "Folder with include/cutlass/cutlass.h (CUTLASS 3.x/4.x headers)")
set(FREEDNN_WITH_CUTLASS OFF)
set(_cutlass_candidates ${FREEDNN_CUTLASS_DIR} ${PROJECT_SOURCE_DIR}/.deps/cutlass)
if(NOT EXISTS ${PROJECT_SOURCE_DIR}/.deps/cutlass/include/cutlass/cutlass.h AND NOT FREEDNN_CUTLASS_DIR)
  execute_process(COMMAND ${PROJECT_SOURCE_DIR}/tools/deps/get_cutlass.sh RESULT_VARIABLE _rc
                  OUTPUT_QUIET ERROR_QUIET TIMEOUT 300)
endif()
execute_process(COMMAND ${Python3_EXECUTABLE} -c
                "import cutlass_library,os;print(os.path.dirname(cutlass_library.__file__)+'/source')"
                OUTPUT_VARIABLE _py_cutlass OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
list(APPEND _cutlass_candidates ${_py_cutlass})
set(FREEDNN_WITH_CUTLASS_SM90 OFF)
foreach(dir IN LISTS _cutlass_candidates)
  if(dir AND EXISTS ${dir}/include/cutlass/cutlass.h AND EXISTS ${dir}/include/cute/tensor.hpp)
    set(FREEDNN_CUTLASS_INCLUDE ${dir}/include)
    set(FREEDNN_WITH_CUTLASS ON)
    # The CUTLASS 3.x conv collectives (the sm_90a convolutions) also need cutlass/util/packed_stride.hpp: merged
    # into include/ by get_cutlass.sh, under tools/util/include in the Python package.
    if(EXISTS ${dir}/include/cutlass/util/packed_stride.hpp)
      set(FREEDNN_WITH_CUTLASS_SM90 ON)
    elseif(EXISTS ${dir}/tools/util/include/cutlass/util/packed_stride.hpp)
      list(APPEND FREEDNN_CUTLASS_INCLUDE ${dir}/tools/util/include)
      set(FREEDNN_WITH_CUTLASS_SM90 ON)
    endif()
    break()
  endif()
endforeach()
if(CMAKE_CUDA_COMPILER_VERSION VERSION_LESS 12.0)
  set(FREEDNN_WITH_CUTLASS_SM90 OFF)  # sm_90a needs CUDA 12
endif()
message(STATUS "freednn: CUTLASS ${FREEDNN_WITH_CUTLASS} ${FREEDNN_CUTLASS_INCLUDE}")
if(FREEDNN_WITH_CUTLASS AND NOT FREEDNN_WITH_CUTLASS_SM90)
  message(STATUS "freednn: no cutlass/util/packed_stride.hpp (rerun tools/deps/get_cutlass.sh): "
                 "building without the sm_90a CUTLASS convolutions")
endif()
