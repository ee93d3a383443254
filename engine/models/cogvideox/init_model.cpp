#include "engine/models/cogvideox/init_model.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"
#include "engine/models/cogvideox/transformer_checkpoint.h"
#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox_init.h"
#include "engine/models/module_weights.h"
#include "engine/models/t5/t5_init.h"

#include <torch/torch.h>

namespace tuneframe::models::cogvideox {

using core::Error;
using core::ErrorCode;

void write_random_transformer(const CogVideoXTransformer3DConfig& config,
                              const std::filesystem::path& folder, torch::Dtype dtype,
                              std::uint64_t seed, std::uint64_t max_shard_bytes) {
    torch::manual_seed(seed);
    torch::NoGradGuard no_grad;
    CogVideoXTransformer3DModel model(config, dtype);
    save_cogvideox_transformer(model, folder, max_shard_bytes);
}

nlohmann::json released_scheduler_config(const Architecture& architecture) {
    // 2b's DDIM scheduler shifts the SNR by 3; the rotary models' (which the tiny pipelines
    // follow) does not.
    const double snr_shift_scale = architecture.name == "cogvideox-2b" ? 3.0 : 1.0;
    return {{"_class_name", "CogVideoXDDIMScheduler"},
            {"beta_end", 0.012},
            {"beta_schedule", "scaled_linear"},
            {"beta_start", 0.00085},
            {"clip_sample", false},
            {"num_train_timesteps", 1000},
            {"prediction_type", "v_prediction"},
            {"rescale_betas_zero_snr", true},
            {"set_alpha_to_one", true},
            {"snr_shift_scale", snr_shift_scale},
            {"steps_offset", 0},
            {"timestep_spacing", "trailing"}};
}

AutoencoderKLCogVideoXConfig released_vae_config(const Architecture& architecture) {
    AutoencoderKLCogVideoXConfig config;
    if (architecture.name != "cogvideox-2b") {
        config.scaling_factor = 0.7;
    }
    config.invert_scale_latents = architecture.name.rfind("cogvideox1.5", 0) == 0;
    return config;
}

namespace {

bool is_tiny(const Architecture& architecture) {
    return architecture.name.rfind("cogvideox-tiny", 0) == 0;
}

// The rest of a complete pipeline: a VAE whose latents match the transformer's channels, a T5
// as wide as its text input, a tokenizer whose length is its text length, and the scheduler.
// Tiny architectures get toy-sized components (prepare, train and sample run in seconds on a
// CPU); the others the released sizes, for measuring memory and time at real size.
void write_other_components(const Architecture& architecture, PipelineFolderWriter& pipeline,
                            torch::Dtype dtype, std::uint64_t seed) {
    const CogVideoXTransformer3DConfig& transformer = architecture.transformer;
    const bool tiny = is_tiny(architecture);
    write_random_autoencoder_kl_cogvideox(
        tiny ? tiny_autoencoder_kl_cogvideox_config(transformer.out_channels)
             : released_vae_config(architecture),
        pipeline.component_folder("vae"), seed + 1, tiny ? c10::kFloat : dtype);
    pipeline.add_component("vae", "diffusers", "AutoencoderKLCogVideoX");
    const auto text_length = static_cast<int>(transformer.max_text_seq_length);
    if (tiny) {
        write_tiny_text_components(pipeline.component_folder("text_encoder"),
                                   pipeline.component_folder("tokenizer"),
                                   transformer.text_embed_dim, text_length, seed + 2);
    } else {
        // T5-XXL's encoder (T5Config's defaults); its 32128 ids cover the small tokenizer.
        write_tiny_t5_tokenizer(pipeline.component_folder("tokenizer"), text_length);
        write_random_t5_encoder(T5Config{}, pipeline.component_folder("text_encoder"), seed + 2,
                                dtype);
    }
    pipeline.add_component("text_encoder", "transformers", "T5EncoderModel");
    pipeline.add_component("tokenizer", "transformers", "T5Tokenizer");
    std::filesystem::create_directories(pipeline.component_folder("scheduler"));
    core::write_json_file(pipeline.component_folder("scheduler") / "scheduler_config.json",
                          released_scheduler_config(architecture));
    pipeline.add_component("scheduler", "diffusers", "CogVideoXDDIMScheduler");
}

} // namespace

PipelineFolderWriter init_model(const InitModelOptions& options) {
    const Architecture& architecture = find_architecture(options.arch);
    const torch::Dtype dtype =
        options.dtype.value_or(models::parse_dtype(architecture.stored_dtype));
    PipelineFolderWriter pipeline(options.out, architecture.pipeline_class);
    write_random_transformer(architecture.transformer, pipeline.component_folder("transformer"),
                             dtype, options.seed, options.max_shard_bytes);
    pipeline.add_component("transformer", "diffusers", "CogVideoXTransformer3DModel");
    if (is_tiny(architecture) || options.complete) {
        write_other_components(architecture, pipeline, dtype, options.seed);
    }
    pipeline.finish();
    return pipeline;
}

std::string dtype_to_name(torch::Dtype dtype) {
    switch (dtype) {
    case torch::kFloat32:
        return "fp32";
    case torch::kBFloat16:
        return "bf16";
    case torch::kFloat16:
        return "fp16";
    case torch::kFloat64:
        return "fp64";
    default:
        return c10::toString(dtype);
    }
}

} // namespace tuneframe::models::cogvideox
