// WanTransformer3DModel without the golden set: configs and presets, bad inputs, pipeline
// stages, activation checkpointing (with kept attention) and which layers a quantized base
// stores.
#include "engine/core/error.h"
#include "engine/lora/lora_injection.h"
#include "engine/models/wan/transformer_wan.h"
#include "engine/models/wan/transformer_wan_config.h"
#include "tests/engine/wan_transformer/tiny_wan.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::models::wan {
namespace {

using core::Error;
using core::ErrorCode;

TEST(WanTransformerConfig, ReadsEveryFieldAndWritesItBack) {
    const nlohmann::json json = {{"_class_name", "WanTransformer3DModel"},
                                 {"patch_size", {1, 2, 2}},
                                 {"num_attention_heads", 12},
                                 {"attention_head_dim", 128},
                                 {"in_channels", 36},
                                 {"out_channels", 16},
                                 {"text_dim", 4096},
                                 {"freq_dim", 256},
                                 {"ffn_dim", 8960},
                                 {"num_layers", 30},
                                 {"cross_attn_norm", false},
                                 {"qk_norm", "rms_norm_across_heads"},
                                 {"eps", 1e-5},
                                 {"image_dim", 1280},
                                 {"added_kv_proj_dim", 1536},
                                 {"rope_max_seq_len", 512},
                                 {"pos_embed_seq_len", 514}};
    const auto config = WanTransformer3DConfig::from_json(json, "config.json");
    EXPECT_EQ(config.num_attention_heads, 12);
    EXPECT_EQ(config.in_channels, 36);
    EXPECT_FALSE(config.cross_attn_norm);
    EXPECT_DOUBLE_EQ(config.eps, 1e-5);
    EXPECT_EQ(config.image_dim, 1280);
    EXPECT_EQ(config.pos_embed_seq_len, 514);
    EXPECT_EQ(config.rope_max_seq_len, 512);
    nlohmann::json written = config.to_json();
    written.erase("_diffusers_version");
    EXPECT_EQ(written, json);
    EXPECT_EQ(WanTransformer3DConfig::from_json(config.to_json(), "x").to_json(), config.to_json());
}

TEST(WanTransformerConfig, OutChannelsFollowDiffusersDefaults) {
    // null means in_channels; an absent key the class default, 16.
    EXPECT_EQ(
        WanTransformer3DConfig::from_json({{"in_channels", 48}, {"out_channels", nullptr}}, "c")
            .out_channels,
        48);
    EXPECT_EQ(WanTransformer3DConfig::from_json({{"in_channels", 48}}, "c").out_channels, 16);
}

TEST(WanTransformerConfig, RefusesOtherModelsAndBadValues) {
    try {
        WanTransformer3DConfig::from_json({{"_class_name", "CogVideoXTransformer3DModel"}},
                                          "transformer/config.json");
        FAIL() << "a CogVideoX config was accepted";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::BadInput);
        EXPECT_NE(std::string(error.what()).find("transformer/config.json"), std::string::npos);
        EXPECT_NE(std::string(error.what()).find("CogVideoXTransformer3DModel"), std::string::npos);
    }
    EXPECT_THROW(WanTransformer3DConfig::from_json({{"patch_size", {1, 2}}}, "c"), Error);
    EXPECT_THROW(WanTransformer3DConfig::from_json({{"num_layers", "30"}}, "c"), Error);
    EXPECT_THROW(WanTransformer3DConfig::from_json({{"added_kv_proj_dim", 1280}}, "c"), Error);
}

TEST(WanTransformerPresets, HoldTheReleasedShapes) {
    const auto& small = find_wan_transformer_preset("wan2.1-t2v-1.3b").config;
    EXPECT_EQ(small.inner_dim(), 1536);
    EXPECT_EQ(small.num_layers, 30);
    EXPECT_EQ(small.ffn_dim, 8960);
    const auto& i2v = find_wan_transformer_preset("wan2.1-i2v-14b").config;
    EXPECT_EQ(i2v.in_channels, 36);
    EXPECT_EQ(i2v.out_channels, 16);
    EXPECT_EQ(i2v.image_dim, 1280);
    EXPECT_EQ(i2v.added_kv_proj_dim, 5120);
    const auto& ti2v = find_wan_transformer_preset("wan2.2-ti2v-5b").config;
    EXPECT_EQ(ti2v.inner_dim(), 3072);
    EXPECT_EQ(ti2v.ffn_dim, 14336);
    EXPECT_EQ(ti2v.in_channels, 48);
    EXPECT_EQ(ti2v.out_channels, 48);
    const auto& i2v_a14b = find_wan_transformer_preset("wan2.2-i2v-a14b").config;
    EXPECT_EQ(i2v_a14b.in_channels, 36);
    EXPECT_FALSE(i2v_a14b.image_dim);
    EXPECT_EQ(find_wan_transformer_preset("wan2.1-flf2v-14b").config.pos_embed_seq_len, 514);
    for (const auto& preset : wan_transformer_presets()) {
        EXPECT_EQ(preset.config.text_dim, 4096) << preset.name;
        EXPECT_EQ(preset.config.attention_head_dim, 128) << preset.name;
        const auto* recognised = recognise_wan_transformer(preset.config);
        ASSERT_NE(recognised, nullptr) << preset.name;
        // The A14B experts are 14B-shaped.
        EXPECT_EQ(recognised->config.to_json(), preset.config.to_json()) << preset.name;
    }
    EXPECT_EQ(recognise_wan_transformer(test::tiny_wan_config()), nullptr);
    try {
        find_wan_transformer_preset("wan3");
        FAIL();
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::Usage);
        EXPECT_NE(error.hint().find("wan2.2-ti2v-5b"), std::string::npos);
    }
}

TEST(WanTransformer, NamesItsParametersAsTheCheckpoint) {
    WanTransformer3DModel model(test::tiny_wan_config(true));
    const auto parameters = model->named_parameters();
    for (const char* name :
         {"patch_embedding.weight", "condition_embedder.time_embedder.linear_1.weight",
          "condition_embedder.time_proj.bias", "condition_embedder.text_embedder.linear_2.weight",
          "condition_embedder.image_embedder.norm1.weight",
          "condition_embedder.image_embedder.ff.net.0.proj.weight",
          "condition_embedder.image_embedder.ff.net.2.bias", "blocks.2.attn1.to_out.0.weight",
          "blocks.0.attn1.norm_q.weight", "blocks.1.attn2.add_k_proj.weight",
          "blocks.1.attn2.norm_added_k.weight", "blocks.0.norm2.bias",
          "blocks.0.ffn.net.0.proj.weight", "blocks.0.ffn.net.2.weight",
          "blocks.0.scale_shift_table", "proj_out.weight", "scale_shift_table"}) {
        EXPECT_TRUE(parameters.contains(name)) << name;
    }
    EXPECT_FALSE(parameters.contains("blocks.0.norm1.weight")); // not affine
    EXPECT_FALSE(parameters.contains("blocks.0.norm3.weight"));
    EXPECT_EQ(model->named_buffers().size(), 0u); // the rotary tables are not checkpoint keys
    EXPECT_EQ(parameters["blocks.0.scale_shift_table"].sizes(), (c10::IntArrayRef{1, 6, 64}));
    EXPECT_EQ(model->class_name(), "WanTransformer3DModel");
    EXPECT_EQ(model->config_json()["num_layers"], 3);
    EXPECT_EQ(model->num_blocks(), 3);
    EXPECT_EQ(model->num_attention_heads(), 4);
    EXPECT_TRUE(model->is_quantized_base_layer("blocks.1.attn2.to_q"));
    EXPECT_TRUE(model->is_quantized_base_layer("blocks.0.ffn.net.2"));
    EXPECT_FALSE(model->is_quantized_base_layer("proj_out"));
    EXPECT_FALSE(model->is_quantized_base_layer("condition_embedder.time_proj"));
}

TEST(WanTransformer, BuildsInTheRequestedDtype) {
    WanTransformer3DModel model(test::tiny_wan_config(), torch::kBFloat16);
    EXPECT_EQ(model->dtype(), torch::kBFloat16);
    for (const auto& parameter : model->parameters()) {
        EXPECT_EQ(parameter.scalar_type(), torch::kBFloat16);
    }
    EXPECT_EQ(c10::get_default_dtype(), caffe2::TypeMeta::Make<float>());
}

// The BadInput error `run` throws, or a failure.
Error bad_input_of(const std::function<void()>& run) {
    try {
        run();
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::BadInput) << error.what();
        EXPECT_FALSE(error.hint().empty()) << error.what();
        return error;
    }
    ADD_FAILURE() << "no error";
    return Error(ErrorCode::None, "");
}

bool mentions(const Error& error, const std::string& text) {
    return std::string(error.what()).find(text) != std::string::npos ||
           error.hint().find(text) != std::string::npos;
}

TEST(WanTransformer, RefusesBadInputsWithTheFix) {
    auto model = test::seeded_wan_model(test::tiny_wan_config());
    const TransformerInputs good = test::seeded_wan_inputs(test::tiny_wan_config());
    auto forward_with = [&](const std::function<void(TransformerInputs&)>& change) {
        return bad_input_of([&] {
            TransformerInputs inputs = good;
            change(inputs);
            model->forward(inputs);
        });
    };
    EXPECT_TRUE(mentions(forward_with([](TransformerInputs& in) {
                             in.hidden_states = in.hidden_states.narrow(3, 0, 5);
                         }),
                         "patches"));
    EXPECT_TRUE(mentions(forward_with([](TransformerInputs& in) {
                             in.hidden_states = torch::randn({2, 17, 3, 6, 10});
                         }),
                         "16 input channels"));
    EXPECT_TRUE(mentions(forward_with([](TransformerInputs& in) {
                             in.hidden_states = in.hidden_states.flatten(2, 3);
                         }),
                         "[B, C, F, H, W]"));
    EXPECT_TRUE(mentions(forward_with([](TransformerInputs& in) {
                             in.encoder_hidden_states_image = torch::randn({2, 5, 20});
                         }),
                         "encoder_hidden_states_image"));
    EXPECT_TRUE(mentions(forward_with([](TransformerInputs& in) {
                             in.timestep = torch::rand({2, 46});
                         }),
                         "[2, 45]"));
    EXPECT_TRUE(mentions(forward_with([](TransformerInputs& in) {
                             in.encoder_hidden_states = torch::randn({2, 7, 23});
                         }),
                         "encoder_hidden_states"));

    auto i2v = test::seeded_wan_model(test::tiny_wan_config(true));
    const TransformerInputs i2v_good = test::seeded_wan_inputs(test::tiny_wan_config(true));
    EXPECT_TRUE(mentions(bad_input_of([&] {
                             TransformerInputs inputs = i2v_good;
                             inputs.encoder_hidden_states_image = at::Tensor();
                             i2v->forward(inputs);
                         }),
                         "needs encoder_hidden_states_image"));
    EXPECT_TRUE(mentions(bad_input_of([&] {
                             TransformerInputs inputs = i2v_good;
                             inputs.encoder_hidden_states = torch::randn({2, 226, 24});
                             i2v->forward(inputs);
                         }),
                         "512"));
    torch::NoGradGuard no_grad;
    EXPECT_EQ(i2v->forward(i2v_good).sizes(), (c10::IntArrayRef{2, 16, 3, 6, 10}));
}

TEST(WanTransformer, PerTokenTimestepsEqualToTheScalarGiveTheScalarForward) {
    auto model = test::seeded_wan_model(test::tiny_wan_config());
    TransformerInputs inputs = test::seeded_wan_inputs(test::tiny_wan_config());
    torch::NoGradGuard no_grad;
    const at::Tensor scalar = model->forward(inputs);
    inputs.timestep = inputs.timestep.unsqueeze(1).expand({2, 45}).contiguous();
    EXPECT_TRUE(torch::allclose(model->forward(inputs), scalar, 1e-5, 1e-5));
    inputs.timestep = inputs.timestep.narrow(0, 0, 1); // [1, tokens] broadcasts over the batch
    const at::Tensor first = model->forward(inputs);
    EXPECT_TRUE(torch::allclose(first[0], scalar[0], 1e-5, 1e-5));
    EXPECT_FALSE(torch::allclose(first[1], scalar[1], 1e-3, 1e-3));
}

struct StageCase {
    bool per_token;
    bool image_to_video;
};

class WanTransformerStages : public ::testing::TestWithParam<StageCase> {};

TEST_P(WanTransformerStages, TwoStagesEqualTheWholeForward) {
    const StageCase c = GetParam();
    const auto config = test::tiny_wan_config(c.image_to_video);
    auto model = test::seeded_wan_model(config);
    test::TinyShape shape;
    shape.per_token = c.per_token;
    const TransformerInputs inputs = test::seeded_wan_inputs(config, shape);
    torch::NoGradGuard no_grad;
    const at::Tensor whole = model->forward(inputs);
    for (std::int64_t split = 1; split < model->num_blocks(); ++split) {
        const StageOutput first = model->forward_stage(inputs, 0, split);
        EXPECT_FALSE(first.prediction.defined());
        const auto shapes = model->stage_token_shapes(inputs);
        ASSERT_EQ(first.tokens.parts.size(), shapes.size());
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            EXPECT_EQ(first.tokens.parts[i].sizes().vec(), shapes[i]) << "part " << i;
            EXPECT_TRUE(first.tokens.parts[i].is_floating_point());
        }
        const StageOutput last =
            model->forward_stage(inputs, split, model->num_blocks(), &first.tokens);
        EXPECT_TRUE(torch::equal(last.prediction, whole)) << "split at " << split;
    }
}

INSTANTIATE_TEST_SUITE_P(Inputs, WanTransformerStages,
                         ::testing::Values(StageCase{false, false}, StageCase{true, false},
                                           StageCase{false, true}));

// FLF2V: two images' CLIP tokens per sample, joined and given learned positions.
TEST(WanTransformer, FirstLastFrameModelJoinsBothImages) {
    auto config = test::tiny_wan_config(true);
    config.pos_embed_seq_len = 10;
    auto model = test::seeded_wan_model(config);
    EXPECT_EQ(model->condition_embedder->image_embedder->pos_embed.sizes(),
              (c10::IntArrayRef{1, 10, 20}));
    TransformerInputs inputs = test::seeded_wan_inputs(config);
    inputs.encoder_hidden_states_image = torch::randn({4, 5, 20}); // first, last of 2 samples
    torch::NoGradGuard no_grad;
    EXPECT_EQ(model->forward(inputs).sizes(), (c10::IntArrayRef{2, 16, 3, 6, 10}));
    const StageOutput first = model->forward_stage(inputs, 0, 1);
    const auto shapes = model->stage_token_shapes(inputs);
    EXPECT_EQ(shapes[2], (std::vector<std::int64_t>{2, 10 + 512, 64}));
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        EXPECT_EQ(first.tokens.parts[i].sizes().vec(), shapes[i]) << "part " << i;
    }
    inputs.encoder_hidden_states_image = torch::randn({2, 5, 20});
    EXPECT_TRUE(mentions(bad_input_of([&] { model->forward(inputs); }), "[4, 5, 20]"));
}

TEST(WanTransformer, KeepStageDropsWhatTheStageDoesNotRun) {
    const auto config = test::tiny_wan_config();
    auto whole = test::seeded_wan_model(config);
    auto middle = test::seeded_wan_model(config);
    middle->keep_stage(1, 2);
    for (const auto& item : middle->named_parameters()) {
        const bool kept = item.key().rfind("blocks.1.", 0) == 0;
        EXPECT_EQ(item.value().numel() > 0, kept) << item.key();
        EXPECT_EQ(item.value().requires_grad(), kept) << item.key();
    }
    const TransformerInputs inputs = test::seeded_wan_inputs(config);
    torch::NoGradGuard no_grad;
    const StageOutput first = whole->forward_stage(inputs, 0, 1);
    const StageOutput expected = whole->forward_stage(inputs, 1, 2, &first.tokens);
    const StageOutput got = middle->forward_stage(inputs, 1, 2, &first.tokens);
    EXPECT_TRUE(torch::equal(got.tokens.parts[0], expected.tokens.parts[0]));

    auto last = test::seeded_wan_model(config);
    last->keep_stage(2, 3);
    EXPECT_GT(last->proj_out->weight.numel(), 0);
    EXPECT_GT(last->scale_shift_table.numel(), 0);
    EXPECT_EQ(last->condition_embedder->time_proj->weight.numel(), 0);
    EXPECT_EQ(last->patch_embedding->weight.numel(), 0);
}

// Gradients of a weighted sum of the output w.r.t. the inputs and every parameter.
std::map<std::string, at::Tensor> gradients(WanTransformer3DModel& model,
                                            const TransformerInputs& source) {
    model->train();
    model->zero_grad();
    TransformerInputs inputs = source;
    inputs.hidden_states = source.hidden_states.clone().requires_grad_(true);
    inputs.encoder_hidden_states = source.encoder_hidden_states.clone().requires_grad_(true);
    const at::Tensor out = model->forward(inputs);
    torch::manual_seed(9);
    (out * torch::randn_like(out)).sum().backward();
    std::map<std::string, at::Tensor> result = {
        {"hidden_states", inputs.hidden_states.grad()},
        {"encoder_hidden_states", inputs.encoder_hidden_states.grad()}};
    for (const auto& item : model->named_parameters()) {
        result[item.key()] = item.value().grad().clone();
    }
    return result;
}

TEST(WanTransformer, CheckpointedBlocksGiveTheSameGradients) {
    for (const bool per_token : {false, true}) {
        SCOPED_TRACE(per_token ? "per-token timesteps" : "scalar timesteps");
        const auto config = test::tiny_wan_config();
        auto model = test::seeded_wan_model(config);
        test::TinyShape shape;
        shape.per_token = per_token;
        const TransformerInputs inputs = test::seeded_wan_inputs(config, shape);
        const auto expected = gradients(model, inputs);
        struct Setting {
            std::int64_t blocks;
            bool keep_attention;
        };
        for (const Setting setting : {Setting{2, false}, Setting{3, false}, Setting{3, true}}) {
            model->set_checkpointed_blocks(setting.blocks);
            model->set_keep_attention(setting.keep_attention);
            const auto got = gradients(model, inputs);
            ASSERT_EQ(got.size(), expected.size());
            for (const auto& [name, gradient] : expected) {
                ASSERT_TRUE(got.at(name).defined()) << name;
                // Checkpointing changes the order the blocks' gradients are summed in.
                EXPECT_LE((got.at(name) - gradient).abs().max().item<double>(),
                          1e-6 * (1 + gradient.abs().max().item<double>()))
                    << name << " with " << setting.blocks << " checkpointed blocks";
            }
        }
        model->set_checkpointed_blocks(0);
    }
}

TEST(WanTransformer, CheckpointingReachesFrozenBaseAdapters) {
    const auto config = test::tiny_wan_config();
    auto model = test::seeded_wan_model(config);
    lora::LoRAConfig adapters;
    adapters.rank = 2;
    adapters.target_modules = {"to_q", "to_k", "to_v", "to_out.0", "ffn.net.0.proj", "ffn.net.2"};
    const auto adapted = lora::inject_lora(*model, adapters);
    EXPECT_EQ(adapted.size(), 3u * 10u); // attn1 and attn2: 4 each, ffn: 2
    lora::freeze_all_but_lora(*model);
    model->set_gradient_checkpointing(true);
    model->train();
    const at::Tensor out = model->forward(test::seeded_wan_inputs(config));
    out.sum().backward();
    for (const auto& item : model->named_parameters()) {
        if (item.key().find("lora_A") != std::string::npos) {
            // lora_B starts at zero, so lora_A's gradient is zero, but it must arrive.
            EXPECT_TRUE(item.value().grad().defined()) << item.key();
        }
        if (item.key().find("lora_B") != std::string::npos) {
            ASSERT_TRUE(item.value().grad().defined()) << item.key();
            EXPECT_GT(item.value().grad().abs().sum().item<double>(), 0) << item.key();
        }
    }
}

TEST(WanTransformer, QuantizedBaseTakesTheBlocksLinearsOnly) {
    const auto config = test::tiny_wan_config();
    auto model = test::seeded_wan_model(config);
    const TransformerInputs inputs = test::seeded_wan_inputs(config);
    torch::NoGradGuard no_grad;
    const at::Tensor reference = model->forward(inputs);
    std::int64_t quantized = 0;
    for (auto& [name, layer] : lora::linear_layers(*model)) {
        if (model->is_quantized_base_layer(name)) {
            layer->quantize_base(lora::BaseQuantization::Int8);
            ++quantized;
        }
    }
    EXPECT_EQ(quantized, 3 * 10); // attn1 and attn2: q, k, v, out; ffn: 2
    EXPECT_EQ(model->proj_out->base_quantization(), lora::BaseQuantization::None);
    EXPECT_EQ(model->condition_embedder->time_proj->base_quantization(),
              lora::BaseQuantization::None);
    EXPECT_EQ(model->dtype(), torch::kFloat32);
    const at::Tensor out = model->forward(inputs);
    const double error = (out - reference).abs().max().item<double>();
    EXPECT_GT(error, 0);
    EXPECT_LT(error, 0.05 * reference.abs().max().item<double>());
}

} // namespace
} // namespace tuneframe::models::wan
