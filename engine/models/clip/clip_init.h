#pragma once

// Random CLIP image encoders and their processor config, for init-model's tiny Wan I2V
// pipelines: folders transformers' from_pretrained and load_clip_vision_model both read.

#include "engine/models/clip/clip_image_processor.h"
#include "engine/models/clip/clip_vision_model.h"

#include <cstdint>
#include <filesystem>

namespace tuneframe::models::clip {

// laion/CLIP-ViT-H-14's structure ("gelu", pre-LayerNorm, a projection) at toy size: 2 layers,
// 4 heads, MLP 4x wide, patch 8 over `image_size` (a multiple of 8).
CLIPVisionConfig tiny_clip_vision_config(std::int64_t hidden_size, std::int64_t image_size);

// transformers' CLIP initialisation, seeded: normal weights with CLIP's per-module scales,
// zero biases, unit LayerNorms.
void initialise_clip_vision_model(CLIPVisionModelWithProjectionImpl& model, std::uint64_t seed);

// `folder`/config.json and `folder`/model.safetensors, as save_pretrained writes a
// CLIPVisionModelWithProjection.
void write_random_clip_image_encoder(const CLIPVisionConfig& config,
                                     const std::filesystem::path& folder, std::uint64_t seed,
                                     c10::ScalarType dtype = c10::kFloat);

// `folder`/preprocessor_config.json: laion/CLIP-ViT-H-14's processor (shortest edge, bicubic,
// center crop, OpenAI statistics) at `image_size`.
void write_clip_image_processor(const std::filesystem::path& folder, std::int64_t image_size);

// Both image components of a tiny I2V pipeline, consistent with each other.
void write_tiny_image_components(const std::filesystem::path& image_encoder_folder,
                                 const std::filesystem::path& image_processor_folder,
                                 std::int64_t hidden_size, std::int64_t image_size,
                                 std::uint64_t seed);

} // namespace tuneframe::models::clip
