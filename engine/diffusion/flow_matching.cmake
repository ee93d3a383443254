# engine/diffusion: the flow-matching schedulers the Wan pipelines use (FlowMatchEulerDiscrete,
# UniPC with flow sigmas) and the flow-matching training draws and loss. Built as their own
# library while being written; the lead folds the sources into tuneframe_engine.
set(TUNEFRAME_FLOW_MATCHING_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/flow_match_common.cpp
    ${CMAKE_CURRENT_LIST_DIR}/flow_match_euler_discrete_scheduler.cpp
    ${CMAKE_CURRENT_LIST_DIR}/flow_matching.cpp
    ${CMAKE_CURRENT_LIST_DIR}/unipc_multistep_scheduler.cpp
)
add_library(tuneframe_flow_matching_dev STATIC ${TUNEFRAME_FLOW_MATCHING_SOURCES})
target_link_libraries(tuneframe_flow_matching_dev PUBLIC tuneframe_engine)
tuneframe_warnings(tuneframe_flow_matching_dev)
tuneframe_use_torch_pch(tuneframe_flow_matching_dev)
# The schedules reproduce numpy's float64 arithmetic operation by operation: a fused multiply-add
# (which compilers may form where the CPU has one) would round differently.
if(NOT MSVC)
    set_source_files_properties(${TUNEFRAME_FLOW_MATCHING_SOURCES} PROPERTIES
        COMPILE_OPTIONS "-ffp-contract=off")
endif()
