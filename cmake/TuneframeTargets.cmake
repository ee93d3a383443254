# Helpers every folder uses to declare libraries, precompiled headers and tests the same way.

set(TUNEFRAME_GOLDEN_DIR "${PROJECT_SOURCE_DIR}/../shared/golden" CACHE PATH
    "Golden reference tensors (../shared/golden)")
set(TUNEFRAME_GOLDEN_WAN_DIR "${PROJECT_SOURCE_DIR}/../shared/golden-wan" CACHE PATH
    "Golden reference tensors of the Wan family (../shared/golden-wan)")

# A precompiled header is parsed once per build and reused by every target of its family. GCC
# only accepts a PCH built with the same flags, and executables compile with -fPIE where static
# libraries use -fPIC, so each family has one carrier of each kind.
function(_tuneframe_pch_carrier carrier kind libraries headers)
    if(TARGET ${carrier})
        return()
    endif()
    set(source "${CMAKE_BINARY_DIR}/${carrier}.cpp")
    if(kind STREQUAL "EXECUTABLE")
        file(WRITE "${source}" "int main() { return 0; }\n")
        add_executable(${carrier} "${source}")
    else()
        file(WRITE "${source}" "// precompiled header carrier\n")
        add_library(${carrier} STATIC "${source}")
    endif()
    target_link_libraries(${carrier} PRIVATE ${libraries})
    target_precompile_headers(${carrier} PRIVATE ${headers})
    tuneframe_warnings(${carrier})
endfunction()

function(_tuneframe_use_pch target family libraries headers)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
        set(carrier tuneframe_${family}_pch_exe)
        set(kind EXECUTABLE)
    else()
        set(carrier tuneframe_${family}_pch)
        set(kind LIBRARY)
    endif()
    _tuneframe_pch_carrier(${carrier} ${kind} "${libraries}" "${headers}")
    target_precompile_headers(${target} REUSE_FROM ${carrier})
endfunction()

option(TUNEFRAME_UNITY_BUILD "Compile each LibTorch target's sources in batches" ON)

# With the precompiled header loaded, GCC still spends 10 to 20 s at the end of every file
# instantiating the templates LibTorch's headers left pending, whatever the file holds: that fixed
# cost was most of a cold build. Clang keeps them instantiated in the header (CMake's
# PCH_INSTANTIATE_TEMPLATES), hence the default preset's compiler; batching a target's files pays
# the rest once per batch, and GCC's whole cost in the headless and LibTorch 2 builds.
# -DTUNEFRAME_UNITY_BUILD=OFF compiles file by file, which shows a missing include.
function(tuneframe_use_torch_pch target)
    _tuneframe_use_pch(${target} torch "torch" "<torch/torch.h>")
    if(TUNEFRAME_UNITY_BUILD)
        set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 12)
    endif()
    # The engine layer has no Qt; AUTOMOC would still add an empty file paying that cost.
    set_target_properties(${target} PROPERTIES AUTOMOC OFF AUTOUIC OFF AUTORCC OFF)
endfunction()

# Qt in two flavours: CORE (QtCore, QtSql) for widget-free targets, the default adds QtWidgets.
# Qt6::Test stays out: it defines QT_TESTCASE_BUILDDIR per build folder, which would make GCC
# reject the header in every other folder.
function(tuneframe_use_qt_pch target)
    cmake_parse_arguments(P "CORE" "" "" ${ARGN})
    if(P_CORE)
        _tuneframe_use_pch(${target} qt_core "Qt6::Core;Qt6::Sql" "<QtCore>;<QtSql>")
    else()
        _tuneframe_use_pch(${target} qt_widgets "Qt6::Widgets;Qt6::Sql" "<QtWidgets>;<QtSql>")
    endif()
endfunction()

# Environment every test sees: where the goldens, the engine and the sources are.
function(_tuneframe_test_environment test)
    set(env
        "TUNEFRAME_GOLDEN_DIR=${TUNEFRAME_GOLDEN_DIR}"
        "TUNEFRAME_GOLDEN_WAN_DIR=${TUNEFRAME_GOLDEN_WAN_DIR}"
        "TUNEFRAME_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
        "QT_QPA_PLATFORM=offscreen"
        # ctest runs two tests at once (the preset's jobs) on CI's two cores: with two OpenMP
        # threads each, two demo-model trainings side by side took 36 s each instead of 13.
        "OMP_NUM_THREADS=1")
    if(TARGET tuneframe-engine)
        list(APPEND env "TUNEFRAME_ENGINE=$<TARGET_FILE:tuneframe-engine>")
    endif()
    if(TARGET tuneframe)
        list(APPEND env "TUNEFRAME_STUDIO=$<TARGET_FILE:tuneframe>")
    endif()
    set_tests_properties(${test} PROPERTIES ENVIRONMENT "${env}")
endfunction()

function(_tuneframe_register_test name labels timeout)
    if(NOT labels)
        message(FATAL_ERROR "test ${name} needs LABELS (unit, golden, e2e, multirank, gpu, slow)")
    endif()
    add_test(NAME ${name} COMMAND ${name})
    _tuneframe_test_environment(${name})
    if(NOT timeout)
        set(timeout 600)
    endif()
    set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT ${timeout})
    if("gpu" IN_LIST labels)
        # A GPU test without CUDA reports itself skipped instead of passing silently.
        set_tests_properties(${name} PROPERTIES SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
    endif()
endfunction()

# tuneframe_add_gtest(NAME n SOURCES ... LIBRARIES ... LABELS ... [TORCH] [TIMEOUT s])
function(tuneframe_add_gtest)
    cmake_parse_arguments(T "TORCH" "NAME;TIMEOUT" "SOURCES;LIBRARIES;LABELS" ${ARGN})
    add_executable(${T_NAME} ${T_SOURCES})
    target_link_libraries(${T_NAME} PRIVATE ${T_LIBRARIES} GTest::gtest GTest::gtest_main)
    tuneframe_warnings(${T_NAME})
    if(T_TORCH)
        tuneframe_use_torch_pch(${T_NAME})
    endif()
    _tuneframe_register_test(${T_NAME} "${T_LABELS}" "${T_TIMEOUT}")
endfunction()

# tuneframe_add_qttest(NAME n SOURCES ... LIBRARIES ... LABELS ... [CORE] [TIMEOUT s])
# CORE: the test uses no widgets, so it shares the QtCore precompiled header.
function(tuneframe_add_qttest)
    cmake_parse_arguments(T "CORE" "NAME;TIMEOUT" "SOURCES;LIBRARIES;LABELS" ${ARGN})
    add_executable(${T_NAME} ${T_SOURCES})
    target_link_libraries(${T_NAME} PRIVATE ${T_LIBRARIES} Qt6::Test)
    tuneframe_warnings(${T_NAME})
    if(T_CORE)
        tuneframe_use_qt_pch(${T_NAME} CORE)
    else()
        tuneframe_use_qt_pch(${T_NAME})
    endif()
    # A test includes its own moc output, so AUTOMOC's file is empty: loading the precompiled
    # header for it cost seconds per test.
    set_source_files_properties("${CMAKE_CURRENT_BINARY_DIR}/${T_NAME}_autogen/mocs_compilation.cpp"
        TARGET_DIRECTORY ${T_NAME} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    _tuneframe_register_test(${T_NAME} "${T_LABELS}" "${T_TIMEOUT}")
endfunction()
