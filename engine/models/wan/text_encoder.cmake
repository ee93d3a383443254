# Wan's prompt path: common::wan_prompt_clean, the T5 tokenizer front and the UMT5 encoder
# (models/t5). Included from engine/CMakeLists.txt; sources join the engine library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/wan_prompt_encoder.cpp
)
