# The CogVideoX family: the transformer, its embeddings and attention, and what the engine's
# model interface asks of a family (engine/models/model_family.h). Included from engine/CMakeLists.txt; sources join the engine library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/architectures.cpp
    ${CMAKE_CURRENT_LIST_DIR}/attention_processor.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_bench_model.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_family.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_model_folder.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_training_objective.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_transformer_3d.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_transformer_3d_config.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_transformer_memory.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_video_autoencoder.cpp
    ${CMAKE_CURRENT_LIST_DIR}/diffusion_loss.cpp
    ${CMAKE_CURRENT_LIST_DIR}/embeddings.cpp
    ${CMAKE_CURRENT_LIST_DIR}/init_model.cpp
    ${CMAKE_CURRENT_LIST_DIR}/memory_estimate.cpp
    ${CMAKE_CURRENT_LIST_DIR}/normalization.cpp
    ${CMAKE_CURRENT_LIST_DIR}/quantized_base.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensor_parallel.cpp
    ${CMAKE_CURRENT_LIST_DIR}/transformer_checkpoint.cpp
)
