// WanTransformer3DModel against diffusers 0.40.0 on the tiny golden models of
// ../shared/golden-wan (Wan 2.1 T2V and I2V, Wan 2.2 TI2V with per-token timesteps), in float32
// and bf16, with the intermediates of the main forwards; and the original / ComfyUI layout of a
// golden model loading to the same forward.
#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"
#include "engine/models/wan/original_keys.h"
#include "engine/models/wan/transformer_checkpoint.h"
#include "tests/engine/transformer/golden_case.h"
#include "tests/support/test_paths.h"

#include <torch/torch.h>

#include <cctype>
#include <cstdio>

namespace tuneframe::models::wan {
namespace {

using test::compare;
using test::expect_within;
using Tensors = std::map<std::string, at::Tensor>;

// A correct float32 port stays within this multiple of the reference's own float32-vs-float64
// error (tolerances.json), well inside the project's fp32 bound.
constexpr double kFp64Multiple = 10.0;

// One forward of a golden case: the latents and text under `prefix`, the timestep and the
// expected output under their own names.
struct ForwardCase {
    std::string name;
    std::string prefix;
    std::string timestep;
    std::string sample;
};

std::string label(const ForwardCase& c, torch::Dtype dtype) {
    return c.name + " " + c.sample + (dtype == torch::kFloat32 ? " fp32" : " bf16");
}

const std::vector<ForwardCase>& forward_cases() {
    static const std::vector<ForwardCase> cases = {
        {"wan21_transformer_t2v", "", "timestep", "sample"},
        {"wan21_transformer_t2v", "alt_", "alt_timestep", "alt_sample"},
        {"wan21_transformer_i2v", "", "timestep", "sample"},
        {"wan22_transformer_ti2v", "", "timestep", "sample"},
        {"wan22_transformer_ti2v", "", "t2v_timestep.timestep", "t2v_timestep.sample"},
        {"wan22_transformer_ti2v", "", "scalar_timestep.timestep", "scalar_timestep.sample"},
        {"wan22_transformer_ti2v", "alt_", "alt_timestep", "alt_sample"},
        {"wan22_transformer_ti2v", "alt_", "alt_t2v_timestep.timestep", "alt_t2v_timestep.sample"},
        {"wan22_transformer_ti2v", "alt_", "alt_scalar_timestep.timestep",
         "alt_scalar_timestep.sample"},
    };
    return cases;
}

TransformerInputs golden_inputs(const Tensors& tensors, const ForwardCase& c) {
    auto get = [&](const std::string& name) {
        const auto it = tensors.find(name);
        return it == tensors.end() ? at::Tensor() : it->second;
    };
    TransformerInputs inputs;
    inputs.hidden_states = get(c.prefix + "hidden_states");
    inputs.encoder_hidden_states = get(c.prefix + "encoder_hidden_states");
    inputs.encoder_hidden_states_image = get(c.prefix + "encoder_hidden_states_image");
    inputs.timestep = get(c.timestep);
    return inputs;
}

WanTransformer3DModel load(const std::filesystem::path& golden, const std::string& name,
                           torch::Dtype dtype) {
    TransformerLoadOptions options;
    options.dtype = dtype;
    return load_wan_transformer(golden / name / "transformer", options);
}

// tolerances.json's max |fp32 - fp64| of the reference for a tensor; 0 where it has none.
double reference_fp64_error(const std::filesystem::path& golden, const std::string& name,
                            const std::string& tensor) {
    const nlohmann::json tolerances = core::read_json_file(golden / "tolerances.json");
    if (!tolerances.contains(name) || !tolerances[name].contains(tensor)) {
        return 0;
    }
    return tolerances[name][tensor]["max_abs_fp32_vs_fp64"].get<double>();
}

void expect_fp32(const std::filesystem::path& golden, const std::string& name,
                 const std::string& tensor, const at::Tensor& actual, const at::Tensor& expected) {
    const test::Difference difference = compare(actual, expected);
    expect_within(name + " " + tensor + " fp32", difference, test::fp32_bound(difference));
    if (const double reference = reference_fp64_error(golden, name, tensor); reference > 0) {
        std::printf("[ fp64     ] %-48s %.1fx the reference's own fp32-vs-fp64 error %.3e\n",
                    (name + " " + tensor).c_str(), difference.max_abs / reference, reference);
        EXPECT_LE(difference.max_abs, kFp64Multiple * reference) << name << " " << tensor;
    }
}

class WanTransformerForward : public test::WanGoldenTest,
                              public ::testing::WithParamInterface<ForwardCase> {};

TEST_P(WanTransformerForward, MatchesDiffusersInFloat32AndBf16) {
    const ForwardCase c = GetParam();
    const Tensors inputs = test::read_golden(golden_, c.name + "/inputs.safetensors");
    const Tensors outputs = test::read_golden(golden_, c.name + "/outputs.safetensors");
    const at::Tensor& expected = outputs.at(c.sample);
    torch::NoGradGuard no_grad;

    auto fp32 = load(golden_, c.name, torch::kFloat32);
    const at::Tensor sample = fp32->forward(golden_inputs(inputs, c));
    EXPECT_EQ(sample.scalar_type(), torch::kFloat32);
    expect_fp32(golden_, c.name, c.sample, sample, expected);

    auto bf16 = load(golden_, c.name, torch::kBFloat16);
    ASSERT_EQ(bf16->dtype(), torch::kBFloat16);
    const at::Tensor low = bf16->forward(golden_inputs(inputs, c));
    EXPECT_EQ(low.scalar_type(), torch::kBFloat16);
    const test::Difference difference = compare(low, expected);
    expect_within(label(c, torch::kBFloat16), difference, test::bf16_bound(difference));
}

INSTANTIATE_TEST_SUITE_P(Cases, WanTransformerForward, ::testing::ValuesIn(forward_cases()),
                         [](const auto& info) {
                             std::string name = info.param.name + "_" + info.param.sample;
                             for (char& ch : name) {
                                 ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                             }
                             return name;
                         });

// The main forward's intermediates, computed layer by layer as diffusers' forward does.
struct Internals {
    at::Tensor rope_cos, rope_sin, temb, timestep_proj, text_embeds, image_embeds, patch;
    std::vector<at::Tensor> blocks;
};

Internals internals(WanTransformer3DModel& model, const TransformerInputs& in) {
    torch::NoGradGuard no_grad;
    Internals out;
    const auto shape = in.hidden_states.sizes();
    const RotaryTables rotary = model->rotary_embeddings(shape[2], shape[3], shape[4]);
    out.rope_cos = rotary.cos;
    out.rope_sin = rotary.sin;
    out.patch = model->patch_embedding->forward(in.hidden_states);
    const bool per_token = in.timestep.dim() == 2;
    auto conditions = model->condition_embedder->forward(
        in.timestep.reshape({-1}), in.encoder_hidden_states, in.encoder_hidden_states_image,
        per_token ? std::optional(in.timestep.size(1)) : std::nullopt);
    out.temb = conditions.temb;
    out.timestep_proj = conditions.timestep_proj;
    out.text_embeds = conditions.encoder_hidden_states;
    out.image_embeds = conditions.encoder_hidden_states_image;
    at::Tensor encoder = conditions.encoder_hidden_states;
    if (out.image_embeds.defined()) {
        encoder = torch::cat({out.image_embeds, encoder}, 1);
    }
    std::vector<std::int64_t> blocks_shape = out.timestep_proj.sizes().vec();
    blocks_shape.back() = 6;
    blocks_shape.push_back(-1);
    const at::Tensor timestep_proj = out.timestep_proj.view(blocks_shape);
    at::Tensor hidden = out.patch.flatten(2).transpose(1, 2);
    for (std::int64_t i = 0; i < model->num_blocks(); ++i) {
        hidden = model->block(static_cast<std::size_t>(i))
                     ->forward(hidden, encoder, timestep_proj, rotary);
        out.blocks.push_back(hidden);
    }
    return out;
}

class WanTransformerInternals : public test::WanGoldenTest,
                                public ::testing::WithParamInterface<std::string> {};

TEST_P(WanTransformerInternals, MatchDiffusers) {
    const std::string name = GetParam();
    const Tensors inputs = test::read_golden(golden_, name + "/inputs.safetensors");
    const Tensors outputs = test::read_golden(golden_, name + "/outputs.safetensors");
    auto model = load(golden_, name, torch::kFloat32);
    const Internals got =
        internals(model, golden_inputs(inputs, forward_cases().front() /* main */));
    const auto check = [&](const std::string& tensor, const at::Tensor& actual) {
        expect_fp32(golden_, name, tensor, actual, outputs.at(tensor));
    };
    // The tables are built as diffusers builds them, so they agree to the last bit.
    EXPECT_TRUE(torch::equal(got.rope_cos, outputs.at("internal.rope_cos")));
    EXPECT_TRUE(torch::equal(got.rope_sin, outputs.at("internal.rope_sin")));
    check("internal.patch_embedding", got.patch);
    check("internal.temb", got.temb);
    check("internal.timestep_proj", got.timestep_proj);
    check("internal.text_embeds", got.text_embeds);
    if (outputs.count("internal.image_embeds")) {
        check("internal.image_embeds", got.image_embeds);
    }
    for (std::size_t i = 0; i < got.blocks.size(); ++i) {
        check("internal.block" + std::to_string(i), got.blocks[i]);
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, WanTransformerInternals,
                         ::testing::Values("wan21_transformer_t2v", "wan21_transformer_i2v",
                                           "wan22_transformer_ti2v"));

// The golden I2V model written as Wan-AI / ComfyUI name their tensors loads to the same forward.
class WanTransformerOriginalLayout : public test::WanGoldenTest,
                                     public ::testing::WithParamInterface<std::string> {};

TEST_P(WanTransformerOriginalLayout, LoadsToTheSameForward) {
    const std::string prefix = GetParam();
    const std::string name = "wan21_transformer_i2v";
    const Tensors weights =
        core::read_tensors(golden_ / name / "transformer" / "diffusion_pytorch_model.safetensors");
    core::NamedTensors original;
    for (const auto& [key, tensor] : weights) {
        const auto renamed = original_name(key);
        ASSERT_TRUE(renamed) << key;
        original.emplace_back(prefix + *renamed, tensor);
    }
    test::TemporaryDirectory folder;
    const auto file = folder / "wan2.1_i2v_tiny.safetensors";
    core::write_tensors(file, original);

    TransformerLoadOptions options;
    options.num_attention_heads = 2; // the golden model's heads are 16 wide, not 128
    auto model = load_wan_transformer(file, options);
    EXPECT_EQ(
        model->config().to_json(),
        WanTransformer3DConfig::from_file((golden_ / name / "transformer" / "config.json").string())
            .to_json());
    EXPECT_EQ(model->dtype(), torch::kFloat32);
    const Tensors inputs = test::read_golden(golden_, name + "/inputs.safetensors");
    const Tensors outputs = test::read_golden(golden_, name + "/outputs.safetensors");
    torch::NoGradGuard no_grad;
    const at::Tensor sample = model->forward(golden_inputs(inputs, forward_cases()[2]));
    expect_fp32(golden_, name, "sample", sample, outputs.at("sample"));
}

INSTANTIATE_TEST_SUITE_P(Prefixes, WanTransformerOriginalLayout,
                         ::testing::Values("", "model.diffusion_model."), [](const auto& info) {
                             return info.param.empty() ? std::string("Bare")
                                                       : std::string("ComfyUIPrefix");
                         });

} // namespace
} // namespace tuneframe::models::wan
