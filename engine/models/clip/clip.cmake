# CLIP's vision tower and image processor (Wan 2.1 I2V's image encoder). Included from
# engine/CMakeLists.txt; sources join the engine library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/clip_image_processor.cpp
    ${CMAKE_CURRENT_LIST_DIR}/clip_init.cpp
    ${CMAKE_CURRENT_LIST_DIR}/clip_vision_config.cpp
    ${CMAKE_CURRENT_LIST_DIR}/clip_vision_model.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pil_resample.cpp
)
