# Wan's prompt path: common::wan_prompt_clean, the T5 tokenizer front and the UMT5 encoder
# (models/t5). Included from engine/CMakeLists.txt; a library of its own until it is merged.
add_library(tuneframe_wan_text_dev STATIC
    ${CMAKE_CURRENT_LIST_DIR}/wan_prompt_encoder.cpp
)
target_link_libraries(tuneframe_wan_text_dev PUBLIC tuneframe_engine)
tuneframe_warnings(tuneframe_wan_text_dev)
tuneframe_use_torch_pch(tuneframe_wan_text_dev)
