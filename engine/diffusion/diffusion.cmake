# engine/diffusion: the CogVideoX schedulers and the text/image-to-video sampling pipeline.
# These files must never be built with fast-math: the schedules rely on IEEE infinities.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/classifier_free_guidance.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_ddim_scheduler.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_dpm_scheduler.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_noise_schedule.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_pipeline.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cogvideox_scheduler_config.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pipeline_folder.cpp
    ${CMAKE_CURRENT_LIST_DIR}/prompt_encoder.cpp
    ${CMAKE_CURRENT_LIST_DIR}/seeded_noise.cpp
)
