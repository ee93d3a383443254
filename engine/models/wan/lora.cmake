# The LoRA file layouts Wan LoRAs are shared in (original Wan / ComfyUI, musubi-tuner, and the
# read-only PEFT-keyed variant). Included from engine/CMakeLists.txt; sources join the engine
# library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/lora_keys.cpp
)
