# engine/train/optim: optimizers, learning-rate schedules and gradient clipping for the trainer.
# Included from engine/CMakeLists.txt; sources join the engine library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/adam_optimizer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/adamw_8bit_optimizer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/adamw_cpu_offload_optimizer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/blockwise_quantization.cpp
    ${CMAKE_CURRENT_LIST_DIR}/came_optimizer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/clip_grad_norm.cpp
    ${CMAKE_CURRENT_LIST_DIR}/lr_schedule.cpp
    ${CMAKE_CURRENT_LIST_DIR}/optimizer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/optimizer_factory.cpp
    ${CMAKE_CURRENT_LIST_DIR}/prodigy_optimizer.cpp
)
