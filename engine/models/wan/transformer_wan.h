#pragma once

#include "engine/core/kernels/kept_attention.h"
#include "engine/lora/lora_linear.h"
#include "engine/models/diffusion_transformer.h"
#include "engine/models/layers/feed_forward.h"
#include "engine/models/wan/attention.h"
#include "engine/models/wan/embeddings.h"
#include "engine/models/wan/normalization.h"
#include "engine/models/wan/transformer_wan_config.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>

#include <optional>
#include <vector>

namespace tuneframe::models::wan {

// WanTransformerBlock: adaLN-modulated self-attention (rotary, q/k RMSNorm), cross-attention to
// the text (and I2V image tokens) after an optional affine norm, and a gelu-tanh feed-forward.
// The norms and the modulation run in float32, as diffusers does for bf16 models.
class WanTransformerBlockImpl : public torch::nn::Module {
public:
    explicit WanTransformerBlockImpl(const WanTransformer3DConfig& config);

    // hidden_states [B, N, D], encoder_hidden_states [B, L, D], timestep_proj [B, 6, D] or per
    // token [B, N, 6, D] -> [B, N, D]. `split` and `kept` as WanAttention takes them.
    at::Tensor forward(const at::Tensor& hidden_states, const at::Tensor& encoder_hidden_states,
                       const at::Tensor& timestep_proj, const RotaryTables& rotary,
                       const SequenceSplit* split = nullptr, core::KeptAttention* kept = nullptr);

    // Tensor parallelism: this rank's share of both attentions' heads and of the feed-forward.
    void split_over(const std::shared_ptr<TensorParallel>& parallel);

    FP32LayerNorm norm1{nullptr};
    WanAttention attn1{nullptr};
    WanAttention attn2{nullptr};
    FP32LayerNorm norm2{nullptr}; // cross_attn_norm only (diffusers: nn.Identity otherwise)
    FeedForward ffn{nullptr};
    FP32LayerNorm norm3{nullptr};
    at::Tensor scale_shift_table; // [1, 6, D]
};
TORCH_MODULE(WanTransformerBlock);

// WanTransformer3DModel. Children are registered under diffusers' names, so named_parameters()
// equal the checkpoint keys. Inputs and outputs are [B, C, F, H, W].
//
// Pipeline stages carry four parts (this rank's run of the tokens under sequence parallelism):
// the video tokens [B, N, D], the blocks' modulation timestep_proj [B, 6, D] (per token
// [B, N, 6, D]), the projected text (I2V: image tokens first) [B, L, D] and the output norm's
// temb [B, D] (per token [B, N, D]); the first two batch sizes are the timestep's.
class WanTransformer3DModelImpl : public DiffusionTransformerImpl {
public:
    // Parameters are allocated in `dtype` directly, so a real-size model never exists in
    // float32 first. `stored`: the blocks' Linear layers are built with their base already
    // stored so (lora::QuantizedBaseGuard), for a loader that quantizes as it reads.
    explicit WanTransformer3DModelImpl(
        const WanTransformer3DConfig& config, torch::Dtype dtype = torch::kFloat32,
        lora::BaseQuantization stored = lora::BaseQuantization::None);

    std::string class_name() const override { return "WanTransformer3DModel"; }
    nlohmann::json config_json() const override { return config_.to_json(); }
    std::vector<std::string> hidden_states_layout() const override {
        return {"batch", "channels", "frames", "height", "width"};
    }
    at::Tensor forward(const TransformerInputs& inputs) override;
    StageOutput forward_stage(const TransformerInputs& inputs, std::int64_t begin, std::int64_t end,
                              const StageTokens* carried = nullptr) override;
    std::vector<std::vector<std::int64_t>>
    stage_token_shapes(const TransformerInputs& inputs) const override;
    void keep_stage(std::int64_t begin, std::int64_t end) override;
    std::int64_t num_blocks() const override { return config_.num_layers; }
    std::int64_t num_attention_heads() const override { return config_.num_attention_heads; }
    torch::Dtype dtype() const override;
    void split_blocks_over(const std::shared_ptr<TensorParallel>& parallel) override;
    TensorParallelLayout tensor_parallel_layout() const override;
    // Every Linear inside `blocks.`: they hold nearly all the weights.
    bool is_quantized_base_layer(const std::string& module_name) const override;

    const WanTransformer3DConfig& config() const { return config_; }
    // The rotary tables for latents of F x H x W (before patching), on the CPU.
    RotaryTables rotary_embeddings(std::int64_t latent_frames, std::int64_t latent_height,
                                   std::int64_t latent_width) const;
    WanTransformerBlock block(std::size_t index) const { return blocks_.at(index); }

    WanRotaryPosEmbed rope{nullptr};
    torch::nn::Conv3d patch_embedding{nullptr};
    WanTimeTextImageEmbedding condition_embedder{nullptr};
    torch::nn::ModuleList blocks{nullptr};
    FP32LayerNorm norm_out{nullptr};
    lora::LoRALinear proj_out{nullptr};
    at::Tensor scale_shift_table; // [1, 2, D]

protected:
    torch::nn::Module& block_module(std::int64_t index) override;

private:
    // How sequence parallelism splits the video tokens; nullopt without it.
    struct TokenRuns {
        SequenceSplit split;
        std::int64_t start = 0;
        std::int64_t length = 0;
    };
    std::optional<TokenRuns> token_runs(std::int64_t tokens) const;
    void check_inputs(const TransformerInputs& inputs) const;
    void check_image_inputs(const TransformerInputs& inputs) const;
    std::array<std::int64_t, 3> patch_grid(const at::Tensor& hidden_states) const;
    std::int64_t image_token_count(const TransformerInputs& inputs) const;
    RotaryTables rotary_tables_on(const c10::Device& device,
                                  const std::array<std::int64_t, 3>& grid);
    StageTokens embed(const TransformerInputs& inputs, const std::optional<TokenRuns>& runs);
    at::Tensor run_block(std::size_t index, const at::Tensor& hidden, const at::Tensor& encoder,
                         const at::Tensor& timestep_proj, const RotaryTables& rotary,
                         const std::optional<SequenceSplit>& split);
    at::Tensor output_projection(const at::Tensor& hidden, const at::Tensor& temb);
    at::Tensor unpatchify(const at::Tensor& tokens, const at::IntArrayRef& input_shape) const;

    WanTransformer3DConfig config_;
    std::vector<WanTransformerBlock> blocks_;
    struct CachedRotary {
        std::array<std::int64_t, 3> grid;
        c10::Device device{c10::kCPU};
        RotaryTables tables;
    };
    std::optional<CachedRotary> rotary_cache_;
};
TORCH_MODULE(WanTransformer3DModel);

} // namespace tuneframe::models::wan
