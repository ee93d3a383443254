# engine/train, the trainer side: the diffusion loss, the training loop, checkpoints,
# validation and export. Its subfolders have lists of their own: optim/ (optimizers, LR
# schedules, clipping), sampling/ (what each step trains on) and bench/ (timing and profiling).
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/checkpoint_recovery.cpp
    ${CMAKE_CURRENT_LIST_DIR}/command_channel.cpp
    ${CMAKE_CURRENT_LIST_DIR}/expert_residency.cpp
    ${CMAKE_CURRENT_LIST_DIR}/job_memory_estimate.cpp
    ${CMAKE_CURRENT_LIST_DIR}/job_model_check.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pipeline_schedule.cpp
    ${CMAKE_CURRENT_LIST_DIR}/plan_exchange.cpp
    ${CMAKE_CURRENT_LIST_DIR}/run_command_handler.cpp
    ${CMAKE_CURRENT_LIST_DIR}/run_export.cpp
    ${CMAKE_CURRENT_LIST_DIR}/trainer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/training_checkpoint.cpp
    ${CMAKE_CURRENT_LIST_DIR}/validation_pass.cpp
)
