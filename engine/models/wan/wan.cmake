# The Wan family behind the engine's model interface (engine/models/model_family.h): the
# pipeline folder and its variants, the training objective, the sampling pipelines, the memory
# arithmetic, the LoRA layouts and the architectures init-model writes. Included from
# engine/CMakeLists.txt; sources join the engine library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/wan_architectures.cpp
    ${CMAKE_CURRENT_LIST_DIR}/wan_bench_model.cpp
    ${CMAKE_CURRENT_LIST_DIR}/wan_family.cpp
    ${CMAKE_CURRENT_LIST_DIR}/wan_init_model.cpp
    ${CMAKE_CURRENT_LIST_DIR}/wan_model_folder.cpp
    ${CMAKE_CURRENT_LIST_DIR}/wan_pipeline_folder.cpp
    ${CMAKE_CURRENT_LIST_DIR}/wan_training_objective.cpp
    ${CMAKE_CURRENT_LIST_DIR}/wan_transformer_memory.cpp
    ${CMAKE_CURRENT_LIST_DIR}/wan_video_autoencoder.cpp
)
