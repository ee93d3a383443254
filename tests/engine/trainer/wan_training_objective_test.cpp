// WanTrainingObjective against finetrainers' and diffusers' flow-matching training step on
// ../shared/golden-wan/flow_matching: the objective's own sampler turns the draws loss.u into
// the reference's sigmas and timesteps (int64 for finetrainers, float for diffusers), and its
// inputs() and loss() on a batch of the golden x0, noise, sigmas and timesteps give the noisy
// input, the transformer's prediction (the tiny Wan 2.1 transformer beside the case), the
// target and the loss.
#include "engine/core/json_file.h"
#include "engine/models/wan/transformer_checkpoint.h"
#include "engine/models/wan/wan_training_objective.h"
#include "tests/engine/transformer/golden_case.h"

#include <torch/torch.h>

namespace tuneframe::models::wan {
namespace {

namespace fs = std::filesystem;

using test::compare;
using test::expect_within;

// The golden transformer's release model: a Wan 2.1 text-to-video pipeline around it (the VAE's
// class defaults are Wan 2.1's, 16 latent channels, as the transformer takes).
WanPipelineFolder golden_pipeline(const fs::path& golden) {
    const fs::path transformer = golden / "flow_matching" / "transformer";
    WanPipelineFolder folder;
    folder.root = golden / "flow_matching";
    folder.pipeline_class = "WanPipeline";
    folder.transformers = {transformer};
    folder.transformer_configs = {WanTransformer3DConfig::from_json(
        core::read_json_file(transformer / "config.json"), (transformer / "config.json").string())};
    return folder;
}

common::TrainingJob golden_job(const std::string& flavour) {
    common::TrainingJob job;
    job.task = "t2v";
    job.precision = "fp32";
    job.flow_matching.sigma_source = flavour;
    job.flow_matching.density = "uniform";
    job.flow_matching.loss_weighting = "none";
    return job;
}

class WanTrainingObjectiveGolden : public test::WanGoldenTest,
                                   public ::testing::WithParamInterface<std::string> {
protected:
    void SetUp() override {
        test::WanGoldenTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        inputs_ = test::read_golden(golden_, "flow_matching/inputs.safetensors");
        outputs_ = test::read_golden(golden_, "flow_matching/outputs.safetensors");
        // The reference's shift (config.json: "sigmas from loss.u through the shift-3 table").
        const nlohmann::json config = core::read_json_file(golden_ / "flow_matching/config.json");
        ASSERT_NE(config.at("training").at("loss").get<std::string>().find("shift-3 table"),
                  std::string::npos);
    }

    const at::Tensor& output(const std::string& name) const { return outputs_.at(prefix() + name); }
    std::string prefix() const { return "loss." + GetParam() + "."; }

    void expect_fp32(const std::string& name, const at::Tensor& actual) const {
        ASSERT_EQ(actual.sizes(), output(name).sizes()) << name;
        const test::Difference difference = compare(actual, output(name));
        expect_within(prefix() + name, difference, test::fp32_bound(difference));
    }

    // The batch the trainer would have made from these draws, without the posterior sampling
    // and normalising of make_batch (the golden x0 is the normalised latents already).
    models::TrainingBatch golden_batch() const {
        models::TrainingBatch batch;
        batch.latents = inputs_.at("loss.x0");
        batch.noise = inputs_.at("loss.noise");
        batch.prompt_embeds = inputs_.at("loss.encoder_hidden_states");
        batch.sigmas = output("sigmas");
        batch.timesteps = output("timesteps");
        return batch;
    }

    std::map<std::string, at::Tensor> inputs_;
    std::map<std::string, at::Tensor> outputs_;
};

TEST_P(WanTrainingObjectiveGolden, SamplerDrawsTheReferenceSigmasAndTimesteps) {
    const WanTrainingObjective objective(golden_pipeline(golden_), golden_job(GetParam()),
                                         {torch::kFloat32, torch::kCPU}, 3.0);
    const diffusion::TrainingTimesteps t =
        objective.timestep_sampler(0).sample(inputs_.at("loss.u"));
    expect_fp32("sigmas", t.sigmas);
    ASSERT_EQ(t.timesteps.scalar_type(), output("timesteps").scalar_type());
    if (t.timesteps.scalar_type() == torch::kLong) {
        EXPECT_TRUE(torch::equal(t.timesteps, output("timesteps"))) << t.timesteps << "\n"
                                                                    << output("timesteps");
    } else {
        expect_fp32("timesteps", t.timesteps);
    }
}

TEST_P(WanTrainingObjectiveGolden, InputsPredictionTargetAndLossMatchTheReference) {
    const WanTrainingObjective objective(golden_pipeline(golden_), golden_job(GetParam()),
                                         {torch::kFloat32, torch::kCPU}, 3.0);
    const models::TrainingBatch batch = golden_batch();
    at::Tensor noisy;
    const TransformerInputs inputs = objective.inputs(batch, noisy);
    expect_fp32("noisy", noisy);
    EXPECT_TRUE(inputs.hidden_states.equal(noisy)); // text-to-video: the noisy latents alone
    EXPECT_TRUE(inputs.timestep.equal(batch.timesteps));

    WanTransformer3DModel transformer =
        load_wan_transformer(golden_ / "flow_matching" / "transformer");
    transformer->eval();
    at::Tensor prediction;
    {
        torch::NoGradGuard no_grad;
        prediction = transformer->forward(inputs);
    }
    expect_fp32("model_pred", prediction);

    const TrainingLoss loss = objective.loss(batch, noisy, prediction);
    expect_fp32("target", loss.target);
    expect_fp32("loss_per_sample", loss.loss_per_sample);
    expect_fp32("loss", loss.loss);
    EXPECT_EQ(loss.loss.dim(), 0);
    EXPECT_EQ(loss.loss.scalar_type(), torch::kFloat32);
}

// The loss is of the prediction it is given: the reference's own prediction gives the
// reference's loss exactly as far as float32 goes, and a perturbed one does not.
TEST_P(WanTrainingObjectiveGolden, TheLossIsTheMeanSquareOfTheReferencePrediction) {
    const WanTrainingObjective objective(golden_pipeline(golden_), golden_job(GetParam()),
                                         {torch::kFloat32, torch::kCPU}, 3.0);
    const models::TrainingBatch batch = golden_batch();
    at::Tensor noisy;
    objective.inputs(batch, noisy);
    const TrainingLoss loss = objective.loss(batch, noisy, output("model_pred"));
    expect_fp32("loss_per_sample", loss.loss_per_sample);
    const TrainingLoss off = objective.loss(batch, noisy, output("model_pred") + 0.1);
    EXPECT_GT((off.loss - output("loss")).abs().item<double>(), 1e-3);
}

INSTANTIATE_TEST_SUITE_P(SigmaSources, WanTrainingObjectiveGolden,
                         ::testing::Values("finetrainers", "diffusers"));

} // namespace
} // namespace tuneframe::models::wan
