// CogVideoXTransformer3DModel against diffusers 0.32.2 on the tiny golden models of
// ../shared/golden (2b, 5b, 5b-I2V, 1.5-I2V shapes), in float32 and bf16, through the library
// and through `tuneframe-engine forward transformer`; plus the positional tables on their own.
#include "engine/core/error.h"
#include "engine/core/tensor_io.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"
#include "engine/models/cogvideox/embeddings.h"
#include "engine/models/cogvideox/transformer_checkpoint.h"
#include "tests/engine/transformer/golden_case.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"

#include <torch/torch.h>

namespace tuneframe::models::cogvideox {
namespace {

using test::compare;
using test::expect_within;

class TransformerGolden : public test::GoldenTest {};

TEST_F(TransformerGolden, SinCosTableMatches2b) {
    const auto outputs = test::read_golden(golden_, "transformer_2b/outputs.safetensors");
    const auto config = CogVideoXTransformer3DConfig::from_file(
        (golden_ / "transformer_2b/transformer/config.json").string());
    CogVideoXPatchEmbed embed(config);
    at::Tensor table =
        embed->positional_embedding(config.max_text_seq_length, config.sample_latent_frames(),
                                    config.sample_height, config.sample_width);
    EXPECT_EQ(table.scalar_type(), torch::kFloat64);
    const auto difference = compare(table, outputs.at("pos_embedding"));
    expect_within("transformer_2b pos_embedding (fp64)", difference, 1e-12);
}

struct RotaryCase {
    std::string name;
    std::string prefix;
    std::int64_t frames, height, width; // latent
};

TEST_F(TransformerGolden, RotaryTablesMatchThePipeline) {
    const std::vector<RotaryCase> cases = {{"transformer_5b", "", 3, 8, 8},
                                           {"transformer_5b", "alt_", 2, 6, 10},
                                           {"transformer_i2v", "", 3, 8, 8},
                                           {"transformer_15_i2v", "", 4, 8, 6}};
    for (const RotaryCase& c : cases) {
        SCOPED_TRACE(c.name + " " + c.prefix);
        const auto config = CogVideoXTransformer3DConfig::from_file(
            (golden_ / c.name / "transformer/config.json").string());
        const auto rotary = test::read_golden(golden_, c.name + "/rotary.safetensors");
        const auto inputs = test::read_golden(golden_, c.name + "/inputs.safetensors");
        const RotaryEmbedding tables =
            prepare_rotary_positional_embeddings(config, c.frames, c.height, c.width);
        EXPECT_EQ(tables.cos.scalar_type(), torch::kFloat32);
        const std::string label = c.name + " " + c.prefix + "rotary ";
        expect_within(label + "cos", compare(tables.cos, rotary.at(c.prefix + "freqs_cos")), 1e-6);
        expect_within(label + "sin", compare(tables.sin, rotary.at(c.prefix + "freqs_sin")), 1e-6);
        expect_within(label + "cos (inputs)",
                      compare(tables.cos, inputs.at(c.prefix + "image_rotary_emb_cos")), 1e-6);
        expect_within(label + "sin (inputs)",
                      compare(tables.sin, inputs.at(c.prefix + "image_rotary_emb_sin")), 1e-6);
    }
}

// The crop arithmetic of the alt_ case (config.json's crops_coords), and a tie that Python's
// round() sends to even where std::round would not.
TEST(CropRegion, RoundsHalfToEvenAsPython) {
    const CropRegion alt = get_resize_crop_region_for_grid(3, 5, 4, 4);
    EXPECT_EQ(alt.top, 1);
    EXPECT_EQ(alt.left, 0);
    EXPECT_EQ(alt.bottom, 3);
    EXPECT_EQ(alt.right, 4);
    // 5 / 4 * 2 = 2.5 -> 2, then (5 - 2) / 2 = 1.5 -> 2
    const CropRegion tie = get_resize_crop_region_for_grid(2, 4, 5, 5);
    EXPECT_EQ(tie.top, 2);
    EXPECT_EQ(tie.bottom, 4);
    EXPECT_EQ(tie.left, 0);
    EXPECT_EQ(tie.right, 5);
}

struct ForwardCase {
    std::string name;
    std::string prefix;
    torch::Dtype dtype;
};

std::string case_label(const ForwardCase& c) {
    return c.name + " " + c.prefix + "sample " + (c.dtype == torch::kFloat32 ? "fp32" : "bf16");
}

class TransformerForward : public test::GoldenTest,
                           public ::testing::WithParamInterface<ForwardCase> {};

CogVideoXTransformerInputs golden_inputs(const std::map<std::string, at::Tensor>& tensors,
                                         const std::string& prefix, bool with_rotary) {
    auto get = [&](const std::string& name) {
        auto it = tensors.find(prefix + name);
        return it == tensors.end() ? at::Tensor() : it->second;
    };
    CogVideoXTransformerInputs inputs;
    inputs.hidden_states = get("hidden_states");
    inputs.encoder_hidden_states = get("encoder_hidden_states");
    inputs.timestep = get("timestep");
    inputs.ofs = get("ofs");
    if (with_rotary && get("image_rotary_emb_cos").defined()) {
        inputs.image_rotary_emb =
            RotaryEmbedding{get("image_rotary_emb_cos"), get("image_rotary_emb_sin")};
    }
    return inputs;
}

TEST_P(TransformerForward, MatchesDiffusers) {
    const ForwardCase c = GetParam();
    const auto inputs = test::read_golden(golden_, c.name + "/inputs.safetensors");
    const auto outputs = test::read_golden(golden_, c.name + "/outputs.safetensors");
    TransformerLoadOptions options;
    options.dtype = c.dtype;
    auto model = load_cogvideox_transformer(golden_ / c.name / "transformer", options);
    ASSERT_EQ(model->dtype(), c.dtype);
    torch::NoGradGuard no_grad;
    const at::Tensor expected = outputs.at(c.prefix + "sample");
    at::Tensor sample = model->forward(golden_inputs(inputs, c.prefix, true));
    EXPECT_EQ(sample.scalar_type(), c.dtype);
    auto difference = compare(sample, expected);
    const double bound =
        c.dtype == torch::kFloat32 ? test::fp32_bound(difference) : test::bf16_bound(difference);
    expect_within(case_label(c), difference, bound);

    // The engine's own rotary tables give the same result as the pipeline's.
    if (golden_inputs(inputs, c.prefix, true).image_rotary_emb) {
        at::Tensor computed = model->forward(golden_inputs(inputs, c.prefix, false));
        expect_within(case_label(c) + " (own rotary)", compare(computed, expected), bound);
    }
}

// Every golden transformer case in fp32, followed by the bf16 cases a suite adds.
std::vector<ForwardCase> with_fp32_cases(std::vector<ForwardCase> bf16_cases) {
    std::vector<ForwardCase> cases = {
        {"transformer_2b", "", torch::kFloat32},  {"transformer_2b", "alt_", torch::kFloat32},
        {"transformer_5b", "", torch::kFloat32},  {"transformer_5b", "alt_", torch::kFloat32},
        {"transformer_i2v", "", torch::kFloat32}, {"transformer_15_i2v", "", torch::kFloat32}};
    cases.insert(cases.end(), bf16_cases.begin(), bf16_cases.end());
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Cases, TransformerForward,
                         ::testing::ValuesIn(with_fp32_cases(
                             {ForwardCase{"transformer_2b", "", torch::kBFloat16},
                              ForwardCase{"transformer_2b", "alt_", torch::kBFloat16},
                              ForwardCase{"transformer_5b", "", torch::kBFloat16},
                              ForwardCase{"transformer_5b", "alt_", torch::kBFloat16},
                              ForwardCase{"transformer_i2v", "", torch::kBFloat16},
                              ForwardCase{"transformer_15_i2v", "", torch::kBFloat16}})));

// 5b-I2V's learned table covers 3 latent frames; at 2 diffusers falls back to sin-cos.
TEST_F(TransformerGolden, LearnedTableFallsBackToSinCosAtOtherFrameCounts) {
    const auto config = CogVideoXTransformer3DConfig::from_file(
        (golden_ / "transformer_i2v/transformer/config.json").string());
    auto model = load_cogvideox_transformer(golden_ / "transformer_i2v" / "transformer");
    const at::Tensor learned = model->patch_embed->positional_embedding(6, 3, 8, 8);
    EXPECT_TRUE(learned.is_same(model->patch_embed->pos_embedding));
    const at::Tensor fallback = model->patch_embed->positional_embedding(6, 2, 8, 8);
    const at::Tensor sincos = get_3d_sincos_pos_embed(32, 4, 4, 2, 1.875, 1.0).flatten(0, 1);
    EXPECT_EQ(fallback.size(1), 6 + 32);
    EXPECT_TRUE(torch::equal(fallback[0].slice(0, 6), sincos));
    EXPECT_TRUE(torch::equal(fallback[0].slice(0, 0, 6), torch::zeros({6, 32}, torch::kFloat64)));
    EXPECT_THROW(model->patch_embed->positional_embedding(6, 3, 8, 6), core::Error);
}

// `forward transformer` from the command line, as the parity harness drives it.
class TransformerCommandLine : public TransformerForward {};

TEST_P(TransformerCommandLine, MatchesDiffusers) {
    const ForwardCase c = GetParam();
    test::TemporaryDirectory folder;
    std::vector<std::string> command = {test::engine_path(),
                                        "forward",
                                        "transformer",
                                        "--model",
                                        (golden_ / c.name / "transformer").string(),
                                        "--inputs",
                                        (golden_ / c.name / "inputs.safetensors").string(),
                                        "--out",
                                        (folder / "out.safetensors").string(),
                                        "--device",
                                        "cpu"};
    if (!c.prefix.empty()) {
        command.insert(command.end(), {"--input-prefix", c.prefix});
    }
    if (c.dtype != torch::kFloat32) {
        command.insert(command.end(), {"--dtype", "bf16"});
    }
    const auto result = test::run_process(command);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto outputs = test::read_golden(golden_, c.name + "/outputs.safetensors");
    const auto written = core::read_tensors(folder / "out.safetensors");
    ASSERT_EQ(written.size(), 1u);
    auto difference = compare(written.at("sample"), outputs.at(c.prefix + "sample"));
    expect_within(case_label(c) + " (command line)", difference,
                  c.dtype == torch::kFloat32 ? test::fp32_bound(difference)
                                             : test::bf16_bound(difference));
}

INSTANTIATE_TEST_SUITE_P(Cases, TransformerCommandLine,
                         ::testing::ValuesIn(with_fp32_cases({ForwardCase{"transformer_5b", "",
                                                                          torch::kBFloat16}})));

} // namespace
} // namespace tuneframe::models::cogvideox
