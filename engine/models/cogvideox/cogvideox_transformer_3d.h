#pragma once

#include "engine/lora/lora_linear.h"
#include "engine/models/layers/feed_forward.h"
#include "engine/models/cogvideox/attention_processor.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d_config.h"
#include "engine/models/cogvideox/embeddings.h"
#include "engine/models/cogvideox/normalization.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <optional>
#include <utility>
#include <vector>

namespace tuneframe::models::cogvideox {

// CogVideoXBlock: adaLN-zero modulated joint attention over [text; video], then one
// feed-forward over the concatenation, each gated back into its stream.
class CogVideoXBlockImpl : public torch::nn::Module {
public:
    explicit CogVideoXBlockImpl(const CogVideoXTransformer3DConfig& config);

    // hidden_states [B, N, D], encoder_hidden_states [B, L, D], temb [B, E] -> updated pair.
    std::pair<at::Tensor, at::Tensor>
    forward(const at::Tensor& hidden_states, const at::Tensor& encoder_hidden_states,
            const at::Tensor& temb, const std::optional<RotaryEmbedding>& rotary,
            const SequenceSplit* split = nullptr, core::KeptAttention* kept = nullptr);

    CogVideoXLayerNormZero norm1{nullptr};
    Attention attn1{nullptr};
    CogVideoXLayerNormZero norm2{nullptr};
    FeedForward ff{nullptr};
};
TORCH_MODULE(CogVideoXBlock);

struct CogVideoXTransformerInputs {
    at::Tensor hidden_states;         // [B, F, C, H, W] latents (I2V: noise and image latents)
    at::Tensor encoder_hidden_states; // [B, L, text_embed_dim]; L is the actual text length
    at::Tensor timestep;              // [B] or [1], integer or float
    at::Tensor ofs;                   // [1] or [B]; CogVideoX 1.5 I2V only (the pipeline: 2.0)
    // Rotary tables for the video tokens; computed as the pipeline does when absent.
    std::optional<RotaryEmbedding> image_rotary_emb;
};

// What one pipeline stage hands the next: the video [B, N, D] and text [B, L, D] tokens (this
// rank's run of each under sequence parallelism) and the time embedding [B or 1, E]. The
// embedding travels rather than being made again by each stage, so its layers live on the first
// stage alone and their gradient comes back with the tokens'.
struct StageTokens {
    at::Tensor hidden;
    at::Tensor encoder;
    at::Tensor emb;
};

// What a pipeline stage's forward gives: the tokens for the next stage, or, from the last
// stage, the v-prediction.
struct StageOutput {
    StageTokens tokens;
    at::Tensor prediction;
};

// CogVideoXTransformer3DModel. Children are registered under diffusers' names, so
// named_parameters() (and named_buffers(): 5b-I2V's pos_embedding) equal the checkpoint keys.
class CogVideoXTransformer3DModelImpl : public torch::nn::Module {
public:
    // Parameters are allocated in `dtype` directly, so a real-size model never exists in
    // float32 first.
    explicit CogVideoXTransformer3DModelImpl(const CogVideoXTransformer3DConfig& config,
                                             torch::Dtype dtype = torch::kFloat32);

    // -> the v-prediction [B, F, out_channels, H, W], in the model's dtype.
    at::Tensor forward(const CogVideoXTransformerInputs& inputs);

    // Pipeline parallelism: forward() for blocks [begin, end) alone. The first stage (begin 0)
    // embeds the inputs' latents, text and timesteps; the others start from `carried`, the
    // previous stage's output, and use the inputs only for their shapes (each stage makes its
    // own rotary tables). The last stage (end = num_layers) returns the prediction, the others
    // their tokens.
    StageOutput forward_stage(const CogVideoXTransformerInputs& inputs, std::int64_t begin,
                              std::int64_t end, const StageTokens* carried = nullptr);
    // The shapes of what a later stage receives for these inputs: video, text, embedding.
    std::vector<std::vector<std::int64_t>>
    stage_token_shapes(const CogVideoXTransformerInputs& inputs) const;
    // Keeps only what the stage of blocks [begin, end) runs: the other blocks, the embeddings
    // (begin > 0) and the output layers (end < num_layers) give their memory back and stop
    // training. For good.
    void keep_stage(std::int64_t begin, std::int64_t end);

    const CogVideoXTransformer3DConfig& config() const { return config_; }
    torch::Dtype dtype() const; // of the parameters
    // The tables the pipeline computes for latents of F x H x W; nullopt without rotary.
    std::optional<RotaryEmbedding> rotary_embeddings(std::int64_t latent_frames,
                                                     std::int64_t latent_height,
                                                     std::int64_t latent_width) const;

    // Recompute each block in backward instead of keeping its activations (training only).
    void set_gradient_checkpointing(bool enabled) {
        set_checkpointed_blocks(enabled ? config_.num_layers : 0);
    }
    // Recompute only the first `count` blocks (clamped to the model's depth): the rest keep
    // their activations, trading memory for the recompute's time. The first ones, because
    // backward reaches them last, after the kept blocks' activations are freed.
    void set_checkpointed_blocks(std::int64_t count);
    // Recomputed blocks keep their attention outputs and skip attention when they recompute
    // (core::KeptAttention): most of checkpointing's time back for one token-width per block.
    void set_keep_attention(bool keep) { keep_attention_ = keep; }
    bool keeps_attention() const { return keep_attention_; }
    // Splits each sample's tokens over the exchange's ranks (sequence parallelism); null runs
    // whole. Every rank of the group must run the same forward and backward.
    void set_token_exchange(std::shared_ptr<TokenExchange> exchange) {
        token_exchange_ = std::move(exchange);
    }
    const std::shared_ptr<TokenExchange>& token_exchange() const { return token_exchange_; }
    // Splits every block's heads and feed-forward features over the ranks of `parallel`
    // (tensor parallelism): from then on each rank holds its share and every rank of the group
    // must run the same forward and backward. After any LoRA adapters; for good.
    void split_blocks_over(const std::shared_ptr<TensorParallel>& parallel);
    const std::shared_ptr<TensorParallel>& tensor_parallel() const { return tensor_parallel_; }
    bool gradient_checkpointing() const { return checkpointed_blocks_ > 0; }
    std::int64_t checkpointed_blocks() const { return checkpointed_blocks_; }

    CogVideoXPatchEmbed patch_embed{nullptr};
    torch::nn::Dropout embedding_dropout{nullptr};
    TimestepEmbedding time_embedding{nullptr};
    TimestepEmbedding ofs_embedding{nullptr}; // CogVideoX 1.5 I2V only
    torch::nn::ModuleList transformer_blocks{nullptr};
    torch::nn::LayerNorm norm_final{nullptr};
    AdaLayerNorm norm_out{nullptr};
    lora::LoRALinear proj_out{nullptr};

private:
    void check_inputs(const CogVideoXTransformerInputs& inputs) const;
    at::Tensor time_embeddings(const CogVideoXTransformerInputs& inputs, torch::Dtype dtype);
    std::pair<at::Tensor, at::Tensor> run_block(std::size_t index, const at::Tensor& hidden,
                                                const at::Tensor& encoder, const at::Tensor& temb,
                                                const std::optional<RotaryEmbedding>& rotary,
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
    std::optional<RotaryEmbedding> rotary_tables_on(const CogVideoXTransformerInputs& inputs,
                                                    const c10::Device& device,
                                                    std::int64_t latent_frames,
                                                    std::int64_t latent_height,
                                                    std::int64_t latent_width);

    CogVideoXTransformer3DConfig config_;
    std::vector<CogVideoXBlock> blocks_;
    std::int64_t checkpointed_blocks_ = 0;
    bool keep_attention_ = false;
    struct CachedRotary {
        std::vector<std::int64_t> grid;
        c10::Device device{c10::kCPU};
        RotaryEmbedding tables;
    };
    std::optional<CachedRotary> rotary_cache_;
    std::shared_ptr<TokenExchange> token_exchange_;
    std::shared_ptr<TensorParallel> tensor_parallel_;
};
TORCH_MODULE(CogVideoXTransformer3DModel);

} // namespace tuneframe::models::cogvideox
