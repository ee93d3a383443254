# The Wan 2.1 / 2.2 VAE (AutoencoderKLWan), as a Wan pipeline folder's vae/ holds it. Included
# from engine/CMakeLists.txt. Its own library while the Wan parts are being written; the sources
# join tuneframe_engine when they are merged.
add_library(tuneframe_wan_vae_dev STATIC
    ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_wan.cpp
    ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_wan_blocks.cpp
    ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_wan_config.cpp
    ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_wan_init.cpp
    ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_wan_layers.cpp
)
target_link_libraries(tuneframe_wan_vae_dev PUBLIC tuneframe_engine)
tuneframe_warnings(tuneframe_wan_vae_dev)
tuneframe_use_torch_pch(tuneframe_wan_vae_dev)
