# engine/train/sampling: the prepared dataset and the samplers that choose each step's batch,
# one seeded draw per sample and step. Included from engine/CMakeLists.txt.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/bucket_batch_sampler.cpp
    ${CMAKE_CURRENT_LIST_DIR}/distributed_bucket_sampler.cpp
    ${CMAKE_CURRENT_LIST_DIR}/prepared_training_dataset.cpp
    ${CMAKE_CURRENT_LIST_DIR}/training_batch_maker.cpp
)
