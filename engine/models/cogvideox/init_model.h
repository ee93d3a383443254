#pragma once

#include "engine/models/model_family.h"
#include "engine/models/pipeline_folder_writer.h"

#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox.h"

#include <torch/types.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tuneframe::models::cogvideox {

using models::PipelineFolderWriter;

using models::InitModelOptions;

// Random weights (PyTorch's default initialisation) in `folder`: config.json and the weights.
void write_random_transformer(const CogVideoXTransformer3DConfig& config,
                              const std::filesystem::path& folder, torch::Dtype dtype,
                              std::uint64_t seed, std::uint64_t max_shard_bytes);

// `init-model`: writes `out/transformer/` for the architecture and a model_index.json listing
// what was written. Complete pipelines (the tiny architectures always, the others with
// `complete`) also get vae/, text_encoder/, tokenizer/ (a SentencePiece model trained on a
// built-in caption corpus) and scheduler/, so everything runs offline.
PipelineFolderWriter init_model(const InitModelOptions& options);

// What `complete` writes beside the transformer, as the released pipelines have them: the VAE
// at full size with the architecture's latent scale (2b 1.15258426, the others 0.7; 1.5 divides
// image latents by it) and the DDIM scheduler (2b shifts the SNR by 3). T5 is T5Config's
// defaults, T5-XXL's encoder.
AutoencoderKLCogVideoXConfig released_vae_config(const Architecture& architecture);
nlohmann::json released_scheduler_config(const Architecture& architecture);

std::string dtype_to_name(torch::Dtype dtype); // "fp32", "bf16", "fp16"

} // namespace tuneframe::models::cogvideox
