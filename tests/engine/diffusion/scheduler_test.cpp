// Scheduler behaviour beyond the golden chains: the spec's reference values, every timestep
// spacing, the edge steps, dtypes and config errors.
#include "engine/core/error.h"
#include "engine/diffusion/cogvideox_ddim_scheduler.h"
#include "engine/diffusion/cogvideox_dpm_scheduler.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::diffusion {
namespace {

CogVideoXSchedulerConfig cogvideox_config(double snr_shift_scale) {
    return CogVideoXSchedulerConfig::from_json({{"prediction_type", "v_prediction"},
                                                {"rescale_betas_zero_snr", true},
                                                {"snr_shift_scale", snr_shift_scale},
                                                {"timestep_spacing", "trailing"}},
                                               "scheduler_config.json");
}

TEST(CogVideoXNoiseSchedule, MatchesTheSpecValues) {
    CogVideoXNoiseSchedule shifted(cogvideox_config(3.0));
    EXPECT_NEAR(shifted.alphas_cumprod()[0].item<double>(), 0.99745433, 1e-8);
    EXPECT_NEAR(shifted.alphas_cumprod()[250].item<double>(), 0.389054, 1e-6);
    EXPECT_NEAR(shifted.alphas_cumprod()[500].item<double>(), 0.095328, 1e-6);
    EXPECT_EQ(shifted.alphas_cumprod()[999].item<double>(), 0.0);
    CogVideoXNoiseSchedule plain(cogvideox_config(1.0));
    EXPECT_NEAR(plain.alphas_cumprod()[0].item<double>(), 0.99915, 1e-8);
    EXPECT_NEAR(plain.alphas_cumprod()[500].item<double>(), 0.241019, 1e-6);
}

TEST(CogVideoXNoiseSchedule, TimestepSpacings) {
    CogVideoXNoiseSchedule trailing(cogvideox_config(1.0));
    auto fifty = trailing.set_timesteps(50);
    ASSERT_EQ(fifty.size(), 50u);
    EXPECT_EQ(fifty.front(), 999);
    EXPECT_EQ(fifty[1], 979);
    EXPECT_EQ(fifty.back(), 19);
    // 1000 / 3 does not divide: numpy's round-half-to-even of 1000, 666.67, 333.33, minus one.
    EXPECT_EQ(trailing.set_timesteps(3), (std::vector<std::int64_t>{999, 666, 332}));
    EXPECT_EQ(trailing.previous_timestep(999), 666) << "step() uses t - 1000 // N";
    EXPECT_EQ(trailing.previous_timestep(332), -1);

    auto leading_config = cogvideox_config(1.0);
    leading_config.timestep_spacing = TimestepSpacing::Leading;
    leading_config.steps_offset = 1;
    CogVideoXNoiseSchedule leading(leading_config);
    EXPECT_EQ(leading.set_timesteps(4), (std::vector<std::int64_t>{751, 501, 251, 1}));

    auto linspace_config = cogvideox_config(1.0);
    linspace_config.timestep_spacing = TimestepSpacing::Linspace;
    CogVideoXNoiseSchedule linspace(linspace_config);
    EXPECT_EQ(linspace.set_timesteps(4), (std::vector<std::int64_t>{999, 666, 333, 0}));
    EXPECT_EQ(linspace.set_timesteps(1), (std::vector<std::int64_t>{0}));

    EXPECT_THROW(trailing.set_timesteps(0), core::Error);
    EXPECT_THROW(trailing.set_timesteps(1001), core::Error);
}

TEST(CogVideoXNoiseSchedule, ForwardProcessKeepsTheSampleDType) {
    CogVideoXNoiseSchedule schedule(cogvideox_config(1.0));
    at::Tensor sample = torch::randn({2, 3, 4}).to(torch::kBFloat16);
    at::Tensor noise = torch::randn({2, 3, 4}).to(torch::kBFloat16);
    at::Tensor timesteps = torch::tensor({999, 0}, torch::kInt64);
    at::Tensor noisy = schedule.add_noise(sample, noise, timesteps);
    EXPECT_EQ(noisy.scalar_type(), torch::kBFloat16);
    // t = 999 has zero signal: the noisy sample is the noise itself.
    EXPECT_TRUE(torch::equal(noisy[0], noise[0]));
    at::Tensor velocity = schedule.get_velocity(sample, noise, timesteps);
    EXPECT_TRUE(torch::equal(velocity[0], -sample[0]));
    EXPECT_THROW(schedule.add_noise(sample, noise, torch::tensor({1000, 0})), core::Error);
}

TEST(CogVideoXDDIMScheduler, FirstStepPredictsMinusV) {
    CogVideoXDDIMScheduler scheduler(cogvideox_config(1.0));
    const auto& timesteps = scheduler.set_timesteps(50);
    at::Tensor v = torch::randn({1, 2, 3});
    at::Tensor x = torch::randn({1, 2, 3});
    auto result = scheduler.step(v, timesteps.front(), x);
    EXPECT_TRUE(torch::allclose(result.pred_original_sample, -v));
    const double alpha_prev = scheduler.schedule().alphas_cumprod()[979].item<double>();
    at::Tensor expected = std::sqrt(1 - alpha_prev) * x + std::sqrt(alpha_prev) * -v;
    EXPECT_TRUE(torch::allclose(result.prev_sample, expected, 1e-5, 1e-6));
}

TEST(CogVideoXDDIMScheduler, StepBeforeSetTimestepsIsAnError) {
    CogVideoXDDIMScheduler scheduler(cogvideox_config(1.0));
    EXPECT_THROW(scheduler.step(torch::zeros({1}), 999, torch::zeros({1})), core::Error);
}

TEST(CogVideoXDPMScheduler, LastStepReturnsThePrediction) {
    CogVideoXDPMScheduler scheduler(cogvideox_config(3.0));
    const auto& timesteps = scheduler.set_timesteps(4);
    at::Tensor v = torch::randn({1, 2, 3});
    at::Tensor x = torch::randn({1, 2, 3});
    int draws = 0;
    NoiseSource noise = [&draws](const at::Tensor& like) {
        ++draws;
        return torch::randn_like(like);
    };
    auto result =
        scheduler.step(v, torch::randn({1, 2, 3}), timesteps.back(), timesteps[2], x, noise);
    EXPECT_EQ(draws, 1) << "the last step draws once";
    EXPECT_TRUE(torch::allclose(result.prev_sample, result.pred_original_sample, 1e-6, 1e-6))
        << "alpha_prev = 1 leaves no noise and no memory of x_t";
}

TEST(CogVideoXDPMScheduler, MiddleStepsDrawTwice) {
    CogVideoXDPMScheduler scheduler(cogvideox_config(3.0));
    const auto& timesteps = scheduler.set_timesteps(4);
    int draws = 0;
    NoiseSource noise = [&draws](const at::Tensor& like) {
        ++draws;
        return torch::zeros_like(like);
    };
    at::Tensor x = torch::randn({2, 2});
    auto first =
        scheduler.step(torch::randn({2, 2}), std::nullopt, timesteps[0], std::nullopt, x, noise);
    EXPECT_EQ(draws, 1);
    scheduler.step(torch::randn({2, 2}), first.pred_original_sample, timesteps[1], timesteps[0],
                   first.prev_sample, noise);
    EXPECT_EQ(draws, 3);
    EXPECT_TRUE(torch::isfinite(first.prev_sample).all().item<bool>());
}

TEST(CogVideoXSchedulerConfig, UnknownChoicesNameTheFileAndTheField) {
    try {
        CogVideoXSchedulerConfig::from_json({{"timestep_spacing", "karras"}},
                                            "scheduler/scheduler_config.json");
        FAIL();
    } catch (const core::Error& error) {
        std::string message = error.what();
        EXPECT_EQ(error.code(), core::ErrorCode::Unsupported);
        EXPECT_NE(message.find("scheduler/scheduler_config.json"), std::string::npos) << message;
        EXPECT_NE(message.find("karras"), std::string::npos) << message;
        EXPECT_NE(error.hint().find("trailing"), std::string::npos);
    }
    EXPECT_THROW(CogVideoXSchedulerConfig::from_json({{"snr_shift_scale", "three"}}, "c.json"),
                 core::Error);
    EXPECT_THROW(CogVideoXSchedulerConfig::from_json({{"trained_betas", {0.1, 0.2}}}, "c.json"),
                 core::Error);
}

} // namespace
} // namespace tuneframe::diffusion
