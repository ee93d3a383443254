#include "engine/models/wan/transformer_wan.h"

#include "engine/core/error.h"
#include "engine/core/kernels/gated_residual.h"
#include "engine/core/kernels/layer_norm_modulate.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "engine/models/default_dtype_guard.h"
#include "engine/models/wan/tensor_parallel.h"

#include <torch/torch.h>

#include <cmath>

namespace tuneframe::models::wan {
namespace {

using core::Error;
using core::ErrorCode;

std::string shape_of(const at::Tensor& tensor) {
    return tensor.defined() ? core::shape_string(tensor.sizes().vec()) : "absent";
}

[[noreturn]] void bad_transformer_input(const std::string& message, const std::string& hint) {
    throw Error(ErrorCode::BadInput, message, hint);
}

// The six (blocks) or two (output) modulation vectors: the table plus the projected time
// embedding, in float32. [B, k, D] gives k of [B, 1, D]; per token [B, N, k, D] gives k of
// [B, N, D].
std::vector<at::Tensor> modulation(const at::Tensor& table, const at::Tensor& embedding) {
    const bool per_token = embedding.dim() == 4;
    at::Tensor sum = table.to(torch::kFloat32);
    if (per_token) {
        sum = sum.unsqueeze(0);
    }
    sum = sum + embedding.to(torch::kFloat32);
    std::vector<at::Tensor> parts = sum.chunk(table.size(1), per_token ? 2 : 1);
    if (per_token) {
        for (at::Tensor& part : parts) {
            part = part.squeeze(2);
        }
    }
    return parts;
}

// FP32LayerNorm then adaLN's modulation, in float32 over the tokens' dtype, cast back: one pass
// through core::layer_norm_modulate (a fused kernel on CUDA) where the modulation is per sample.
at::Tensor modulated_norm(const FP32LayerNorm& norm, const at::Tensor& x, const at::Tensor& shift,
                          const at::Tensor& scale) {
    core::LayerNormModulateArgs args;
    args.x = x;
    args.weight = norm->weight;
    args.bias = norm->bias;
    args.eps = norm->eps();
    args.video = {shift, scale};
    return core::layer_norm_modulate(args);
}

// Gives a module's weights' memory back and takes them out of training.
void release(const at::Tensor& tensor) {
    torch::NoGradGuard no_grad;
    at::Tensor handle = tensor;
    handle.set_requires_grad(false);
    handle.set_data(at::empty({0}, tensor.options()));
}

void release(torch::nn::Module& module) {
    for (const at::Tensor& parameter : module.parameters()) {
        release(parameter);
    }
    for (const at::Tensor& buffer : module.buffers()) {
        release(buffer);
    }
}

} // namespace

WanTransformerBlockImpl::WanTransformerBlockImpl(const WanTransformer3DConfig& config) {
    const std::int64_t dim = config.inner_dim();
    const std::int64_t heads = config.num_attention_heads;
    const std::int64_t head_dim = config.attention_head_dim;
    norm1 = register_module("norm1", FP32LayerNorm(dim, config.eps, false));
    attn1 = register_module("attn1", WanAttention(dim, heads, head_dim, config.eps));
    attn2 = register_module(
        "attn2", WanAttention(dim, heads, head_dim, config.eps, config.added_kv_proj_dim));
    if (config.cross_attn_norm) {
        norm2 = register_module("norm2", FP32LayerNorm(dim, config.eps, true));
    }
    ffn = register_module("ffn", FeedForward(dim, config.ffn_dim, 0.0));
    norm3 = register_module("norm3", FP32LayerNorm(dim, config.eps, false));
    scale_shift_table = register_parameter(
        "scale_shift_table", torch::randn({1, 6, dim}) / std::sqrt(static_cast<double>(dim)));
}

at::Tensor WanTransformerBlockImpl::forward(const at::Tensor& hidden_states,
                                            const at::Tensor& encoder_hidden_states,
                                            const at::Tensor& timestep_proj,
                                            const RotaryTables& rotary, const SequenceSplit* split,
                                            core::KeptAttention* kept) {
    const auto dtype = hidden_states.scalar_type();
    const std::vector<at::Tensor> m = modulation(scale_shift_table, timestep_proj);
    const at::Tensor &shift_msa = m[0], &scale_msa = m[1], &gate_msa = m[2];
    const at::Tensor &c_shift_msa = m[3], &c_scale_msa = m[4], &c_gate_msa = m[5];

    // 1. Self-attention
    at::Tensor hidden = hidden_states;
    at::Tensor norm_hidden = modulated_norm(norm1, hidden, shift_msa, scale_msa);
    at::Tensor attn_output = attn1->forward(norm_hidden, {}, &rotary, split, kept);
    hidden = core::gated_residual({hidden, attn_output, gate_msa, {}, 0}); // in float32

    // 2. Cross-attention
    norm_hidden = norm2.is_empty() ? hidden : norm2->forward(hidden.to(torch::kFloat32)).to(dtype);
    hidden = hidden + attn2->forward(norm_hidden, encoder_hidden_states);

    // 3. Feed-forward
    norm_hidden = modulated_norm(norm3, hidden, c_shift_msa, c_scale_msa);
    return core::gated_residual({hidden, ffn->forward(norm_hidden), c_gate_msa, {}, 0});
}

void WanTransformerBlockImpl::split_over(const std::shared_ptr<TensorParallel>& parallel) {
    attn1->split_heads_over(parallel);
    attn2->split_heads_over(parallel);
    ffn->split_features_over(parallel);
}

WanTransformer3DModelImpl::WanTransformer3DModelImpl(const WanTransformer3DConfig& config,
                                                     torch::Dtype dtype,
                                                     lora::BaseQuantization stored)
    : config_(config) {
    const DefaultDtypeGuard default_dtype(dtype);
    const std::int64_t dim = config.inner_dim();
    const std::vector<std::int64_t> patch(config.patch_size.begin(), config.patch_size.end());

    // 1. Patch & position embedding
    rope = register_module("rope",
                           WanRotaryPosEmbed(config.attention_head_dim, config.rope_max_seq_len));
    patch_embedding = register_module(
        "patch_embedding",
        torch::nn::Conv3d(torch::nn::Conv3dOptions(config.in_channels, dim, patch).stride(patch)));

    // 2. Condition embeddings
    condition_embedder =
        register_module("condition_embedder",
                        WanTimeTextImageEmbedding(dim, config.freq_dim, 6 * dim, config.text_dim,
                                                  config.image_dim, config.pos_embed_seq_len));

    // 3. Transformer blocks
    blocks = register_module("blocks", torch::nn::ModuleList());
    for (std::int64_t i = 0; i < config.num_layers; ++i) {
        const lora::QuantizedBaseGuard blocks_stored(stored); // is_quantized_base_layer's
        WanTransformerBlock block(config);
        blocks->push_back(block);
        blocks_.push_back(block);
    }

    // 4. Output norm & projection
    norm_out = register_module("norm_out", FP32LayerNorm(dim, config.eps, false));
    proj_out = register_module("proj_out",
                               lora::LoRALinear(dim, config.out_channels * config.patch_volume()));
    scale_shift_table = register_parameter(
        "scale_shift_table", torch::randn({1, 2, dim}) / std::sqrt(static_cast<double>(dim)));
}

torch::Dtype WanTransformer3DModelImpl::dtype() const {
    return patch_embedding->weight.scalar_type();
}

bool WanTransformer3DModelImpl::is_quantized_base_layer(const std::string& module_name) const {
    return module_name.rfind("blocks.", 0) == 0;
}

RotaryTables WanTransformer3DModelImpl::rotary_embeddings(std::int64_t latent_frames,
                                                          std::int64_t latent_height,
                                                          std::int64_t latent_width) const {
    const auto& p = config_.patch_size;
    return rope->forward(latent_frames / p[0], latent_height / p[1], latent_width / p[2]);
}

RotaryTables WanTransformer3DModelImpl::rotary_tables_on(const c10::Device& device,
                                                         const std::array<std::int64_t, 3>& grid) {
    // Built once per grid and device, so no block copies them from the host again, nor does a
    // checkpointed block when it recomputes.
    if (!rotary_cache_ || rotary_cache_->grid != grid || rotary_cache_->device != device) {
        const RotaryTables tables = rope->forward(grid[0], grid[1], grid[2]);
        rotary_cache_ =
            CachedRotary{grid, device, RotaryTables{tables.cos.to(device), tables.sin.to(device)}};
    }
    return rotary_cache_->tables;
}

std::array<std::int64_t, 3>
WanTransformer3DModelImpl::patch_grid(const at::Tensor& hidden_states) const {
    const auto& p = config_.patch_size;
    return {hidden_states.size(2) / p[0], hidden_states.size(3) / p[1],
            hidden_states.size(4) / p[2]};
}

std::int64_t WanTransformer3DModelImpl::image_token_count(const TransformerInputs& in) const {
    const at::Tensor& image = in.encoder_hidden_states_image;
    if (!image.defined()) {
        return 0;
    }
    // FLF2V's position table joins each pair of samples' tokens.
    return config_.pos_embed_seq_len ? 2 * image.size(1) : image.size(1);
}

void WanTransformer3DModelImpl::check_inputs(const TransformerInputs& in) const {
    const std::string hint = "Check the input tensors against the model's config.json.";
    const at::Tensor& hidden = in.hidden_states;
    if (!hidden.defined() || hidden.dim() != 5) {
        bad_transformer_input(
            "hidden_states must be [B, C, F, H, W] (channels before frames), not " +
                shape_of(hidden) + ".",
            hint);
    }
    if (hidden.size(1) != config_.in_channels) {
        bad_transformer_input(
            "this Wan transformer takes " + std::to_string(config_.in_channels) +
                " input channels (in_channels in its config.json), but hidden_states " +
                shape_of(hidden) + " has " + std::to_string(hidden.size(1)) + ".",
            config_.in_channels == 36
                ? "An image-to-video model takes the 16 noisy latent channels, the 4-channel "
                  "first-frame mask and the 16 condition latent channels, concatenated."
                : "Pass latents with " + std::to_string(config_.in_channels) +
                      " channels, from the VAE that belongs to this model.");
    }
    const auto& p = config_.patch_size;
    if (hidden.size(2) % p[0] || hidden.size(3) % p[1] || hidden.size(4) % p[2]) {
        bad_transformer_input(
            "hidden_states " + shape_of(hidden) + " does not divide into the model's " +
                std::to_string(p[0]) + " x " + std::to_string(p[1]) + " x " + std::to_string(p[2]) +
                " (frames x height x width) patches.",
            "Use latents whose frame count is a multiple of " + std::to_string(p[0]) +
                " and whose height and width are multiples of " + std::to_string(p[1]) + " and " +
                std::to_string(p[2]) +
                " (video sizes that are multiples of 16 pixels for Wan 2.1's VAE, 32 for "
                "Wan 2.2's).");
    }
    const auto grid = patch_grid(hidden);
    if (std::max({grid[0], grid[1], grid[2]}) > config_.rope_max_seq_len) {
        bad_transformer_input("hidden_states " + shape_of(hidden) +
                                  " has more patches along one axis than "
                                  "the rotary tables cover (rope_max_seq_len " +
                                  std::to_string(config_.rope_max_seq_len) + ").",
                              "Use a smaller video.");
    }
    const std::int64_t batch = hidden.size(0);
    const at::Tensor& text = in.encoder_hidden_states;
    if (!text.defined() || text.dim() != 3 || text.size(0) != batch ||
        text.size(2) != config_.text_dim) {
        bad_transformer_input("encoder_hidden_states must be [" + std::to_string(batch) + ", L, " +
                                  std::to_string(config_.text_dim) + "], not " + shape_of(text) +
                                  ".",
                              hint);
    }
    const std::int64_t tokens = grid[0] * grid[1] * grid[2];
    const at::Tensor& t = in.timestep;
    const bool scalar_ok = t.defined() && t.dim() <= 1 && (t.numel() == 1 || t.numel() == batch);
    const bool per_token_ok = t.defined() && t.dim() == 2 &&
                              (t.size(0) == 1 || t.size(0) == batch) && t.size(1) == tokens;
    if (!scalar_ok && !per_token_ok) {
        bad_transformer_input(
            "timestep must be [" + std::to_string(batch) + "] (or [1]), or one per token [" +
                std::to_string(batch) + ", " + std::to_string(tokens) +
                "] for these latents, not " + shape_of(t) + ".",
            "A per-token timestep (Wan 2.2 TI2V) holds one value per patch of the latents "
            "(frames x rows x columns of patches, in that order).");
    }
    check_image_inputs(in);
}

void WanTransformer3DModelImpl::check_image_inputs(const TransformerInputs& in) const {
    const at::Tensor& image = in.encoder_hidden_states_image;
    const std::int64_t batch = in.hidden_states.size(0);
    if (!config_.image_dim) {
        if (image.defined()) {
            bad_transformer_input(
                "this Wan transformer has no image embedder (no image_dim in its "
                "config.json), so it takes no encoder_hidden_states_image.",
                "Leave encoder_hidden_states_image out: this model takes the image through "
                "its latent channels, or is a text-to-video model.");
        }
        return;
    }
    const std::int64_t samples = config_.pos_embed_seq_len ? 2 * batch : batch;
    if (!image.defined()) {
        bad_transformer_input(
            "this image-to-video Wan transformer needs encoder_hidden_states_image (the "
            "CLIP image encoder's penultimate hidden states).",
            "Pass encoder_hidden_states_image [" + std::to_string(samples) + ", tokens, " +
                std::to_string(*config_.image_dim) + "].");
    }
    if (image.dim() != 3 || image.size(0) != samples || image.size(2) != *config_.image_dim ||
        (config_.pos_embed_seq_len && 2 * image.size(1) != *config_.pos_embed_seq_len)) {
        bad_transformer_input(
            "encoder_hidden_states_image must be [" + std::to_string(samples) + ", " +
                (config_.pos_embed_seq_len ? std::to_string(*config_.pos_embed_seq_len / 2)
                                           : std::string("tokens")) +
                ", " + std::to_string(*config_.image_dim) + "], not " + shape_of(image) + ".",
            config_.pos_embed_seq_len
                ? "A first-last-frame model takes both images' CLIP tokens, first then "
                  "last for each sample."
                : "Pass the CLIP image encoder's penultimate hidden states.");
    }
    if (config_.has_image_attention() && in.encoder_hidden_states.size(1) != kTextContextLength) {
        bad_transformer_input(
            "an image-to-video Wan 2.1 transformer tells the image tokens from the text by "
            "the text's fixed length of " +
                std::to_string(kTextContextLength) +
                " tokens (as diffusers does), so encoder_hidden_states must be [" +
                std::to_string(batch) + ", " + std::to_string(kTextContextLength) + ", " +
                std::to_string(config_.text_dim) + "], not " + shape_of(in.encoder_hidden_states) +
                ".",
            "Encode the prompt padded with zeros to 512 tokens (max_sequence_length 512), "
            "as WanImageToVideoPipeline does.");
    }
}

std::optional<WanTransformer3DModelImpl::TokenRuns>
WanTransformer3DModelImpl::token_runs(std::int64_t tokens) const {
    const std::shared_ptr<TokenExchange>& exchange = token_exchange();
    if (!exchange || exchange->size() <= 1) {
        return std::nullopt;
    }
    const std::int64_t ranks = exchange->size();
    const std::int64_t heads =
        config_.num_attention_heads / (tensor_parallel_ ? tensor_parallel_->size() : 1);
    if (heads % ranks != 0) {
        throw Error(ErrorCode::BadInput,
                    "Sequence parallelism splits the attention heads of each rank, and its " +
                        std::to_string(heads) + " heads do not divide by " + std::to_string(ranks) +
                        " ranks.",
                    "Choose a parallel.sp_size that divides " + std::to_string(heads) + ".");
    }
    // Each rank keeps a run of the video tokens; only self-attention needs the others (the
    // text is whole on every rank, so cross-attention runs locally).
    TokenRuns runs{SequenceSplit{exchange, even_parts(tokens, ranks)}};
    const auto me = static_cast<std::size_t>(exchange->rank());
    for (std::size_t i = 0; i < me; ++i) {
        runs.start += runs.split.lengths[i];
    }
    runs.length = runs.split.lengths[me];
    return runs;
}

std::vector<std::vector<std::int64_t>>
WanTransformer3DModelImpl::stage_token_shapes(const TransformerInputs& in) const {
    const auto grid = patch_grid(in.hidden_states);
    std::int64_t tokens = grid[0] * grid[1] * grid[2];
    if (const auto runs = token_runs(tokens)) {
        tokens = runs->length;
    }
    const std::int64_t batch = in.hidden_states.size(0);
    const std::int64_t width = config_.inner_dim();
    const std::int64_t text = in.encoder_hidden_states.size(1) + image_token_count(in);
    if (in.timestep.dim() == 2) {
        const std::int64_t t_batch = in.timestep.size(0);
        return {{batch, tokens, width},
                {t_batch, tokens, 6, width},
                {batch, text, width},
                {t_batch, tokens, width}};
    }
    const std::int64_t t_batch = in.timestep.numel();
    return {{batch, tokens, width}, {t_batch, 6, width}, {batch, text, width}, {t_batch, width}};
}

StageTokens WanTransformer3DModelImpl::embed(const TransformerInputs& in,
                                             const std::optional<TokenRuns>& runs) {
    const torch::Dtype model_dtype = dtype();
    const c10::Device device = in.hidden_states.device();
    at::Tensor hidden = patch_embedding->forward(in.hidden_states.to(model_dtype));
    hidden = hidden.flatten(2).transpose(1, 2).contiguous(); // [B, N, D]

    at::Tensor timestep = in.timestep.to(device);
    std::optional<std::int64_t> timestep_seq_len;
    if (timestep.dim() == 2) {
        if (runs) {
            timestep = timestep.narrow(1, runs->start, runs->length);
        }
        timestep_seq_len = timestep.size(1);
    }
    at::Tensor image = in.encoder_hidden_states_image;
    if (image.defined()) {
        image = image.to(model_dtype);
    }
    auto conditions = condition_embedder->forward(
        timestep.reshape({-1}), in.encoder_hidden_states.to(model_dtype), image, timestep_seq_len);
    std::vector<std::int64_t> blocks_shape = conditions.timestep_proj.sizes().vec();
    blocks_shape.back() = 6;
    blocks_shape.push_back(config_.inner_dim()); // [B, 6, D] or [B, N, 6, D]
    at::Tensor encoder = conditions.encoder_hidden_states;
    if (image.defined()) {
        encoder = torch::cat({conditions.encoder_hidden_states_image, encoder}, 1);
    }
    if (runs) {
        hidden = hidden.narrow(1, runs->start, runs->length);
    }
    return {{hidden, conditions.timestep_proj.view(blocks_shape), encoder, conditions.temb}};
}

at::Tensor WanTransformer3DModelImpl::run_block(std::size_t index, const at::Tensor& hidden,
                                                const at::Tensor& encoder,
                                                const at::Tensor& timestep_proj,
                                                const RotaryTables& rotary,
                                                const std::optional<SequenceSplit>& split) {
    const auto number = static_cast<std::int64_t>(index);
    std::shared_ptr<WanTransformerBlockImpl> impl = blocks_[index].ptr();
    // Only self-attention is kept: cross-attention to 512 text tokens costs little to redo
    // and its output would cost as much memory to keep.
    std::shared_ptr<core::KeptAttention> kept;
    if (keeps_attention() && block_recomputes(number)) {
        kept = std::make_shared<core::KeptAttention>();
    }
    // A recomputation runs during backward, after forward returned: it keeps its own copies.
    return run_block_function(
        number,
        [impl, rotary, split, kept](const std::vector<at::Tensor>& in) {
            return std::vector<at::Tensor>{
                impl->forward(in[0], in[1], in[2], rotary, split ? &*split : nullptr, kept.get())};
        },
        {hidden, encoder, timestep_proj})[0];
}

torch::nn::Module& WanTransformer3DModelImpl::block_module(std::int64_t index) {
    return *blocks_.at(static_cast<std::size_t>(index));
}

at::Tensor WanTransformer3DModelImpl::output_projection(const at::Tensor& hidden,
                                                        const at::Tensor& temb) {
    // temb [B, D] (per token [B, N, D]) takes the place of the blocks' [B, 6, D] embedding.
    const std::vector<at::Tensor> m =
        modulation(scale_shift_table, temb.dim() == 3 ? temb.unsqueeze(2) : temb.unsqueeze(1));
    const at::Tensor& shift = m[0];
    const at::Tensor& scale = m[1];
    return proj_out->forward(modulated_norm(norm_out, hidden, shift, scale)); // [B, N, pt*ph*pw*C]
}

at::Tensor WanTransformer3DModelImpl::unpatchify(const at::Tensor& tokens,
                                                 const at::IntArrayRef& shape) const {
    const auto& p = config_.patch_size;
    // feature index ((dt * ph + dy) * pw + dx) * C + c
    return tokens
        .reshape(
            {shape[0], shape[2] / p[0], shape[3] / p[1], shape[4] / p[2], p[0], p[1], p[2], -1})
        .permute({0, 7, 1, 4, 2, 5, 3, 6})
        .flatten(6, 7)
        .flatten(4, 5)
        .flatten(2, 3); // [B, C, F, H, W]
}

at::Tensor WanTransformer3DModelImpl::forward(const TransformerInputs& inputs) {
    return forward_stage(inputs, 0, config_.num_layers).prediction;
}

StageOutput WanTransformer3DModelImpl::forward_stage(const TransformerInputs& inputs,
                                                     std::int64_t begin, std::int64_t end,
                                                     const StageTokens* carried) {
    check_inputs(inputs);
    if (begin < 0 || end > config_.num_layers || begin >= end ||
        (begin > 0 && (!carried || carried->parts.size() != 4))) {
        throw Error(ErrorCode::Internal, "a pipeline stage's blocks or tokens are wrong");
    }
    const auto grid = patch_grid(inputs.hidden_states);
    const std::optional<TokenRuns> runs = token_runs(grid[0] * grid[1] * grid[2]);
    RotaryTables rotary = rotary_tables_on(inputs.hidden_states.device(), grid);
    std::optional<SequenceSplit> split;
    if (runs) {
        rotary = {rotary.cos.narrow(1, runs->start, runs->length),
                  rotary.sin.narrow(1, runs->start, runs->length)};
        split = runs->split;
    }
    // hidden, timestep_proj, encoder, temb
    StageTokens tokens = begin == 0 ? embed(inputs, runs) : *carried;

    // 4. Transformer blocks
    for (auto i = static_cast<std::size_t>(begin); i < static_cast<std::size_t>(end); ++i) {
        tokens.parts[0] =
            run_block(i, tokens.parts[0], tokens.parts[2], tokens.parts[1], rotary, split);
    }
    if (end < config_.num_layers) {
        return {tokens, {}};
    }

    // 5. Output norm, projection & unpatchify
    at::Tensor hidden = output_projection(tokens.parts[0], tokens.parts[3]);
    if (runs) {
        hidden = token_exchange()->gather_tokens(hidden, runs->split.lengths);
    }
    return {{}, unpatchify(hidden, inputs.hidden_states.sizes())};
}

void WanTransformer3DModelImpl::split_blocks_over(const std::shared_ptr<TensorParallel>& parallel) {
    if (tensor_parallel_) {
        throw Error(ErrorCode::Internal, "the transformer's blocks are already split");
    }
    const std::int64_t heads = config_.num_attention_heads;
    if (heads % parallel->size() != 0 || config_.ffn_dim % parallel->size() != 0) {
        throw Error(ErrorCode::BadInput,
                    "Tensor parallelism splits the attention heads and feed-forward features, "
                    "and this model's " +
                        std::to_string(heads) + " heads or " + std::to_string(config_.ffn_dim) +
                        " features do not divide by " + std::to_string(parallel->size()) +
                        " ranks.",
                    "Choose a parallel.tp_size that divides both.");
    }
    for (WanTransformerBlock& block : blocks_) {
        block->split_over(parallel);
    }
    tensor_parallel_ = parallel;
}

TensorParallelLayout WanTransformer3DModelImpl::tensor_parallel_layout() const {
    return tensor_parallel_ ? wan::tensor_parallel_layout(*this) : TensorParallelLayout{};
}

void WanTransformer3DModelImpl::keep_stage(std::int64_t begin, std::int64_t end) {
    if (begin < 0 || end > config_.num_layers || begin >= end) {
        throw Error(ErrorCode::Internal, "a pipeline stage's blocks are wrong");
    }
    for (std::int64_t i = 0; i < config_.num_layers; ++i) {
        if (i < begin || i >= end) {
            release(*blocks_[static_cast<std::size_t>(i)]);
        }
    }
    if (begin > 0) {
        release(*patch_embedding);
        release(*condition_embedder);
    }
    if (end < config_.num_layers) {
        release(*proj_out);
        release(scale_shift_table);
    }
}

} // namespace tuneframe::models::wan
