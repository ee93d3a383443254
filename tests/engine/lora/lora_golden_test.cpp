// The lora_2b golden case: a PEFT adapter saved by CogVideoXPipeline.save_lora_weights (no
// alpha in the file; trained at alpha 8, rank 4) on a tiny 2b-shaped transformer.
#include "engine/core/tensor_io.h"
#include "engine/lora/lora_injection.h"
#include "engine/lora/lora_weights.h"
#include "engine/models/cogvideox/transformer_checkpoint.h"
#include "tests/engine/transformer/golden_case.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"

#include <fstream>
#include <torch/torch.h>

namespace tuneframe::lora {
namespace {

using models::cogvideox::CogVideoXTransformer3DModel;
using models::cogvideox::CogVideoXTransformerInputs;
using test::compare;
using test::expect_within;

class LoRAGolden : public test::GoldenTest {
protected:
    void SetUp() override {
        test::GoldenTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        case_ = golden_ / "lora_2b";
        inputs_ = test::read_golden(golden_, "lora_2b/inputs.safetensors");
        outputs_ = test::read_golden(golden_, "lora_2b/outputs.safetensors");
    }
    CogVideoXTransformer3DModel base(torch::Dtype dtype = torch::kFloat32) {
        models::cogvideox::TransformerLoadOptions options;
        options.dtype = dtype;
        return models::cogvideox::load_cogvideox_transformer(case_ / "transformer", options);
    }
    at::Tensor run(CogVideoXTransformer3DModel& model) {
        CogVideoXTransformerInputs inputs;
        inputs.hidden_states = inputs_.at("hidden_states");
        inputs.encoder_hidden_states = inputs_.at("encoder_hidden_states");
        inputs.timestep = inputs_.at("timestep");
        torch::NoGradGuard no_grad;
        return model->forward(inputs);
    }
    void check(const std::string& output, const at::Tensor& sample, const std::string& how,
               bool bf16 = false) {
        const auto difference = compare(sample, outputs_.at(output));
        expect_within("lora_2b " + output + " " + how, difference,
                      bf16 ? test::bf16_bound(difference) : test::fp32_bound(difference));
    }
    std::filesystem::path lora_file() const { return case_ / "pytorch_lora_weights.safetensors"; }

    std::filesystem::path case_;
    std::map<std::string, at::Tensor> inputs_;
    std::map<std::string, at::Tensor> outputs_;
};

TEST_F(LoRAGolden, FileHoldsTheListedKeys) {
    std::ifstream listed(case_ / "lora_keys.txt");
    std::vector<std::string> keys;
    for (std::string line; std::getline(listed, line);) {
        if (!line.empty()) {
            keys.push_back(line);
        }
    }
    const auto tensors = core::read_tensors(lora_file());
    EXPECT_EQ(tensors.size(), keys.size());
    for (const auto& key : keys) {
        EXPECT_TRUE(tensors.count(key)) << key;
    }
}

TEST_F(LoRAGolden, SamplesAtEveryScale) {
    auto model = base();
    check("sample_base", run(model), "(fp32, no adapter)");

    LoRALoadOptions options;
    options.weight = 1.0;
    const LoadedLoRA loaded = load_lora_weights(*model, lora_file(), options);
    EXPECT_EQ(loaded.rank, 4);
    EXPECT_EQ(loaded.alpha, 4.0); // no alpha in the file: alpha = rank, as diffusers
    EXPECT_EQ(loaded.modules.size(), 8u);
    check("sample_reloaded_default", run(model), "(fp32, weight 1)");
    check("sample_scale_0_5", run(model), "(fp32, weight 1 = 2 x 0.5)");

    set_lora_weight(*model, 2.0); // alpha / r of the trained adapter
    check("sample", run(model), "(fp32, weight 2)");
    check("sample_reloaded_set_adapters", run(model), "(fp32, weight 2)");

    merge_lora(*model);
    check("sample", run(model), "(fp32, merged)");
    unmerge_lora(*model);
    check("sample", run(model), "(fp32, unmerged)");
    remove_lora(*model);
    check("sample_base", run(model), "(fp32, adapter removed)");
}

// As trained: adapters injected with alpha 8 and rank 4 (scaling 2), the file loaded into
// them; its missing alpha resets alpha to the rank, so the weight carries alpha / r.
TEST_F(LoRAGolden, ReloadsIntoInjectedAdapters) {
    auto model = base();
    LoRAConfig config;
    config.rank = 4;
    config.alpha = 8;
    inject_lora(*model, config);
    LoRALoadOptions options;
    options.weight = 8.0 / 4.0;
    load_lora_weights(*model, lora_file(), options);
    check("sample_reloaded_set_adapters", run(model), "(fp32, injected then loaded)");
}

TEST_F(LoRAGolden, Bf16BaseWithFloat32Adapters) {
    auto model = base(torch::kBFloat16);
    LoRALoadOptions options;
    options.weight = 2.0;
    load_lora_weights(*model, lora_file(), options);
    check("sample", run(model), "(bf16 base)", true);
    check(
        "sample_base",
        [&] {
            remove_lora(*model);
            return run(model);
        }(),
        "(bf16)", true);
}

TEST_F(LoRAGolden, CommandLine) {
    test::TemporaryDirectory folder;
    auto forward = [&](std::vector<std::string> extra) {
        std::vector<std::string> command = {test::engine_path(),
                                            "forward",
                                            "transformer",
                                            "--model",
                                            (case_ / "transformer").string(),
                                            "--inputs",
                                            (case_ / "inputs.safetensors").string(),
                                            "--out",
                                            (folder / "out.safetensors").string(),
                                            "--device",
                                            "cpu",
                                            "--lora",
                                            lora_file().string()};
        command.insert(command.end(), extra.begin(), extra.end());
        const auto result = test::run_process(command);
        EXPECT_EQ(result.exit_code, 0) << result.err;
        return core::read_tensors(folder / "out.safetensors").at("sample");
    };
    check("sample", forward({"--lora-scale", "2"}), "(command line, --lora-scale 2)");
    check("sample_reloaded_default", forward({}), "(command line, default scale)");
    check("sample", forward({"--lora-scale", "2", "--dtype", "bf16"}),
          "(command line, bf16, --lora-scale 2)", true);
}

} // namespace
} // namespace tuneframe::lora
