# The Wan 2.1 / 2.2 transformer (WanTransformer3DModel), its layers and checkpoint I/O, and the
# Wan family behind the engine's model interface. Included from engine/CMakeLists.txt; sources join
# the engine library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/attention.cpp
    ${CMAKE_CURRENT_LIST_DIR}/embeddings.cpp
    ${CMAKE_CURRENT_LIST_DIR}/normalization.cpp
    ${CMAKE_CURRENT_LIST_DIR}/original_keys.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensor_parallel.cpp
    ${CMAKE_CURRENT_LIST_DIR}/transformer_checkpoint.cpp
    ${CMAKE_CURRENT_LIST_DIR}/transformer_wan.cpp
    ${CMAKE_CURRENT_LIST_DIR}/transformer_wan_config.cpp
)
