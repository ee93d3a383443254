#include "engine/models/wan/wan_init_model.h"

#include "engine/core/json_file.h"
#include "engine/models/clip/clip_init.h"
#include "engine/models/module_weights.h"
#include "engine/models/pipeline_folder_writer.h"
#include "engine/models/t5/t5_init.h"
#include "engine/models/wan/transformer_checkpoint.h"
#include "engine/models/wan/vae/autoencoder_kl_wan_init.h"
#include "engine/models/wan/wan_prompt_encoder.h"

#include <torch/torch.h>

namespace tuneframe::models::wan {
namespace {

namespace fs = std::filesystem;

void write_random_transformer(const WanTransformer3DConfig& config, const fs::path& folder,
                              torch::Dtype dtype, std::uint64_t seed,
                              std::uint64_t max_shard_bytes) {
    torch::manual_seed(seed);
    torch::NoGradGuard no_grad;
    const WanTransformer3DModel model(config, dtype);
    save_wan_transformer(model, folder, max_shard_bytes);
}

// UMT5-XXL's encoder, the Wan pipelines' text encoder, at its released size.
T5Config umt5_xxl_config() {
    T5Config config = tiny_umt5_config(4096, 256384);
    config.d_kv = 64;
    config.d_ff = 10240;
    config.num_layers = 24;
    config.num_heads = 64;
    return config;
}

// open-clip ViT-H/14, Wan 2.1 I2V's image encoder, at its released size.
clip::CLIPVisionConfig clip_vit_h_config() {
    clip::CLIPVisionConfig config = clip::tiny_clip_vision_config(1280, 224);
    config.intermediate_size = 5120;
    config.projection_dim = 1024;
    config.num_hidden_layers = 32;
    config.num_attention_heads = 16;
    config.patch_size = 14;
    return config;
}

void write_text_components(const WanArchitecture& a, PipelineFolderWriter& pipeline,
                           c10::ScalarType dtype, std::uint64_t seed) {
    const fs::path text_encoder = pipeline.component_folder("text_encoder");
    const fs::path tokenizer = pipeline.component_folder("tokenizer");
    if (a.info.tiny) {
        write_tiny_umt5_text_components(text_encoder, tokenizer, a.text_width, kMaxSequenceLength,
                                        seed);
    } else {
        write_tiny_t5_tokenizer(tokenizer, kMaxSequenceLength);
        write_random_t5_encoder(umt5_xxl_config(), text_encoder, seed, dtype);
    }
    pipeline.add_component("text_encoder", "transformers", "UMT5EncoderModel");
    pipeline.add_component("tokenizer", "transformers", "T5Tokenizer");
}

void write_image_components(const WanArchitecture& a, PipelineFolderWriter& pipeline,
                            c10::ScalarType dtype, std::uint64_t seed) {
    const fs::path encoder = pipeline.component_folder("image_encoder");
    const fs::path processor = pipeline.component_folder("image_processor");
    if (a.info.tiny) {
        clip::write_tiny_image_components(encoder, processor, a.image_width, a.image_size, seed);
    } else {
        clip::write_random_clip_image_encoder(clip_vit_h_config(), encoder, seed, dtype);
        clip::write_clip_image_processor(processor, 224);
    }
    pipeline.add_component("image_encoder", "transformers", "CLIPVisionModelWithProjection");
    pipeline.add_component("image_processor", "transformers", "CLIPImageProcessor");
}

void write_wan_components(const WanArchitecture& a, PipelineFolderWriter& pipeline,
                          c10::ScalarType dtype, std::uint64_t seed) {
    // The released VAEs are stored in float32.
    write_random_autoencoder_kl_wan(a.vae, pipeline.component_folder("vae"), seed, c10::kFloat);
    pipeline.add_component("vae", "diffusers", "AutoencoderKLWan");
    write_text_components(a, pipeline, dtype, seed);
    if (a.experts.front().image_dim) {
        write_image_components(a, pipeline, dtype, seed);
    }
    fs::create_directories(pipeline.component_folder("scheduler"));
    core::write_json_file(pipeline.component_folder("scheduler") / "scheduler_config.json",
                          wan_scheduler_config(a.flow_shift));
    pipeline.add_component("scheduler", "diffusers", "UniPCMultistepScheduler");
}

} // namespace

nlohmann::json wan_scheduler_config(double flow_shift) {
    return {{"_class_name", "UniPCMultistepScheduler"},
            {"_diffusers_version", "0.40.0"},
            {"beta_end", 0.02},
            {"beta_schedule", "linear"},
            {"beta_start", 0.0001},
            {"disable_corrector", nlohmann::json::array()},
            {"dynamic_thresholding_ratio", 0.995},
            {"final_sigmas_type", "zero"},
            {"flow_shift", flow_shift},
            {"lower_order_final", true},
            {"num_train_timesteps", 1000},
            {"predict_x0", true},
            {"prediction_type", "flow_prediction"},
            {"rescale_betas_zero_snr", false},
            {"sample_max_value", 1.0},
            {"shift_terminal", nullptr},
            {"sigma_max", nullptr},
            {"sigma_min", nullptr},
            {"solver_order", 2},
            {"solver_p", nullptr},
            {"solver_type", "bh2"},
            {"steps_offset", 0},
            {"thresholding", false},
            {"time_shift_type", "exponential"},
            {"timestep_spacing", "linspace"},
            {"trained_betas", nullptr},
            {"use_beta_sigmas", false},
            {"use_dynamic_shifting", false},
            {"use_exponential_sigmas", false},
            {"use_flow_sigmas", true},
            {"use_karras_sigmas", false}};
}

InitModelResult write_wan_pipeline(const WanArchitecture& a, const InitModelOptions& options) {
    const c10::ScalarType dtype = options.dtype.value_or(parse_dtype(a.info.stored_dtype));
    PipelineFolderWriter pipeline(options.out, a.info.pipeline_class, "0.40.0");
    InitModelResult result;
    for (std::size_t i = 0; i < a.experts.size(); ++i) {
        const std::string component = i == 0 ? "transformer" : "transformer_2";
        // Each expert its own draws, so the two start apart as trained experts are.
        write_random_transformer(a.experts[i], pipeline.component_folder(component), dtype,
                                 options.seed + i, options.max_shard_bytes);
        pipeline.add_component(component, "diffusers", "WanTransformer3DModel");
        result.transformer_parameters += a.experts[i].parameter_count();
    }
    if (a.experts.size() == 1) {
        pipeline.add_absent_component("transformer_2");
    }
    pipeline.set("boundary_ratio",
                 a.boundary_ratio ? nlohmann::json(*a.boundary_ratio) : nlohmann::json(nullptr));
    pipeline.set("expand_timesteps", a.expand_timesteps);
    if (a.info.tiny || options.complete) {
        write_wan_components(a, pipeline, dtype, options.seed);
    }
    pipeline.finish();
    result.components = pipeline.components();
    return result;
}

} // namespace tuneframe::models::wan
