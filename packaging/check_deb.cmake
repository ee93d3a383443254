# Builds the Debian package into a scratch folder and checks what it holds and depends on.
# Run by ctest: cmake -DBUILD_DIR=... -DOUTPUT_DIR=... -P check_deb.cmake
file(REMOVE_RECURSE "${OUTPUT_DIR}")
file(MAKE_DIRECTORY "${OUTPUT_DIR}")
execute_process(
    COMMAND cpack -G DEB -B "${OUTPUT_DIR}" --config "${BUILD_DIR}/CPackConfig.cmake"
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT result EQUAL 0)
    message(FATAL_ERROR "cpack failed:\n${output}")
endif()
file(GLOB packages "${OUTPUT_DIR}/*.deb")
list(LENGTH packages count)
if(NOT count EQUAL 1)
    message(FATAL_ERROR "expected one .deb in ${OUTPUT_DIR}, found ${count}")
endif()
execute_process(COMMAND dpkg-deb --contents ${packages} OUTPUT_VARIABLE contents)
foreach(expected
        "./usr/bin/tuneframe-engine"
        "./usr/bin/tuneframe"
        "/tuneframe/libtuneframe_sentencepiece.so"
        "./usr/share/applications/io.tuneframe.Tuneframe.desktop"
        "./usr/share/metainfo/io.tuneframe.Tuneframe.metainfo.xml")
    string(FIND "${contents}" "${expected}" found)
    if(found EQUAL -1)
        message(FATAL_ERROR "the package lacks ${expected}:\n${contents}")
    endif()
endforeach()
execute_process(COMMAND dpkg-deb --field ${packages} Depends OUTPUT_VARIABLE depends)
foreach(expected "libopenblas0-pthread" "libtorch" "libqt6widgets6" "libqt6sql6-sqlite" "qt6-qpa-plugins"
        "libuchardet0" "libicu")
    string(FIND "${depends}" "${expected}" found)
    if(found EQUAL -1)
        message(FATAL_ERROR "the package does not depend on ${expected}: ${depends}")
    endif()
endforeach()
# The packaged engine must start and find its SentencePiece module beside it.
execute_process(COMMAND dpkg-deb -x ${packages} "${OUTPUT_DIR}/root")
file(WRITE "${OUTPUT_DIR}/prompts.json" "[\"a red circle\"]")
execute_process(
    COMMAND "${OUTPUT_DIR}/root/usr/bin/tuneframe-engine" forward tokenize
            --model "${TOKENIZER_DIR}" --prompts "${OUTPUT_DIR}/prompts.json" --max-length 16
            --out "${OUTPUT_DIR}/ids.safetensors"
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT result EQUAL 0 OR NOT EXISTS "${OUTPUT_DIR}/ids.safetensors")
    message(FATAL_ERROR "the packaged engine cannot tokenize:\n${output}")
endif()
message(STATUS "package ok: ${packages}\nDepends: ${depends}")
file(REMOVE_RECURSE "${OUTPUT_DIR}")
