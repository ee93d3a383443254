# engine/data: the latent cache and `prepare` (clips and captions into cached latents and
# prompt embeddings, and the run's prepared.jsonl). Included from engine/CMakeLists.txt;
# sources join the engine library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/cache_key.cpp
    ${CMAKE_CURRENT_LIST_DIR}/clip_preprocessor.cpp
    ${CMAKE_CURRENT_LIST_DIR}/dataset_preparer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/file_identity.cpp
    ${CMAKE_CURRENT_LIST_DIR}/frame_placement.cpp
    ${CMAKE_CURRENT_LIST_DIR}/latent_cache.cpp
    ${CMAKE_CURRENT_LIST_DIR}/prepared_index.cpp
    ${CMAKE_CURRENT_LIST_DIR}/sha256.cpp
)
# SHA-256 (cache keys, model identities) comes from libcrypto; no header of ours includes it.
target_link_libraries(tuneframe_engine PRIVATE OpenSSL::Crypto)
