#pragma once

#include "engine/lora/lora_linear.h"
#include "engine/models/cogvideox/attention_processor.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d_config.h"
#include "engine/models/cogvideox/embeddings.h"
#include "engine/models/cogvideox/normalization.h"
#include "engine/models/diffusion_transformer.h"
#include "engine/models/layers/feed_forward.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <optional>
#include <vector>

namespace tuneframe::models::cogvideox {

// CogVideoXBlock: adaLN-zero modulated joint attention over [text; video], then one
// feed-forward over the concatenation, each gated back into its stream. The two streams live in
// one buffer, text first, from the first block to the last: diffusers' per-block concatenation
// and split are gone, and each norm, modulation and gated residual is one pass over both.
class CogVideoXBlockImpl : public torch::nn::Module {
public:
    explicit CogVideoXBlockImpl(const CogVideoXTransformer3DConfig& config);

    // tokens [B, L+N, D] (encoder_hidden_states then hidden_states: the first `text_length`
    // rows text), temb [B, E] -> the updated tokens.
    at::Tensor forward(const at::Tensor& tokens, std::int64_t text_length, const at::Tensor& temb,
                       const std::optional<RotaryEmbedding>& rotary,
                       const SequenceSplit* split = nullptr, core::KeptAttention* kept = nullptr);

    CogVideoXLayerNormZero norm1{nullptr};
    Attention attn1{nullptr};
    CogVideoXLayerNormZero norm2{nullptr};
    FeedForward ff{nullptr};
};
TORCH_MODULE(CogVideoXBlock);

// What the CogVideoX transformer reads of the inputs: hidden_states [B, F, C, H, W] latents
// (I2V: noise and image latents), encoder_hidden_states [B, L, text_embed_dim] whose L is the
// actual text length, timestep [B] or [1], and ofs for CogVideoX 1.5 I2V (the pipeline: 2.0).
// The pipeline also hands over the rotary tables it computed for the video tokens; the model
// computes the same ones when they are absent.
struct CogVideoXTransformerInputs : models::TransformerInputs {
    std::optional<RotaryEmbedding> image_rotary_emb;
};

// CogVideoXTransformer3DModel. Children are registered under diffusers' names, so
// named_parameters() (and named_buffers(): 5b-I2V's pos_embedding) equal the checkpoint keys.
class CogVideoXTransformer3DModelImpl : public models::DiffusionTransformerImpl {
public:
    // Parameters are allocated in `dtype` directly, so a real-size model never exists in
    // float32 first. `stored`: the blocks' Linear layers are built with their base already
    // stored so (lora::QuantizedBaseGuard), for a loader that quantizes as it reads.
    explicit CogVideoXTransformer3DModelImpl(
        const CogVideoXTransformer3DConfig& config, torch::Dtype dtype = torch::kFloat32,
        lora::BaseQuantization stored = lora::BaseQuantization::None);

    std::string class_name() const override { return "CogVideoXTransformer3DModel"; }
    nlohmann::json config_json() const override { return config_.to_json(); }
    std::vector<std::string> hidden_states_layout() const override {
        return {"batch", "frames", "channels", "height", "width"};
    }

    // -> the v-prediction [B, F, out_channels, H, W], in the model's dtype.
    at::Tensor forward(const models::TransformerInputs& inputs) override;
    // The same with the pipeline's rotary tables, when given.
    at::Tensor forward(const CogVideoXTransformerInputs& inputs);

    StageOutput forward_stage(const models::TransformerInputs& inputs, std::int64_t begin,
                              std::int64_t end, const StageTokens* carried = nullptr) override;
    // The parts a later stage receives: the video [B, N, D] and text [B, L, D] tokens (this
    // rank's run of each under sequence parallelism) and the time embedding [B or 1, E]. The
    // embedding travels rather than being made again by each stage, so its layers live on the
    // first stage alone and their gradient comes back with the tokens'.
    std::vector<std::vector<std::int64_t>>
    stage_token_shapes(const models::TransformerInputs& inputs) const override;
    void keep_stage(std::int64_t begin, std::int64_t end) override;
    std::int64_t num_blocks() const override { return config_.num_layers; }
    std::int64_t num_attention_heads() const override { return config_.num_attention_heads; }
    void split_blocks_over(const std::shared_ptr<TensorParallel>& parallel) override;
    TensorParallelLayout tensor_parallel_layout() const override;
    bool is_quantized_base_layer(const std::string& module_name) const override;

    const CogVideoXTransformer3DConfig& config() const { return config_; }
    torch::Dtype dtype() const override; // of the parameters
    // The tables the pipeline computes for latents of F x H x W; nullopt without rotary.
    std::optional<RotaryEmbedding> rotary_embeddings(std::int64_t latent_frames,
                                                     std::int64_t latent_height,
                                                     std::int64_t latent_width) const;

    CogVideoXPatchEmbed patch_embed{nullptr};
    torch::nn::Dropout embedding_dropout{nullptr};
    TimestepEmbedding time_embedding{nullptr};
    TimestepEmbedding ofs_embedding{nullptr}; // CogVideoX 1.5 I2V only
    torch::nn::ModuleList transformer_blocks{nullptr};
    torch::nn::LayerNorm norm_final{nullptr};
    AdaLayerNorm norm_out{nullptr};
    lora::LoRALinear proj_out{nullptr};

protected:
    torch::nn::Module& block_module(std::int64_t index) override;

private:
    StageOutput run_stage(const models::TransformerInputs& inputs,
                          const std::optional<RotaryEmbedding>& given_rotary, std::int64_t begin,
                          std::int64_t end, const StageTokens* carried);
    void check_inputs(const models::TransformerInputs& inputs,
                      const std::optional<RotaryEmbedding>& given_rotary) const;
    at::Tensor time_embeddings(const models::TransformerInputs& inputs, torch::Dtype dtype);
    // tokens [B, L+N, D] -> the same after block `index`
    at::Tensor run_block(std::size_t index, const at::Tensor& tokens, std::int64_t text_length,
                         const at::Tensor& temb, const std::optional<RotaryEmbedding>& rotary,
                         const std::optional<SequenceSplit>& split);
    at::Tensor unpatchify(const at::Tensor& tokens, const at::IntArrayRef& input_shape) const;
    // How sequence parallelism splits the text and video tokens; nullopt without it.
    struct TokenRuns {
        SequenceSplit split;
        std::vector<std::int64_t> video_parts;
        std::int64_t text_start = 0;
        std::int64_t text_length = 0;
        std::int64_t video_start = 0;
        std::int64_t video_length = 0;
    };
    std::optional<TokenRuns> token_runs(std::int64_t text_length, std::int64_t video_length) const;
    std::int64_t video_token_count(const at::IntArrayRef& latent_shape) const;
    std::optional<RotaryEmbedding> rotary_tables_on(const std::optional<RotaryEmbedding>& given,
                                                    const c10::Device& device,
                                                    std::int64_t latent_frames,
                                                    std::int64_t latent_height,
                                                    std::int64_t latent_width);

    CogVideoXTransformer3DConfig config_;
    std::vector<CogVideoXBlock> blocks_;
    struct CachedRotary {
        std::vector<std::int64_t> grid;
        c10::Device device{c10::kCPU};
        RotaryEmbedding tables;
    };
    std::optional<CachedRotary> rotary_cache_;
};
TORCH_MODULE(CogVideoXTransformer3DModel);

} // namespace tuneframe::models::cogvideox
