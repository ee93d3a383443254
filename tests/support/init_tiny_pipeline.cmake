# Writes a fresh tiny pipeline for the test run: cmake -DENGINE=... -DARCH=... -DOUT=... -P this.
# init-model refuses a folder that is not empty, so the previous run's copy goes first.
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${ENGINE}" init-model --arch "${ARCH}" --out "${OUT}"
    RESULT_VARIABLE result)
if(NOT result EQUAL 0)
    message(FATAL_ERROR "init-model --arch ${ARCH} failed (${result})")
endif()
