# engine/train, the trainer side: the diffusion loss, the training loop, checkpoints,
# validation and export. (train.cmake lists the optimizers and LR schedules.)
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/bucket_batch_sampler.cpp
    ${CMAKE_CURRENT_LIST_DIR}/checkpoint_recovery.cpp
    ${CMAKE_CURRENT_LIST_DIR}/command_channel.cpp
    ${CMAKE_CURRENT_LIST_DIR}/diffusion_loss.cpp
    ${CMAKE_CURRENT_LIST_DIR}/distributed_bucket_sampler.cpp
    ${CMAKE_CURRENT_LIST_DIR}/job_memory_estimate.cpp
    ${CMAKE_CURRENT_LIST_DIR}/job_model_check.cpp
    ${CMAKE_CURRENT_LIST_DIR}/keyed_generator.cpp
    ${CMAKE_CURRENT_LIST_DIR}/kineto_trace.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pipeline_schedule.cpp
    ${CMAKE_CURRENT_LIST_DIR}/plan_exchange.cpp
    ${CMAKE_CURRENT_LIST_DIR}/prepared_training_dataset.cpp
    ${CMAKE_CURRENT_LIST_DIR}/run_export.cpp
    ${CMAKE_CURRENT_LIST_DIR}/step_phase_clock.cpp
    ${CMAKE_CURRENT_LIST_DIR}/trainer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/training_bench.cpp
    ${CMAKE_CURRENT_LIST_DIR}/training_checkpoint.cpp
    ${CMAKE_CURRENT_LIST_DIR}/validation_pass.cpp
)
