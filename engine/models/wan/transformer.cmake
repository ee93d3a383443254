# The Wan 2.1 / 2.2 transformer (WanTransformer3DModel), its layers and checkpoint I/O. Included
# from engine/CMakeLists.txt. A library of its own while the Wan port is being written; the
# sources join tuneframe_engine when it is merged.
add_library(tuneframe_wan_transformer_dev STATIC
    ${CMAKE_CURRENT_LIST_DIR}/attention.cpp
    ${CMAKE_CURRENT_LIST_DIR}/embeddings.cpp
    ${CMAKE_CURRENT_LIST_DIR}/normalization.cpp
    ${CMAKE_CURRENT_LIST_DIR}/original_keys.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensor_parallel.cpp
    ${CMAKE_CURRENT_LIST_DIR}/transformer_checkpoint.cpp
    ${CMAKE_CURRENT_LIST_DIR}/transformer_wan.cpp
    ${CMAKE_CURRENT_LIST_DIR}/transformer_wan_config.cpp
)
target_link_libraries(tuneframe_wan_transformer_dev PUBLIC tuneframe_engine)
tuneframe_warnings(tuneframe_wan_transformer_dev)
tuneframe_use_torch_pch(tuneframe_wan_transformer_dev)
