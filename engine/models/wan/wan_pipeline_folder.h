#pragma once

#include "engine/models/transformer_memory.h"
#include "engine/models/wan/transformer_wan_config.h"
#include "engine/models/wan/vae/autoencoder_kl_wan.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tuneframe::models::wan {

// What a Wan pipeline conditions on, read from its configs (the variants are data: channels, the
// image branch, per-token timesteps and the expert switch).
enum class WanVariant {
    TextToVideo,      // Wan 2.1 T2V, Wan 2.2 T2V-A14B: the transformer takes the noise alone
    ImageToVideo,     // Wan 2.1 I2V: a mask and the condition video's latents beside the noise,
                      // and the first frame's CLIP tokens in cross-attention
    ImageToVideoA14B, // Wan 2.2 I2V-A14B: the mask and the condition latents, no CLIP
    TextImageToVideo, // Wan 2.2 TI2V-5B: the first latent frame replaced by the image's, with
                      // per-token timesteps (0 on it); text-to-video without an image
};

// A diffusers Wan pipeline folder (WanPipeline, WanImageToVideoPipeline): model_index.json,
// transformer/ (and transformer_2/ for Wan 2.2 A14B), vae/, text_encoder/, tokenizer/,
// scheduler/, and image_encoder/ with image_processor/ for Wan 2.1 I2V. Every config is read and
// checked before weights are touched; a missing or mismatched part is a BadInput error naming it.
struct WanPipelineFolder {
    std::filesystem::path root;
    std::string pipeline_class; // model_index.json's _class_name
    // transformer/ and, for two experts, transformer_2/ (the low-noise one).
    std::vector<std::filesystem::path> transformers;
    std::vector<WanTransformer3DConfig> transformer_configs;
    std::filesystem::path vae;
    std::filesystem::path text_encoder;
    std::filesystem::path tokenizer;
    std::optional<std::filesystem::path> image_encoder;
    std::optional<std::filesystem::path> image_processor;
    std::filesystem::path scheduler_config_file;
    std::string scheduler_class; // UniPCMultistepScheduler or FlowMatchEulerDiscreteScheduler
    AutoencoderKLWanConfig vae_config;
    // Two experts: the step uses `transformer` while t >= boundary_ratio * 1000.
    std::optional<double> boundary_ratio;
    bool expand_timesteps = false; // per-token timesteps (Wan 2.2 TI2V)
    std::int64_t text_encoder_width = 4096;

    static WanPipelineFolder open(const std::filesystem::path& root);
    // This pipeline with another transformer folder of the same shape as expert `expert`; a
    // BadInput error names the folder and how it differs.
    WanPipelineFolder with_transformer(const std::filesystem::path& folder, int expert) const;

    WanVariant variant() const;
    int experts() const { return static_cast<int>(transformers.size()); }
    const WanTransformer3DConfig& transformer_config() const { return transformer_configs.front(); }
    std::int64_t latent_channels() const { return vae_config.z_dim; }
    std::int64_t spatial_scale() const { return vae_config.spatial_compression_ratio(); }
    std::int64_t temporal_scale() const { return vae_config.temporal_compression_ratio(); }
    // The size the release makes, in pixels: Wan 2.2 TI2V-5B (the 16x VAE) 121 x 704 x 1280,
    // the others 81 x 480 x 832.
    VideoShape sample_shape() const;
};

} // namespace tuneframe::models::wan
