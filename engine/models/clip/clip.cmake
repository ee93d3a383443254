# CLIP's vision tower and image processor (Wan's I2V image encoder). Included from
# engine/CMakeLists.txt; a library of its own until it is merged.
add_library(tuneframe_clip_dev STATIC
    ${CMAKE_CURRENT_LIST_DIR}/clip_image_processor.cpp
    ${CMAKE_CURRENT_LIST_DIR}/clip_init.cpp
    ${CMAKE_CURRENT_LIST_DIR}/clip_vision_config.cpp
    ${CMAKE_CURRENT_LIST_DIR}/clip_vision_model.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pil_resample.cpp
)
target_link_libraries(tuneframe_clip_dev PUBLIC tuneframe_engine)
tuneframe_warnings(tuneframe_clip_dev)
tuneframe_use_torch_pch(tuneframe_clip_dev)
