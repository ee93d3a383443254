# Wan's sampling pipelines (diffusers' WanPipeline and WanImageToVideoPipeline) behind the
# engine's VideoSampler interface. Included from engine/CMakeLists.txt; sources join the engine
# library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/pipeline_wan.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pipeline_wan_condition.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pipeline_wan_inputs.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pipeline_wan_scheduler.cpp
)
