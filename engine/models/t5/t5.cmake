# The T5 v1.1 text encoder (the tokenizer front is common/t5_tokenizer) and the tiny text
# components init-model writes. Included from engine/CMakeLists.txt; sources join the engine
# library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/caption_corpus.cpp
    ${CMAKE_CURRENT_LIST_DIR}/t5_encoder.cpp
    ${CMAKE_CURRENT_LIST_DIR}/t5_init.cpp
)
