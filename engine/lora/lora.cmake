# LoRA: adapter-carrying Linear layers, injection by module name, PEFT/diffusers and ComfyUI
# files.
# Included from engine/CMakeLists.txt; sources join the engine library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/comfyui_lora_keys.cpp
    ${CMAKE_CURRENT_LIST_DIR}/lora_injection.cpp
    ${CMAKE_CURRENT_LIST_DIR}/lora_linear.cpp
    ${CMAKE_CURRENT_LIST_DIR}/lora_rank_check.cpp
    ${CMAKE_CURRENT_LIST_DIR}/lora_weights.cpp
    ${CMAKE_CURRENT_LIST_DIR}/quantized_linear.cpp
    ${CMAKE_CURRENT_LIST_DIR}/quantized_weight.cpp
)
