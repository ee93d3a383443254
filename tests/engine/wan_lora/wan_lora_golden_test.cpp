// The lora_wan golden case: one PEFT adapter (rank 4, alpha 8) on a tiny Wan 2.1 T2V
// transformer, saved by diffusers in its own layout, the original Wan / ComfyUI layout and
// musubi-tuner's. Each file loads to diffusers' forwards; our exports write the same keys (and
// the same tensors) and load back to the same forward; LoRAs of the other family are refused.
#include "engine/core/error.h"
#include "engine/core/tensor_io.h"
#include "engine/lora/comfyui_lora_keys.h"
#include "engine/lora/lora_injection.h"
#include "engine/lora/lora_weights.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"
#include "engine/models/wan/lora_keys.h"
#include "engine/models/wan/transformer_checkpoint.h"
#include "tests/engine/transformer/golden_case.h"
#include "tests/support/test_paths.h"

#include <torch/torch.h>

#include <fstream>
#include <functional>
#include <optional>
#include <set>

namespace tuneframe::models::wan {
namespace {

using test::compare;
using test::expect_within;
using Tensors = std::map<std::string, at::Tensor>;

constexpr std::int64_t kRank = 4;
constexpr double kAlpha = 8;

struct GoldenFile {
    std::string file;
    std::string reloaded; // diffusers' forward after load_lora_weights of the file
    std::string keys;     // the file's key list
};

const std::vector<GoldenFile>& golden_files() {
    static const std::vector<GoldenFile> files = {
        {"pytorch_lora_weights.safetensors", "sample_reloaded", "lora_keys.txt"},
        {"wan_original_format_lora.safetensors", "sample_reloaded_wan_original_format",
         "wan_original_format_lora_keys.txt"},
        {"musubi_format_lora.safetensors", "sample_reloaded_musubi_format",
         "musubi_format_lora_keys.txt"},
    };
    return files;
}

std::set<std::string> read_key_list(const std::filesystem::path& file) {
    std::ifstream listed(file);
    std::set<std::string> keys;
    for (std::string line; std::getline(listed, line);) {
        if (!line.empty()) {
            keys.insert(line);
        }
    }
    return keys;
}

std::set<std::string> file_keys(const std::filesystem::path& file) {
    std::set<std::string> keys;
    for (const auto& [name, tensor] : core::read_tensors(file)) {
        keys.insert(name);
    }
    return keys;
}

// diffusers' split of alpha / r between the converted lora_A and lora_B
// (lora_conversion_utils.py, get_alpha_scales).
std::pair<double, double> diffusers_alpha_split(double scale) {
    double down = scale;
    double up = 1.0;
    while (down * 2 < up) {
        down *= 2;
        up /= 2;
    }
    return {down, up};
}

class WanLoRAGolden : public test::WanGoldenTest {
protected:
    void SetUp() override {
        test::WanGoldenTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        case_ = golden_ / "lora_wan";
        inputs_ = test::read_golden(golden_, "lora_wan/inputs.safetensors");
        outputs_ = test::read_golden(golden_, "lora_wan/outputs.safetensors");
    }

    WanTransformer3DModel base() const {
        TransformerLoadOptions options;
        options.dtype = torch::kFloat32;
        return load_wan_transformer(case_ / "transformer", options);
    }

    at::Tensor run(WanTransformer3DModel& model) const {
        TransformerInputs inputs;
        inputs.hidden_states = inputs_.at("hidden_states");
        inputs.encoder_hidden_states = inputs_.at("encoder_hidden_states");
        inputs.timestep = inputs_.at("timestep");
        torch::NoGradGuard no_grad;
        model->eval();
        return model->forward(inputs);
    }

    static lora::LoRALoadOptions wan_options(double weight = 1.0) {
        lora::LoRALoadOptions options;
        options.schemes = wan_lora_key_schemes();
        options.weight = weight;
        return options;
    }

    void check(const std::string& output, const at::Tensor& sample, const std::string& how) {
        const test::Difference difference = compare(sample, outputs_.at(output));
        expect_within("lora_wan " + output + " " + how, difference, test::fp32_bound(difference));
    }

    // The golden adapter, loaded from diffusers' file, on a fresh base.
    WanTransformer3DModel adapted() const {
        auto model = base();
        lora::load_lora_weights(*model, case_ / "pytorch_lora_weights.safetensors", wan_options());
        return model;
    }

    std::filesystem::path case_;
    Tensors inputs_;
    Tensors outputs_;
};

TEST_F(WanLoRAGolden, BaseForward) {
    auto model = base();
    check("sample_base", run(model), "(no adapter)");
}

TEST_F(WanLoRAGolden, GoldenFilesHoldTheirKeyLists) {
    for (const GoldenFile& golden : golden_files()) {
        EXPECT_EQ(file_keys(case_ / golden.file), read_key_list(case_ / golden.keys))
            << golden.file;
    }
}

TEST_F(WanLoRAGolden, EveryLayoutLoadsToDiffusersForwards) {
    for (const GoldenFile& golden : golden_files()) {
        SCOPED_TRACE(golden.file);
        auto model = base();
        const lora::LoadedLoRA loaded =
            lora::load_lora_weights(*model, case_ / golden.file, wan_options());
        EXPECT_EQ(loaded.rank, kRank);
        EXPECT_EQ(loaded.alpha, kAlpha); // metadata (diffusers) or the `.alpha` tensors
        EXPECT_TRUE(loaded.alpha_from_metadata);
        EXPECT_EQ(loaded.modules.size(), 20u);
        const at::Tensor sample = run(model);
        check("sample", sample, "(" + golden.file + ")");
        check(golden.reloaded, sample, "(" + golden.file + ")");

        lora::set_lora_weight(*model, 0.5);
        check("sample_scale_0_5", run(model), "(" + golden.file + ", set to weight 0.5)");

        auto halved = base();
        lora::load_lora_weights(*halved, case_ / golden.file, wan_options(0.5));
        check("sample_scale_0_5", run(halved), "(" + golden.file + ", loaded at weight 0.5)");
    }
}

// diffusers' lora_state_dict of the original-layout file: per layer, A and B with alpha / r
// split between them. Ours keeps the file's A, B and alpha; the same split of our scale gives
// diffusers' tensors, and the products agree.
TEST_F(WanLoRAGolden, OriginalLayoutTensorsAreDiffusersConversions) {
    auto model = base();
    lora::load_lora_weights(*model, case_ / "wan_original_format_lora.safetensors", wan_options());
    std::map<std::string, lora::LoRALinear> layers;
    for (auto& [name, layer] : lora::adapted_layers(*model)) {
        layers.emplace(name, layer);
    }
    int compared = 0;
    for (const char* module : {"blocks.0.attn1.to_q", "blocks.0.ffn.net.2"}) {
        SCOPED_TRACE(module);
        ASSERT_TRUE(layers.count(module));
        const lora::LoRALinear& layer = layers.at(module);
        const std::string key = std::string("converted_from_wan_original.transformer.") + module;
        const at::Tensor& expected_a = outputs_.at(key + ".lora_A.weight");
        const at::Tensor& expected_b = outputs_.at(key + ".lora_B.weight");
        const auto [down, up] = diffusers_alpha_split(layer->alpha() / layer->rank());
        EXPECT_EQ(down, 2.0);
        EXPECT_EQ(up, 1.0);
        const at::Tensor a = layer->lora_A->weight.detach() * down;
        const at::Tensor b = layer->lora_B->weight.detach() * up;
        expect_within(key + ".lora_A.weight", compare(a, expected_a), 0);
        expect_within(key + ".lora_B.weight", compare(b, expected_b), 0);
        const test::Difference delta =
            compare(layer->delta_weight(), torch::matmul(expected_b, expected_a)); // [out, in]
        expect_within(key + " delta", delta, test::fp32_bound(delta));
        ++compared;
    }
    EXPECT_EQ(compared, 2);
}

// Our "wan" and "musubi" exports write the golden files' keys and tensors (A and B as trained,
// alpha beside them); the diffusers layout writes diffusers' keys, and without folding its
// tensors too. Each loads back to the golden forward.
TEST_F(WanLoRAGolden, ExportsWriteTheGoldenLayoutsAndLoadBack) {
    test::TemporaryDirectory folder;
    auto model = adapted();
    struct Export {
        std::optional<lora::LoRAKeyScheme> scheme;
        bool fold_alpha;
        const GoldenFile& golden;
    };
    const std::vector<Export> exports = {
        {std::nullopt, true, golden_files()[0]},
        {std::nullopt, false, golden_files()[0]},
        {wan_key_scheme(), false, golden_files()[1]},
        {musubi_key_scheme(), false, golden_files()[2]},
    };
    for (const Export& what : exports) {
        const std::string name = what.scheme ? what.scheme->name : "diffusers";
        SCOPED_TRACE(name + (what.fold_alpha ? " (folded)" : ""));
        const std::filesystem::path file = folder / (name + ".safetensors");
        lora::LoRASaveOptions options;
        options.scheme = what.scheme;
        options.fold_alpha = what.fold_alpha;
        lora::save_lora_weights(*model, file, options);

        EXPECT_EQ(file_keys(file), read_key_list(case_ / what.golden.keys));
        if (!what.fold_alpha) {
            const Tensors expected = core::read_tensors(case_ / what.golden.file);
            for (const auto& [key, tensor] : core::read_tensors(file)) {
                ASSERT_TRUE(expected.count(key)) << key;
                EXPECT_EQ(tensor.scalar_type(), expected.at(key).scalar_type()) << key;
                EXPECT_EQ(tensor.sizes(), expected.at(key).sizes()) << key;
                EXPECT_TRUE(torch::equal(tensor, expected.at(key))) << key;
            }
        }

        auto reloaded = base();
        lora::load_lora_weights(*reloaded, file, wan_options());
        check("sample", run(reloaded), "(" + name + " export reloaded)");
    }
}

// A CogVideoX model, with the layouts its family reads.
models::cogvideox::CogVideoXTransformer3DModel cogvideox_model() {
    auto config = models::cogvideox::find_architecture("cogvideox-tiny").transformer;
    config.max_text_seq_length = 5;
    return models::cogvideox::CogVideoXTransformer3DModel(config);
}

void expect_refused(const std::function<void()>& load, const std::filesystem::path& file) {
    try {
        load();
        ADD_FAILURE() << "loaded " << file << " into a model of another family";
    } catch (const core::Error& error) {
        const std::string message = error.what();
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_NE(message.find(file.string()), std::string::npos) << message;
        EXPECT_NE(message.find("holds no LoRA layer of this model"), std::string::npos) << message;
        EXPECT_NE(error.hint().find("family"), std::string::npos) << error.hint();
    }
}

TEST_F(WanLoRAGolden, WanLoRAsOnCogVideoXAreRefused) {
    for (const GoldenFile& golden : golden_files()) {
        auto model = cogvideox_model();
        lora::LoRALoadOptions options;
        options.schemes = {lora::comfyui_key_scheme()};
        const std::filesystem::path file = case_ / golden.file;
        expect_refused([&] { lora::load_lora_weights(*model, file, options); }, file);
        EXPECT_TRUE(lora::adapted_layers(*model).empty());
    }
}

TEST_F(WanLoRAGolden, CogVideoXLoRAsOnWanAreRefused) {
    test::TemporaryDirectory folder;
    auto cogvideox = cogvideox_model();
    lora::LoRAConfig config;
    config.rank = kRank;
    config.alpha = kAlpha;
    config.init = lora::LoRAInit::Gaussian;
    lora::inject_lora(*cogvideox, config);
    const std::vector<std::pair<std::string, std::optional<lora::LoRAKeyScheme>>> layouts = {
        {"cogvideox_diffusers.safetensors", std::nullopt},
        {"cogvideox_comfyui.safetensors", lora::comfyui_key_scheme()},
    };
    for (const auto& [name, scheme] : layouts) {
        const std::filesystem::path file = folder / name;
        lora::LoRASaveOptions save;
        save.scheme = scheme;
        lora::save_lora_weights(*cogvideox, file, save);
        auto model = base();
        expect_refused([&] { lora::load_lora_weights(*model, file, wan_options()); }, file);
        EXPECT_TRUE(lora::adapted_layers(*model).empty());
    }
}

} // namespace
} // namespace tuneframe::models::wan
