#pragma once

#include "engine/diffusion/cogvideox_scheduler_config.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d_config.h"
#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox.h"

#include <filesystem>
#include <string>

namespace tuneframe::diffusion {

enum class SamplerKind { Ddim, Dpm };

// "ddim" or "dpm"; a BadInput error names the choices.
SamplerKind parse_sampler(const std::string& name);
const char* sampler_name(SamplerKind kind);

// A diffusers pipeline folder (model_index.json with transformer/, vae/, text_encoder/,
// tokenizer/, scheduler/), checked and with every component's config read, before any weights
// are touched: a folder that lacks a part fails at once with the part and the fix named.
struct PipelineFolder {
    std::filesystem::path root;
    std::filesystem::path transformer;
    std::filesystem::path vae;
    std::filesystem::path text_encoder;
    std::filesystem::path tokenizer;
    models::cogvideox::CogVideoXTransformer3DConfig transformer_config;
    models::AutoencoderKLCogVideoXConfig vae_config;
    CogVideoXSchedulerConfig scheduler_config;
    SamplerKind default_sampler = SamplerKind::Ddim; // the scheduler folder's class
    std::int64_t text_encoder_width = 4096;          // T5's d_model

    static PipelineFolder open(const std::filesystem::path& root);
    // This pipeline with another diffusers transformer folder of the same architecture in place
    // of its own (a full fine-tune's export, a merged LoRA); a BadInput error names the folder
    // and how it differs.
    PipelineFolder with_transformer(const std::filesystem::path& folder) const;

    // The transformer takes image latents on its channels next to the noise.
    bool image_to_video() const;
    // CogVideoX 1.5 (temporal patches): its latent frame count is padded to a multiple of them.
    bool is_v1_5() const { return transformer_config.patch_size_t.has_value(); }
    // The frame rate CogVideoX was trained at: 8 for 1.0, 16 for 1.5.
    int default_fps() const { return is_v1_5() ? 16 : 8; }
    std::int64_t spatial_scale() const { return vae_config.spatial_compression_ratio(); }
    std::int64_t temporal_scale() const { return vae_config.temporal_compression_ratio; }
};

} // namespace tuneframe::diffusion
