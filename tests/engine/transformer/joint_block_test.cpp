// CogVideoXBlock keeps text and video in one buffer: its outputs and every gradient equal the
// two-stream block it replaced (diffusers' layout: per-stream norms, a concatenation for
// attention and one for the feed-forward, index splits after each, q, k and v adapters apart),
// within float32 rounding; the parameters keep their checkpoint names.
#include "engine/lora/lora_linear.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"

#include "engine/core/kernels/attention.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <ostream>
#include <string>
#include <vector>

namespace tuneframe::models::cogvideox {
namespace {

using torch::indexing::Slice;

// A trained-looking adapter on each attention projection, as the LoRA runs target them.
void add_adapters(AttentionImpl& attention) {
    lora::LoRALinearImpl* out = attention.to_out[0]->as<lora::LoRALinearImpl>();
    for (lora::LoRALinearImpl* layer :
         {attention.to_q.get(), attention.to_k.get(), attention.to_v.get(), out}) {
        layer->add_adapter({4, 8});
        torch::NoGradGuard no_grad;
        layer->lora_B->weight.normal_(0.0, 0.2);
    }
}

// LoRALinear as it computed before the update was accumulated into the base output.
at::Tensor two_pass_lora(lora::LoRALinearImpl& layer, const at::Tensor& x) {
    at::Tensor base = torch::nn::functional::linear(x, layer.weight, layer.bias);
    if (!layer.has_adapter()) {
        return base;
    }
    return base + layer.lora_B->forward(layer.lora_A->forward(x)) * layer.scaling();
}

at::Tensor rotate(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
    std::vector<std::int64_t> pairs = x.sizes().vec();
    pairs.back() /= 2;
    pairs.push_back(2);
    const auto parts = x.reshape(pairs).unbind(-1);
    const at::Tensor rotated = torch::stack({-parts[1], parts[0]}, -1).flatten(3);
    return x * cos.unsqueeze(0).unsqueeze(0) + rotated * sin.unsqueeze(0).unsqueeze(0);
}

std::pair<at::Tensor, at::Tensor>
two_stream_attention(AttentionImpl& attention, const at::Tensor& hidden, const at::Tensor& encoder,
                     const std::optional<RotaryEmbedding>& rotary, std::int64_t heads) {
    const std::int64_t text = encoder.size(1);
    const at::Tensor tokens = torch::cat({encoder, hidden}, 1);
    const std::int64_t batch = tokens.size(0);
    const auto split_heads = [&](const at::Tensor& x) {
        return x.view({batch, -1, heads, x.size(-1) / heads}).transpose(1, 2);
    };
    at::Tensor q = attention.norm_q->forward(split_heads(two_pass_lora(*attention.to_q, tokens)));
    at::Tensor k = attention.norm_k->forward(split_heads(two_pass_lora(*attention.to_k, tokens)));
    const at::Tensor v = split_heads(two_pass_lora(*attention.to_v, tokens));
    if (rotary) {
        const auto video_rotated = [&](const at::Tensor& x) {
            return torch::cat(
                {x.index({Slice(), Slice(), Slice(0, text)}),
                 rotate(x.index({Slice(), Slice(), Slice(text)}), rotary->cos, rotary->sin)},
                2);
        };
        q = video_rotated(q);
        k = video_rotated(k);
    }
    at::Tensor out = core::scaled_dot_product_attention(q, k, v);
    out = out.transpose(1, 2).reshape({batch, -1, tokens.size(2)});
    out = two_pass_lora(*attention.to_out[0]->as<lora::LoRALinearImpl>(), out);
    return {out.index({Slice(), Slice(text)}), out.index({Slice(), Slice(0, text)})};
}

std::pair<at::Tensor, at::Tensor> two_stream_block(CogVideoXBlockImpl& block, at::Tensor hidden,
                                                   at::Tensor encoder, const at::Tensor& temb,
                                                   const std::optional<RotaryEmbedding>& rotary,
                                                   std::int64_t heads) {
    const std::int64_t text = encoder.size(1);
    const auto modulate = [](const at::Tensor& x, const at::Tensor& shift,
                             const at::Tensor& scale) {
        return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1);
    };
    auto m = block.norm1->linear->forward(torch::silu(temb)).chunk(6, 1);
    auto [attn_hidden, attn_encoder] = two_stream_attention(
        *block.attn1, modulate(block.norm1->norm->forward(hidden), m[0], m[1]),
        modulate(block.norm1->norm->forward(encoder), m[3], m[4]), rotary, heads);
    hidden = hidden + m[2].unsqueeze(1) * attn_hidden;
    encoder = encoder + m[5].unsqueeze(1) * attn_encoder;

    m = block.norm2->linear->forward(torch::silu(temb)).chunk(6, 1);
    const at::Tensor ff =
        block.ff->forward(torch::cat({modulate(block.norm2->norm->forward(encoder), m[3], m[4]),
                                      modulate(block.norm2->norm->forward(hidden), m[0], m[1])},
                                     1));
    hidden = hidden + m[2].unsqueeze(1) * ff.index({Slice(), Slice(text)});
    encoder = encoder + m[5].unsqueeze(1) * ff.index({Slice(), Slice(0, text)});
    return {hidden, encoder};
}

void expect_close(const at::Tensor& actual, const at::Tensor& expected, const std::string& what) {
    ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
    const double scale = expected.abs().max().item<double>();
    const double error = (actual - expected).abs().max().item<double>();
    EXPECT_LE(error, 2e-5 * scale + 1e-6) << what << ": largest value " << scale;
}

struct Case {
    bool rotary;
    std::int64_t batch;
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << (c.rotary ? "rotary" : "sin-cos") << ", batch " << c.batch;
}

class OneBufferBlock : public ::testing::TestWithParam<Case> {};

TEST_P(OneBufferBlock, EqualsTheTwoStreamBlockAndItsGradients) {
    torch::manual_seed(31);
    CogVideoXTransformer3DConfig config = find_architecture("cogvideox-tiny").transformer;
    config.use_rotary_positional_embeddings = GetParam().rotary;
    const std::int64_t batch = GetParam().batch;
    CogVideoXBlock block(config);
    add_adapters(*block->attn1);
    const std::int64_t dim = config.inner_dim();
    const std::int64_t text = 7;
    const std::int64_t video = 24;
    const at::Tensor hidden = torch::randn({batch, video, dim}).requires_grad_();
    const at::Tensor encoder = torch::randn({batch, text, dim}).requires_grad_();
    const at::Tensor temb = torch::randn({batch, config.time_embed_dim}).requires_grad_();
    std::optional<RotaryEmbedding> rotary;
    if (GetParam().rotary) {
        rotary = RotaryEmbedding{torch::randn({video, config.attention_head_dim}),
                                 torch::randn({video, config.attention_head_dim})};
    }
    std::vector<at::Tensor> wrt{hidden, encoder, temb};
    std::vector<std::string> names{"hidden_states", "encoder_hidden_states", "temb"};
    for (const auto& parameter : block->named_parameters()) {
        wrt.push_back(parameter.value());
        names.push_back(parameter.key());
    }
    const at::Tensor probe_hidden = torch::randn({batch, video, dim});
    const at::Tensor probe_encoder = torch::randn({batch, text, dim});

    auto [old_hidden, old_encoder] =
        two_stream_block(*block, hidden, encoder, temb, rotary, config.num_attention_heads);
    const at::Tensor tokens =
        block->forward(torch::cat({encoder, hidden}, 1), text, temb, rotary); // [B, L+N, D]
    const at::Tensor new_hidden = tokens.index({Slice(), Slice(text)});
    const at::Tensor new_encoder = tokens.index({Slice(), Slice(0, text)});
    expect_close(new_hidden, old_hidden, "hidden_states");
    expect_close(new_encoder, old_encoder, "encoder_hidden_states");

    const auto gradients = [&](const at::Tensor& h, const at::Tensor& e) {
        return torch::autograd::grad({(h * probe_hidden).sum() + (e * probe_encoder).sum()}, wrt,
                                     {}, /*retain_graph=*/false, /*create_graph=*/false,
                                     /*allow_unused=*/true);
    };
    const auto expected = gradients(old_hidden, old_encoder);
    const auto actual = gradients(new_hidden, new_encoder);
    for (std::size_t i = 0; i < wrt.size(); ++i) {
        ASSERT_EQ(actual[i].defined(), expected[i].defined()) << names[i];
        if (expected[i].defined()) {
            expect_close(actual[i], expected[i], "the gradient of " + names[i]);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, OneBufferBlock,
                         ::testing::Values(Case{true, 1}, Case{true, 2}, Case{false, 2}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                             return std::string(info.param.rotary ? "Rotary" : "SinCos") + "Batch" +
                                    std::to_string(info.param.batch);
                         });

TEST(OneBufferBlock, KeepsTheCheckpointNames) {
    CogVideoXBlock block(find_architecture("cogvideox-tiny").transformer);
    add_adapters(*block->attn1);
    std::vector<std::string> names;
    for (const auto& parameter : block->named_parameters()) {
        names.push_back(parameter.key());
    }
    const std::vector<std::string> expected{"norm1.linear.weight",
                                            "norm1.linear.bias",
                                            "norm1.norm.weight",
                                            "norm1.norm.bias",
                                            "attn1.to_q.weight",
                                            "attn1.to_q.bias",
                                            "attn1.to_q.lora_A.weight",
                                            "attn1.to_q.lora_B.weight",
                                            "attn1.to_k.weight",
                                            "attn1.to_k.bias",
                                            "attn1.to_k.lora_A.weight",
                                            "attn1.to_k.lora_B.weight",
                                            "attn1.to_v.weight",
                                            "attn1.to_v.bias",
                                            "attn1.to_v.lora_A.weight",
                                            "attn1.to_v.lora_B.weight",
                                            "attn1.norm_q.weight",
                                            "attn1.norm_q.bias",
                                            "attn1.norm_k.weight",
                                            "attn1.norm_k.bias",
                                            "attn1.to_out.0.weight",
                                            "attn1.to_out.0.bias",
                                            "attn1.to_out.0.lora_A.weight",
                                            "attn1.to_out.0.lora_B.weight",
                                            "norm2.linear.weight",
                                            "norm2.linear.bias",
                                            "norm2.norm.weight",
                                            "norm2.norm.bias",
                                            "ff.net.0.proj.weight",
                                            "ff.net.0.proj.bias",
                                            "ff.net.2.weight",
                                            "ff.net.2.bias"};
    EXPECT_EQ(names, expected);
}

} // namespace
} // namespace tuneframe::models::cogvideox
