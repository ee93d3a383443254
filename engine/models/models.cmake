# The model seam (what a family provides and how the engine finds it) and what every family is
# built from: checkpoint loading and saving, activation checkpointing, keyed random draws, the
# model side of sequence and tensor parallelism, and diffusers' shared layers.
# Included from engine/CMakeLists.txt; sources join the engine library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/bench_model.cpp
    ${CMAKE_CURRENT_LIST_DIR}/activation_offload.cpp
    ${CMAKE_CURRENT_LIST_DIR}/block_swap.cpp
    ${CMAKE_CURRENT_LIST_DIR}/diagonal_gaussian_distribution.cpp
    ${CMAKE_CURRENT_LIST_DIR}/diffusion_transformer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gradient_checkpointing.cpp
    ${CMAKE_CURRENT_LIST_DIR}/keyed_generator.cpp
    ${CMAKE_CURRENT_LIST_DIR}/model_family.cpp
    ${CMAKE_CURRENT_LIST_DIR}/model_folder.cpp
    ${CMAKE_CURRENT_LIST_DIR}/module_weights.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pipeline_folder_writer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/quantized_base_loading.cpp
    ${CMAKE_CURRENT_LIST_DIR}/streaming_weights.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensor_parallel.cpp
    ${CMAKE_CURRENT_LIST_DIR}/token_exchange.cpp
    ${CMAKE_CURRENT_LIST_DIR}/training_objective.cpp
    ${CMAKE_CURRENT_LIST_DIR}/vae_tiles.cpp
    ${CMAKE_CURRENT_LIST_DIR}/transformer_memory.cpp
    ${CMAKE_CURRENT_LIST_DIR}/transformer_memory_estimate.cpp
    ${CMAKE_CURRENT_LIST_DIR}/layers/feed_forward.cpp
    ${CMAKE_CURRENT_LIST_DIR}/layers/timestep_embedding.cpp
)
