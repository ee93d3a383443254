// The learning-rate schedules against ../shared/golden/lr_schedules: diffusers' get_scheduler
// for every schedule, warmup 10 of 100 steps, each lr after 0..100 scheduler steps.
#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"
#include "engine/train/optim/lr_schedule.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <iostream>

namespace tuneframe::train {
namespace {

TEST(LRScheduleGolden, EveryScheduleMatchesDiffusers) {
    const auto golden = test::golden_dir();
    if (golden.empty()) {
        if (test::running_in_ci()) {
            FAIL() << "../shared/golden is missing";
        }
        GTEST_SKIP();
    }
    const auto folder = golden / "lr_schedules";
    const auto outputs = core::read_tensors(folder / "outputs.safetensors");
    const nlohmann::json config = core::read_json_file(folder / "config.json");
    const double base_lr = config["base_lr"].get<double>();
    ASSERT_EQ(config["get_polynomial_decay_schedule_with_warmup_lr_end"].get<double>(),
              LRSchedule::kPolynomialLREnd);
    ASSERT_EQ(config["schedules"].size(), 7u);
    for (const auto& [label, schedule_config] : config["schedules"].items()) {
        const nlohmann::json& call = schedule_config["get_scheduler"];
        LRScheduleOptions options;
        options.name = call["name"].get<std::string>();
        options.warmup_steps = call["num_warmup_steps"].get<std::int64_t>();
        options.training_steps = call["num_training_steps"].get<std::int64_t>();
        options.num_cycles = call["num_cycles"].get<double>();
        options.power = call["power"].get<double>();
        const LRSchedule schedule(options, base_lr);

        const at::Tensor& expected = outputs.at(label + ".lr");
        ASSERT_EQ(expected.scalar_type(), torch::kFloat64) << label;
        ASSERT_EQ(expected.numel(), options.training_steps + 1) << label;
        double worst = 0;
        for (std::int64_t step = 0; step < expected.numel(); ++step) {
            const double reference = expected[step].item<double>();
            const double actual = schedule.lr(step);
            // 1e-12 relative, as the manifest suggests; exact where the reference is 0.
            EXPECT_LE(std::abs(actual - reference), 1e-12 * std::abs(reference))
                << label << " after " << step << " steps";
            if (reference != 0) {
                worst = std::max(worst, std::abs(actual - reference) / std::abs(reference));
            }
        }
        std::cout << "[ golden   ] lr_schedules " << label << ": max relative error " << worst
                  << "\n";
    }
}

} // namespace
} // namespace tuneframe::train
