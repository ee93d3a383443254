# The CogVideoX VAE (AutoencoderKLCogVideoX), as the pipeline folder's vae/ holds it, and the
# demo's block-average VAE. Included from engine/CMakeLists.txt; sources join the engine library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_cogvideox.cpp
    ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_cogvideox_blocks.cpp
    ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_cogvideox_init.cpp
    ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_cogvideox_layers.cpp
    ${CMAKE_CURRENT_LIST_DIR}/block_average_vae.cpp
)
