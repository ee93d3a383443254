// The comfyui export against the layout kijai's ComfyUI-CogVideoXWrapper loads
// (engine/lora/comfyui_lora_keys.h): every key, shape and dtype, the wrapper's name walk landing
// on the adapted layer, and its merge rule (W += strength * alpha / r * up @ down) reproducing
// our forward; for every target set, on CogVideoX 1.0- and 1.5-shaped tiny models.
#include "engine/core/safetensors/safetensors_file.h"
#include "engine/core/tensor_io.h"
#include "engine/lora/lora_injection.h"
#include "engine/lora/lora_weights.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace tuneframe::lora {
namespace {

using models::cogvideox::CogVideoXTransformer3DConfig;
using models::cogvideox::CogVideoXTransformer3DModel;
using models::cogvideox::CogVideoXTransformerInputs;

const std::string kPrefix = "lora_unet_";
constexpr std::int64_t kRank = 4;
constexpr double kAlpha = 6; // a scale of 1.5, so a loader that ignores alpha fails

struct Variant {
    const char* name;
    CogVideoXTransformer3DConfig config;
    std::vector<std::vector<std::string>> target_sets;
};

// The Train form offers one set, the trainers' default; job files may name any Linear, so the
// other sets cover every kind of Linear the two model generations have.
std::vector<std::vector<std::string>> common_target_sets() {
    return {{"to_q", "to_k", "to_v", "to_out.0"},
            {"ff.net.0.proj", "ff.net.2"},
            {"norm1.linear", "norm2.linear", "norm_out.linear", "proj_out"},
            {"text_proj", "time_embedding.linear_1", "time_embedding.linear_2"}};
}

std::vector<Variant> variants() {
    CogVideoXTransformer3DConfig v1 =
        models::cogvideox::find_architecture("cogvideox-tiny").transformer;
    v1.max_text_seq_length = 5;
    // 1.5 image-to-video: temporal patches (patch_embed.proj becomes a Linear) and the ofs
    // embedding, whose width is the time embedding's.
    CogVideoXTransformer3DConfig v15 = v1;
    v15.patch_size_t = 2;
    v15.patch_bias = false;
    v15.in_channels = 32;
    v15.ofs_embed_dim = v15.time_embed_dim;
    std::vector<std::vector<std::string>> v15_sets = common_target_sets();
    v15_sets.push_back({"patch_embed.proj", "ofs_embedding.linear_1", "ofs_embedding.linear_2"});
    return {{"CogVideoX 1.0", v1, common_target_sets()}, {"CogVideoX 1.5 I2V", v15, v15_sets}};
}

CogVideoXTransformerInputs inputs_for(const CogVideoXTransformer3DConfig& config) {
    torch::manual_seed(5);
    CogVideoXTransformerInputs inputs;
    inputs.hidden_states = torch::randn({1, 2, config.in_channels, 4, 6});
    inputs.encoder_hidden_states = torch::randn({1, 5, config.text_embed_dim});
    inputs.timestep = torch::tensor({321}, torch::kInt64);
    if (config.ofs_embed_dim) {
        inputs.ofs = torch::full({1}, 2.0);
    }
    return inputs;
}

at::Tensor run(CogVideoXTransformer3DModel& model, const CogVideoXTransformer3DConfig& config) {
    torch::NoGradGuard no_grad;
    model->eval();
    return model->forward(inputs_for(config));
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> pieces(1);
    for (const char c : text) {
        if (c == separator) {
            pieces.emplace_back();
        } else {
            pieces.back() += c;
        }
    }
    return pieces;
}

// The wrapper's walk (lora_utils.py, merge_lora), restated: the stem is cut at every '_' and the
// pieces are joined with '_' until a child module of that name exists, which becomes the next
// parent. Pieces left over that never name a child mean the file does not load.
std::optional<std::string> wrapper_walk(torch::nn::Module& root, const std::string& stem) {
    torch::nn::Module* parent = &root;
    std::string pending;
    std::string path;
    for (const std::string& piece : split(stem, '_')) {
        pending = pending.empty() ? piece : pending + "_" + piece;
        const auto children = parent->named_children();
        if (const auto* child = children.find(pending)) {
            parent = child->get();
            path += (path.empty() ? "" : ".") + pending;
            pending.clear();
        }
    }
    if (!pending.empty() || path.empty()) {
        return std::nullopt;
    }
    return path;
}

struct KohyaTensors {
    at::Tensor down;
    at::Tensor up;
    at::Tensor alpha;
};

class ComfyUIExport : public ::testing::Test {
protected:
    // A model with random base weights and random adapters on `targets`; `base_` keeps a copy of
    // the base weights without adapters.
    void make_models(const CogVideoXTransformer3DConfig& config,
                     const std::vector<std::string>& targets) {
        torch::manual_seed(41);
        trained_ = CogVideoXTransformer3DModel(config);
        base_ = CogVideoXTransformer3DModel(config);
        torch::NoGradGuard no_grad;
        auto source = trained_->named_parameters();
        for (auto& item : base_->named_parameters()) {
            item.value().copy_(source[item.key()]);
        }
        LoRAConfig lora;
        lora.rank = kRank;
        lora.alpha = kAlpha;
        lora.target_modules = targets;
        adapted_ = inject_lora(*trained_, lora);
        for (auto& parameter : lora_parameters(*trained_)) {
            parameter.normal_(0.0, 0.2);
        }
    }

    // make_models, then the comfyui export of the trained model, read back by read_export.
    std::map<std::string, KohyaTensors> export_models(const CogVideoXTransformer3DConfig& config,
                                                      const std::vector<std::string>& targets) {
        make_models(config, targets);
        const auto file = folder_ / "comfy.safetensors";
        LoRASaveOptions options;
        options.scheme = comfyui_key_scheme();
        save_lora_weights(*trained_, file, options);
        return read_export(file);
    }

    // The file's tensors grouped by key stem, with every key's form checked on the way.
    std::map<std::string, KohyaTensors> read_export(const std::filesystem::path& file) {
        std::map<std::string, KohyaTensors> groups;
        for (auto& [key, tensor] : core::read_tensors(file)) {
            SCOPED_TRACE(key);
            // The wrapper sends any file with a "lora_B" key to diffusers instead.
            EXPECT_EQ(key.find("lora_B"), std::string::npos);
            EXPECT_EQ(key.rfind(kPrefix, 0), 0u);
            const std::size_t dot = key.find('.');
            if (dot == std::string::npos || dot <= kPrefix.size()) {
                ADD_FAILURE() << "not a module key";
                continue;
            }
            const std::string stem = key.substr(kPrefix.size(), dot - kPrefix.size());
            const std::string suffix = key.substr(dot);
            EXPECT_EQ(tensor.scalar_type(), torch::kFloat32);
            if (suffix == ".lora_down.weight") {
                groups[stem].down = tensor;
            } else if (suffix == ".lora_up.weight") {
                groups[stem].up = tensor;
            } else if (suffix == ".alpha") {
                groups[stem].alpha = tensor;
            } else {
                ADD_FAILURE() << "unexpected suffix " << suffix;
            }
        }
        return groups;
    }

    CogVideoXTransformer3DModel trained_{nullptr};
    CogVideoXTransformer3DModel base_{nullptr};
    std::vector<std::string> adapted_;
    test::TemporaryDirectory folder_;
};

TEST_F(ComfyUIExport, KeysShapesDtypesAndAlphaAreWhatTheWrapperLoads) {
    for (const Variant& variant : variants()) {
        for (const auto& targets : variant.target_sets) {
            SCOPED_TRACE(std::string(variant.name) + ": " + targets.front() + " …");
            const auto groups = export_models(variant.config, targets);

            // One group per adapted layer, each named by the mapping and walked back to it.
            std::set<std::string> expected;
            for (std::string module : adapted_) {
                std::replace(module.begin(), module.end(), '.', '_');
                expected.insert(module);
            }
            std::set<std::string> stems;
            for (const auto& [stem, tensors] : groups) {
                stems.insert(stem);
            }
            EXPECT_EQ(stems, expected);

            auto layers = linear_layers(*trained_);
            std::map<std::string, LoRALinear> by_name(layers.begin(), layers.end());
            for (const auto& [stem, tensors] : groups) {
                SCOPED_TRACE(stem);
                const std::optional<std::string> module = wrapper_walk(*trained_, stem);
                ASSERT_TRUE(module.has_value()) << "the wrapper cannot resolve it";
                EXPECT_EQ(wrapper_walk(*trained_, "_" + stem), module)
                    << "VideoX-Fun's lora_unet__";
                const LoRALinear layer = by_name.at(*module);
                ASSERT_TRUE(layer->has_adapter());
                ASSERT_TRUE(tensors.down.defined() && tensors.up.defined() &&
                            tensors.alpha.defined());
                EXPECT_EQ(tensors.down.sizes(),
                          (std::vector<std::int64_t>{kRank, layer->in_features()}));
                EXPECT_EQ(tensors.up.sizes(),
                          (std::vector<std::int64_t>{layer->out_features(), kRank}));
                EXPECT_EQ(tensors.alpha.dim(), 0);
                EXPECT_EQ(tensors.alpha.item<double>(), kAlpha);
                EXPECT_TRUE(torch::equal(tensors.down, layer->lora_A->weight.detach()));
                EXPECT_TRUE(torch::equal(tensors.up, layer->lora_B->weight.detach()));
            }
        }
    }
}

TEST_F(ComfyUIExport, TheWrappersMergeReproducesOurForwardAtEveryStrength) {
    for (const Variant& variant : variants()) {
        for (const auto& targets : variant.target_sets) {
            SCOPED_TRACE(std::string(variant.name) + ": " + targets.front() + " …");
            const auto groups = export_models(variant.config, targets);

            for (const double strength : {1.0, 0.5}) {
                SCOPED_TRACE(strength);
                CogVideoXTransformer3DModel merged(variant.config);
                {
                    torch::NoGradGuard no_grad;
                    auto source = base_->named_parameters();
                    for (auto& item : merged->named_parameters()) {
                        item.value().copy_(source[item.key()]);
                    }
                    auto layers = linear_layers(*merged);
                    std::map<std::string, LoRALinear> by_name(layers.begin(), layers.end());
                    for (const auto& [stem, tensors] : groups) {
                        const std::optional<std::string> module = wrapper_walk(*merged, stem);
                        ASSERT_TRUE(module.has_value()) << stem;
                        const double scale = tensors.alpha.item<double>() / tensors.up.size(1);
                        by_name.at(*module)->weight.add_(strength * scale *
                                                         tensors.up.mm(tensors.down));
                    }
                }
                set_lora_weight(*trained_, strength);
                const at::Tensor ours = run(trained_, variant.config);
                const at::Tensor theirs = run(merged, variant.config);
                EXPECT_TRUE(torch::allclose(theirs, ours, 1e-4, 1e-5))
                    << "max difference " << (theirs - ours).abs().max().item<double>();
            }
            // And the adapters do something: the base model alone differs.
            set_lora_weight(*trained_, 1.0);
            EXPECT_FALSE(torch::allclose(run(base_, variant.config), run(trained_, variant.config),
                                         1e-4, 1e-5));
        }
    }
}

// Our own loader reads the layout back, alpha included (the export's reload check uses it).
TEST_F(ComfyUIExport, OurLoaderReadsItBack) {
    for (const Variant& variant : variants()) {
        SCOPED_TRACE(variant.name);
        make_models(variant.config, variant.target_sets.back());
        const auto file = folder_ / "comfy.safetensors";
        LoRASaveOptions options;
        options.scheme = comfyui_key_scheme();
        save_lora_weights(*trained_, file, options);
        const LoadedLoRA loaded = load_lora_weights(*base_, file);
        EXPECT_EQ(loaded.rank, kRank);
        EXPECT_EQ(loaded.alpha, kAlpha);
        EXPECT_TRUE(
            torch::allclose(run(base_, variant.config), run(trained_, variant.config), 1e-5, 1e-6));
    }
}

} // namespace
} // namespace tuneframe::lora
