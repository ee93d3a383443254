# engine/diffusion: the CogVideoX schedulers (and, with the models, the sampling pipelines).
# These files must never be built with fast-math: the schedules rely on IEEE infinities.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_ddim_scheduler.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_dpm_scheduler.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_noise_schedule.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_scheduler_config.cpp
)
