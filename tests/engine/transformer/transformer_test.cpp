// The CogVideoX transformer without golden data: parameter counts from configs, module names,
// checkpoint loading (sharded, dtypes, key errors), gradient checkpointing, and the init-model /
// inspect / forward commands on the tiny architecture.
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/safetensors/safetensors_checkpoint.h"
#include "engine/core/tensor_io.h"
#include "engine/lora/lora_injection.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"
#include "engine/models/cogvideox/init_model.h"
#include "engine/models/cogvideox/transformer_checkpoint.h"
#include "engine/models/t5/t5_encoder.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

namespace tuneframe::models::cogvideox {
namespace {

std::int64_t counted(torch::nn::Module& module) {
    std::int64_t count = 0;
    for (const auto& tensor : module.parameters()) {
        count += tensor.numel();
    }
    for (const auto& tensor : module.buffers()) {
        count += tensor.numel();
    }
    return count;
}

// 2 layers, width 32: every variant's code path at test speed.
CogVideoXTransformer3DConfig small(const std::string& arch) {
    CogVideoXTransformer3DConfig config = find_architecture(arch).transformer;
    config.num_layers = 2;
    config.num_attention_heads = 2;
    config.attention_head_dim = 16;
    config.text_embed_dim = 24;
    config.time_embed_dim = 16;
    config.max_text_seq_length = 5;
    config.sample_height = 8;
    config.sample_width = 8;
    config.sample_frames = 9;
    if (config.ofs_embed_dim) {
        config.ofs_embed_dim = 16;
    }
    return config;
}

CogVideoXTransformerInputs random_inputs(const CogVideoXTransformer3DConfig& config,
                                         std::int64_t frames = 2) {
    CogVideoXTransformerInputs inputs;
    inputs.hidden_states = torch::randn({2, frames, config.in_channels, 8, 8});
    inputs.encoder_hidden_states = torch::randn({2, 5, config.text_embed_dim});
    inputs.timestep = torch::tensor({10, 500}, torch::kInt64);
    if (config.ofs_embed_dim) {
        inputs.ofs = torch::tensor({2.0});
    }
    return inputs;
}

TEST(ParameterCount, MatchesThePublishedSizes) {
    EXPECT_NEAR(find_architecture("cogvideox-2b").transformer.parameter_count() / 1e9, 1.69, 0.005);
    EXPECT_NEAR(find_architecture("cogvideox-5b").transformer.parameter_count() / 1e9, 5.57, 0.005);
    // cogvideox-spec.md §1.1, computed: 5.625 B (with the learned table), 5.571 B, 5.572 B.
    EXPECT_NEAR(find_architecture("cogvideox-5b-i2v").transformer.parameter_count() / 1e9, 5.625,
                0.001);
    EXPECT_NEAR(find_architecture("cogvideox1.5-5b").transformer.parameter_count() / 1e9, 5.571,
                0.001);
    EXPECT_NEAR(find_architecture("cogvideox1.5-5b-i2v").transformer.parameter_count() / 1e9, 5.572,
                0.001);
}

// `init-model --complete` (a real-size random pipeline, too large to write in a test): the parts
// it adds must fit each architecture as the released pipelines' do, or validation measured on it
// would measure something else.
TEST(InitModel, CompletePipelinesGetTheReleasedVaeTextEncoderAndScheduler) {
    for (const Architecture& architecture : architectures()) {
        if (architecture.name.rfind("cogvideox-tiny", 0) == 0) {
            continue;
        }
        SCOPED_TRACE(architecture.name);
        const auto vae = released_vae_config(architecture);
        EXPECT_EQ(vae.latent_channels, architecture.transformer.out_channels);
        EXPECT_EQ(vae.block_out_channels, (std::vector<std::int64_t>{128, 256, 256, 512}));
        EXPECT_EQ(models::T5Config{}.d_model, architecture.transformer.text_embed_dim);
        const bool is_2b = architecture.name == "cogvideox-2b";
        EXPECT_DOUBLE_EQ(vae.scaling_factor, is_2b ? 1.15258426 : 0.7);
        EXPECT_EQ(vae.invert_scale_latents, architecture.name.rfind("cogvideox1.5", 0) == 0);
        EXPECT_DOUBLE_EQ(released_scheduler_config(architecture)["snr_shift_scale"].get<double>(),
                         is_2b ? 3.0 : 1.0);
    }
}

TEST(ParameterCount, EqualsTheBuiltModel) {
    for (const char* arch :
         {"cogvideox-tiny", "cogvideox-tiny-i2v", "cogvideox-tiny-demo", "cogvideox-2b",
          "cogvideox-5b-i2v", "cogvideox1.5-5b", "cogvideox1.5-5b-i2v"}) {
        SCOPED_TRACE(arch);
        const auto config = std::string(arch).find("tiny") != std::string::npos
                                ? find_architecture(arch).transformer
                                : small(arch);
        CogVideoXTransformer3DModel model(config);
        EXPECT_EQ(counted(*model), config.parameter_count());
    }
}

TEST(Transformer, ParameterNamesAreTheCheckpointKeys) {
    CogVideoXTransformer3DModel model(small("cogvideox-2b"));
    std::set<std::string> names;
    for (const auto& item : model->named_parameters()) {
        names.insert(item.key());
    }
    EXPECT_EQ(names.size(), 16u + 2u * 24u); // cogvideox-spec.md §2.2
    for (const char* key :
         {"patch_embed.proj.weight", "patch_embed.text_proj.bias", "time_embedding.linear_2.weight",
          "transformer_blocks.1.norm1.linear.weight", "transformer_blocks.1.norm1.norm.bias",
          "transformer_blocks.0.attn1.to_q.bias", "transformer_blocks.0.attn1.norm_k.weight",
          "transformer_blocks.0.attn1.to_out.0.weight", "transformer_blocks.1.ff.net.0.proj.bias",
          "transformer_blocks.1.ff.net.2.weight", "norm_final.weight", "norm_out.linear.bias",
          "norm_out.norm.weight", "proj_out.weight"}) {
        EXPECT_TRUE(names.count(key)) << key;
    }
    CogVideoXTransformer3DModel i2v(small("cogvideox1.5-5b-i2v"));
    EXPECT_TRUE(i2v->named_parameters().contains("ofs_embedding.linear_1.weight"));
    EXPECT_EQ(i2v->named_parameters()["patch_embed.proj.weight"].sizes(),
              (std::vector<std::int64_t>{32, 32 * 8}));
    EXPECT_TRUE(i2v->named_parameters().contains("patch_embed.proj.bias"));
}

TEST(Transformer, RunsEveryVariantInBothDtypes) {
    torch::manual_seed(0);
    for (const char* arch : {"cogvideox-2b", "cogvideox-5b", "cogvideox-5b-i2v", "cogvideox1.5-5b",
                             "cogvideox1.5-5b-i2v"}) {
        SCOPED_TRACE(arch);
        const auto config = small(arch);
        CogVideoXTransformer3DModel model(config);
        const auto inputs = random_inputs(config);
        torch::NoGradGuard no_grad;
        const at::Tensor out = model->forward(inputs);
        EXPECT_EQ(out.sizes(), (std::vector<std::int64_t>{2, 2, 16, 8, 8}));
        EXPECT_TRUE(torch::isfinite(out).all().item<bool>());
        model->to(torch::kBFloat16);
        const at::Tensor low = model->forward(inputs);
        EXPECT_EQ(low.scalar_type(), torch::kBFloat16);
        EXPECT_LE((low.to(torch::kFloat32) - out).abs().max().item<double>(),
                  5e-2 * out.abs().max().item<double>());
    }
}

// Pipeline stages: the first stage's tokens (and time embedding) carried into the second give
// the whole forward's prediction and gradients; a stage keeps only its own layers.
TEST(Transformer, TwoStagesCarryingTheirTokensEqualTheWholeModel) {
    for (const char* arch : {"cogvideox-2b", "cogvideox1.5-5b-i2v"}) {
        SCOPED_TRACE(arch);
        const auto config = small(arch);
        torch::manual_seed(0);
        CogVideoXTransformer3DModel whole(config);
        const auto inputs = random_inputs(config);
        const at::Tensor expected = whole->forward(inputs);
        expected.pow(2).sum().backward();

        torch::manual_seed(0);
        CogVideoXTransformer3DModel first(config);
        torch::manual_seed(0);
        CogVideoXTransformer3DModel second(config);
        first->keep_stage(0, 1);
        second->keep_stage(1, 2);
        const StageOutput handed = first->forward_stage(inputs, 0, 1);
        ASSERT_FALSE(handed.prediction.defined());
        const auto shapes = second->stage_token_shapes(inputs);
        const std::vector<at::Tensor>& sent = handed.tokens.parts;
        ASSERT_EQ(sent.size(), 3u); // video, text, time embedding
        StageTokens received;
        for (std::size_t i = 0; i < sent.size(); ++i) {
            EXPECT_EQ(sent[i].sizes().vec(), shapes[i]);
            received.parts.push_back(sent[i].detach().requires_grad_());
        }
        const at::Tensor prediction = second->forward_stage(inputs, 1, 2, &received).prediction;
        EXPECT_TRUE(torch::allclose(prediction, expected, 1e-5, 1e-6));
        prediction.pow(2).sum().backward();
        torch::autograd::backward(
            sent, {received.parts[0].grad(), received.parts[1].grad(), received.parts[2].grad()});
        const auto whole_parameters = whole->named_parameters();
        std::int64_t compared = 0;
        for (CogVideoXTransformer3DModel* stage : {&first, &second}) {
            for (const auto& item : (*stage)->named_parameters()) {
                if (item.value().numel() == 0) {
                    EXPECT_FALSE(item.value().requires_grad()) << item.key();
                    continue;
                }
                ASSERT_TRUE(item.value().grad().defined()) << item.key();
                EXPECT_TRUE(torch::allclose(item.value().grad(),
                                            whole_parameters[item.key()].grad(), 1e-4, 1e-6))
                    << item.key();
                ++compared;
            }
        }
        // Every parameter is held by exactly one stage.
        EXPECT_EQ(compared, static_cast<std::int64_t>(whole_parameters.size()));
        EXPECT_EQ(first->proj_out->weight.numel(), 0);
        EXPECT_EQ(second->patch_embed->parameters().front().numel(), 0);
    }
}

TEST(Transformer, RejectsInputsThatDoNotFit) {
    const auto config = small("cogvideox1.5-5b-i2v");
    CogVideoXTransformer3DModel model(config);
    torch::NoGradGuard no_grad;
    auto inputs = random_inputs(config, 3); // odd frame count: no temporal patches
    EXPECT_THROW(model->forward(inputs), core::Error);
    inputs = random_inputs(config);
    inputs.ofs = at::Tensor();
    EXPECT_THROW(model->forward(inputs), core::Error);
    inputs = random_inputs(config);
    inputs.hidden_states = torch::randn({2, 2, 16, 8, 8}); // 16 channels for a 32-channel model
    EXPECT_THROW(model->forward(inputs), core::Error);
}

TEST(Config, NamesTheFileAndFieldOnErrors) {
    nlohmann::json json = find_architecture("cogvideox-5b").transformer.to_json();
    EXPECT_EQ(CogVideoXTransformer3DConfig::from_json(json, "x").parameter_count(),
              find_architecture("cogvideox-5b").transformer.parameter_count());
    json["num_layers"] = "many";
    try {
        CogVideoXTransformer3DConfig::from_json(json, "transformer/config.json");
        FAIL();
    } catch (const core::Error& error) {
        EXPECT_NE(std::string(error.what()).find("transformer/config.json"), std::string::npos);
        EXPECT_NE(std::string(error.what()).find("num_layers"), std::string::npos);
    }
}

class TransformerLoading : public ::testing::Test {
protected:
    void SetUp() override {
        torch::manual_seed(3);
        model_ = CogVideoXTransformer3DModel(config_);
    }
    at::Tensor run(CogVideoXTransformer3DModel& model) {
        torch::manual_seed(4);
        torch::NoGradGuard no_grad;
        return model->forward(random_inputs(config_));
    }

    test::TemporaryDirectory folder_;
    CogVideoXTransformer3DConfig config_ = small("cogvideox-5b-i2v");
    CogVideoXTransformer3DModel model_{nullptr};
};

TEST_F(TransformerLoading, ReadsShardsBack) {
    const auto index = save_cogvideox_transformer(model_, folder_.path(), 40'000);
    EXPECT_EQ(index.filename(), "diffusion_pytorch_model.safetensors.index.json");
    const core::SafetensorsCheckpoint checkpoint(folder_.path());
    EXPECT_GT(checkpoint.shards().size(), 2u);
    auto loaded = load_cogvideox_transformer(folder_.path());
    EXPECT_EQ(loaded->dtype(), torch::kFloat32);
    EXPECT_TRUE(torch::equal(run(loaded), run(model_)));
}

TEST_F(TransformerLoading, KeepsTheStoredDtypeOrConvertsToTheAskedOne) {
    model_->to(torch::kBFloat16);
    save_cogvideox_transformer(model_, folder_.path());
    EXPECT_EQ(load_cogvideox_transformer(folder_.path())->dtype(), torch::kBFloat16);
    TransformerLoadOptions options;
    options.dtype = torch::kFloat32;
    auto converted = load_cogvideox_transformer(folder_.path(), options);
    EXPECT_EQ(converted->dtype(), torch::kFloat32);
    EXPECT_EQ(converted->patch_embed->pos_embedding.scalar_type(), torch::kFloat32);
}

TEST_F(TransformerLoading, ListsMissingUnexpectedAndMisshapedKeys) {
    save_cogvideox_transformer(model_, folder_.path());
    const auto file = folder_.path() / "diffusion_pytorch_model.safetensors";
    auto tensors = core::read_tensors(file);
    tensors.erase("transformer_blocks.1.attn1.to_k.bias");
    tensors["transformer_blocks.2.attn1.to_k.bias"] = torch::zeros({32});
    tensors["norm_final.weight"] = torch::zeros({31});
    core::write_tensors(file, core::NamedTensors(tensors.begin(), tensors.end()));
    try {
        load_cogvideox_transformer(folder_.path());
        FAIL() << "loaded a checkpoint that does not match";
    } catch (const core::Error& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("1 missing key(s): transformer_blocks.1.attn1.to_k.bias"),
                  std::string::npos)
            << message;
        EXPECT_NE(message.find("1 unexpected key(s): transformer_blocks.2.attn1.to_k.bias"),
                  std::string::npos)
            << message;
        EXPECT_NE(message.find("norm_final.weight (file F32 [31], model [32])"), std::string::npos)
            << message;
        EXPECT_FALSE(error.hint().empty());
    }
}

// Gradients through recomputed blocks equal those of a plain backward: LoRA (frozen base, so
// no block input needs a gradient), full fine-tuning, and both with dropout (the recomputation
// must replay the same masks).
struct CheckpointingCase {
    bool lora_only;
    double dropout;
};

class GradientCheckpointing : public ::testing::TestWithParam<CheckpointingCase> {};

TEST_P(GradientCheckpointing, GivesTheSameGradients) {
    const CheckpointingCase c = GetParam();
    auto config = small("cogvideox-5b");
    config.dropout = c.dropout;
    torch::manual_seed(5);
    CogVideoXTransformer3DModel model(config);
    model->to(torch::kFloat64);
    if (c.lora_only) {
        lora::LoRAConfig lora_config;
        lora_config.rank = 4;
        lora_config.alpha = 8;
        lora_config.dropout = c.dropout;
        lora::inject_lora(*model, lora_config);
        for (auto& [name, layer] : lora::adapted_layers(*model)) {
            layer->lora_A->to(torch::kFloat64);
            layer->lora_B->to(torch::kFloat64);
            torch::NoGradGuard no_grad;
            layer->lora_B->weight.normal_();
        }
        lora::freeze_all_but_lora(*model);
    }
    model->train();
    const auto inputs = random_inputs(config);
    auto gradients = [&](std::int64_t checkpointed_blocks, bool keep_attention = false) {
        model->set_checkpointed_blocks(checkpointed_blocks);
        model->set_keep_attention(keep_attention);
        model->zero_grad();
        torch::manual_seed(6); // the same dropout masks in both runs
        model->forward(inputs).square().mean().backward();
        std::vector<at::Tensor> grads;
        for (const auto& parameter : model->parameters()) {
            if (parameter.requires_grad()) {
                EXPECT_TRUE(parameter.grad().defined());
                grads.push_back(parameter.grad().clone());
            }
        }
        return grads;
    };
    const auto plain = gradients(0);
    const auto checkpointed = gradients(config.num_layers);
    // Only the first block recomputed, the rest keeping their activations.
    ASSERT_GE(config.num_layers, 2);
    const auto partly = gradients(1);
    // Recomputed blocks handing back their kept attention outputs (core::KeptAttention).
    const auto kept = gradients(config.num_layers, /*keep_attention=*/true);
    ASSERT_EQ(plain.size(), checkpointed.size());
    ASSERT_EQ(plain.size(), partly.size());
    ASSERT_EQ(plain.size(), kept.size());
    ASSERT_FALSE(plain.empty());
    for (std::size_t i = 0; i < plain.size(); ++i) {
        EXPECT_TRUE(torch::allclose(plain[i], checkpointed[i], 1e-10, 1e-12)) << i;
        EXPECT_TRUE(torch::allclose(plain[i], partly[i], 1e-10, 1e-12)) << i;
        EXPECT_TRUE(torch::allclose(plain[i], kept[i], 1e-10, 1e-12)) << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, GradientCheckpointing,
                         ::testing::Values(CheckpointingCase{true, 0.0},
                                           CheckpointingCase{false, 0.0},
                                           CheckpointingCase{true, 0.1},
                                           CheckpointingCase{false, 0.1}));

// The command line on the tiny architecture: init-model, inspect, forward.
class TinyModelCommands : public ::testing::Test {
protected:
    test::ProcessResult engine(std::vector<std::string> arguments) {
        arguments.insert(arguments.begin(), test::engine_path());
        return test::run_process(arguments);
    }
    test::TemporaryDirectory folder_;
};

TEST_F(TinyModelCommands, InitModelInspectAndForward) {
    const auto root = folder_.path() / "tiny";
    auto init = engine({"init-model", "--arch", "cogvideox-tiny", "--out", root.string()});
    ASSERT_EQ(init.exit_code, 0) << init.err;
    EXPECT_TRUE(std::filesystem::exists(root / "model_index.json"));
    const auto config =
        CogVideoXTransformer3DConfig::from_file((root / "transformer" / "config.json").string());
    EXPECT_EQ(config.text_embed_dim, 32);
    EXPECT_TRUE(config.use_rotary_positional_embeddings);
    EXPECT_EQ(config.attention_head_dim % 16, 0);
    // A complete pipeline: every component diffusers' CogVideoXPipeline loads.
    const auto index = core::read_json_file(root / "model_index.json");
    for (const char* component : {"transformer", "vae", "text_encoder", "tokenizer", "scheduler"}) {
        EXPECT_TRUE(index.contains(component)) << component;
        EXPECT_TRUE(std::filesystem::is_directory(root / component)) << component;
    }
    const auto tokenizer_config =
        core::read_json_file(root / "tokenizer" / "tokenizer_config.json");
    EXPECT_EQ(tokenizer_config["model_max_length"], config.max_text_seq_length);
    const auto prompts = folder_.path() / "prompts.json";
    core::write_json_file(prompts, {"a red circle drifts to the left"});
    const auto ids = folder_.path() / "ids.safetensors";
    auto tokenize = engine({"forward", "tokenize", "--model", (root / "tokenizer").string(),
                            "--prompts", prompts.string(), "--max-length",
                            std::to_string(config.max_text_seq_length), "--out", ids.string()});
    ASSERT_EQ(tokenize.exit_code, 0) << tokenize.err;
    const auto embeddings = folder_.path() / "embeddings.safetensors";
    auto t5 = engine({"forward", "t5", "--model", (root / "text_encoder").string(), "--inputs",
                      ids.string(), "--out", embeddings.string()});
    ASSERT_EQ(t5.exit_code, 0) << t5.err;
    EXPECT_EQ(core::read_tensors(embeddings).at("last_hidden_state").sizes(),
              (std::vector<std::int64_t>{1, config.max_text_seq_length, config.text_embed_dim}));

    auto again = engine({"init-model", "--arch", "cogvideox-tiny", "--out", root.string()});
    EXPECT_NE(again.exit_code, 0);
    auto unknown =
        engine({"init-model", "--arch", "cogvideox-7b", "--out", (folder_.path() / "x").string()});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.err.find("cogvideox1.5-5b-i2v"), std::string::npos) << unknown.err;

    auto inspect = engine({"inspect", root.string(), "--summary"});
    ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
    EXPECT_NE(inspect.out.find("architecture: cogvideox-tiny"), std::string::npos) << inspect.out;
    // rank 64 by default, capped at the tiny model's width of 32
    EXPECT_NE(inspect.out.find("LoRA training r32"), std::string::npos) << inspect.out;
    auto json = engine({"inspect", (root / "transformer").string(), "--json", "--summary",
                        "--shape", "9x64x96", "--rank", "8"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto report = nlohmann::json::parse(json.out);
    const auto& architecture = report["components"][0]["architecture"];
    EXPECT_EQ(architecture["name"], "cogvideox-tiny");
    EXPECT_EQ(architecture["memory"]["video_tokens"], 3 * 4 * 6);
    EXPECT_EQ(report["parameters"], config.parameter_count());

    // Rotary tables absent from the inputs: the engine computes them.
    const auto inputs = folder_.path() / "inputs.safetensors";
    core::write_tensors(inputs, {{"hidden_states", torch::randn({1, 3, 16, 8, 12})},
                                 {"encoder_hidden_states", torch::randn({1, 7, 32})},
                                 {"timestep", torch::tensor({999}, torch::kInt64)}});
    const auto out = folder_.path() / "out.safetensors";
    auto forward = engine({"forward", "transformer", "--model", (root / "transformer").string(),
                           "--inputs", inputs.string(), "--out", out.string(), "--device", "cpu"});
    ASSERT_EQ(forward.exit_code, 0) << forward.err;
    EXPECT_EQ(core::read_tensors(out).at("sample").sizes(),
              (std::vector<std::int64_t>{1, 3, 16, 8, 12}));
    auto half =
        engine({"forward", "transformer", "--model", (root / "transformer").string(), "--inputs",
                inputs.string(), "--out", out.string(), "--device", "cpu", "--dtype", "fp16"});
    EXPECT_NE(half.exit_code, 0);
    EXPECT_NE(half.err.find("fp16"), std::string::npos) << half.err;
}

} // namespace
} // namespace tuneframe::models::cogvideox
