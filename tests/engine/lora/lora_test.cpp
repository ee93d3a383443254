// LoRALinear, injection by name and the PEFT/diffusers file layout, without golden data.
#include "engine/core/error.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "engine/core/tensor_io.h"
#include "engine/lora/lora_injection.h"
#include "engine/lora/lora_linear.h"
#include "engine/lora/lora_rank_check.h"
#include "engine/lora/lora_weights.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"
#include "tests/engine/lora/finite_differences.h"
#include "tests/engine/lora/tiny_lora_model.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

namespace tuneframe::lora {
namespace {

using models::cogvideox::CogVideoXTransformer3DModel;
using models::cogvideox::CogVideoXTransformerInputs;
using testing::tiny_config;
using testing::tiny_inputs;

LoRALinear float64_layer(std::int64_t in, std::int64_t out, std::int64_t rank, double alpha) {
    LoRALinear layer(in, out);
    layer->to(torch::kFloat64);
    layer->add_adapter({rank, alpha});
    layer->lora_A->to(torch::kFloat64);
    layer->lora_B->to(torch::kFloat64);
    torch::NoGradGuard no_grad;
    layer->lora_B->weight.normal_(); // a trained-looking adapter, so every path carries signal
    return layer;
}

// Central differences in float64 against autograd, for every tensor the layer touches.
TEST(LoRALinear, GradientMatchesFiniteDifferences) {
    torch::manual_seed(11);
    LoRALinear layer = float64_layer(6, 5, 3, 6.0);
    layer->set_adapter_weight(0.7);
    const at::Tensor x = torch::randn({4, 6}, torch::kFloat64).requires_grad_();
    const at::Tensor probe = torch::randn({4, 5}, torch::kFloat64);
    auto loss = [&]() {
        return (layer->forward(x) * probe).sum();
    };
    loss().backward();

    testing::expect_gradients_match_finite_differences(
        {layer->lora_A->weight, layer->lora_B->weight, layer->weight, layer->bias, x}, loss, 1,
        1e-7);
}

// The base is initialised call for call as nn::Linear, so seeds give the same weights.
TEST(LoRALinear, InitialisesLikeNnLinear) {
    torch::manual_seed(10);
    torch::nn::Linear reference(24, 40);
    torch::manual_seed(10);
    LoRALinear layer(24, 40);
    EXPECT_TRUE(torch::equal(layer->weight, reference->weight));
    EXPECT_TRUE(torch::equal(layer->bias, reference->bias));
    const at::Tensor x = torch::randn({3, 24});
    EXPECT_TRUE(torch::equal(layer->forward(x), reference->forward(x)));
    {
        const SkipInitGuard skip;
        LoRALinear uninitialised(24, 40);
        EXPECT_EQ(uninitialised->weight.sizes(), reference->weight.sizes());
    }
    EXPECT_FALSE(SkipInitGuard::active());
}

TEST(LoRALinear, StartsAsTheBaseLayer) {
    torch::manual_seed(12);
    LoRALinear layer(64, 48);
    const at::Tensor x = torch::randn({3, 64});
    const at::Tensor before = layer->forward(x);
    layer->add_adapter({8, 16});
    EXPECT_TRUE(torch::equal(layer->forward(x), before));
    EXPECT_EQ(layer->lora_B->weight.abs().max().item<float>(), 0.0f);
    // Kaiming-uniform with a = sqrt(5): bound sqrt(6 / ((1 + 5) * fan_in)) = 1 / sqrt(64).
    EXPECT_LE(layer->lora_A->weight.abs().max().item<float>(), 1.0f / 8.0f);
    EXPECT_GT(layer->lora_A->weight.abs().max().item<float>(), 0.9f / 8.0f);
    EXPECT_DOUBLE_EQ(layer->scaling(), 2.0);

    LoRALinear gaussian(512, 512);
    gaussian->add_adapter({8, 8, 0.0, LoRAInit::Gaussian});
    EXPECT_NEAR(gaussian->lora_A->weight.std().item<double>(), 1.0 / 8.0, 0.01);
}

TEST(LoRALinear, KeepsFloat32MastersAndComputesInBf16OverABf16Base) {
    torch::manual_seed(13);
    LoRALinear layer(16, 8);
    layer->add_adapter({4, 8});
    {
        torch::NoGradGuard no_grad;
        layer->lora_B->weight.normal_();
    }
    layer->to(torch::kBFloat16);
    EXPECT_EQ(layer->weight.scalar_type(), torch::kBFloat16);
    EXPECT_EQ(layer->lora_A->weight.scalar_type(), torch::kFloat32);
    EXPECT_EQ(layer->lora_B->weight.scalar_type(), torch::kFloat32);
    const at::Tensor x = torch::randn({5, 16}).to(torch::kBFloat16);
    const at::Tensor out = layer->forward(x);
    EXPECT_EQ(out.scalar_type(), torch::kBFloat16);
    // PEFT under autocast: the float32 masters cast to bf16 for two bf16 products, the second
    // accumulating into the base output.
    namespace F = torch::nn::functional;
    const at::Tensor base = F::linear(x, layer->weight, layer->bias);
    const at::Tensor down = F::linear(x, layer->lora_A->weight.to(torch::kBFloat16));
    const at::Tensor up = layer->lora_B->weight.to(torch::kBFloat16);
    EXPECT_TRUE(torch::equal(out, at::addmm(base, down, up.t(), 1, 2.0)));
    // ... which stays within bf16 rounding of the float32 adapter on the upcast input.
    const at::Tensor exact =
        base.to(torch::kFloat32) +
        torch::matmul(torch::matmul(x.to(torch::kFloat32), layer->lora_A->weight.t()),
                      layer->lora_B->weight.t()) *
            2.0;
    EXPECT_LT((out.to(torch::kFloat32) - exact).abs().max().item<double>(),
              3e-2 * exact.abs().max().item<double>());
    // Gradients reach the float32 masters through the casts.
    out.to(torch::kFloat32).sum().backward();
    ASSERT_TRUE(layer->lora_A->weight.grad().defined());
    EXPECT_EQ(layer->lora_A->weight.grad().scalar_type(), torch::kFloat32);
    EXPECT_GT(layer->lora_A->weight.grad().abs().sum().item<double>(), 0.0);
}

// q, k and v share their input: their adapters run as one down-projection over the
// concatenated lora_A weights and give the same outputs and gradients as three apart.
TEST(LoRALinear, GroupedAdaptersEqualSeparateOnes) {
    torch::manual_seed(15);
    std::vector<LoRALinear> layers;
    for (int i = 0; i < 3; ++i) {
        LoRALinear layer(32, 24);
        layer->add_adapter({4, 4.0 + i});
        torch::NoGradGuard no_grad;
        layer->lora_B->weight.normal_();
        layers.push_back(layer);
    }
    const std::vector<LoRALinearImpl*> group{layers[0].get(), layers[1].get(), layers[2].get()};
    for (const torch::Dtype dtype : {torch::kFloat32, torch::kBFloat16}) {
        for (LoRALinear& layer : layers) {
            layer->to(dtype);
        }
        const at::Tensor x = torch::randn({2, 5, 32}).to(dtype).requires_grad_();
        std::vector<at::Tensor> wrt{x};
        for (LoRALinear& layer : layers) {
            wrt.insert(wrt.end(), {layer->weight, layer->lora_A->weight, layer->lora_B->weight});
        }
        const at::Tensor probe = torch::randn({2, 5, 24}).to(dtype);
        const auto loss = [&](const std::vector<at::Tensor>& outputs) {
            at::Tensor sum = torch::zeros({}, torch::kFloat32);
            for (std::size_t i = 0; i < outputs.size(); ++i) {
                sum = sum + (outputs[i] * probe * (1.0 + static_cast<double>(i))).sum();
            }
            return sum;
        };
        std::vector<at::Tensor> apart;
        for (LoRALinear& layer : layers) {
            apart.push_back(layer->forward(x));
        }
        const std::vector<at::Tensor> grouped = LoRALinearImpl::forward_group(group, x);
        const double bound = dtype == torch::kFloat32 ? 1e-5 : 2e-2;
        for (std::size_t i = 0; i < 3; ++i) {
            EXPECT_EQ(grouped[i].scalar_type(), dtype);
            EXPECT_TRUE(torch::allclose(grouped[i], apart[i], bound, bound)) << dtype;
        }
        const auto expected = torch::autograd::grad({loss(apart)}, wrt);
        const auto actual = torch::autograd::grad({loss(grouped)}, wrt);
        for (std::size_t i = 0; i < wrt.size(); ++i) {
            const double scale = expected[i].abs().max().item<double>();
            EXPECT_LE((actual[i] - expected[i]).abs().max().item<double>(), bound * scale)
                << dtype << ", gradient " << i;
        }
    }
}

TEST(LoRALinear, GroupsOnlyAdaptersThatCanShareTheDownProjection) {
    torch::manual_seed(16);
    LoRALinear q(16, 16), k(16, 16), v(16, 16);
    q->add_adapter({4, 4});
    k->add_adapter({2, 4}); // another rank
    const at::Tensor x = torch::randn({3, 16});
    const std::vector<at::Tensor> outputs =
        LoRALinearImpl::forward_group({q.get(), k.get(), v.get()}, x);
    EXPECT_TRUE(torch::equal(outputs[0], q->forward(x)));
    EXPECT_TRUE(torch::equal(outputs[1], k->forward(x)));
    EXPECT_TRUE(torch::equal(outputs[2], v->forward(x)));

    // Dropout in training: each adapter draws its own mask, as PEFT's do.
    LoRALinear a(16, 16), b(16, 16);
    a->add_adapter({4, 4, 0.5});
    b->add_adapter({4, 4, 0.5});
    torch::manual_seed(17);
    const std::vector<at::Tensor> grouped = LoRALinearImpl::forward_group({a.get(), b.get()}, x);
    torch::manual_seed(17);
    EXPECT_TRUE(torch::equal(grouped[0], a->forward(x)));
    EXPECT_TRUE(torch::equal(grouped[1], b->forward(x)));
}

TEST(LoRALinear, MergesAndUnmerges) {
    torch::manual_seed(14);
    LoRALinear layer(32, 24);
    layer->add_adapter({4, 4});
    {
        torch::NoGradGuard no_grad;
        layer->lora_B->weight.normal_();
    }
    layer->set_adapter_weight(1.5);
    const at::Tensor x = torch::randn({7, 32});
    const at::Tensor original_weight = layer->weight.clone();
    const at::Tensor adapted = layer->forward(x);
    layer->merge();
    EXPECT_TRUE(layer->merged());
    EXPECT_TRUE(torch::allclose(layer->forward(x), adapted, 1e-5, 1e-5));
    EXPECT_THROW(layer->set_adapter_weight(1.0), core::Error);
    layer->unmerge();
    EXPECT_TRUE(torch::allclose(layer->weight, original_weight, 0, 1e-6));
    EXPECT_TRUE(torch::allclose(layer->forward(x), adapted, 1e-6, 1e-6));
    layer->remove_adapter();
    EXPECT_FALSE(layer->has_adapter());
    EXPECT_EQ(layer->named_parameters().size(), 2u);
}

TEST(Injection, AdaptsTheNamedLinearsOnly) {
    CogVideoXTransformer3DModel model(tiny_config());
    const auto adapted = inject_lora(*model, LoRAConfig{});
    EXPECT_EQ(adapted.size(), 2u * 4u);
    EXPECT_EQ(adapted.front(), "transformer_blocks.0.attn1.to_q");
    EXPECT_EQ(lora_parameters(*model).size(), 2u * 4u * 2u);
    // Base checkpoint keys are unchanged by injection.
    EXPECT_TRUE(model->named_parameters().contains("transformer_blocks.0.attn1.to_q.weight"));
    EXPECT_TRUE(
        model->named_parameters().contains("transformer_blocks.0.attn1.to_q.lora_A.weight"));

    CogVideoXTransformer3DModel ff(tiny_config());
    LoRAConfig config;
    config.target_modules = {"ff.net.0.proj", "attn1.to_out.0", "proj_out"};
    EXPECT_EQ(inject_lora(*ff, config).size(), 2u + 2u + 1u);

    for (const char* bad : {"to_qq", "norm1", "ff.net.1"}) {
        CogVideoXTransformer3DModel other(tiny_config());
        config.target_modules = {bad};
        EXPECT_THROW(inject_lora(*other, config), core::Error) << bad;
    }
}

TEST(Injection, TrainsOnlyTheAdapters) {
    const auto config = tiny_config();
    CogVideoXTransformer3DModel model(config);
    inject_lora(*model, LoRAConfig{});
    freeze_all_but_lora(*model);
    model->to(torch::kBFloat16);
    model->train();
    model->forward(tiny_inputs(config)).to(torch::kFloat32).square().mean().backward();
    for (const auto& item : model->named_parameters()) {
        if (is_adapter_tensor(item.key())) {
            EXPECT_EQ(item.value().scalar_type(), torch::kFloat32) << item.key();
            ASSERT_TRUE(item.value().grad().defined()) << item.key();
        } else {
            EXPECT_FALSE(item.value().grad().defined()) << item.key();
        }
    }
    // B starts at zero, so only B receives a gradient at the first step.
    EXPECT_GT(model->transformer_blocks[0]
                  ->named_parameters()["attn1.to_q.lora_B.weight"]
                  .grad()
                  .abs()
                  .sum()
                  .item<double>(),
              0.0);
}

class LoRAFile : public ::testing::Test {
protected:
    void SetUp() override {
        torch::manual_seed(31);
        model_ = CogVideoXTransformer3DModel(config_);
        LoRAConfig lora;
        lora.rank = 4;
        lora.alpha = 8;
        inject_lora(*model_, lora);
        torch::NoGradGuard no_grad;
        for (auto& parameter : lora_parameters(*model_)) {
            parameter.normal_(0.0, 0.2);
        }
    }
    at::Tensor run(CogVideoXTransformer3DModel& model) {
        torch::NoGradGuard no_grad;
        return model->forward(tiny_inputs(config_));
    }
    CogVideoXTransformer3DModel fresh_base() {
        CogVideoXTransformer3DModel model(config_);
        torch::NoGradGuard no_grad;
        auto source = model_->named_parameters();
        for (auto& item : model->named_parameters()) {
            item.value().copy_(source[item.key()]);
        }
        return model;
    }
    nlohmann::json metadata(const std::filesystem::path& file, const std::string& key) {
        return nlohmann::json::parse(core::SafetensorsFile(file).metadata().at(key));
    }

    models::cogvideox::CogVideoXTransformer3DConfig config_ = tiny_config();
    CogVideoXTransformer3DModel model_{nullptr};
    test::TemporaryDirectory folder_;
};

TEST_F(LoRAFile, RoundTripsFoldedAndUnfolded) {
    const at::Tensor expected = run(model_);
    for (bool fold : {true, false}) {
        SCOPED_TRACE(fold ? "folded" : "unfolded");
        const auto file = folder_ / (fold ? "folded.safetensors" : "plain.safetensors");
        LoRASaveOptions options;
        options.fold_alpha = fold;
        options.tuneframe = {{"base_model", "cogvideox-tiny"}};
        save_lora_weights(*model_, file, options);
        const auto config = metadata(file, "lora_config");
        EXPECT_EQ(config["r"], 4);
        EXPECT_EQ(config["lora_alpha"].get<double>(), fold ? 4.0 : 8.0);
        EXPECT_EQ(config["target_modules"],
                  (nlohmann::json{"attn1.to_q", "attn1.to_k", "attn1.to_v", "attn1.to_out.0"}));
        EXPECT_EQ(metadata(file, "tuneframe")["alpha"].get<double>(), 8.0);
        EXPECT_EQ(metadata(file, "tuneframe")["base_model"], "cogvideox-tiny");
        EXPECT_TRUE(core::SafetensorsFile(file).find(
            "transformer.transformer_blocks.1.attn1.to_out.0.lora_B.weight"));

        auto loaded = fresh_base();
        const LoadedLoRA info = load_lora_weights(*loaded, file);
        EXPECT_EQ(info.rank, 4);
        EXPECT_EQ(info.modules.size(), 8u);
        EXPECT_TRUE(info.alpha_from_metadata);
        EXPECT_TRUE(torch::allclose(run(loaded), expected, 1e-5, 1e-5));
    }
}

TEST_F(LoRAFile, WithoutAlphaLoadsAtAlphaEqualToRank) {
    core::NamedTensors tensors;
    for (const auto& [name, layer] : adapted_layers(*model_)) {
        tensors.emplace_back("transformer." + name + ".lora_A.weight", layer->lora_A->weight);
        tensors.emplace_back("transformer." + name + ".lora_B.weight", layer->lora_B->weight);
    }
    const auto file = folder_ / "no_alpha.safetensors";
    core::write_tensors(file, tensors, {{"format", "pt"}});
    auto loaded = fresh_base();
    LoRALoadOptions options;
    options.weight = 2.0; // alpha / rank of the trained adapter
    const LoadedLoRA info = load_lora_weights(*loaded, file, options);
    EXPECT_FALSE(info.alpha_from_metadata);
    EXPECT_EQ(info.alpha, 4.0);
    EXPECT_TRUE(torch::allclose(run(loaded), run(model_), 1e-5, 1e-5));
}

TEST_F(LoRAFile, RejectsKeysThatDoNotFit) {
    const auto file = folder_ / "lora.safetensors";
    save_lora_weights(*model_, file);
    auto tensors = core::read_tensors(file);
    tensors["transformer.transformer_blocks.7.attn1.to_q.lora_A.weight"] = torch::zeros({4, 32});
    tensors["transformer.transformer_blocks.7.attn1.to_q.lora_B.weight"] = torch::zeros({32, 4});
    tensors["transformer.transformer_blocks.0.attn1.to_q.alpha"] = torch::ones({});
    tensors["transformer.transformer_blocks.1.attn1.to_k.lora_B.weight"] = torch::zeros({32, 3});
    const auto bad = folder_ / "bad.safetensors";
    core::write_tensors(bad, core::NamedTensors(tensors.begin(), tensors.end()));
    auto loaded = fresh_base();
    try {
        load_lora_weights(*loaded, bad);
        FAIL() << "loaded a LoRA that does not fit";
    } catch (const core::Error& error) {
        const std::string message = error.what();
        for (const char* part :
             {"transformer_blocks.7.attn1.to_q (no such Linear layer",
              "transformer.transformer_blocks.0.attn1.to_q.alpha (not a LoRA",
              "transformer_blocks.1.attn1.to_k (lora_A [4, 32], lora_B [32, 3]"}) {
            EXPECT_NE(message.find(part), std::string::npos) << part << "\n" << message;
        }
    }
    EXPECT_TRUE(adapted_layers(*loaded).empty()) << "a failed load must change nothing";
}

// The widths the rank check reads from the config are those of the layers the model builds.
TEST(RankCheck, WidthsFromTheConfigAreTheModelsLayers) {
    const auto config = tiny_config();
    CogVideoXTransformer3DModel model(config);
    const std::vector<NamedLoRALinear> layers = linear_layers(*model);
    int compared = 0;
    for (const char* target :
         {"to_q", "to_k", "attn1.to_v", "to_out.0", "ff.net.0.proj", "ff.net.2", "norm1.linear"}) {
        std::int64_t narrowest = 0;
        for (const auto& [name, layer] : layers) {
            if (matches_target(name, target)) {
                const std::int64_t width = std::min(layer->in_features(), layer->out_features());
                narrowest = narrowest == 0 ? width : std::min(narrowest, width);
            }
        }
        const std::optional<std::int64_t> width = narrowest_target_width(target, config);
        if (narrowest == 0) {
            continue; // not a LoRALinear in this model: the check must not invent a limit
        }
        ASSERT_TRUE(width.has_value()) << target;
        EXPECT_EQ(*width, narrowest) << target;
        ++compared;
    }
    // At least the attention and feed-forward names are layers of the model.
    EXPECT_GE(compared, 6);
    EXPECT_FALSE(narrowest_target_width("proj_out", config).has_value());
}

TEST(RankCheck, ARankWiderThanATargetIsRefusedNamingTheLimit) {
    const auto config = tiny_config(); // 32 features wide
    common::LoraSettings lora;
    lora.rank = 32;
    EXPECT_NO_THROW(check_lora_rank_fits(lora, config, "job.json"));
    lora.rank = 64;
    try {
        check_lora_rank_fits(lora, config, "job.json");
        FAIL() << "no error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        const std::string message = error.what();
        EXPECT_NE(message.find("job.json"), std::string::npos) << message;
        EXPECT_NE(message.find("64"), std::string::npos) << message;
        EXPECT_NE(error.hint().find("at most 32"), std::string::npos) << error.hint();
    }
    // A target the check does not know is left to the layer, which refuses it when built.
    lora.targets = {"proj_out"};
    EXPECT_NO_THROW(check_lora_rank_fits(lora, config, "job.json"));
}

} // namespace
} // namespace tuneframe::lora
