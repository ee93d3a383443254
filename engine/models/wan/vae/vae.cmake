# The Wan 2.1 / 2.2 VAE (AutoencoderKLWan), as a Wan pipeline folder's vae/ holds it. Included
# from engine/CMakeLists.txt; sources join the engine library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_wan.cpp
    ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_wan_blocks.cpp
    ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_wan_config.cpp
    ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_wan_init.cpp
    ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_wan_layers.cpp
)
