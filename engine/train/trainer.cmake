# engine/train, the trainer side: the diffusion loss, the training loop, checkpoints and
# validation. (train.cmake lists the optimizers and LR schedules.)
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/diffusion_loss.cpp
)
