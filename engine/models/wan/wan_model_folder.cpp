#include "engine/models/wan/wan_model_folder.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/models/clip/clip_image_processor.h"
#include "engine/models/clip/clip_vision_model.h"
#include "engine/models/wan/pipeline_wan.h"
#include "engine/models/wan/transformer_checkpoint.h"
#include "engine/models/wan/wan_family.h"
#include "engine/models/wan/wan_prompt_encoder.h"
#include "engine/models/wan/wan_training_objective.h"
#include "engine/models/wan/wan_transformer_memory.h"
#include "engine/models/wan/wan_video_autoencoder.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

namespace tuneframe::models::wan {
namespace {

namespace fs = std::filesystem;

// Wan 2.1 I2V's CLIP: the picture through CLIPImageProcessor (PIL's bicubic resize on 8-bit
// pixels, as the pipeline's PIL input) and the penultimate hidden state.
class WanImageEncoder : public ImageEncoder {
public:
    WanImageEncoder(const fs::path& encoder, const fs::path& processor,
                    const WeightsPlacement& placement)
        : processor_(clip::CLIPImageProcessor::from_folder(processor))
        , model_(clip::load_clip_vision_model(encoder, placement))
        , placement_(placement) {}

    at::Tensor encode(const at::Tensor& image) override {
        const at::Tensor pixels = (image.to(torch::kFloat32).clamp(0, 1) * 255)
                                      .round()
                                      .to(torch::kUInt8)
                                      .permute({1, 2, 0})
                                      .contiguous();
        torch::NoGradGuard no_grad;
        return model_->encode_image(
            processor_.preprocess(pixels).to(placement_.device, placement_.dtype));
    }

private:
    clip::CLIPImageProcessor processor_;
    clip::CLIPVisionModelWithProjection model_;
    WeightsPlacement placement_;
};

// The variant's short name in summary(): what the transformer is given besides the noise.
const char* variant_name(WanVariant variant) {
    switch (variant) {
    case WanVariant::TextToVideo:
        return "t2v";
    case WanVariant::ImageToVideo:
        return "i2v";
    case WanVariant::ImageToVideoA14B:
        return "i2v-a14b";
    case WanVariant::TextImageToVideo:
        return "ti2v";
    }
    return "t2v";
}

} // namespace

WanModelFolder::WanModelFolder(WanPipelineFolder folder)
    : ModelFolder(folder.root)
    , folder_(std::move(folder)) {}

std::string WanModelFolder::description() const {
    const WanTransformerPreset* known = recognise_wan_transformer(folder_.transformer_config());
    std::string text = known ? known->description : "Wan transformer of a custom shape";
    switch (folder_.variant()) {
    case WanVariant::TextToVideo:
        text += folder_.experts() > 1 ? ", two experts (text-to-video)" : " (text-to-video)";
        break;
    case WanVariant::ImageToVideo:
        text += " (image-to-video with CLIP)";
        break;
    case WanVariant::ImageToVideoA14B:
        text += ", two experts (image-to-video)";
        break;
    case WanVariant::TextImageToVideo:
        text += " (text- and image-to-video)";
        break;
    }
    return text;
}

nlohmann::json WanModelFolder::summary() const {
    const WanTransformer3DConfig& c = folder_.transformer_config();
    const WanTransformerPreset* known = recognise_wan_transformer(c);
    return {{"family", family()},
            {"name", known ? known->name : "custom"},
            {"description", description()},
            {"tasks", tasks()},
            {"layers", c.num_layers},
            {"heads", c.num_attention_heads},
            {"head_dim", c.attention_head_dim},
            {"width", c.inner_dim()},
            {"positions", "3D rotary"},
            {"parameters_from_config", c.parameter_count() * folder_.experts()},
            {"variant", variant_name(folder_.variant())},
            {"in_channels", c.in_channels},
            {"out_channels", c.out_channels},
            {"latent_channels", folder_.latent_channels()},
            {"experts", folder_.experts()},
            {"boundary_ratio", folder_.boundary_ratio ? nlohmann::json(*folder_.boundary_ratio)
                                                      : nlohmann::json(nullptr)}};
}

std::vector<std::string> WanModelFolder::tasks() const {
    switch (folder_.variant()) {
    case WanVariant::TextToVideo:
        return {"t2v"};
    case WanVariant::ImageToVideo:
    case WanVariant::ImageToVideoA14B:
        return {"i2v"};
    case WanVariant::TextImageToVideo:
        return {"t2v", "i2v"};
    }
    return {};
}

int WanModelFolder::default_fps() const {
    // Wan 2.2 TI2V-5B makes 24 frames a second, the others 16.
    return folder_.variant() == WanVariant::TextImageToVideo ? 24 : 16;
}

std::int64_t WanModelFolder::text_length() const {
    return kMaxSequenceLength;
}

LatentGeometry WanModelFolder::geometry() const {
    LatentGeometry g;
    g.latent_channels = folder_.latent_channels();
    g.spatial_scale = folder_.spatial_scale();
    g.temporal_scale = folder_.temporal_scale();
    g.patch_frames = folder_.transformer_config().patch_size[0];
    g.patch_size = folder_.transformer_config().patch_size[1];
    return g;
}

VideoShape WanModelFolder::sample_shape() const {
    return folder_.sample_shape();
}

std::optional<VideoShapeProblem> WanModelFolder::video_shape_problem(std::int64_t frames,
                                                                     std::int64_t height,
                                                                     std::int64_t width,
                                                                     bool) const {
    const std::int64_t step = folder_.temporal_scale();
    if (frames > 0 && (frames - 1) % step != 0) {
        return VideoShapeProblem{"frames",
                                 "videos of " + std::to_string(frames) +
                                     " frames cannot be made; Wan makes " + std::to_string(step) +
                                     "k+1 frames.",
                                 "Use 81 (Wan's own length), 121 (Wan 2.2 5B), or another count "
                                 "such as 9, 17, 33 or 49."};
    }
    const std::int64_t multiple = folder_.spatial_scale() * geometry().patch_size;
    for (const auto& [dimension, pixels, measure] :
         {std::tuple<const char*, std::int64_t, const char*>{"height", height, "high"},
          {"width", width, "wide"}}) {
        if (pixels > 0 && pixels % multiple != 0) {
            return VideoShapeProblem{dimension,
                                     "videos " + std::to_string(pixels) + " pixels " + measure +
                                         " cannot be made; this Wan model's sizes are multiples "
                                         "of " +
                                         std::to_string(multiple) + ".",
                                     multiple == 32 ? "Use 704 x 1280 (Wan 2.2 5B) or 480 x 832."
                                                    : "Use 480 x 832 or 720 x 1280, or 0 for "
                                                      "the model's own size."};
        }
    }
    return std::nullopt;
}

SamplingDefaults WanModelFolder::sampling_defaults() const {
    // diffusers' Wan pipelines: their UniPC scheduler, 50 steps, guidance 5, no negative prompt.
    return {"unipc", 50, 5.0, "", true};
}

fs::path WanModelFolder::transformer_folder(int expert) const {
    return folder_.transformers.at(static_cast<std::size_t>(expert));
}

std::vector<std::string> WanModelFolder::pipeline_parts() const {
    std::vector<std::string> parts = {"vae", "text_encoder", "tokenizer", "scheduler"};
    if (folder_.image_encoder) {
        parts.push_back("image_encoder");
        parts.push_back("image_processor");
    }
    return parts;
}

DiffusionTransformer WanModelFolder::load_transformer(const models::TransformerLoadOptions& options,
                                                      int expert) const {
    wan::TransformerLoadOptions load;
    load.dtype = options.dtype;
    load.device = options.device;
    load.quantization = options.quantization;
    return load_wan_transformer(transformer_folder(expert), load).ptr();
}

fs::path WanModelFolder::save_transformer(const DiffusionTransformerImpl& transformer,
                                          const fs::path& folder) const {
    if (!dynamic_cast<const WanTransformer3DModelImpl*>(&transformer)) {
        throw core::Error(core::ErrorCode::Internal,
                          "a " + transformer.class_name() + " is not a Wan transformer");
    }
    return save_transformer_folder(transformer, folder);
}

std::unique_ptr<ModelFolder> WanModelFolder::with_transformer(const fs::path& folder,
                                                              int expert) const {
    return std::make_unique<WanModelFolder>(folder_.with_transformer(folder, expert));
}

std::unique_ptr<TextEncoder> WanModelFolder::text_encoder(const WeightsPlacement& placement) const {
    return std::make_unique<WanPromptEncoder>(folder_.tokenizer, folder_.text_encoder, placement);
}

std::unique_ptr<VideoAutoencoder> WanModelFolder::vae(const WeightsPlacement& placement,
                                                      bool tiling, bool slicing) const {
    return std::make_unique<WanVideoAutoencoder>(folder_.vae, placement,
                                                 VaeOptions{tiling, 0, 0, 0, 0, slicing});
}

ImageCondition WanModelFolder::image_condition() const {
    switch (folder_.variant()) {
    case WanVariant::TextToVideo:
        return ImageCondition::None;
    case WanVariant::ImageToVideo:
    case WanVariant::ImageToVideoA14B:
        return ImageCondition::FirstFrameThenZeros;
    case WanVariant::TextImageToVideo:
        return ImageCondition::FirstFrame;
    }
    return ImageCondition::None;
}

std::unique_ptr<ImageEncoder>
WanModelFolder::image_encoder(const WeightsPlacement& placement) const {
    if (!folder_.image_encoder) {
        return nullptr;
    }
    return std::make_unique<WanImageEncoder>(*folder_.image_encoder, *folder_.image_processor,
                                             placement);
}

std::vector<fs::path> WanModelFolder::image_encoder_folders() const {
    if (!folder_.image_encoder) {
        return {};
    }
    return {*folder_.image_encoder, *folder_.image_processor};
}

std::unique_ptr<TrainingObjective>
WanModelFolder::objective(const common::TrainingJob& job, const WeightsPlacement& placement) const {
    return std::make_unique<WanTrainingObjective>(folder_, job, placement, flow_shift());
}

std::unique_ptr<VideoSampler> WanModelFolder::sampler(const SamplerOptions& options) const {
    return std::make_unique<WanPipeline>(folder_, options);
}

std::unique_ptr<TransformerMemory> WanModelFolder::transformer_memory() const {
    // The text (and, for Wan 2.1 I2V, CLIP's 257 tokens) attended to in cross-attention.
    const std::int64_t context = kMaxSequenceLength + (folder_.image_encoder ? 257 : 0);
    return std::make_unique<WanTransformerMemory>(folder_.transformer_config(), geometry(),
                                                  context);
}

EncoderMemory WanModelFolder::encoder_memory() const {
    EncoderMemory memory;
    const AutoencoderKLWanConfig& vae = folder_.vae_config;
    memory.vae_channels = std::max(vae.base_dim, vae.decoder_dim());
    // The causal VAE encodes 4 frames at a time and decodes one latent frame (4 pixel frames)
    // at a time, each with 2 cached frames.
    memory.vae_encode_frames = 6;
    memory.vae_decode_frames = 6;
    // WanVaeTiling's default tile.
    memory.vae_tile_height = 256;
    memory.vae_tile_width = 256;
    memory.text_width = folder_.text_encoder_width;
    return memory;
}

TransformerInputs WanModelFolder::probe_inputs() const {
    const WanTransformer3DConfig& c = folder_.transformer_config();
    at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(1234);
    TransformerInputs inputs;
    inputs.hidden_states = at::randn({1, c.in_channels, 2, 4, 4}, generator, torch::kFloat);
    // The I2V transformer splits its context at 512 text tokens.
    const std::int64_t text = c.image_dim ? kMaxSequenceLength : 8;
    inputs.encoder_hidden_states = at::randn({1, text, c.text_dim}, generator, torch::kFloat);
    if (c.image_dim) {
        inputs.encoder_hidden_states_image =
            at::randn({1, 4, *c.image_dim}, generator, torch::kFloat);
    }
    inputs.timestep = torch::tensor({500}, torch::kLong);
    return inputs;
}

std::vector<std::string> WanModelFolder::default_lora_targets() const {
    // Self- and cross-attention's projections in every block, as finetrainers and musubi-tuner
    // adapt Wan by default.
    return {"to_q", "to_k", "to_v", "to_out.0"};
}

std::vector<lora::LoRAKeyScheme> WanModelFolder::lora_key_schemes() const {
    return WanFamily().lora_key_schemes();
}

double WanModelFolder::flow_shift() const {
    const nlohmann::json config = core::read_json_file(folder_.scheduler_config_file);
    if (folder_.scheduler_class == "FlowMatchEulerDiscreteScheduler") {
        return config.value("shift", 1.0);
    }
    return config.value("flow_shift", 1.0);
}

} // namespace tuneframe::models::wan
