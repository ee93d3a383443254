// The flow-matching schedulers and training computation against diffusers 0.40.0 on
// ../shared/golden-wan/flow_matching: FlowMatchEulerDiscreteScheduler (shift 1, 3, 5: training
// tables, set_timesteps, a 4-step chain, scale_noise), UniPCMultistepScheduler as the Wan
// checkpoints configure it (shift 3, 5: int64 timesteps, sigmas, a 6-step chain), the training
// sigma draws of finetrainers, diffusers' examples, the direct formula and logit-normal, and the
// noisy input, target and loss.
#include "engine/core/json_file.h"
#include "engine/diffusion/flow_match_euler_discrete_scheduler.h"
#include "engine/diffusion/flow_matching.h"
#include "engine/diffusion/unipc_multistep_scheduler.h"
#include "tests/engine/transformer/golden_case.h"

#include <torch/torch.h>

namespace tuneframe::diffusion {
namespace {

using test::compare;
using test::expect_within;

constexpr const char* kConfigOrigin = "flow_matching/config.json";

class FlowMatchingGolden : public test::WanGoldenTest {
protected:
    void SetUp() override {
        test::WanGoldenTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        inputs_ = test::read_golden(golden_, "flow_matching/inputs.safetensors");
        outputs_ = test::read_golden(golden_, "flow_matching/outputs.safetensors");
        config_ = core::read_json_file(golden_ / kConfigOrigin);
    }

    const nlohmann::json& scheduler_json(const std::string& name) const {
        return config_.at("schedulers").at(name);
    }

    const at::Tensor& output(const std::string& name) const { return outputs_.at(name); }

    // The manifest's bound for scheduler tables and chains: 1e-6 relative.
    static void expect_table(const std::string& label, const at::Tensor& actual,
                             const at::Tensor& expected) {
        EXPECT_EQ(actual.scalar_type(), expected.scalar_type()) << label;
        const test::Difference difference = compare(actual, expected);
        expect_within(label, difference, 1e-6 * difference.max_ref);
    }

    static void expect_exact(const std::string& label, const at::Tensor& actual,
                             const at::Tensor& expected) {
        ASSERT_EQ(actual.scalar_type(), expected.scalar_type()) << label;
        ASSERT_EQ(actual.sizes(), expected.sizes()) << label;
        const bool equal = torch::equal(actual, expected);
        std::printf("[ error    ] %-48s %s\n", label.c_str(), equal ? "exact" : "DIFFERS");
        EXPECT_TRUE(equal) << label << "\nactual   " << actual << "\nexpected " << expected;
    }

    std::map<std::string, at::Tensor> inputs_;
    std::map<std::string, at::Tensor> outputs_;
    nlohmann::json config_;
};

class EulerGolden : public FlowMatchingGolden, public ::testing::WithParamInterface<std::string> {};

TEST_P(EulerGolden, TrainingTables) {
    const std::string name = GetParam();
    FlowMatchEulerDiscreteScheduler scheduler(
        FlowMatchEulerDiscreteSchedulerConfig::from_json(scheduler_json(name), kConfigOrigin));
    expect_table(name + ".train_sigmas", scheduler.training_table().sigmas,
                 output(name + ".train_sigmas"));
    expect_table(name + ".train_timesteps", scheduler.training_table().timesteps,
                 output(name + ".train_timesteps"));
    // Before set_timesteps the scheduler's own tables are the training ones.
    EXPECT_TRUE(torch::equal(scheduler.sigmas(), scheduler.training_table().sigmas));
}

TEST_P(EulerGolden, SetTimestepsShiftsTwice) {
    const std::string name = GetParam();
    FlowMatchEulerDiscreteScheduler scheduler(
        FlowMatchEulerDiscreteSchedulerConfig::from_json(scheduler_json(name), kConfigOrigin));
    for (int steps : config_.at("inference_steps").get<std::vector<int>>()) {
        scheduler.set_timesteps(steps);
        const std::string n = std::to_string(steps);
        expect_table(name + ".timesteps_" + n, scheduler.timesteps(),
                     output(name + ".timesteps_" + n));
        expect_table(name + ".sigmas_" + n, scheduler.sigmas(), output(name + ".sigmas_" + n));
        EXPECT_EQ(scheduler.sigmas()[-1].item<float>(), 0.0f);
    }
}

TEST_P(EulerGolden, FourStepChain) {
    const std::string name = GetParam();
    FlowMatchEulerDiscreteScheduler scheduler(
        FlowMatchEulerDiscreteSchedulerConfig::from_json(scheduler_json(name), kConfigOrigin));
    scheduler.set_timesteps(4);
    const at::Tensor timesteps = scheduler.timesteps();
    at::Tensor sample = inputs_.at("chain_initial_sample");
    for (int i = 0; i < 4; ++i) {
        sample = scheduler.step(inputs_.at("chain_model_outputs")[i], timesteps[i].item<double>(),
                                sample);
        const std::string label = name + ".chain.step" + std::to_string(i);
        expect_table(label, sample, output(label));
    }
    EXPECT_EQ(scheduler.step_index(), 4);
}

TEST_P(EulerGolden, ScaleNoise) {
    const std::string name = GetParam();
    FlowMatchEulerDiscreteScheduler scheduler(
        FlowMatchEulerDiscreteSchedulerConfig::from_json(scheduler_json(name), kConfigOrigin));
    scheduler.set_timesteps(4);
    const at::Tensor noisy = scheduler.scale_noise(inputs_.at("scale_noise_sample"),
                                                   scheduler.timesteps().slice(0, 1, 2),
                                                   inputs_.at("scale_noise_noise"));
    expect_table(name + ".scale_noise_t1", noisy, output(name + ".scale_noise_t1"));
}

INSTANTIATE_TEST_SUITE_P(Shifts, EulerGolden,
                         ::testing::Values("euler_shift1", "euler_shift3", "euler_shift5"));

class UniPCGolden : public FlowMatchingGolden, public ::testing::WithParamInterface<std::string> {};

TEST_P(UniPCGolden, TimestepsAndSigmas) {
    const std::string name = GetParam();
    UniPCMultistepScheduler scheduler(
        UniPCMultistepSchedulerConfig::from_json(scheduler_json(name), kConfigOrigin));
    for (int steps : config_.at("inference_steps").get<std::vector<int>>()) {
        scheduler.set_timesteps(steps);
        const std::string n = std::to_string(steps);
        expect_exact(name + ".timesteps_" + n, scheduler.timesteps(),
                     output(name + ".timesteps_" + n));
        expect_table(name + ".sigmas_" + n, scheduler.sigmas(), output(name + ".sigmas_" + n));
    }
}

TEST_P(UniPCGolden, SixStepChainWithCorrector) {
    const std::string name = GetParam();
    UniPCMultistepScheduler scheduler(
        UniPCMultistepSchedulerConfig::from_json(scheduler_json(name), kConfigOrigin));
    scheduler.set_timesteps(6);
    scheduler.set_begin_index(0);
    const at::Tensor timesteps = scheduler.timesteps();
    at::Tensor sample = inputs_.at("chain_initial_sample");
    for (int i = 0; i < 6; ++i) {
        sample = scheduler.step(inputs_.at("chain_model_outputs")[i],
                                timesteps[i].item<std::int64_t>(), sample);
        const std::string label = name + ".chain.step" + std::to_string(i);
        expect_table(label, sample, output(label));
    }
}

INSTANTIATE_TEST_SUITE_P(Shifts, UniPCGolden, ::testing::Values("unipc_shift3", "unipc_shift5"));

class TrainingDrawsGolden : public FlowMatchingGolden,
                            public ::testing::WithParamInterface<double> {
protected:
    TrainingTimesteps draw(SigmaSource source, TimestepDensity density,
                           const std::string& draws) const {
        FlowMatchingSampling sampling;
        sampling.source = source;
        sampling.density = density;
        sampling.shift = GetParam();
        return FlowMatchingTimestepSampler(sampling).sample(inputs_.at(draws));
    }

    std::string prefix() const {
        return "train_shift" + std::to_string(static_cast<int>(GetParam())) + ".";
    }
};

TEST_P(TrainingDrawsGolden, Finetrainers) {
    const auto draws = draw(SigmaSource::Finetrainers, TimestepDensity::Uniform, "train_u");
    expect_exact(prefix() + "indices", draws.indices, output(prefix() + "indices"));
    expect_table(prefix() + "finetrainers.sigmas", draws.sigmas,
                 output(prefix() + "finetrainers.sigmas"));
    expect_exact(prefix() + "finetrainers.timesteps", draws.timesteps,
                 output(prefix() + "finetrainers.timesteps"));
}

TEST_P(TrainingDrawsGolden, DiffusersExamples) {
    const auto draws = draw(SigmaSource::Diffusers, TimestepDensity::Uniform, "train_u");
    expect_exact(prefix() + "indices (diffusers)", draws.indices, output(prefix() + "indices"));
    expect_table(prefix() + "diffusers.sigmas", draws.sigmas,
                 output(prefix() + "diffusers.sigmas"));
    expect_table(prefix() + "diffusers.timesteps", draws.timesteps,
                 output(prefix() + "diffusers.timesteps"));
}

TEST_P(TrainingDrawsGolden, DirectFormula) {
    const auto draws = draw(SigmaSource::Direct, TimestepDensity::Uniform, "train_u");
    EXPECT_FALSE(draws.indices.defined());
    expect_table(prefix() + "direct.sigmas", draws.sigmas, output(prefix() + "direct.sigmas"));
    expect_table(prefix() + "direct.timesteps", draws.timesteps,
                 output(prefix() + "direct.timesteps"));
}

TEST_P(TrainingDrawsGolden, LogitNormal) {
    const auto draws =
        draw(SigmaSource::Finetrainers, TimestepDensity::LogitNormal, "train_logit_normal_draws");
    expect_table(prefix() + "logit_normal.u", draws.u, output(prefix() + "logit_normal.u"));
    expect_table(prefix() + "logit_normal.sigmas", draws.sigmas,
                 output(prefix() + "logit_normal.sigmas"));
}

INSTANTIATE_TEST_SUITE_P(Shifts, TrainingDrawsGolden, ::testing::Values(1.0, 3.0, 5.0));

class LossGolden : public FlowMatchingGolden, public ::testing::WithParamInterface<std::string> {};

// The transformer's prediction is the golden one (the Wan transformer is ported elsewhere), so
// this checks the inputs the trainer builds and the loss it takes of a prediction.
TEST_P(LossGolden, NoisyInputTargetAndLoss) {
    const std::string flavour = GetParam();
    const std::string prefix = "loss." + flavour + ".";
    FlowMatchingSampling sampling;
    sampling.source =
        flavour == "finetrainers" ? SigmaSource::Finetrainers : SigmaSource::Diffusers;
    sampling.shift = 3.0;
    const auto draws = FlowMatchingTimestepSampler(sampling).sample(inputs_.at("loss.u"));
    expect_table(prefix + "sigmas", draws.sigmas, output(prefix + "sigmas"));
    if (flavour == "finetrainers") {
        expect_exact(prefix + "timesteps", draws.timesteps, output(prefix + "timesteps"));
    } else {
        expect_table(prefix + "timesteps", draws.timesteps, output(prefix + "timesteps"));
    }

    const at::Tensor& x0 = inputs_.at("loss.x0");
    const at::Tensor& noise = inputs_.at("loss.noise");
    const at::Tensor noisy = flow_matching_noisy_input(x0, noise, draws.sigmas);
    const at::Tensor target = flow_matching_target(x0, noise);
    auto difference = compare(noisy, output(prefix + "noisy"));
    expect_within(prefix + "noisy", difference, test::fp32_bound(difference));
    difference = compare(target, output(prefix + "target"));
    expect_within(prefix + "target", difference, test::fp32_bound(difference));

    const FlowMatchingLoss loss = flow_matching_loss(
        output(prefix + "model_pred"), target, loss_weighting(LossWeighting::None, draws.sigmas));
    difference = compare(loss.loss_per_sample, output(prefix + "loss_per_sample"));
    expect_within(prefix + "loss_per_sample", difference, test::fp32_bound(difference));
    difference = compare(loss.loss, output(prefix + "loss"));
    expect_within(prefix + "loss", difference, test::fp32_bound(difference));
    EXPECT_EQ(loss.loss.dim(), 0);
}

INSTANTIATE_TEST_SUITE_P(Trainers, LossGolden, ::testing::Values("finetrainers", "diffusers"));

} // namespace
} // namespace tuneframe::diffusion
