// Quantized frozen base weights (lora.base_quantization): the per-channel round trip, the layer
// that computes through them (forward, gradients, what it stores) and which layers of a
// CogVideoX transformer are quantized. fp8 cases run where the linked LibTorch has fp8 (2.1 and
// newer, as CI's 2.6 root) and say why they skip elsewhere.
#include "engine/core/error.h"
#include "engine/core/kernels/float8.h"
#include "engine/lora/lora_injection.h"
#include "engine/lora/lora_linear.h"
#include "engine/lora/quantized_weight.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"
#include "engine/models/cogvideox/memory_estimate.h"
#include "engine/models/cogvideox/quantized_base.h"
#include "tests/engine/lora/finite_differences.h"
#include "tests/engine/lora/tiny_lora_model.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <iostream>

namespace tuneframe::lora {
namespace {

using models::cogvideox::CogVideoXTransformer3DModel;
using models::cogvideox::CogVideoXTransformerInputs;
using testing::tiny_config;
using testing::tiny_inputs;

constexpr const char* kNoFloat8 = "this LibTorch has no fp8 dtype (LibTorch 2.1 or newer has)";

// Rows of very different magnitudes and one row of zeros: what per-channel scales are for.
at::Tensor awkward_weight() {
    torch::manual_seed(5);
    at::Tensor weight = torch::randn({37, 53}) * torch::logspace(-3, 2, 37).unsqueeze(1);
    weight[7].zero_();
    weight[11][3] = 40.0; // one outlier sets its row's scale
    return weight;
}

TEST(QuantizedWeight, Int8RoundTripIsWithinHalfAStepPerChannel) {
    const at::Tensor weight = awkward_weight();
    const QuantizedWeight quantized = quantize_weight(weight, BaseQuantization::Int8);
    ASSERT_EQ(quantized.values.scalar_type(), torch::kInt8);
    ASSERT_EQ(quantized.values.sizes(), weight.sizes());
    ASSERT_EQ(quantized.scale.scalar_type(), torch::kFloat32);
    ASSERT_EQ(quantized.scale.sizes(), at::IntArrayRef({37}));
    // Symmetric absmax: each non-zero row reaches +-127 exactly once scaled.
    const at::Tensor row_max = quantized.values.to(torch::kInt32).abs().amax(1);
    EXPECT_EQ(row_max[0].item<int>(), 127);
    EXPECT_EQ(row_max[7].item<int>(), 0);
    EXPECT_LE(row_max.max().item<int>(), 127);

    const at::Tensor error = (weight - dequantize_weight(quantized, torch::kFloat32)).abs();
    // |w - q * scale| <= scale / 2, plus float32 rounding of w / scale and q * scale.
    const at::Tensor bound = quantized.scale.unsqueeze(1) * (0.5 + 1e-5);
    EXPECT_TRUE((error <= bound).all().item<bool>())
        << "worst excess " << (error - bound).max().item<double>();
    EXPECT_EQ(error[7].max().item<double>(), 0.0); // a zero row stays zero
}

TEST(QuantizedWeight, Float8RoundTripKeepsThreeMantissaBits) {
    if (!core::kHasFloat8) {
        GTEST_SKIP() << kNoFloat8;
    }
    const at::Tensor weight = awkward_weight();
    const QuantizedWeight quantized = quantize_weight(weight, BaseQuantization::Float8);
    ASSERT_EQ(quantized.values.scalar_type(), core::float8_e4m3_dtype("test"));
    EXPECT_EQ(quantized.values.element_size(), 1);
    const at::Tensor error = (weight - dequantize_weight(quantized, torch::kFloat32)).abs();
    // e4m3: a relative step of 2^-3 for normal values (half of it in error), subnormals below
    // 2^-6 in steps of 2^-9: an absolute error of 2^-10 scales.
    const at::Tensor scale = quantized.scale.unsqueeze(1);
    const at::Tensor bound =
        torch::maximum(weight.abs() * std::pow(2.0, -4), scale * std::pow(2.0, -10)) * (1 + 1e-5);
    EXPECT_TRUE((error <= bound).all().item<bool>())
        << "worst excess " << (error - bound).max().item<double>();
    EXPECT_FALSE(dequantize_weight(quantized, torch::kFloat32).isnan().any().item<bool>());
}

TEST(QuantizedWeight, Float8IsRefusedByNameWhereLibTorchHasNone) {
    if (core::kHasFloat8) {
        EXPECT_EQ(parse_base_quantization("fp8"), BaseQuantization::Float8);
        GTEST_SKIP() << "this LibTorch has fp8; the refusal is for LibTorch before 2.1";
    }
    try {
        parse_base_quantization("fp8");
        FAIL() << "expected fp8 to be refused";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::Unsupported);
        const std::string message = error.what();
        EXPECT_NE(message.find("LibTorch 2.1 or newer"), std::string::npos) << message;
        EXPECT_NE(message.find(TORCH_VERSION), std::string::npos) << message;
        EXPECT_NE(error.hint().find("int8"), std::string::npos) << error.hint();
    }
}

TEST(QuantizedWeight, ParsesTheJobNames) {
    EXPECT_EQ(parse_base_quantization("none"), BaseQuantization::None);
    EXPECT_EQ(parse_base_quantization("int8"), BaseQuantization::Int8);
    EXPECT_THROW(parse_base_quantization("int4"), core::Error);
}

// A layer with a trained-looking adapter, and the same layer with its base quantized.
struct LayerPair {
    LoRALinear full{nullptr};
    LoRALinear quantized{nullptr};
};

LayerPair layer_pair(torch::Dtype dtype, BaseQuantization quantization) {
    torch::manual_seed(13);
    LayerPair pair{LoRALinear(24, 20), LoRALinear(24, 20)};
    for (LoRALinear* layer : {&pair.full, &pair.quantized}) {
        (*layer)->to(dtype);
        (*layer)->add_adapter({4, 8.0});
        if (dtype == torch::kFloat64) { // for finite differences; otherwise float32 masters
            (*layer)->lora_A->to(dtype);
            (*layer)->lora_B->to(dtype);
        }
    }
    torch::NoGradGuard no_grad;
    pair.full->lora_B->weight.normal_();
    auto source = pair.full->named_parameters();
    for (auto& item : pair.quantized->named_parameters()) {
        item.value().copy_(source[item.key()]);
    }
    pair.quantized->quantize_base(quantization);
    // The reference computes with exactly the weight the quantized layer sees.
    pair.full->weight.copy_(dequantize_weight(
        {pair.quantized->weight, pair.quantized->weight_scale}, pair.full->weight.scalar_type()));
    return pair;
}

TEST(QuantizedLinear, StoresOneBytePerWeightUnderTheCheckpointNames) {
    LoRALinear layer(64, 32);
    layer->add_adapter({4, 4.0});
    layer->quantize_base(BaseQuantization::Int8);
    EXPECT_EQ(layer->weight.scalar_type(), torch::kInt8);
    EXPECT_FALSE(layer->weight.requires_grad());
    EXPECT_EQ(layer->weight.storage().nbytes(), 64u * 32u); // the float32 storage is gone
    const auto parameters = layer->named_parameters();
    EXPECT_TRUE(parameters.contains("weight"));
    EXPECT_TRUE(parameters.contains("bias"));
    EXPECT_TRUE(parameters.contains("lora_A.weight"));
    EXPECT_TRUE(layer->named_buffers().contains("weight_scale"));
    // Casting the model casts the bias; the quantized values and scales keep their types.
    layer->to(torch::kBFloat16);
    EXPECT_EQ(layer->weight.scalar_type(), torch::kInt8);
    EXPECT_EQ(layer->weight_scale.scalar_type(), torch::kFloat32);
    EXPECT_EQ(layer->bias.scalar_type(), torch::kBFloat16);
    EXPECT_EQ(layer->lora_A->weight.scalar_type(), torch::kFloat32);
    // Merging needs the unquantized base; the error says where to get it.
    try {
        layer->merge();
        FAIL() << "expected merge to be refused";
    } catch (const core::Error& error) {
        EXPECT_NE(std::string(error.what()).find("int8"), std::string::npos) << error.what();
        EXPECT_NE(error.hint().find("export"), std::string::npos) << error.hint();
    }
}

TEST(QuantizedLinear, ComputesWhatTheDequantizedWeightComputes) {
    for (const auto dtype : {torch::kFloat32, torch::kBFloat16}) {
        LayerPair pair = layer_pair(dtype, BaseQuantization::Int8);
        const at::Tensor x = torch::randn({3, 5, 24}).to(dtype);
        torch::NoGradGuard no_grad;
        const at::Tensor expected = pair.full->forward(x).to(torch::kFloat32);
        const at::Tensor actual = pair.quantized->forward(x).to(torch::kFloat32);
        ASSERT_EQ(pair.quantized->forward(x).scalar_type(), dtype);
        // float32: the scale applied after the product instead of before; bf16: that and one
        // more bf16 rounding of the product.
        const double tolerance = dtype == torch::kFloat32 ? 1e-5 : 2e-2;
        EXPECT_TRUE(torch::allclose(actual, expected, tolerance, tolerance))
            << "dtype " << c10::toString(dtype) << ", max difference "
            << (actual - expected).abs().max().item<double>();
    }
}

// Central differences in float64 against the custom backward, for every tensor that trains
// and for the input.
TEST(QuantizedLinear, GradientMatchesFiniteDifferences) {
    LayerPair pair = layer_pair(torch::kFloat64, BaseQuantization::Int8);
    LoRALinear& layer = pair.quantized;
    const at::Tensor x = torch::randn({4, 24}, torch::kFloat64).requires_grad_();
    const at::Tensor probe = torch::randn({4, 20}, torch::kFloat64);
    auto loss = [&]() {
        return (layer->forward(x) * probe).sum();
    };
    loss().backward();
    EXPECT_FALSE(layer->weight.grad().defined());
    // Every 7th element: the layer is wider than LoRALinear's own test.
    testing::expect_gradients_match_finite_differences(
        {layer->lora_A->weight, layer->lora_B->weight, layer->bias, x}, loss, 7, 1e-6);
}

TEST(QuantizedLinear, Float8ComputesWhatTheDequantizedWeightComputes) {
    if (!core::kHasFloat8) {
        GTEST_SKIP() << kNoFloat8;
    }
    LayerPair pair = layer_pair(torch::kFloat32, BaseQuantization::Float8);
    const at::Tensor x = torch::randn({6, 24}).requires_grad_();
    const at::Tensor expected = pair.full->forward(x);
    const at::Tensor actual = pair.quantized->forward(x);
    EXPECT_TRUE(torch::allclose(actual, expected, 1e-5, 1e-5));
    actual.square().sum().backward();
    const at::Tensor quantized_grad = x.grad().clone();
    x.mutable_grad() = at::Tensor();
    expected.square().sum().backward();
    EXPECT_TRUE(torch::allclose(quantized_grad, x.grad(), 1e-4, 1e-5));
}

TEST(QuantizedBase, QuantizesEveryBlockLinearAndNothingElse) {
    const auto config = tiny_config();
    CogVideoXTransformer3DModel model(config);
    const std::int64_t layers =
        models::cogvideox::quantize_transformer_base(*model, BaseQuantization::Int8);
    EXPECT_EQ(layers, config.num_layers * 8); // norm1, norm2, q, k, v, out, ff in, ff out
    std::int64_t quantized_elements = 0;
    for (const auto& item : model->named_parameters()) {
        const bool in_block = item.key().rfind("transformer_blocks.", 0) == 0;
        const bool linear_weight = item.key().size() > 7 &&
                                   item.key().compare(item.key().size() - 7, 7, ".weight") == 0 &&
                                   item.value().dim() == 2;
        if (item.value().scalar_type() == torch::kInt8) {
            EXPECT_TRUE(in_block && linear_weight) << item.key();
            quantized_elements += item.value().numel();
        } else {
            EXPECT_FALSE(in_block && linear_weight) << item.key() << " was left unquantized";
        }
    }
    std::int64_t scales = 0;
    for (const auto& item : model->named_buffers()) {
        if (item.key().find("weight_scale") != std::string::npos) {
            scales += item.value().numel();
        }
    }
    // The memory estimate counts the same tensors.
    const auto count = models::cogvideox::quantized_base_count(config);
    EXPECT_EQ(quantized_elements, count.weights);
    EXPECT_EQ(scales, count.channels);
    EXPECT_EQ(model->dtype(), torch::kFloat32);
}

// What an int8 base costs the forward of the tiny transformer (random Kaiming-uniform weights),
// as a relative L2 error against the same model unquantized: a uniform row of absmax b has RMS
// b / sqrt(3); int8 rounds to steps of b / 127 with an RMS error of b / (127 sqrt(12)), 0.4% of
// the weights' RMS, and the two blocks' residual stream dilutes it. Measured: 0.045% (LibTorch
// 1.13 and 2.6). The bound is the per-weight 0.4% itself, so error adding up over the 16
// quantized layers fits under it while a wrong scale or a transposed weight (errors of order
// one) does not.
TEST(QuantizedBase, Int8ForwardStaysWithinTheInt8RoundingOfTheUnquantizedModel) {
    const auto config = tiny_config();
    torch::manual_seed(3);
    CogVideoXTransformer3DModel full(config);
    CogVideoXTransformer3DModel quantized(config);
    {
        torch::NoGradGuard no_grad;
        auto source = full->named_parameters();
        for (auto& item : quantized->named_parameters()) {
            item.value().copy_(source[item.key()]);
        }
    }
    models::cogvideox::quantize_transformer_base(*quantized, BaseQuantization::Int8);
    torch::NoGradGuard no_grad;
    const at::Tensor expected = full->forward(tiny_inputs(config));
    const at::Tensor actual = quantized->forward(tiny_inputs(config));
    const double relative = ((actual - expected).norm() / expected.norm()).item<double>();
    EXPECT_LT(relative, 0.004);
    EXPECT_GT(relative, 0.0); // the base really is quantized
    std::cout << "[ int8 base ] relative forward error " << relative << std::endl;
}

// Gradient checkpointing converts the quantized weights again while it recomputes a block:
// the adapters get the gradients they get without it.
TEST(QuantizedBase, CheckpointingGivesTheSameAdapterGradients) {
    const auto config = tiny_config();
    auto gradients = [&](bool checkpointing) {
        torch::manual_seed(9);
        CogVideoXTransformer3DModel model(config);
        models::cogvideox::quantize_transformer_base(*model, BaseQuantization::Int8);
        LoRAConfig lora;
        lora.target_modules = {"to_q", "to_v", "ff.net.2"};
        inject_lora(*model, lora);
        freeze_all_but_lora(*model);
        {
            torch::NoGradGuard no_grad;
            for (at::Tensor parameter : lora_parameters(*model)) {
                parameter.normal_(0.0, 0.1);
            }
        }
        model->set_gradient_checkpointing(checkpointing);
        model->train();
        model->forward(tiny_inputs(config)).square().mean().backward();
        std::vector<at::Tensor> grads;
        for (const at::Tensor& parameter : lora_parameters(*model)) {
            grads.push_back(parameter.grad().clone());
        }
        return grads;
    };
    const auto plain = gradients(false);
    const auto checkpointed = gradients(true);
    ASSERT_EQ(plain.size(), checkpointed.size());
    for (std::size_t i = 0; i < plain.size(); ++i) {
        EXPECT_TRUE(torch::allclose(plain[i], checkpointed[i], 1e-5, 1e-7)) << i;
        EXPECT_GT(plain[i].abs().sum().item<double>(), 0.0) << i;
    }
}

TEST(QuantizedBase, TheEstimateCountsOneBytePerQuantizedWeight) {
    const auto config = models::cogvideox::find_architecture("cogvideox-5b").transformer;
    const models::cogvideox::VideoShape shape;
    const auto bf16 =
        models::cogvideox::estimate_lora_training_memory(config, 2, shape, 64, {config.num_layers});
    const auto int8 = models::cogvideox::estimate_lora_training_memory(
        config, 2, shape, 64, {config.num_layers}, BaseQuantization::Int8);
    const auto count = models::cogvideox::quantized_base_count(config);
    EXPECT_EQ(bf16.weights - int8.weights,
              static_cast<std::uint64_t>(count.weights - 4 * count.channels));
    EXPECT_EQ(int8.activations, bf16.activations);
    EXPECT_EQ(int8.trainable, bf16.trainable);
    // The blocks hold nearly all of 5b: its weights come close to halving.
    EXPECT_LT(static_cast<double>(int8.weights), 0.52 * static_cast<double>(bf16.weights));
}

} // namespace
} // namespace tuneframe::lora
