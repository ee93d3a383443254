// Unit tests of the flow-matching schedulers and training draws: configs Tuneframe must refuse,
// the schedule options the golden set does not cover, the exactness of both solvers on a
// straight flow, and the Wan 2.2 expert windows (every draw inside, distribution shape kept).
#include "engine/core/error.h"
#include "engine/diffusion/flow_match_euler_discrete_scheduler.h"
#include "engine/diffusion/flow_matching.h"
#include "engine/diffusion/unipc_multistep_scheduler.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <fstream>

namespace tuneframe::diffusion {
namespace {

constexpr double kPi = 3.14159265358979323846;

// The scheduler config of Wan-AI/Wan2.1-T2V-1.3B-Diffusers.
nlohmann::json wan_unipc_json() {
    return nlohmann::json::parse(R"({
        "_class_name": "UniPCMultistepScheduler", "_diffusers_version": "0.33.0.dev0",
        "beta_end": 0.02, "beta_schedule": "linear", "beta_start": 0.0001,
        "disable_corrector": [], "dynamic_thresholding_ratio": 0.995,
        "final_sigmas_type": "zero", "flow_shift": 3.0, "lower_order_final": true,
        "num_train_timesteps": 1000, "predict_x0": true, "prediction_type": "flow_prediction",
        "rescale_betas_zero_snr": false, "sample_max_value": 1.0, "solver_order": 2,
        "solver_p": null, "solver_type": "bh2", "steps_offset": 0, "thresholding": false,
        "timestep_spacing": "linspace", "trained_betas": null, "use_beta_sigmas": false,
        "use_exponential_sigmas": false, "use_flow_sigmas": true, "use_karras_sigmas": false
    })");
}

nlohmann::json euler_json(double shift) {
    return {{"_class_name", "FlowMatchEulerDiscreteScheduler"}, {"shift", shift}};
}

// Runs `parse` and expects a BadInput error whose message names `origin` and `field`.
template <typename Parse>
void expect_bad_input(Parse parse, const std::string& origin, const std::string& field) {
    try {
        parse();
        ADD_FAILURE() << "no error for " << field;
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput) << error.what();
        EXPECT_NE(std::string(error.what()).find(origin), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find(field), std::string::npos) << error.what();
        EXPECT_FALSE(error.hint().empty()) << error.what();
    }
}

void expect_unipc_refuses(const std::string& key, const nlohmann::json& value) {
    nlohmann::json json = wan_unipc_json();
    json[key] = value;
    SCOPED_TRACE(key + " = " + value.dump());
    expect_bad_input([&] { UniPCMultistepSchedulerConfig::from_json(json, "scheduler.json"); },
                     "scheduler.json", key);
}

TEST(FlowMatchEulerConfig, DefaultsAndRoundTrip) {
    const auto config =
        FlowMatchEulerDiscreteSchedulerConfig::from_json(nlohmann::json::object(), "s.json");
    EXPECT_EQ(config.num_train_timesteps, 1000);
    EXPECT_EQ(config.shift, 1.0);
    EXPECT_FALSE(config.shift_terminal.has_value());
    EXPECT_EQ(config.time_shift_type, TimeShiftType::Exponential);

    FlowMatchEulerDiscreteSchedulerConfig custom;
    custom.shift = 5.0;
    custom.invert_sigmas = true;
    custom.shift_terminal = 0.1;
    custom.time_shift_type = TimeShiftType::Linear;
    const auto again = FlowMatchEulerDiscreteSchedulerConfig::from_json(custom.to_json(), "s");
    EXPECT_EQ(again.shift, 5.0);
    EXPECT_TRUE(again.invert_sigmas);
    EXPECT_EQ(again.shift_terminal, 0.1);
    EXPECT_EQ(again.time_shift_type, TimeShiftType::Linear);
}

TEST(FlowMatchEulerConfig, RefusesWhatWouldChangeTheNumbers) {
    const auto refuses = [](const std::string& key, const nlohmann::json& value) {
        nlohmann::json json = euler_json(3.0);
        json[key] = value;
        SCOPED_TRACE(key);
        expect_bad_input(
            [&] { FlowMatchEulerDiscreteSchedulerConfig::from_json(json, "sched.json"); },
            "sched.json", key);
    };
    refuses("use_beta_sigmas", true);
    refuses("shift_by_resolution", true); // unknown
    refuses("shift", "3");                // wrong type
    refuses("shift", -1.0);
    refuses("time_shift_type", "cubic");
    refuses("num_train_timesteps", 1);
    refuses("shift_terminal", 1.5);
    nlohmann::json both = euler_json(3.0);
    both["use_karras_sigmas"] = true;
    both["use_exponential_sigmas"] = true;
    expect_bad_input([&] { FlowMatchEulerDiscreteSchedulerConfig::from_json(both, "b.json"); },
                     "b.json", "use_exponential_sigmas");
}

TEST(FlowMatchEulerConfig, FromFileNamesThePath) {
    test::TemporaryDirectory folder;
    const auto path = folder / "scheduler_config.json";
    nlohmann::json json = euler_json(3.0);
    json["mystery"] = 1;
    std::ofstream(path) << json.dump();
    expect_bad_input([&] { FlowMatchEulerDiscreteSchedulerConfig::from_file(path); }, path.string(),
                     "mystery");
}

TEST(UniPCConfig, ReadsTheWanCheckpointConfig) {
    const auto config = UniPCMultistepSchedulerConfig::from_json(wan_unipc_json(), "s.json");
    EXPECT_EQ(config.flow_shift, 3.0);
    EXPECT_EQ(config.solver_order, 2);
    EXPECT_EQ(config.solver_type, UniPCSolverType::Bh2);
    EXPECT_TRUE(config.lower_order_final);
    EXPECT_TRUE(config.disable_corrector.empty());
    EXPECT_EQ(config.final_sigmas_type, FinalSigmasType::Zero);
    const auto again = UniPCMultistepSchedulerConfig::from_json(config.to_json(), "again");
    EXPECT_EQ(again.flow_shift, 3.0);
    // diffusers maps the DPM-Solver solver names onto bh2.
    nlohmann::json json = wan_unipc_json();
    json["solver_type"] = "midpoint";
    EXPECT_EQ(UniPCMultistepSchedulerConfig::from_json(json, "s").solver_type,
              UniPCSolverType::Bh2);
}

TEST(UniPCConfig, RefusesOtherPathsThroughTheScheduler) {
    expect_unipc_refuses("prediction_type", "epsilon");
    expect_unipc_refuses("use_flow_sigmas", false);
    expect_unipc_refuses("use_karras_sigmas", true);
    expect_unipc_refuses("use_beta_sigmas", true);
    expect_unipc_refuses("thresholding", true);
    expect_unipc_refuses("solver_p", nlohmann::json::object());
    expect_unipc_refuses("predict_x0", false);
    expect_unipc_refuses("solver_type", "bh3");
    expect_unipc_refuses("solver_type", "bh1"); // with final_sigmas_type zero
    expect_unipc_refuses("final_sigmas_type", "one");
    expect_unipc_refuses("disable_corrector", nlohmann::json::array({0.5}));
    expect_unipc_refuses("timestep_spacing", "quadratic");
    expect_unipc_refuses("solver_order", 0);
    expect_unipc_refuses("flow_shift", 0.0);
    expect_unipc_refuses("clip_sample", false); // unknown
    nlohmann::json json = wan_unipc_json();
    json.erase("prediction_type"); // the class default is epsilon
    expect_bad_input([&] { UniPCMultistepSchedulerConfig::from_json(json, "s.json"); }, "s.json",
                     "prediction_type");
}

FlowMatchEulerDiscreteScheduler euler(const nlohmann::json& json) {
    return FlowMatchEulerDiscreteScheduler(
        FlowMatchEulerDiscreteSchedulerConfig::from_json(json, "test"));
}

UniPCMultistepScheduler unipc(const nlohmann::json& json) {
    return UniPCMultistepScheduler(UniPCMultistepSchedulerConfig::from_json(json, "test"));
}

TEST(FlowMatchEuler, StepFindsItsIndexOrStartsAtTheBeginIndex) {
    auto scheduler = euler(euler_json(3.0));
    scheduler.set_timesteps(5);
    const at::Tensor sample = torch::randn({2, 3, 4});
    const at::Tensor velocity = torch::randn({2, 3, 4});
    EXPECT_THROW(scheduler.step(velocity, 123.25, sample), core::Error);
    EXPECT_FALSE(scheduler.step_index().has_value());

    scheduler.set_begin_index(2);
    const at::Tensor next =
        scheduler.step(velocity, scheduler.timesteps()[0].item<double>(), sample);
    const at::Tensor sigmas = scheduler.sigmas();
    EXPECT_TRUE(torch::equal(next, sample + (sigmas[3] - sigmas[2]) * velocity));
    EXPECT_EQ(scheduler.step_index(), 3);
    EXPECT_THROW(scheduler.set_timesteps(0), core::Error);
}

TEST(FlowMatchEuler, KeepsTheModelDtypeAndStepsStochastically) {
    auto scheduler = euler(euler_json(5.0));
    scheduler.set_timesteps(3);
    const at::Tensor sample = torch::randn({1, 2, 3, 5});
    const at::Tensor velocity = torch::randn({1, 2, 3, 5}).to(torch::kBFloat16);
    EXPECT_EQ(
        scheduler.step(velocity, scheduler.timesteps()[0].item<double>(), sample).scalar_type(),
        torch::kBFloat16);

    nlohmann::json json = euler_json(5.0);
    json["stochastic_sampling"] = true;
    auto stochastic = euler(json);
    stochastic.set_timesteps(3);
    const double t0 = stochastic.timesteps()[0].item<double>();
    const at::Tensor v = velocity.to(torch::kFloat32);
    EXPECT_THROW(stochastic.step(v, t0, sample), core::Error);
    const at::Tensor noise = torch::randn_like(sample);
    const at::Tensor next = stochastic.step(v, t0, sample, noise);
    const at::Tensor s = stochastic.sigmas()[0];
    const at::Tensor s_next = stochastic.sigmas()[1];
    EXPECT_TRUE(torch::allclose(next, (1 - s_next) * (sample - s * v) + s_next * noise));
}

TEST(FlowMatchEuler, DynamicShiftingUsesMu) {
    nlohmann::json json = euler_json(1.0);
    json["use_dynamic_shifting"] = true;
    auto scheduler = euler(json);
    EXPECT_THROW(scheduler.set_timesteps(4), core::Error);
    const double mu = 0.7;
    scheduler.set_timesteps(4, mu);
    // The table is unshifted: its ends are 1 and 1/1000 (as float32).
    const double first = 1000.0;
    const double last = static_cast<double>(1.0f / 1000) * 1000;
    for (int i = 0; i < 4; ++i) {
        const double t = (first + i * (last - first) / 3) / 1000;
        const double expected = std::exp(mu) / (std::exp(mu) + (1 / t - 1));
        EXPECT_NEAR(scheduler.sigmas()[i].item<double>(), expected, 1e-7) << i;
    }
}

TEST(FlowMatchEuler, TerminalInvertedKarrasAndExponentialSchedules) {
    nlohmann::json json = euler_json(3.0);
    auto plain = euler(json);
    plain.set_timesteps(8);

    json["shift_terminal"] = 0.1;
    auto terminal = euler(json);
    terminal.set_timesteps(8);
    EXPECT_NEAR(terminal.sigmas()[7].item<double>(), 0.1, 1e-7);
    EXPECT_EQ(terminal.sigmas()[0].item<float>(), plain.sigmas()[0].item<float>());

    json = euler_json(3.0);
    json["invert_sigmas"] = true;
    auto inverted = euler(json);
    inverted.set_timesteps(8);
    EXPECT_EQ(inverted.sigmas()[8].item<float>(), 1.0f);
    EXPECT_TRUE(
        torch::allclose(inverted.sigmas().slice(0, 0, 8), 1 - plain.sigmas().slice(0, 0, 8)));

    json = euler_json(3.0);
    json["use_karras_sigmas"] = true;
    auto karras = euler(json);
    karras.set_timesteps(8);
    EXPECT_NEAR(karras.sigmas()[0].item<double>(), plain.sigmas()[0].item<double>(), 1e-6);
    EXPECT_NEAR(karras.sigmas()[7].item<double>(), plain.sigmas()[7].item<double>(), 1e-6);
    EXPECT_LT(karras.sigmas()[4].item<double>(), plain.sigmas()[4].item<double>());

    json = euler_json(3.0);
    json["use_exponential_sigmas"] = true;
    auto exponential = euler(json);
    exponential.set_timesteps(8);
    const at::Tensor sigmas = exponential.sigmas().slice(0, 0, 8).to(torch::kFloat64);
    const at::Tensor ratios = sigmas.slice(0, 1) / sigmas.slice(0, 0, -1);
    EXPECT_LT((ratios - ratios[0]).abs().max().item<double>(), 1e-6);
}

// On a straight flow x_t = (1 - sigma) x0 + sigma noise the velocity noise - x0 is constant and
// every x0 prediction is exact, so any correct solver lands on x0.
template <typename Scheduler, typename Timestep>
at::Tensor solve_straight_flow(Scheduler& scheduler, const at::Tensor& x0, const at::Tensor& noise,
                               Timestep /*type*/) {
    const at::Tensor velocity = noise - x0;
    at::Tensor sample = (1 - scheduler.sigmas()[0]) * x0 + scheduler.sigmas()[0] * noise;
    const at::Tensor timesteps = scheduler.timesteps();
    for (std::int64_t i = 0; i < timesteps.size(0); ++i) {
        sample = scheduler.step(velocity, timesteps[i].template item<Timestep>(), sample);
    }
    return sample;
}

TEST(FlowMatchSolvers, IntegrateAStraightFlowExactly) {
    const at::Tensor x0 = torch::randn({2, 4, 3, 5, 7});
    const at::Tensor noise = torch::randn({2, 4, 3, 5, 7});
    auto scheduler = euler(euler_json(3.0));
    scheduler.set_timesteps(7);
    EXPECT_LT((solve_straight_flow(scheduler, x0, noise, 0.0) - x0).abs().max().item<double>(),
              1e-5);
    for (int order : {1, 2, 3}) {
        for (const char* solver : {"bh1", "bh2"}) {
            SCOPED_TRACE(std::to_string(order) + " " + solver);
            nlohmann::json json = wan_unipc_json();
            json["solver_order"] = order;
            json["solver_type"] = solver;
            // bh1 cannot end at sigma 0 (the config refuses it); it stops at the last sigma.
            json["final_sigmas_type"] = std::string(solver) == "bh1" ? "sigma_min" : "zero";
            auto multistep = unipc(json);
            multistep.set_timesteps(9);
            const at::Tensor result = solve_straight_flow(multistep, x0, noise, std::int64_t{0});
            const at::Tensor last = multistep.sigmas()[-1];
            const at::Tensor expected = (1 - last) * x0 + last * noise;
            EXPECT_LT((result - expected).abs().max().item<double>(), 1e-4);
        }
    }
}

TEST(UniPC, CorrectorCanBeDisabledPerStep) {
    const at::Tensor sample = torch::randn({1, 2, 2, 3, 3});
    const at::Tensor first = torch::randn({1, 2, 2, 3, 3});
    const at::Tensor second = torch::randn({1, 2, 2, 3, 3});
    const auto run = [&](const nlohmann::json& disabled) {
        nlohmann::json json = wan_unipc_json();
        json["disable_corrector"] = disabled;
        auto scheduler = unipc(json);
        scheduler.set_timesteps(5);
        const at::Tensor timesteps = scheduler.timesteps();
        const at::Tensor x1 = scheduler.step(first, timesteps[0].item<std::int64_t>(), sample);
        return scheduler.step(second, timesteps[1].item<std::int64_t>(), x1);
    };
    const at::Tensor corrected = run(nlohmann::json::array());
    EXPECT_FALSE(torch::allclose(corrected, run(nlohmann::json::array({0}))));
    EXPECT_TRUE(torch::equal(corrected, run(nlohmann::json::array({3}))));
}

TEST(UniPC, NeedsTimestepsAndMapsUnknownTimestepsToTheEnd) {
    auto scheduler = unipc(wan_unipc_json());
    const at::Tensor sample = torch::randn({1, 2, 3});
    EXPECT_THROW(scheduler.step(sample, 999, sample), core::Error);
    scheduler.set_timesteps(4);
    EXPECT_EQ(scheduler.timesteps().scalar_type(), torch::kLong);
    EXPECT_EQ(scheduler.sigmas().size(0), 5);
    EXPECT_EQ(scheduler.index_for_timestep(12345), 3);
    EXPECT_EQ(scheduler.index_for_timestep(scheduler.timesteps()[2].item<std::int64_t>()), 2);

    const at::Tensor noise = torch::randn({2, 2, 3});
    const at::Tensor original = torch::randn({2, 2, 3});
    const at::Tensor noisy =
        scheduler.add_noise(original, noise, scheduler.timesteps().slice(0, 1, 3));
    const at::Tensor s1 = scheduler.sigmas()[1];
    const at::Tensor s2 = scheduler.sigmas()[2];
    EXPECT_TRUE(torch::allclose(noisy[0], (1 - s1) * original[0] + s1 * noise[0]));
    EXPECT_TRUE(torch::allclose(noisy[1], (1 - s2) * original[1] + s2 * noise[1]));
}

// Draws that probe a window's edges: both ends of [0, 1) and the middle, or far normal tails.
at::Tensor edge_draws(TimestepDensity density) {
    if (density == TimestepDensity::LogitNormal) {
        return torch::tensor({-9.0f, -3.0f, -0.5f, 0.0f, 0.5f, 3.0f, 9.0f});
    }
    const float below_one = std::nextafter(1.0f, 0.0f);
    return torch::tensor({0.0f, 1e-7f, 0.2f, 0.5f, 0.8f, 0.9999f, below_one});
}

TEST(ExpertWindows, EveryDrawLandsInItsExpertsWindow) {
    for (SigmaSource source :
         {SigmaSource::Finetrainers, SigmaSource::Diffusers, SigmaSource::Direct}) {
        for (TimestepDensity density :
             {TimestepDensity::Uniform, TimestepDensity::LogitNormal, TimestepDensity::Mode}) {
            for (double ratio : {0.875, 0.9}) {
                for (NoiseExpert expert : {NoiseExpert::High, NoiseExpert::Low}) {
                    for (double shift : {1.0, 3.0, 5.0, 12.0}) {
                        FlowMatchingSampling sampling;
                        sampling.source = source;
                        sampling.density = density;
                        sampling.shift = shift;
                        sampling.window = ExpertWindow::from_boundary_ratio(expert, ratio, 1000);
                        const auto draws =
                            FlowMatchingTimestepSampler(sampling).sample(edge_draws(density));
                        const at::Tensor timesteps = draws.timesteps.to(torch::kFloat64);
                        for (std::int64_t i = 0; i < timesteps.size(0); ++i) {
                            const double t = timesteps[i].item<double>();
                            EXPECT_TRUE(sampling.window->contains(t))
                                << "source " << static_cast<int>(source) << " density "
                                << static_cast<int>(density) << " ratio " << ratio << " high "
                                << (expert == NoiseExpert::High) << " shift " << shift << " draw "
                                << i << " timestep " << t;
                        }
                        const at::Tensor sigmas = draws.sigmas;
                        EXPECT_TRUE(((sigmas >= 0) & (sigmas <= 1)).all().item<bool>());
                    }
                }
            }
        }
    }
}

TEST(ExpertWindows, BoundariesOfTheA14BCheckpoints) {
    EXPECT_EQ(ExpertWindow::from_boundary_ratio(NoiseExpert::High, 0.875, 1000).boundary_timestep,
              875.0);
    EXPECT_EQ(ExpertWindow::from_boundary_ratio(NoiseExpert::Low, 0.9, 1000).boundary_timestep,
              900.0);
    const ExpertWindow high{NoiseExpert::High, 875};
    const ExpertWindow low{NoiseExpert::Low, 875};
    EXPECT_TRUE(high.contains(875));
    EXPECT_FALSE(low.contains(875));
    EXPECT_TRUE(low.contains(874.999));
    EXPECT_THROW(ExpertWindow::from_boundary_ratio(NoiseExpert::High, 1.0, 1000), core::Error);
    EXPECT_THROW(ExpertWindow::from_boundary_ratio(NoiseExpert::High, 0.0, 1000), core::Error);

    FlowMatchingSampling empty;
    empty.window = ExpertWindow{NoiseExpert::High, 1000.5};
    EXPECT_THROW(FlowMatchingTimestepSampler{empty}, core::Error);
    FlowMatchingSampling steep;
    steep.density = TimestepDensity::Mode;
    steep.mode_scale = 3.0;
    steep.window = ExpertWindow{NoiseExpert::Low, 875};
    EXPECT_THROW(FlowMatchingTimestepSampler{steep}, core::Error);
}

// Row frequencies of a sampler over an evenly spaced grid of draw quantiles.
at::Tensor row_histogram(const FlowMatchingSampling& sampling, std::int64_t count) {
    at::Tensor quantiles =
        (torch::arange(count, torch::kFloat64) + 0.5) / static_cast<double>(count);
    if (sampling.density == TimestepDensity::LogitNormal) {
        quantiles = at::special_ndtri(quantiles);
    }
    const auto draws = FlowMatchingTimestepSampler(sampling).sample(quantiles.to(torch::kFloat32));
    return torch::bincount(draws.indices, {}, sampling.num_train_timesteps).to(torch::kFloat64);
}

// The windowed draws follow the full distribution restricted to the window: the same relative
// row frequencies, not a stretched or shifted copy.
TEST(ExpertWindows, KeepTheDistributionsShape) {
    for (TimestepDensity density : {TimestepDensity::Uniform, TimestepDensity::LogitNormal}) {
        for (NoiseExpert expert : {NoiseExpert::High, NoiseExpert::Low}) {
            FlowMatchingSampling sampling;
            sampling.density = density;
            sampling.shift = 3.0;
            const at::Tensor full = row_histogram(sampling, 400000);
            sampling.window = ExpertWindow::from_boundary_ratio(expert, 0.875, 1000);
            const at::Tensor windowed = row_histogram(sampling, 40000);

            const FlowMatchTable table = FlowMatchTable::make(1000, 3.0);
            const at::Tensor timesteps = (table.sigmas * 1000).to(torch::kLong);
            const at::Tensor inside =
                expert == NoiseExpert::High ? timesteps >= 875 : timesteps < 875;
            const at::Tensor restricted = full * inside;
            const at::Tensor expected = restricted / restricted.sum();
            const at::Tensor actual = windowed / windowed.sum();
            const double total_variation = 0.5 * (actual - expected).abs().sum().item<double>();
            EXPECT_LT(total_variation, 0.01) << "density " << static_cast<int>(density) << " high "
                                             << (expert == NoiseExpert::High);
            EXPECT_EQ((windowed * inside.logical_not()).sum().item<double>(), 0.0);
        }
    }
}

TEST(FlowMatchingLoss, WeightingsAsSd3Defines) {
    const at::Tensor sigmas = torch::tensor({0.5f, 0.25f, 0.9f});
    EXPECT_TRUE(torch::equal(loss_weighting(LossWeighting::None, sigmas), torch::ones({3})));
    EXPECT_TRUE(torch::allclose(loss_weighting(LossWeighting::SigmaSqrt, sigmas),
                                torch::tensor({4.0f, 16.0f, 1 / 0.81f})));
    const at::Tensor cosmap = loss_weighting(LossWeighting::CosMap, sigmas);
    for (int i = 0; i < 3; ++i) {
        const double s = sigmas[i].item<double>();
        EXPECT_NEAR(cosmap[i].item<double>(), 2 / (kPi * (1 - 2 * s + 2 * s * s)), 1e-6);
    }
    expect_bad_input([] { parse_loss_weighting("huber", "flow_matching.loss_weighting"); }, "huber",
                     "flow_matching.loss_weighting");
    expect_bad_input([] { parse_timestep_density("beta", "flow_matching.density"); }, "beta",
                     "flow_matching.density");
    expect_bad_input([] { parse_sigma_source("kohya", "flow_matching.sigmas"); }, "kohya",
                     "flow_matching.sigmas");
    EXPECT_EQ(parse_timestep_density("none", "f"), TimestepDensity::Uniform);
}

TEST(FlowMatchingLoss, NoisyInputTargetAndWeightedMeanOnAwkwardShapes) {
    const at::Tensor x0 = torch::randn({3, 5, 1, 3, 7}).to(torch::kBFloat16);
    const at::Tensor noise = torch::randn({3, 5, 1, 3, 7}).to(torch::kBFloat16);
    const at::Tensor sigmas = torch::tensor({0.0f, 1.0f, 0.5f});
    const at::Tensor noisy = flow_matching_noisy_input(x0, noise, sigmas);
    EXPECT_EQ(noisy.sizes(), x0.sizes());
    EXPECT_TRUE(torch::equal(noisy[0].to(torch::kBFloat16), x0[0]));
    EXPECT_TRUE(torch::equal(noisy[1].to(torch::kBFloat16), noise[1]));
    EXPECT_TRUE(torch::equal(flow_matching_target(x0, noise), noise - x0));

    const at::Tensor prediction = torch::randn({3, 5, 1, 3, 7});
    const at::Tensor target = flow_matching_target(x0, noise);
    const at::Tensor weights = torch::tensor({1.0f, 2.0f, 0.5f});
    const FlowMatchingLoss loss = flow_matching_loss(prediction, target, weights);
    EXPECT_EQ(loss.loss.scalar_type(), torch::kFloat32);
    ASSERT_EQ(loss.loss_per_sample.sizes(), (std::vector<std::int64_t>{3}));
    for (int i = 0; i < 3; ++i) {
        const double expected =
            weights[i].item<double>() *
            (prediction[i] - target[i].to(torch::kFloat32)).pow(2).mean().item<double>();
        EXPECT_NEAR(loss.loss_per_sample[i].item<double>(), expected, 1e-5 * expected);
    }
    EXPECT_NEAR(loss.loss.item<double>(), loss.loss_per_sample.mean().item<double>(), 1e-6);
}

} // namespace
} // namespace tuneframe::diffusion
