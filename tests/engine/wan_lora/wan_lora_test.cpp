// The Wan LoRA layouts (engine/models/wan/lora_keys.h) on small seeded Wan 2.1 T2V and I2V
// transformers: the stems of every Linear layer, exports that load back to the same forward on
// every layer kind, the read-only PEFT-keyed variant, and the files refused with a clear error.
#include "engine/core/error.h"
#include "engine/core/tensor_io.h"
#include "engine/lora/lora_injection.h"
#include "engine/lora/lora_weights.h"
#include "engine/models/wan/lora_keys.h"
#include "engine/models/wan/original_keys.h"
#include "tests/engine/wan_transformer/tiny_wan.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <set>

namespace tuneframe::models::wan {
namespace {

constexpr std::int64_t kRank = 4;
constexpr double kAlpha = 6; // a scale of 1.5, so a loader that ignores alpha fails

// Every kind of Linear a Wan 2.1 I2V transformer has: the blocks' attention (with the image
// K/V), feed-forward, the time, text and image embeddings and the output projection.
const std::vector<std::string>& every_layer_kind() {
    static const std::vector<std::string> targets = {"to_q",
                                                     "to_k",
                                                     "to_v",
                                                     "to_out.0",
                                                     "add_k_proj",
                                                     "add_v_proj",
                                                     "ffn.net.0.proj",
                                                     "ffn.net.2",
                                                     "time_embedder.linear_1",
                                                     "time_embedder.linear_2",
                                                     "time_proj",
                                                     "text_embedder.linear_1",
                                                     "text_embedder.linear_2",
                                                     "image_embedder.ff.net.0.proj",
                                                     "image_embedder.ff.net.2",
                                                     "proj_out"};
    return targets;
}

const std::vector<std::string>& block_layer_kinds() {
    static const std::vector<std::string> targets = {"to_q",           "to_k",       "to_v",
                                                     "to_out.0",       "add_k_proj", "add_v_proj",
                                                     "ffn.net.0.proj", "ffn.net.2"};
    return targets;
}

// A seeded I2V model with trained-looking adapters (B non-zero) on `targets`.
WanTransformer3DModel adapted_model(const std::vector<std::string>& targets,
                                    bool image_to_video = true) {
    auto model = test::seeded_wan_model(test::tiny_wan_config(image_to_video));
    lora::LoRAConfig config;
    config.rank = kRank;
    config.alpha = kAlpha;
    config.target_modules = targets;
    lora::inject_lora(*model, config);
    torch::manual_seed(11);
    torch::NoGradGuard no_grad;
    for (at::Tensor& tensor : lora::lora_parameters(*model)) {
        tensor.copy_(torch::randn_like(tensor) * 0.2);
    }
    return model;
}

WanTransformer3DModel fresh_model(bool image_to_video = true) {
    return test::seeded_wan_model(test::tiny_wan_config(image_to_video));
}

at::Tensor run(WanTransformer3DModel& model) {
    torch::NoGradGuard no_grad;
    model->eval();
    return model->forward(test::seeded_wan_inputs(model->config()));
}

lora::LoRALoadOptions wan_options() {
    lora::LoRALoadOptions options;
    options.schemes = wan_lora_key_schemes();
    return options;
}

void expect_same_forward(WanTransformer3DModel& actual, WanTransformer3DModel& expected) {
    const at::Tensor a = run(actual);
    const at::Tensor b = run(expected);
    EXPECT_TRUE(torch::allclose(a, b, 1e-5, 1e-5)) << (a - b).abs().max().item<double>();
}

// The error `load` throws: BadInput naming `file` and every one of `parts`.
void expect_bad_input(const std::function<void()>& load, const std::filesystem::path& file,
                      const std::vector<std::string>& parts) {
    try {
        load();
        ADD_FAILURE() << "loaded " << file;
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        const std::string message = error.what();
        EXPECT_NE(message.find(file.string()), std::string::npos) << message;
        for (const std::string& part : parts) {
            EXPECT_NE(message.find(part), std::string::npos) << part << "\n" << message;
        }
        EXPECT_FALSE(error.hint().empty());
    }
}

TEST(WanLoRAKeys, SchemesInOrderAndOnlyTheFirstTwoExported) {
    const std::vector<lora::LoRAKeyScheme> schemes = wan_lora_key_schemes();
    ASSERT_EQ(schemes.size(), 3u);
    EXPECT_EQ(schemes[0].name, "wan");
    EXPECT_EQ(schemes[1].name, "musubi");
    EXPECT_EQ(schemes[2].name, "wan_peft");
    EXPECT_TRUE(schemes[0].exportable);
    EXPECT_TRUE(schemes[1].exportable);
    EXPECT_FALSE(schemes[2].exportable);
    EXPECT_EQ(schemes[0].file_name, "tuneframe_lora_wan.safetensors");
    EXPECT_NE(schemes[0].description.find("ComfyUI"), std::string::npos);
    for (const auto& scheme : {schemes[0], schemes[1]}) {
        EXPECT_EQ(scheme.down, ".lora_down.weight");
        EXPECT_EQ(scheme.up, ".lora_up.weight");
        EXPECT_EQ(scheme.alpha, ".alpha");
    }
    EXPECT_EQ(schemes[2].down, ".lora_A.weight");
    EXPECT_EQ(schemes[2].up, ".lora_B.weight");
}

TEST(WanLoRAKeys, StemsOfNamedLayers) {
    const std::vector<std::pair<std::string, std::string>> wan = {
        {"blocks.0.attn1.to_q", "diffusion_model.blocks.0.self_attn.q"},
        {"blocks.12.attn1.to_out.0", "diffusion_model.blocks.12.self_attn.o"},
        {"blocks.3.attn2.to_k", "diffusion_model.blocks.3.cross_attn.k"},
        {"blocks.3.attn2.add_k_proj", "diffusion_model.blocks.3.cross_attn.k_img"},
        {"blocks.3.attn2.add_v_proj", "diffusion_model.blocks.3.cross_attn.v_img"},
        {"blocks.1.ffn.net.0.proj", "diffusion_model.blocks.1.ffn.0"},
        {"blocks.1.ffn.net.2", "diffusion_model.blocks.1.ffn.2"},
        {"condition_embedder.time_proj", "diffusion_model.time_projection.1"},
        {"condition_embedder.time_embedder.linear_2", "diffusion_model.time_embedding.2"},
        {"condition_embedder.text_embedder.linear_1", "diffusion_model.text_embedding.0"},
        {"condition_embedder.image_embedder.ff.net.0.proj", "diffusion_model.img_emb.proj.1"},
        {"condition_embedder.image_embedder.ff.net.2", "diffusion_model.img_emb.proj.3"},
        {"proj_out", "diffusion_model.head.head"},
    };
    for (const auto& [module, stem] : wan) {
        EXPECT_EQ(wan_lora_stem(module), stem) << module;
    }
    EXPECT_EQ(musubi_lora_stem("blocks.0.attn1.to_q"), "lora_unet_blocks_0_self_attn_q");
    EXPECT_EQ(musubi_lora_stem("blocks.10.attn2.add_v_proj"),
              "lora_unet_blocks_10_cross_attn_v_img");
    EXPECT_EQ(musubi_lora_stem("blocks.2.ffn.net.0.proj"), "lora_unet_blocks_2_ffn_0");
    for (const char* outside : {"proj_out", "condition_embedder.time_proj",
                                "condition_embedder.text_embedder.linear_1"}) {
        EXPECT_EQ(musubi_lora_stem(outside), "") << outside;
    }
    EXPECT_EQ(wan_lora_stem("blocks.0.attn1.to_x"), "");
    EXPECT_EQ(wan_lora_stem("transformer_blocks.0.attn1.to_q"), "");
}

// Every Linear of an I2V model has one "wan" stem, which original_keys maps back to it; the
// blocks' layers, and only they, have one "musubi" stem each.
TEST(WanLoRAKeys, EveryLinearLayerHasOneStem) {
    auto model = fresh_model();
    std::set<std::string> wan;
    std::set<std::string> musubi;
    std::size_t in_blocks = 0;
    const auto layers = lora::linear_layers(*model);
    for (const auto& [name, layer] : layers) {
        const std::string stem = wan_lora_stem(name);
        ASSERT_EQ(stem.rfind(kWanLoRAPrefix, 0), 0u) << name;
        EXPECT_EQ(diffusers_name(stem.substr(std::string(kWanLoRAPrefix).size())), name);
        wan.insert(stem);
        const bool block = name.rfind("blocks.", 0) == 0;
        in_blocks += block ? 1 : 0;
        const std::string flat = musubi_lora_stem(name);
        EXPECT_EQ(flat.empty(), !block) << name;
        if (!flat.empty()) {
            EXPECT_EQ(flat.find('.'), std::string::npos) << flat;
            musubi.insert(flat);
        }
    }
    EXPECT_EQ(wan.size(), layers.size());
    EXPECT_EQ(musubi.size(), in_blocks);
    // 3 blocks of q, k, v, o in both attentions, k_img, v_img and the two feed-forward layers
    EXPECT_EQ(in_blocks, 3u * 12u);
}

TEST(WanLoRAFiles, WanLayoutCarriesEveryLayerKind) {
    test::TemporaryDirectory folder;
    auto model = adapted_model(every_layer_kind());
    const auto file = folder / "wan.safetensors";
    lora::LoRASaveOptions options;
    options.scheme = wan_key_scheme();
    lora::save_lora_weights(*model, file, options);

    const auto tensors = core::read_tensors(file);
    EXPECT_EQ(tensors.size(), 3 * lora::adapted_layers(*model).size());
    for (const char* key :
         {"diffusion_model.blocks.2.cross_attn.k_img.lora_down.weight",
          "diffusion_model.time_projection.1.lora_up.weight", "diffusion_model.head.head.alpha",
          "diffusion_model.img_emb.proj.3.lora_down.weight",
          "diffusion_model.text_embedding.2.alpha"}) {
        EXPECT_TRUE(tensors.count(key)) << key;
    }
    const at::Tensor& alpha = tensors.at("diffusion_model.blocks.0.self_attn.q.alpha");
    EXPECT_EQ(alpha.dim(), 0);
    EXPECT_EQ(alpha.item<double>(), kAlpha);

    auto reloaded = fresh_model();
    const lora::LoadedLoRA loaded = lora::load_lora_weights(*reloaded, file, wan_options());
    EXPECT_EQ(loaded.rank, kRank);
    EXPECT_EQ(loaded.alpha, kAlpha);
    expect_same_forward(reloaded, model);
}

TEST(WanLoRAFiles, MusubiLayoutCarriesTheBlocks) {
    test::TemporaryDirectory folder;
    auto model = adapted_model(block_layer_kinds());
    const auto file = folder / "musubi.safetensors";
    lora::LoRASaveOptions options;
    options.scheme = musubi_key_scheme();
    lora::save_lora_weights(*model, file, options);
    const auto tensors = core::read_tensors(file);
    EXPECT_TRUE(tensors.count("lora_unet_blocks_1_cross_attn_v_img.lora_up.weight"));
    EXPECT_TRUE(tensors.count("lora_unet_blocks_2_ffn_2.alpha"));

    auto reloaded = fresh_model();
    lora::load_lora_weights(*reloaded, file, wan_options());
    expect_same_forward(reloaded, model);
}

TEST(WanLoRAFiles, MusubiRefusesLayersOutsideTheBlocks) {
    test::TemporaryDirectory folder;
    auto model = adapted_model({"to_q", "proj_out"});
    lora::LoRASaveOptions options;
    options.scheme = musubi_key_scheme();
    try {
        lora::save_lora_weights(*model, folder / "musubi.safetensors", options);
        FAIL() << "wrote proj_out in a layout that cannot name it";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_NE(std::string(error.what()).find("'proj_out'"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("musubi"), std::string::npos) << error.what();
    }
}

// The PEFT-keyed variant: `diffusion_model.` + lora_A / lora_B, with alpha beside them or
// without (alpha = rank, so the file's B carries alpha / r).
TEST(WanLoRAFiles, PeftKeyedVariantLoads) {
    test::TemporaryDirectory folder;
    auto model = adapted_model(every_layer_kind());
    for (const bool with_alpha : {true, false}) {
        SCOPED_TRACE(with_alpha ? "with alpha" : "without alpha");
        core::NamedTensors tensors;
        for (const auto& [name, layer] : lora::adapted_layers(*model)) {
            const std::string stem = wan_lora_stem(name);
            const double fold = with_alpha ? 1.0 : layer->alpha() / layer->rank();
            tensors.emplace_back(stem + ".lora_A.weight", layer->lora_A->weight.detach().clone());
            tensors.emplace_back(stem + ".lora_B.weight", layer->lora_B->weight.detach() * fold);
            if (with_alpha) {
                tensors.emplace_back(stem + ".alpha", torch::tensor(static_cast<float>(kAlpha)));
            }
        }
        const auto file = folder / "peft_keyed.safetensors";
        core::write_tensors(file, tensors);
        auto reloaded = fresh_model();
        const lora::LoadedLoRA loaded = lora::load_lora_weights(*reloaded, file, wan_options());
        EXPECT_EQ(loaded.alpha, with_alpha ? kAlpha : static_cast<double>(kRank));
        expect_same_forward(reloaded, model);
    }
}

// A text-to-video LoRA fits an image-to-video model (its layers are a subset).
TEST(WanLoRAFiles, TextToVideoLoRAOnImageToVideoModel) {
    test::TemporaryDirectory folder;
    auto t2v = adapted_model({"to_q", "to_k", "to_v", "to_out.0"}, false);
    const auto file = folder / "t2v.safetensors";
    lora::LoRASaveOptions options;
    options.scheme = wan_key_scheme();
    lora::save_lora_weights(*t2v, file, options);
    auto i2v = fresh_model(true);
    const lora::LoadedLoRA loaded = lora::load_lora_weights(*i2v, file, wan_options());
    EXPECT_EQ(loaded.modules.size(), 3u * 8u);
}

TEST(WanLoRAFiles, ImageLayersOnTextToVideoModelAreRefused) {
    test::TemporaryDirectory folder;
    auto i2v = adapted_model({"to_q", "add_k_proj"});
    const auto file = folder / "i2v.safetensors";
    lora::LoRASaveOptions options;
    options.scheme = wan_key_scheme();
    lora::save_lora_weights(*i2v, file, options);
    auto t2v = fresh_model(false);
    expect_bad_input([&] { lora::load_lora_weights(*t2v, file, wan_options()); }, file,
                     {"diffusion_model.blocks.0.cross_attn.k_img.lora_down.weight"});
    EXPECT_TRUE(lora::adapted_layers(*t2v).empty()) << "a failed load must change nothing";
}

// diffusers converts nothing from keys without `diffusion_model.`; neither do we.
TEST(WanLoRAFiles, OriginalNamesWithoutPrefixAreRefused) {
    test::TemporaryDirectory folder;
    auto model = adapted_model({"to_q"});
    core::NamedTensors tensors;
    for (const auto& [name, layer] : lora::adapted_layers(*model)) {
        const std::string original = *original_name(name);
        tensors.emplace_back(original + ".lora_A.weight", layer->lora_A->weight.detach().clone());
        tensors.emplace_back(original + ".lora_B.weight", layer->lora_B->weight.detach().clone());
    }
    const auto file = folder / "no_prefix.safetensors";
    core::write_tensors(file, tensors);
    auto reloaded = fresh_model();
    expect_bad_input([&] { lora::load_lora_weights(*reloaded, file, wan_options()); }, file,
                     {"holds no LoRA layer of this model", "blocks.0.self_attn.q.lora_A.weight"});
}

// Weight and bias differences (lightx2v-style `.diff`, `.diff_b`) beside the pairs.
TEST(WanLoRAFiles, WeightDifferencesAreRefused) {
    test::TemporaryDirectory folder;
    auto model = adapted_model({"to_q"});
    const auto clean = folder / "clean.safetensors";
    lora::LoRASaveOptions options;
    options.scheme = wan_key_scheme();
    lora::save_lora_weights(*model, clean, options);
    auto tensors = core::read_tensors(clean);
    tensors["diffusion_model.blocks.0.self_attn.q.diff_b"] = torch::zeros({64});
    tensors["diffusion_model.blocks.0.norm3.diff"] = torch::zeros({64});
    tensors["diffusion_model.head.head.diff"] = torch::zeros({64, 64});
    const auto file = folder / "with_diffs.safetensors";
    core::write_tensors(file, core::NamedTensors(tensors.begin(), tensors.end()));
    auto reloaded = fresh_model();
    expect_bad_input([&] { lora::load_lora_weights(*reloaded, file, wan_options()); }, file,
                     {"3 tensor(s)", "diffusion_model.blocks.0.self_attn.q.diff_b",
                      "diffusion_model.blocks.0.norm3.diff", "'.diff_b'"});
    EXPECT_TRUE(lora::adapted_layers(*reloaded).empty());
}

TEST(WanLoRAFiles, MismatchedRankIsRefused) {
    test::TemporaryDirectory folder;
    auto model = adapted_model({"to_q"});
    const auto clean = folder / "clean.safetensors";
    lora::LoRASaveOptions options;
    options.scheme = musubi_key_scheme();
    lora::save_lora_weights(*model, clean, options);
    auto tensors = core::read_tensors(clean);
    tensors["lora_unet_blocks_1_self_attn_q.lora_up.weight"] = torch::zeros({64, 3});
    const auto file = folder / "bad_rank.safetensors";
    core::write_tensors(file, core::NamedTensors(tensors.begin(), tensors.end()));
    auto reloaded = fresh_model();
    expect_bad_input([&] { lora::load_lora_weights(*reloaded, file, wan_options()); }, file,
                     {"blocks.1.attn1.to_q (lora_A [4, 64], lora_B [64, 3]"});
}

} // namespace
} // namespace tuneframe::models::wan
