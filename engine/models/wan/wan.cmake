# The Wan family behind the engine's model interface (engine/models/model_family.h): the
# pipeline folder and its variants, the training objective, the sampling pipelines, the memory
# arithmetic, the LoRA layouts and the architectures init-model writes. Included from
# engine/CMakeLists.txt; sources join the engine library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/wan_pipeline_folder.cpp
)
