// `bench` on the CPU with the tiny architecture: the JSON it prints and its refusals.
#include "engine/core/error.h"
#include "engine/core/kernels/kept_attention.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/train/bench/training_bench.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace tuneframe::train {
namespace {

BenchSpec tiny_spec() {
    BenchSpec spec;
    spec.name = "cogvideox-tiny";
    spec.transformer = models::cogvideox::find_architecture("cogvideox-tiny").transformer;
    spec.frames = 9;
    spec.height = 48;
    spec.width = 64;
    spec.rank = 4;
    spec.steps = 3;
    spec.device = "cpu";
    spec.precision = "fp32";
    return spec;
}

TEST(TrainingBench, ReportsEachPhaseInSecondsWithinTheStepsItTimed) {
    const nlohmann::json result = run_bench(tiny_spec());
    ASSERT_EQ(result["steps_s"].size(), 2U);
    double steps_total = 0;
    for (const auto& seconds : result["steps_s"]) {
        steps_total += seconds.get<double>();
    }
    double phases_total = 0;
    for (const char* phase : {"forward", "backward", "optimizer"}) {
        ASSERT_TRUE(result["phases_s"].contains(phase)) << result.dump();
        const double seconds = result["phases_s"][phase].get<double>();
        EXPECT_GT(seconds, 0.0) << phase;
        phases_total += seconds;
        EXPECT_GT(result["phase_peak_bytes"][phase].get<std::int64_t>(), 0) << phase;
    }
    // Medians of parts of the timed steps: in seconds, never more than the steps themselves.
    EXPECT_LT(phases_total, steps_total);
    EXPECT_EQ(result["attention"], "auto");
}

// The memory estimate (engine/models/cogvideox/memory_estimate.cpp, whose constants were fitted
// on these runs and on an H100) against the live tensor bytes the step reached on this CPU.
void expect_estimate_within(const BenchSpec& spec, double tolerance) {
    const nlohmann::json result = run_bench(spec);
    const auto measured = static_cast<double>(result["peak_tensor_bytes"].get<std::int64_t>());
    const auto estimated = static_cast<double>(result["estimate_bytes"].get<std::int64_t>());
    ASSERT_GT(measured, 0.0);
    EXPECT_NEAR(estimated / measured, 1.0, tolerance)
        << spec.name << (spec.checkpointing ? " with" : " without") << " checkpointing: estimated "
        << estimated << " bytes, measured " << measured;
}

TEST(TrainingBench, MemoryEstimateIsWithin15PercentOfTheMeasuredPeak) {
    BenchSpec tiny = tiny_spec();
    expect_estimate_within(tiny, 0.15);
    tiny.checkpointing = false;
    expect_estimate_within(tiny, 0.15);
    BenchSpec larger = tiny_spec();
    larger.frames = 25;
    larger.height = 96;
    larger.width = 128;
    larger.rank = 8;
    expect_estimate_within(larger, 0.15);
    BenchSpec bench_cpu = bench_shape("bench-cpu");
    bench_cpu.steps = 2;
    expect_estimate_within(bench_cpu, 0.15);
}

// Recomputing only some blocks: the peak lands between recomputing all and none, the estimate
// follows it, and the result says how many blocks were recomputed.
TEST(TrainingBench, CheckpointingSomeBlocksLandsBetweenAllAndNone) {
    BenchSpec spec = tiny_spec();
    spec.transformer.num_layers = 4; // random weights: any depth builds
    const nlohmann::json all = run_bench(spec);
    spec.checkpointing = false;
    const nlohmann::json none = run_bench(spec);
    spec.checkpointing = true;
    spec.checkpointed_blocks = 1;
    const nlohmann::json some = run_bench(spec);
    EXPECT_EQ(all["checkpointed_blocks"], 4);
    EXPECT_EQ(none["checkpointed_blocks"], 0);
    EXPECT_EQ(some["checkpointed_blocks"], 1);
    const auto peak = [](const nlohmann::json& result) {
        return result["peak_tensor_bytes"].get<std::int64_t>();
    };
    EXPECT_LT(peak(all), peak(some));
    EXPECT_LT(peak(some), peak(none));
    expect_estimate_within(spec, 0.15);
}

// Recomputed blocks keeping their attention outputs hold one more token-width each until
// backward: the peak rises by that and the estimate follows. Where LibTorch cannot keep them
// (before 2.6), the result says so and nothing changes.
TEST(TrainingBench, KeepingAttentionRaisesThePeakAsEstimated) {
    BenchSpec spec = tiny_spec();
    spec.transformer.num_layers = 4;
    spec.frames = 25;
    spec.height = 96;
    spec.width = 128;
    spec.steps = 2;
    const nlohmann::json recomputed = run_bench(spec);
    spec.keep_attention = true;
    const nlohmann::json kept = run_bench(spec);
    EXPECT_EQ(recomputed["keeps_attention"], false);
    EXPECT_EQ(kept["keeps_attention"], core::KeptAttention::available());
    const auto peak = [](const nlohmann::json& result) {
        return result["peak_tensor_bytes"].get<std::int64_t>();
    };
    const auto estimate = [](const nlohmann::json& result) {
        return result["estimate_bytes"].get<std::int64_t>();
    };
    if (core::KeptAttention::available()) {
        EXPECT_GT(peak(kept), peak(recomputed));
        EXPECT_GT(estimate(kept), estimate(recomputed));
    } else {
        EXPECT_EQ(estimate(kept), estimate(recomputed));
    }
    EXPECT_NEAR(static_cast<double>(estimate(kept)) / static_cast<double>(peak(kept)), 1.0, 0.15);
}

// bench-cpu's base weights are a sixth of its peak: int8 must show in the measured peak, and
// the estimate must follow it.
TEST(TrainingBench, AnInt8BaseLowersThePeakAndTheEstimateFollows) {
    BenchSpec spec = bench_shape("bench-cpu");
    spec.steps = 2;
    const nlohmann::json full = run_bench(spec);
    spec.quantize = "int8";
    const nlohmann::json int8 = run_bench(spec);
    EXPECT_EQ(int8["quantize"], "int8");
    EXPECT_EQ(full["quantize"], "none");
    EXPECT_LT(int8["peak_tensor_bytes"].get<std::int64_t>(),
              full["peak_tensor_bytes"].get<std::int64_t>());
    EXPECT_LT(int8["estimate_bytes"].get<std::int64_t>(),
              full["estimate_bytes"].get<std::int64_t>());
    const auto measured = static_cast<double>(int8["peak_tensor_bytes"].get<std::int64_t>());
    const auto estimated = static_cast<double>(int8["estimate_bytes"].get<std::int64_t>());
    EXPECT_NEAR(estimated / measured, 1.0, 0.15)
        << "estimated " << estimated << ", measured " << measured;
}

// A validation pass after the steps, as training runs it: each stage's peak holds what that
// stage must have loaded, and the trained model stays counted while it denoises.
TEST(TrainingBench, ValidationReportsThePeakOfEachStageWithTheTrainedStateHeld) {
    BenchSpec spec = tiny_spec();
    spec.validation_pipeline = test::tiny_pipeline().string();
    spec.validation_prompts = 2;
    const nlohmann::json result = run_bench(spec);
    ASSERT_TRUE(result.contains("validation")) << result.dump();
    const nlohmann::json& validation = result["validation"];
    EXPECT_EQ(validation["steps"], 2);
    EXPECT_EQ(validation["prompts"], 2);
    EXPECT_GT(validation["seconds"].get<double>(), 0.0);
    const nlohmann::json& stages = validation["stage_peak_bytes"];
    auto file_bytes = [](const std::filesystem::path& file) {
        return static_cast<std::int64_t>(std::filesystem::file_size(file));
    };
    // The files are fp32 as loaded; their headers are a few hundred bytes of that.
    const std::filesystem::path pipeline = test::tiny_pipeline();
    const std::int64_t t5 = file_bytes(pipeline / "text_encoder" / "model.safetensors");
    const std::int64_t transformer =
        file_bytes(pipeline / "transformer" / "diffusion_pytorch_model.safetensors");
    ASSERT_TRUE(stages.contains("text") && stages.contains("denoise") && stages.contains("decode"))
        << stages.dump();
    EXPECT_GT(stages["text"].get<std::int64_t>(), t5 * 9 / 10);
    EXPECT_GT(stages["denoise"].get<std::int64_t>(), transformer * 9 / 10);
    std::int64_t highest = 0;
    for (const auto& [stage, bytes] : stages.items()) {
        highest = std::max(highest, bytes.get<std::int64_t>());
    }
    EXPECT_EQ(validation["peak_tensor_bytes"].get<std::int64_t>(), highest);
    EXPECT_EQ(result["peak_with_validation_bytes"].get<std::int64_t>(),
              std::max(highest, result["peak_tensor_bytes"].get<std::int64_t>()));
}

TEST(TrainingBench, ValidationRefusesAPipelineOfAnotherWidthNamingTheFolder) {
    BenchSpec spec = bench_shape("bench-cpu");
    spec.steps = 2;
    spec.validation_pipeline = test::tiny_pipeline().string();
    try {
        run_bench(spec);
        FAIL() << "expected a bad-input error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_NE(std::string(error.what()).find(spec.validation_pipeline), std::string::npos)
            << error.what();
        EXPECT_NE(error.hint().find("--complete"), std::string::npos) << error.hint();
    }
}

TEST(TrainingBench, RefusesAnUnknownAttentionBackendByName) {
    BenchSpec spec = tiny_spec();
    spec.attention = "fastest";
    try {
        run_bench(spec);
        FAIL() << "expected a usage error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::Usage);
        EXPECT_NE(std::string(error.what()).find("'fastest'"), std::string::npos) << error.what();
    }
}

} // namespace
} // namespace tuneframe::train
