# engine/diffusion: the flow-matching schedulers the Wan pipelines use (FlowMatchEulerDiscrete,
# UniPC with flow sigmas) and the flow-matching training draws and loss. Included from
# engine/CMakeLists.txt; sources join the engine library.
set(TUNEFRAME_FLOW_MATCHING_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/flow_match_common.cpp
    ${CMAKE_CURRENT_LIST_DIR}/flow_match_euler_discrete_scheduler.cpp
    ${CMAKE_CURRENT_LIST_DIR}/flow_matching.cpp
    ${CMAKE_CURRENT_LIST_DIR}/unipc_multistep_scheduler.cpp
)
target_sources(tuneframe_engine PRIVATE ${TUNEFRAME_FLOW_MATCHING_SOURCES})
# The schedules reproduce numpy's float64 arithmetic operation by operation: a fused multiply-add
# (which compilers may form where the CPU has one) would round differently.
if(NOT MSVC)
    set_source_files_properties(${TUNEFRAME_FLOW_MATCHING_SOURCES} TARGET_DIRECTORY tuneframe_engine
        PROPERTIES
        COMPILE_OPTIONS "-ffp-contract=off")
endif()
