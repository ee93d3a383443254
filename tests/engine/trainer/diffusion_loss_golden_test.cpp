// One cogvideox-factory LoRA step against ../shared/golden/training_loss: the noisy input, the
// model's v prediction, the x0 prediction, the weights, the loss, and every LoRA gradient.
#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"
#include "engine/diffusion/cogvideox_scheduler_config.h"
#include "engine/lora/lora_injection.h"
#include "engine/lora/lora_weights.h"
#include "engine/models/cogvideox/diffusion_loss.h"
#include "engine/models/cogvideox/transformer_checkpoint.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::train {
namespace {

using models::cogvideox::diffusion_loss;
using models::cogvideox::DiffusionBatch;
using models::cogvideox::DiffusionLoss;

void expect_close(const at::Tensor& actual, const at::Tensor& expected, const std::string& what) {
    ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
    const double error = (actual.detach().to(torch::kDouble) - expected.to(torch::kDouble))
                             .abs()
                             .max()
                             .item<double>();
    EXPECT_LE(error, 1e-4 * (1 + expected.abs().max().item<double>())) << what;
}

TEST(DiffusionLossGolden, ReproducesTheFactoryStepAndItsLoRAGradients) {
    const auto golden = test::golden_dir();
    if (golden.empty()) {
        if (test::running_in_ci()) {
            FAIL() << "../shared/golden is missing";
        }
        GTEST_SKIP();
    }
    const auto folder = golden / "training_loss";
    const auto inputs = core::read_tensors(folder / "inputs.safetensors");
    const auto outputs = core::read_tensors(folder / "outputs.safetensors");
    const nlohmann::json config = core::read_json_file(folder / "config.json");

    auto transformer = models::cogvideox::load_cogvideox_transformer(folder / "transformer");
    lora::LoRALoadOptions options;
    options.weight = 2.0; // the file has no alpha; the step ran at alpha / r = 8 / 4
    lora::load_lora_weights(*transformer, folder / "pytorch_lora_weights.safetensors", options);
    lora::freeze_all_but_lora(*transformer);
    transformer->train();
    const diffusion::CogVideoXNoiseSchedule schedule(
        diffusion::CogVideoXSchedulerConfig::from_json(config["scheduler"], "config.json"));

    DiffusionBatch batch;
    batch.latents = inputs.at("model_input");
    batch.prompt_embeds = inputs.at("prompt_embeds");
    batch.noise = inputs.at("noise");
    batch.timesteps = inputs.at("timesteps");
    const DiffusionLoss loss = diffusion_loss(transformer, schedule, batch);
    loss.loss.backward();

    expect_close(loss.noisy_input, outputs.at("noisy_model_input"), "noisy_model_input");
    expect_close(loss.model_output, outputs.at("model_output"), "model_output");
    expect_close(loss.model_pred, outputs.at("model_pred"), "model_pred");
    expect_close(loss.weights, outputs.at("weights"), "weights");
    expect_close(loss.loss_per_sample, outputs.at("loss_per_sample"), "loss_per_sample");
    expect_close(loss.loss, outputs.at("loss"), "loss");

    double squared = 0;
    int gradients = 0;
    for (const auto& item : transformer->named_parameters()) {
        if (!item.value().requires_grad()) {
            continue;
        }
        const std::string name = "grad." + item.key();
        ASSERT_TRUE(outputs.count(name)) << name;
        ASSERT_TRUE(item.value().grad().defined()) << name;
        expect_close(item.value().grad(), outputs.at(name), name);
        squared += item.value().grad().to(torch::kDouble).pow(2).sum().item<double>();
        ++gradients;
    }
    EXPECT_EQ(gradients, 16);
    EXPECT_NEAR(std::sqrt(squared), outputs.at("grad_norm").item<double>(),
                1e-5 * outputs.at("grad_norm").item<double>());
}

} // namespace
} // namespace tuneframe::train
