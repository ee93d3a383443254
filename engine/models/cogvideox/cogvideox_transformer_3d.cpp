#include "engine/models/cogvideox/cogvideox_transformer_3d.h"

#include "engine/core/error.h"
#include "engine/core/kernels/gated_residual.h"
#include "engine/models/cogvideox/quantized_base.h"
#include "engine/models/cogvideox/tensor_parallel.h"
#include "engine/models/default_dtype_guard.h"

#include <torch/torch.h>

#include <algorithm>

namespace tuneframe::models::cogvideox {
namespace {

using core::Error;
using core::ErrorCode;

std::string input_shape(const at::Tensor& tensor) {
    std::string text = "[";
    for (std::int64_t i = 0; i < tensor.dim(); ++i) {
        text += (i ? ", " : "") + std::to_string(tensor.size(i));
    }
    return text + "]";
}

[[noreturn]] void bad_input(const std::string& message, const std::string& hint) {
    throw Error(ErrorCode::BadInput, message, hint);
}

} // namespace

CogVideoXBlockImpl::CogVideoXBlockImpl(const CogVideoXTransformer3DConfig& config) {
    const std::int64_t dim = config.inner_dim();
    norm1 = register_module("norm1", CogVideoXLayerNormZero(config.time_embed_dim, dim,
                                                            config.norm_elementwise_affine,
                                                            config.norm_eps));
    attn1 = register_module("attn1",
                            Attention(dim, config.num_attention_heads, config.attention_head_dim,
                                      config.attention_bias, config.dropout));
    norm2 = register_module("norm2", CogVideoXLayerNormZero(config.time_embed_dim, dim,
                                                            config.norm_elementwise_affine,
                                                            config.norm_eps));
    ff = register_module("ff", FeedForward(dim, 4 * dim, config.dropout));
}

at::Tensor CogVideoXBlockImpl::forward(const at::Tensor& tokens, std::int64_t text_length,
                                       const at::Tensor& temb,
                                       const std::optional<RotaryEmbedding>& rotary,
                                       const SequenceSplit* split, core::KeptAttention* kept) {
    // 1. Norm & modulate, joint attention, gated residual
    auto n1 = norm1->forward(tokens, text_length, temb);
    const at::Tensor attention = attn1->forward(n1.tokens, text_length, rotary, split, kept);
    const at::Tensor hidden =
        core::gated_residual({tokens, attention, n1.gate, n1.encoder_gate, text_length});

    // 2. Norm & modulate, feed-forward, gated residual
    auto n2 = norm2->forward(hidden, text_length, temb);
    return core::gated_residual(
        {hidden, ff->forward(n2.tokens), n2.gate, n2.encoder_gate, text_length}); // [B, L+N, D]
}

CogVideoXTransformer3DModelImpl::CogVideoXTransformer3DModelImpl(
    const CogVideoXTransformer3DConfig& config, torch::Dtype dtype, lora::BaseQuantization stored)
    : config_(config) {
    const DefaultDtypeGuard default_dtype(dtype);
    const std::int64_t dim = config.inner_dim();
    patch_embed = register_module("patch_embed", CogVideoXPatchEmbed(config));
    embedding_dropout = register_module("embedding_dropout", torch::nn::Dropout(config.dropout));
    time_embedding =
        register_module("time_embedding", TimestepEmbedding(dim, config.time_embed_dim));
    if (config.ofs_embed_dim) {
        ofs_embedding = register_module(
            "ofs_embedding", TimestepEmbedding(*config.ofs_embed_dim, *config.ofs_embed_dim));
    }
    transformer_blocks = register_module("transformer_blocks", torch::nn::ModuleList());
    for (std::int64_t i = 0; i < config.num_layers; ++i) {
        const lora::QuantizedBaseGuard blocks_stored(stored); // is_quantized_base_layer's
        CogVideoXBlock block(config);
        transformer_blocks->push_back(block);
        blocks_.push_back(block);
    }
    norm_final = register_module(
        "norm_final",
        torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})
                                 .eps(config.norm_eps)
                                 .elementwise_affine(config.norm_elementwise_affine)));
    norm_out =
        register_module("norm_out", AdaLayerNorm(config.time_embed_dim, 2 * dim,
                                                 config.norm_elementwise_affine, config.norm_eps));
    const std::int64_t patch =
        config.patch_size * config.patch_size * config.patch_size_t.value_or(1);
    proj_out = register_module("proj_out", lora::LoRALinear(dim, patch * config.out_channels));
    to(dtype); // the few tensors built with explicit dtypes (the learned position table)
}

torch::Dtype CogVideoXTransformer3DModelImpl::dtype() const {
    return patch_embed->text_proj->weight.scalar_type();
}

std::optional<RotaryEmbedding> CogVideoXTransformer3DModelImpl::rotary_embeddings(
    std::int64_t latent_frames, std::int64_t latent_height, std::int64_t latent_width) const {
    if (!config_.use_rotary_positional_embeddings) {
        return std::nullopt;
    }
    return prepare_rotary_positional_embeddings(config_, latent_frames, latent_height,
                                                latent_width);
}

std::optional<RotaryEmbedding> CogVideoXTransformer3DModelImpl::rotary_tables_on(
    const std::optional<RotaryEmbedding>& given, const c10::Device& device,
    std::int64_t latent_frames, std::int64_t latent_height, std::int64_t latent_width) {
    // Moved once per forward (given) or built once per latent shape (computed), so no block
    // copies them from the host again, nor does a checkpointed block when it recomputes.
    if (given) {
        return RotaryEmbedding{given->cos.to(device), given->sin.to(device)};
    }
    if (!config_.use_rotary_positional_embeddings) {
        return std::nullopt;
    }
    const std::vector<std::int64_t> grid{latent_frames, latent_height, latent_width};
    if (!rotary_cache_ || rotary_cache_->grid != grid || rotary_cache_->device != device) {
        RotaryEmbedding tables = *rotary_embeddings(latent_frames, latent_height, latent_width);
        rotary_cache_ = CachedRotary{grid, device,
                                     RotaryEmbedding{tables.cos.to(device), tables.sin.to(device)}};
    }
    return rotary_cache_->tables;
}

void CogVideoXTransformer3DModelImpl::check_inputs(
    const models::TransformerInputs& in, const std::optional<RotaryEmbedding>& given_rotary) const {
    const std::string hint = "Check the input tensors against the model's config.json.";
    if (!in.hidden_states.defined() || in.hidden_states.dim() != 5 ||
        in.hidden_states.size(2) != config_.in_channels) {
        bad_input("hidden_states must be [B, F, " + std::to_string(config_.in_channels) +
                      ", H, W] (frames before channels), not " +
                      (in.hidden_states.defined() ? input_shape(in.hidden_states) : "absent") + ".",
                  hint);
    }
    const std::int64_t batch = in.hidden_states.size(0);
    if (!in.encoder_hidden_states.defined() || in.encoder_hidden_states.dim() != 3 ||
        in.encoder_hidden_states.size(0) != batch ||
        in.encoder_hidden_states.size(2) != config_.text_embed_dim) {
        bad_input("encoder_hidden_states must be [" + std::to_string(batch) + ", L, " +
                      std::to_string(config_.text_embed_dim) + "], not " +
                      (in.encoder_hidden_states.defined() ? input_shape(in.encoder_hidden_states)
                                                          : "absent") +
                      ".",
                  hint);
    }
    if (!in.timestep.defined() || in.timestep.dim() > 1 ||
        (in.timestep.numel() != 1 && in.timestep.numel() != batch)) {
        bad_input("timestep must hold 1 or " + std::to_string(batch) + " values.", hint);
    }
    if (config_.ofs_embed_dim && !in.ofs.defined()) {
        bad_input("this model (CogVideoX 1.5 image-to-video) needs `ofs`.",
                  "Pass ofs = [2.0], as the image-to-video pipeline does.");
    }
    const std::int64_t tokens = (in.hidden_states.size(1) / config_.patch_size_t.value_or(1)) *
                                (in.hidden_states.size(3) / config_.patch_size) *
                                (in.hidden_states.size(4) / config_.patch_size);
    if (given_rotary) {
        for (const at::Tensor& table : {given_rotary->cos, given_rotary->sin}) {
            if (!table.defined() || table.dim() != 2 || table.size(0) != tokens ||
                table.size(1) != config_.attention_head_dim) {
                bad_input("the rotary tables must be [" + std::to_string(tokens) + ", " +
                              std::to_string(config_.attention_head_dim) + "] for these latents.",
                          "Leave image_rotary_emb_cos/sin out to have them computed.");
            }
        }
    }
}

at::Tensor CogVideoXTransformer3DModelImpl::time_embeddings(const models::TransformerInputs& in,
                                                            torch::Dtype dtype) {
    at::Tensor t_emb =
        get_timestep_embedding(in.timestep.reshape({-1}), config_.inner_dim(),
                               config_.flip_sin_to_cos, static_cast<double>(config_.freq_shift));
    at::Tensor emb = time_embedding->forward(t_emb.to(dtype)); // [B, E]
    if (!ofs_embedding.is_empty()) {
        at::Tensor ofs_emb = get_timestep_embedding(in.ofs.reshape({-1}), *config_.ofs_embed_dim,
                                                    config_.flip_sin_to_cos,
                                                    static_cast<double>(config_.freq_shift));
        emb = emb + ofs_embedding->forward(ofs_emb.to(dtype)); // ofs [1] broadcasts over B
    }
    return emb;
}

void CogVideoXTransformer3DModelImpl::split_blocks_over(
    const std::shared_ptr<TensorParallel>& parallel) {
    if (tensor_parallel_) {
        throw Error(ErrorCode::Internal, "the transformer's blocks are already split");
    }
    const std::int64_t heads = config_.num_attention_heads;
    if (heads % parallel->size() != 0) {
        throw Error(ErrorCode::BadInput,
                    "Tensor parallelism splits the attention heads, and this model's " +
                        std::to_string(heads) + " heads do not divide by " +
                        std::to_string(parallel->size()) + " ranks.",
                    "Choose a parallel.tp_size that divides " + std::to_string(heads) + ".");
    }
    for (CogVideoXBlock& block : blocks_) {
        block->attn1->split_heads_over(parallel);
        block->ff->split_features_over(parallel);
    }
    tensor_parallel_ = parallel;
}

at::Tensor CogVideoXTransformer3DModelImpl::run_block(std::size_t index, const at::Tensor& tokens,
                                                      std::int64_t text_length,
                                                      const at::Tensor& temb,
                                                      const std::optional<RotaryEmbedding>& rotary,
                                                      const std::optional<SequenceSplit>& split) {
    const auto number = static_cast<std::int64_t>(index);
    std::shared_ptr<CogVideoXBlockImpl> impl = blocks_[index].ptr();
    std::shared_ptr<core::KeptAttention> kept;
    if (keeps_attention() && block_recomputes(number)) {
        kept = std::make_shared<core::KeptAttention>();
    }
    // A recomputation runs during backward, after forward returned: it keeps its own copies.
    return run_block_function(
        number,
        [impl, text_length, rotary, split, kept](const std::vector<at::Tensor>& in) {
            return std::vector<at::Tensor>{impl->forward(in[0], text_length, in[1], rotary,
                                                         split ? &*split : nullptr, kept.get())};
        },
        {tokens, temb})[0];
}

torch::nn::Module& CogVideoXTransformer3DModelImpl::block_module(std::int64_t index) {
    return *blocks_.at(static_cast<std::size_t>(index));
}

at::Tensor CogVideoXTransformer3DModelImpl::unpatchify(const at::Tensor& tokens,
                                                       const at::IntArrayRef& shape) const {
    const std::int64_t batch = shape[0];
    const std::int64_t frames = shape[1];
    const std::int64_t p = config_.patch_size;
    const std::int64_t h = shape[3] / p;
    const std::int64_t w = shape[4] / p;
    if (!config_.patch_size_t) {
        // feature index (c * p + dy) * p + dx
        return tokens.reshape({batch, frames, h, w, -1, p, p})
            .permute({0, 1, 4, 2, 5, 3, 6})
            .flatten(5, 6)
            .flatten(3, 4); // [B, F, C, H, W]
    }
    const std::int64_t pt = *config_.patch_size_t;
    // feature index ((c * pt + dt) * p + dy) * p + dx
    return tokens.reshape({batch, (frames + pt - 1) / pt, h, w, -1, pt, p, p})
        .permute({0, 1, 5, 4, 2, 6, 3, 7})
        .flatten(6, 7)
        .flatten(4, 5)
        .flatten(1, 2); // [B, F, C, H, W]
}

at::Tensor CogVideoXTransformer3DModelImpl::forward(const models::TransformerInputs& inputs) {
    std::optional<RotaryEmbedding> given;
    const auto cos = inputs.extra.find("image_rotary_emb_cos");
    const auto sin = inputs.extra.find("image_rotary_emb_sin");
    if (cos != inputs.extra.end() && sin != inputs.extra.end()) {
        given = RotaryEmbedding{cos->second, sin->second};
    }
    return run_stage(inputs, given, 0, config_.num_layers, nullptr).prediction;
}

at::Tensor CogVideoXTransformer3DModelImpl::forward(const CogVideoXTransformerInputs& inputs) {
    return run_stage(inputs, inputs.image_rotary_emb, 0, config_.num_layers, nullptr).prediction;
}

StageOutput CogVideoXTransformer3DModelImpl::forward_stage(const models::TransformerInputs& inputs,
                                                           std::int64_t begin, std::int64_t end,
                                                           const StageTokens* carried) {
    return run_stage(inputs, std::nullopt, begin, end, carried);
}

TensorParallelLayout CogVideoXTransformer3DModelImpl::tensor_parallel_layout() const {
    if (!tensor_parallel_) {
        return {};
    }
    return cogvideox::tensor_parallel_layout(*this);
}

bool CogVideoXTransformer3DModelImpl::is_quantized_base_layer(
    const std::string& module_name) const {
    return cogvideox::is_quantized_base_layer(module_name);
}

std::int64_t
CogVideoXTransformer3DModelImpl::video_token_count(const at::IntArrayRef& latent_shape) const {
    return (latent_shape[1] / config_.patch_size_t.value_or(1)) *
           (latent_shape[3] / config_.patch_size) * (latent_shape[4] / config_.patch_size);
}

std::optional<CogVideoXTransformer3DModelImpl::TokenRuns>
CogVideoXTransformer3DModelImpl::token_runs(std::int64_t text_length,
                                            std::int64_t video_length) const {
    const std::shared_ptr<TokenExchange>& exchange = token_exchange();
    if (!exchange || exchange->size() <= 1) {
        return std::nullopt;
    }
    // Each rank keeps a run of the text and a run of the video tokens; every layer but
    // attention works token by token, so only attention needs the others.
    const std::int64_t ranks = exchange->size();
    const auto me = static_cast<std::size_t>(exchange->rank());
    const std::vector<std::int64_t> text_parts = even_parts(text_length, ranks);
    TokenRuns runs{SequenceSplit{exchange, {}}, even_parts(video_length, ranks)};
    for (std::size_t i = 0; i < me; ++i) {
        runs.text_start += text_parts[i];
        runs.video_start += runs.video_parts[i];
    }
    for (std::size_t i = 0; i < text_parts.size(); ++i) {
        runs.split.lengths.push_back(text_parts[i] + runs.video_parts[i]);
    }
    runs.text_length = text_parts[me];
    runs.video_length = runs.video_parts[me];
    return runs;
}

std::vector<std::vector<std::int64_t>>
CogVideoXTransformer3DModelImpl::stage_token_shapes(const models::TransformerInputs& in) const {
    const std::int64_t batch = in.hidden_states.size(0);
    std::int64_t text = in.encoder_hidden_states.size(1);
    std::int64_t video = video_token_count(in.hidden_states.sizes());
    if (const std::optional<TokenRuns> runs = token_runs(text, video)) {
        text = runs->text_length;
        video = runs->video_length;
    }
    const std::int64_t width = config_.inner_dim();
    return {
        {batch, video, width}, {batch, text, width}, {in.timestep.numel(), config_.time_embed_dim}};
}

StageOutput CogVideoXTransformer3DModelImpl::run_stage(
    const models::TransformerInputs& inputs, const std::optional<RotaryEmbedding>& given_rotary,
    std::int64_t begin, std::int64_t end, const StageTokens* carried) {
    check_inputs(inputs, given_rotary);
    if (begin < 0 || end > config_.num_layers || begin >= end || (begin > 0 && !carried)) {
        throw Error(ErrorCode::Internal, "a pipeline stage's blocks or tokens are wrong");
    }
    const torch::Dtype model_dtype = dtype();
    const auto shape = inputs.hidden_states.sizes();
    const std::int64_t text_length = inputs.encoder_hidden_states.size(1);
    std::optional<RotaryEmbedding> rotary =
        rotary_tables_on(given_rotary, inputs.hidden_states.device(), shape[1], shape[3], shape[4]);
    const std::optional<TokenRuns> runs = token_runs(text_length, video_token_count(shape));
    if (runs && rotary) {
        rotary = RotaryEmbedding{rotary->cos.narrow(0, runs->video_start, runs->video_length),
                                 rotary->sin.narrow(0, runs->video_start, runs->video_length)};
    }
    at::Tensor tokens; // [B, L+N, D]: text, then video (this rank's runs of each)
    std::int64_t text_rows = text_length;
    at::Tensor emb;
    if (begin == 0) {
        emb = time_embeddings(inputs, model_dtype);
        tokens = embedding_dropout->forward(
            patch_embed->forward(inputs.encoder_hidden_states.to(model_dtype),
                                 inputs.hidden_states.to(model_dtype))); // [B, L + N, D]
        if (runs) {
            tokens =
                torch::cat({tokens.narrow(1, runs->text_start, runs->text_length),
                            tokens.narrow(1, text_length + runs->video_start, runs->video_length)},
                           1);
            text_rows = runs->text_length;
        }
    } else {
        const at::Tensor& encoder = carried->parts.at(1);
        tokens = torch::cat({encoder, carried->parts.at(0)}, 1);
        text_rows = encoder.size(1);
        emb = carried->parts.at(2);
    }
    std::optional<SequenceSplit> split;
    if (runs) {
        split = runs->split;
    }
    for (auto i = static_cast<std::size_t>(begin); i < static_cast<std::size_t>(end); ++i) {
        tokens = run_block(i, tokens, text_rows, emb, rotary, split);
    }
    at::Tensor hidden = tokens.narrow(1, text_rows, tokens.size(1) - text_rows); // [B, N, D]
    if (end < config_.num_layers) {
        return {{{hidden.contiguous(), tokens.narrow(1, 0, text_rows).contiguous(), emb}}, {}};
    }
    // LayerNorm is per token, so normalising the video tokens alone equals diffusers'
    // normalise-[text; video]-then-slice path of the rotary models.
    hidden = norm_final->forward(hidden);
    hidden = norm_out->forward(hidden, emb);
    hidden = proj_out->forward(hidden); // [B, N, p*p*pt*C]
    if (runs) {
        hidden = token_exchange()->gather_tokens(hidden, runs->video_parts);
    }
    return {{}, unpatchify(hidden, shape)};
}

void CogVideoXTransformer3DModelImpl::keep_stage(std::int64_t begin, std::int64_t end) {
    if (begin < 0 || end > config_.num_layers || begin >= end) {
        throw Error(ErrorCode::Internal, "a pipeline stage's blocks are wrong");
    }
    for (std::int64_t i = 0; i < config_.num_layers; ++i) {
        if (i < begin || i >= end) {
            release_module(*blocks_[static_cast<std::size_t>(i)]);
        }
    }
    if (begin > 0) {
        release_module(*patch_embed);
        release_module(*time_embedding);
        if (!ofs_embedding.is_empty()) {
            release_module(*ofs_embedding);
        }
    }
    if (end < config_.num_layers) {
        release_module(*norm_final);
        release_module(*norm_out);
        release_module(*proj_out);
    }
}

} // namespace tuneframe::models::cogvideox
