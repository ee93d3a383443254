// The CogVideoX DDIM and DPM schedulers against ../shared/golden/schedulers: tables, timesteps,
// the forward process and 4-step chains fed with the recorded model outputs and noise.
#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"
#include "engine/diffusion/cogvideox_ddim_scheduler.h"
#include "engine/diffusion/cogvideox_dpm_scheduler.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <deque>

namespace tuneframe::diffusion {
namespace {

class SchedulerGolden : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        golden_ = test::golden_dir();
        if (golden_.empty()) {
            if (test::running_in_ci()) {
                FAIL() << "../shared/golden is missing";
            }
            GTEST_SKIP();
        }
        const auto folder = golden_ / "schedulers";
        inputs_ = core::read_tensors(folder / "inputs.safetensors");
        outputs_ = core::read_tensors(folder / "outputs.safetensors");
        nlohmann::json config = core::read_json_file(folder / "config.json");
        config_ = CogVideoXSchedulerConfig::from_json(config["schedulers"][GetParam()],
                                                      "schedulers/config.json");
    }

    const at::Tensor& expected(const std::string& what) const {
        return outputs_.at(GetParam() + "." + what);
    }

    static std::vector<std::int64_t> to_vector(const at::Tensor& tensor) {
        at::Tensor values = tensor.contiguous();
        return {values.data_ptr<std::int64_t>(), values.data_ptr<std::int64_t>() + values.numel()};
    }

    // max |actual - expected| <= atol + rtol * max |expected|
    static void expect_close(const at::Tensor& actual, const at::Tensor& expected,
                             const std::string& what, double rtol = 1e-5, double atol = 1e-6) {
        ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
        EXPECT_EQ(actual.scalar_type(), expected.scalar_type()) << what;
        const double error =
            (actual.to(torch::kFloat64) - expected.to(torch::kFloat64)).abs().max().item<double>();
        const double bound = atol + rtol * expected.abs().max().item<double>();
        EXPECT_LE(error, bound) << what;
        RecordProperty(what, std::to_string(error));
    }

    std::filesystem::path golden_;
    std::map<std::string, at::Tensor> inputs_;
    std::map<std::string, at::Tensor> outputs_;
    CogVideoXSchedulerConfig config_;
};

TEST_P(SchedulerGolden, NoiseTableAndTimesteps) {
    CogVideoXNoiseSchedule schedule(config_);
    const at::Tensor& table = expected("alphas_cumprod");
    ASSERT_EQ(schedule.alphas_cumprod().scalar_type(), torch::kFloat64);
    // 1e-6 relative per entry, as the manifest suggests for scheduler tables.
    const at::Tensor error = (schedule.alphas_cumprod() - table).abs();
    EXPECT_TRUE((error <= 1e-6 * table.abs() + 1e-15).all().item<bool>())
        << "max error " << error.max().item<double>();
    EXPECT_EQ(schedule.alphas_cumprod()[999].item<double>(), 0.0) << "zero terminal SNR";
    EXPECT_TRUE(torch::equal(schedule.final_alpha_cumprod(), expected("final_alpha_cumprod")));
    EXPECT_EQ(expected("init_noise_sigma").item<double>(), schedule.init_noise_sigma());
    for (int steps : {50, 4}) {
        EXPECT_EQ(schedule.set_timesteps(steps),
                  to_vector(expected("timesteps_" + std::to_string(steps))))
            << steps << " steps";
    }
}

TEST_P(SchedulerGolden, ForwardProcess) {
    CogVideoXNoiseSchedule schedule(config_);
    const at::Tensor& original = inputs_.at("original_samples");
    const at::Tensor& noise = inputs_.at("noise");
    const at::Tensor& timesteps = inputs_.at("timesteps");
    expect_close(schedule.add_noise(original, noise, timesteps), expected("add_noise"),
                 "add_noise");
    expect_close(schedule.get_velocity(original, noise, timesteps), expected("get_velocity"),
                 "get_velocity");
}

TEST_P(SchedulerGolden, StepChain) {
    const at::Tensor& outputs = inputs_.at("step_model_outputs");
    at::Tensor sample = inputs_.at("step_initial_sample");
    const bool dpm = GetParam().rfind("dpm", 0) == 0;
    CogVideoXDDIMScheduler ddim(config_);
    CogVideoXDPMScheduler dpm_scheduler(config_);
    const auto timesteps = dpm ? dpm_scheduler.set_timesteps(4) : ddim.set_timesteps(4);
    ASSERT_EQ(timesteps, to_vector(expected("timesteps_4")));
    std::optional<at::Tensor> old_pred_original;
    for (std::size_t i = 0; i < timesteps.size(); ++i) {
        const std::string prefix = "step" + std::to_string(i) + ".";
        SchedulerStepOutput result;
        if (dpm) {
            std::deque<at::Tensor> recorded;
            for (int j = 0; outputs_.count(GetParam() + "." + prefix + "noise" + std::to_string(j));
                 ++j) {
                recorded.push_back(expected(prefix + "noise" + std::to_string(j)));
            }
            const std::size_t draws = recorded.size();
            std::size_t drawn = 0;
            NoiseSource noise = [&](const at::Tensor& like) {
                EXPECT_FALSE(recorded.empty()) << "drew more noise than the reference";
                at::Tensor next = recorded.empty() ? torch::zeros_like(like) : recorded.front();
                if (!recorded.empty()) {
                    recorded.pop_front();
                }
                ++drawn;
                return next;
            };
            std::optional<std::int64_t> back;
            if (i > 0) {
                back = timesteps[i - 1];
            }
            result = dpm_scheduler.step(outputs[static_cast<std::int64_t>(i)], old_pred_original,
                                        timesteps[i], back, sample, noise);
            EXPECT_EQ(drawn, draws) << "step " << i << " must draw as often as the reference";
            old_pred_original = result.pred_original_sample;
        } else {
            result = ddim.step(outputs[static_cast<std::int64_t>(i)], timesteps[i], sample);
        }
        expect_close(result.pred_original_sample, expected(prefix + "pred_original_sample"),
                     prefix + "pred_original_sample");
        expect_close(result.prev_sample, expected(prefix + "prev_sample"), prefix + "prev_sample");
        sample = result.prev_sample;
    }
}

INSTANTIATE_TEST_SUITE_P(Configs, SchedulerGolden,
                         ::testing::Values("ddim_2b", "ddim_5b", "dpm_2b", "dpm_5b"));

} // namespace
} // namespace tuneframe::diffusion
