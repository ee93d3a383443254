// `bench` on the CPU with the tiny architectures and the CPU shapes of each family: the JSON it
// prints, what its named shapes build, and its refusals.
#include "engine/core/error.h"
#include "engine/core/kernels/kept_attention.h"
#include "engine/models/bench_model.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/memory_estimate.h"
#include "engine/train/bench/training_bench.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

namespace tuneframe::train {
namespace {

BenchSpec tiny_spec() {
    BenchSpec spec;
    spec.name = "cogvideox-tiny";
    spec.architecture = "cogvideox-tiny";
    spec.frames = 9;
    spec.height = 48;
    spec.width = 64;
    spec.rank = 4;
    spec.steps = 3;
    spec.device = "cpu";
    spec.precision = "fp32";
    return spec;
}

// bench-cpu takes seconds on 2 cores: the tests that read its figures share one run.
const nlohmann::json& bench_cpu_result() {
    static const nlohmann::json result = [] {
        BenchSpec spec = bench_shape("bench-cpu");
        spec.steps = 2;
        return run_bench(spec);
    }();
    return result;
}

// The tiny Wan 2.1 transformer at 9 x 64 x 64 (3 x 8 x 8 latents).
BenchSpec tiny_wan_spec(const std::string& architecture) {
    BenchSpec spec = tiny_spec();
    spec.name = architecture;
    spec.architecture = architecture;
    spec.height = 64;
    spec.width = 64;
    spec.steps = 2;
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
    EXPECT_EQ(result["family"], "cogvideox");
    EXPECT_EQ(result["architecture"], "cogvideox-tiny");
    EXPECT_EQ(result["text_tokens"], 64) << "the tiny model's own prompt length";
}

// bench-cpu is the figure ARCHITECTURE.md and the estimate's constants were measured on: the
// same transformer, latents, adapters and estimate as before the shapes moved behind the seam.
TEST(TrainingBench, BenchCpuKeepsItsShapeAndEstimate) {
    const BenchSpec spec = bench_shape("bench-cpu");
    EXPECT_EQ(spec.device, "cpu");
    EXPECT_EQ(spec.precision, "fp32");
    const nlohmann::json& result = bench_cpu_result();
    EXPECT_EQ(result["shape"], "bench-cpu");
    EXPECT_EQ(result["family"], "cogvideox");
    EXPECT_EQ(result["latents"], nlohmann::json({1, 7, 16, 20, 30}));
    EXPECT_EQ(result["text_tokens"], 226);
    EXPECT_EQ(result["tokens"], 7 * 10 * 15 + 226);
    EXPECT_EQ(result["layers"], 4);
    EXPECT_EQ(result["inner_dim"], 512);
    EXPECT_EQ(result["checkpointed_blocks"], 4);
    // rank 64 on q, k, v and out of 4 blocks, 512 wide
    EXPECT_EQ(result["trainable_parameters"], 4 * 4 * 2 * 64 * 512);
    models::cogvideox::CogVideoXTransformer3DConfig config =
        models::cogvideox::find_architecture("cogvideox-2b").transformer;
    config.num_attention_heads = 8;
    config.attention_head_dim = 64;
    config.num_layers = 4;
    models::VideoShape shape;
    shape.frames = 25;
    shape.height = 160;
    shape.width = 240;
    const auto before = models::cogvideox::estimate_lora_training_memory(config, 4, shape, 64, {4});
    EXPECT_EQ(result["estimate_bytes"].get<std::int64_t>(),
              static_cast<std::int64_t>(before.total()));
    EXPECT_FALSE(result.contains("mfu")) << "no peak throughput is known for a CPU";
}

// The memory estimate (engine/models/cogvideox/memory_estimate.cpp, whose constants were fitted
// on these runs and on an H100) against the live tensor bytes the step reached on this CPU.
void expect_estimate_within(const nlohmann::json& result, double tolerance) {
    const auto measured = static_cast<double>(result["peak_tensor_bytes"].get<std::int64_t>());
    const auto estimated = static_cast<double>(result["estimate_bytes"].get<std::int64_t>());
    ASSERT_GT(measured, 0.0);
    EXPECT_NEAR(estimated / measured, 1.0, tolerance)
        << result["shape"] << (result["checkpointing"].get<bool>() ? " with" : " without")
        << " checkpointing: estimated " << estimated << " bytes, measured " << measured;
}

void expect_estimate_within(const BenchSpec& spec, double tolerance) {
    expect_estimate_within(run_bench(spec), tolerance);
}

TEST(TrainingBench, MemoryEstimateIsWithin15PercentOfTheMeasuredPeak) {
    BenchSpec tiny = tiny_spec();
    // The released models' 226 prompt tokens, at which the estimate's constants were fitted,
    // not the tiny model's own 64.
    tiny.text_tokens = 226;
    expect_estimate_within(tiny, 0.15);
    tiny.checkpointing = false;
    expect_estimate_within(tiny, 0.15);
    BenchSpec larger = tiny;
    larger.checkpointing = true;
    larger.frames = 25;
    larger.height = 96;
    larger.width = 128;
    larger.rank = 8;
    expect_estimate_within(larger, 0.15);
    expect_estimate_within(bench_cpu_result(), 0.15);
}

// Recomputing only some blocks: the peak lands between recomputing all and none, the estimate
// follows it, and the result says how many blocks were recomputed.
TEST(TrainingBench, CheckpointingSomeBlocksLandsBetweenAllAndNone) {
    BenchSpec spec = tiny_spec();
    spec.layers = 4; // random weights: any depth builds
    const nlohmann::json all = run_bench(spec);
    spec.checkpointing = false;
    const nlohmann::json none = run_bench(spec);
    spec.checkpointing = true;
    spec.checkpointed_blocks = 1;
    const nlohmann::json some = run_bench(spec);
    EXPECT_EQ(all["layers"], 4);
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
    spec.layers = 4;
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
    const nlohmann::json& full = bench_cpu_result();
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

TEST(TrainingBench, RefusesUnknownShapesAndArchitecturesListingEveryFamilys) {
    try {
        bench_shape("3b-49x480x720");
        FAIL() << "expected a usage error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::Usage);
        EXPECT_NE(error.hint().find("bench-cpu"), std::string::npos) << error.hint();
        EXPECT_NE(error.hint().find("wan2.2-5b-121x704x1280"), std::string::npos) << error.hint();
    }
    try {
        bench_architecture("wan3-t2v");
        FAIL() << "expected a usage error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::Usage);
        EXPECT_NE(error.hint().find("cogvideox-5b"), std::string::npos) << error.hint();
        EXPECT_NE(error.hint().find("wan2.1-t2v-14b"), std::string::npos) << error.hint();
    }
}

TEST(TrainingBench, RefusesAClipSizeTheFamilyCannotTrainOn) {
    BenchSpec spec = tiny_wan_spec("wan2.1-tiny");
    spec.frames = 10;
    try {
        run_bench(spec);
        FAIL() << "expected a usage error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::Usage);
        EXPECT_NE(std::string(error.what()).find("--frames"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("4k+1"), std::string::npos) << error.what();
    }
}

// The Wan shapes train what ref_lora_step.py --model wan2.1-1.3b|wan2.1-14b|wan2.2-5b trains:
// its latents, 512 text tokens of 4096, one timestep per sample, rank 64 on the attention
// projections, bf16 and checkpointing.
TEST(TrainingBench, WanShapesBuildTheReferenceStep) {
    struct Expected {
        const char* shape;
        const char* architecture;
        std::vector<std::int64_t> latents;
        std::int64_t parameters_at_least;
    };
    for (const Expected& expected :
         {Expected{
              "wan2.1-1.3b-81x480x832", "wan2.1-t2v-1.3b", {1, 16, 21, 60, 104}, 1'300'000'000},
          Expected{"wan2.1-14b-81x480x832", "wan2.1-t2v-14b", {1, 16, 21, 60, 104}, 14'000'000'000},
          Expected{
              "wan2.2-5b-121x704x1280", "wan2.2-ti2v-5b", {1, 48, 31, 44, 80}, 4'900'000'000}}) {
        SCOPED_TRACE(expected.shape);
        const BenchSpec spec = bench_shape(expected.shape);
        EXPECT_EQ(spec.architecture, expected.architecture);
        EXPECT_EQ(spec.precision, "bf16");
        EXPECT_EQ(spec.rank, 64);
        EXPECT_TRUE(spec.checkpointing);
        EXPECT_EQ(spec.optimizer, "adamw");
        const auto model = models::find_bench_model(spec.architecture);
        EXPECT_EQ(model->family(), "wan");
        EXPECT_GT(model->parameters(), expected.parameters_at_least);
        EXPECT_EQ(model->lora_targets(),
                  (std::vector<std::string>{"to_q", "to_k", "to_v", "to_out.0"}));
        const models::BenchTraining training =
            model->training({{spec.frames, spec.height, spec.width, 1}, spec.text_tokens, ""},
                            {torch::kBFloat16, torch::kCPU});
        EXPECT_EQ(training.batch.latents.sizes().vec(), expected.latents);
        EXPECT_EQ(training.batch.latents.scalar_type(), torch::kBFloat16);
        EXPECT_EQ(training.batch.prompt_embeds.sizes().vec(),
                  (std::vector<std::int64_t>{1, 512, 4096}));
        at::Tensor noisy;
        const models::TransformerInputs inputs = training.objective->inputs(training.batch, noisy);
        EXPECT_EQ(inputs.timestep.dim(), 1) << "text-to-video: one timestep per sample";
        EXPECT_EQ(inputs.hidden_states.sizes().vec(), expected.latents);
    }
}

// Each Wan variant's batch carries its conditioning: Wan 2.1 I2V the mask and condition latents
// on channels and CLIP tokens, Wan 2.2 TI2V the image in the first latent frame and a timestep
// per token.
TEST(TrainingBench, WanImageToVideoBatchesCarryTheirConditioning) {
    const models::WeightsPlacement cpu{torch::kFloat32, torch::kCPU};
    const models::BenchBatchRequest request{{9, 64, 64, 1}, 0, "i2v"};
    {
        const auto i2v = models::find_bench_model("wan2.1-tiny-i2v");
        EXPECT_EQ(i2v->tasks(), std::vector<std::string>{"i2v"});
        const models::BenchTraining training = i2v->training(request, cpu);
        at::Tensor noisy;
        const models::TransformerInputs inputs = training.objective->inputs(training.batch, noisy);
        EXPECT_EQ(inputs.hidden_states.sizes().vec(), (std::vector<std::int64_t>{1, 36, 3, 8, 8}));
        ASSERT_TRUE(inputs.encoder_hidden_states_image.defined());
        EXPECT_EQ(inputs.encoder_hidden_states_image.size(1), 257);
        EXPECT_EQ(inputs.encoder_hidden_states.size(1), 512);
    }
    {
        const auto ti2v = models::find_bench_model("wan2.2-tiny-ti2v");
        EXPECT_EQ(ti2v->tasks(), (std::vector<std::string>{"t2v", "i2v"}));
        // 9 x 64 x 64 pixels through the 16x VAE: 3 x 4 x 4 latents, 3 x 2 x 2 tokens
        const models::BenchTraining training = ti2v->training(request, cpu);
        at::Tensor noisy;
        const models::TransformerInputs inputs = training.objective->inputs(training.batch, noisy);
        EXPECT_EQ(inputs.timestep.sizes().vec(), (std::vector<std::int64_t>{1, 12}));
        EXPECT_EQ(inputs.timestep[0][0].item<double>(), 0.0) << "the given first frame";
        EXPECT_EQ(inputs.timestep[0][11].item<double>(), 500.0) << "a mid timestep";
    }
    const auto t2v = models::find_bench_model("wan2.1-tiny");
    EXPECT_THROW(t2v->training(request, cpu), core::Error);
}

// A 2-core CPU steps through wan-bench-cpu in seconds: finite times, its tokens, no MFU (no
// peak throughput is known for a CPU) and the estimate beside the measured peak.
TEST(TrainingBench, WanBenchCpuStepsOnTheCpu) {
    BenchSpec spec = bench_shape("wan-bench-cpu");
    spec.steps = 3;
    const nlohmann::json result = run_bench(spec);
    EXPECT_EQ(result["family"], "wan");
    EXPECT_EQ(result["architecture"], "wan-bench-cpu");
    EXPECT_EQ(result["task"], "t2v");
    EXPECT_EQ(result["latents"], nlohmann::json({1, 16, 5, 16, 24}));
    EXPECT_EQ(result["tokens"], 5 * 8 * 12 + 512);
    ASSERT_EQ(result["steps_s"].size(), 2U);
    for (const auto& seconds : result["steps_s"]) {
        EXPECT_TRUE(std::isfinite(seconds.get<double>()));
        EXPECT_GT(seconds.get<double>(), 0.0);
    }
    EXPECT_TRUE(std::isfinite(result["tokens_per_s"].get<double>()));
    EXPECT_FALSE(result.contains("mfu"));
    // rank 64 on q, k, v and out of both attentions of 4 blocks, 256 wide
    EXPECT_EQ(result["trainable_parameters"], 4 * 8 * 2 * 64 * 256);
    const auto measured = static_cast<double>(result["peak_tensor_bytes"].get<std::int64_t>());
    const auto estimated = static_cast<double>(result["estimate_bytes"].get<std::int64_t>());
    ASSERT_GT(measured, 0.0);
    EXPECT_GT(estimated, 0.0);
    EXPECT_NEAR(estimated / measured, 1.0, 0.25)
        << "estimated " << estimated << ", measured " << measured;
}

// --validation samples with the benched transformer through the folder's own family; a
// two-expert pipeline samples both stages with it.
TEST(TrainingBench, ValidatesWithTheTinyWanPipelines) {
    for (const char* architecture : {"wan2.1-tiny", "wan2.2-tiny-a14b"}) {
        SCOPED_TRACE(architecture);
        BenchSpec spec = tiny_wan_spec(architecture);
        spec.validation_pipeline = test::tiny_wan_pipeline(architecture).string();
        const nlohmann::json result = run_bench(spec);
        ASSERT_TRUE(result.contains("validation")) << result.dump();
        const nlohmann::json& stages = result["validation"]["stage_peak_bytes"];
        EXPECT_TRUE(stages.contains("text") && stages.contains("denoise") &&
                    stages.contains("decode"))
            << stages.dump();
        EXPECT_GE(result["peak_with_validation_bytes"].get<std::int64_t>(),
                  result["peak_tensor_bytes"].get<std::int64_t>());
    }
}

TEST(TrainingBench, ValidationRefusesAnotherFamilysOrShapesPipeline) {
    struct Mismatch {
        const char* architecture;
        std::filesystem::path pipeline;
        const char* named; // what the message must say of the difference
    };
    for (const Mismatch& mismatch :
         {Mismatch{"wan2.1-tiny", test::tiny_pipeline(), "cogvideox"},
          Mismatch{"cogvideox-tiny", test::tiny_wan_pipeline("wan2.1-tiny"), "wan"},
          Mismatch{"wan2.1-tiny", test::tiny_wan_pipeline("wan2.2-tiny-ti2v"), "48 in"}}) {
        SCOPED_TRACE(mismatch.architecture);
        BenchSpec spec = tiny_wan_spec(mismatch.architecture);
        spec.validation_pipeline = mismatch.pipeline.string();
        try {
            run_bench(spec);
            FAIL() << "expected a bad-input error";
        } catch (const core::Error& error) {
            EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
            const std::string message = error.what();
            EXPECT_NE(message.find(spec.validation_pipeline), std::string::npos) << message;
            EXPECT_NE(message.find(mismatch.named), std::string::npos) << message;
            EXPECT_NE(error.hint().find("--arch " + spec.architecture), std::string::npos)
                << error.hint();
        }
    }
    BenchSpec i2v = tiny_wan_spec("wan2.1-tiny-i2v");
    i2v.validation_pipeline = test::tiny_wan_pipeline("wan2.1-tiny-i2v").string();
    try {
        run_bench(i2v);
        FAIL() << "expected a usage error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::Usage);
        EXPECT_NE(std::string(error.what()).find("text-to-video"), std::string::npos)
            << error.what();
    }
}

// --blocks-to-swap: the last blocks' weights on the host, brought in one block ahead; the
// estimate counts the device's share (two swapped blocks in flight). On the CPU the "device" is
// the host, so the measured peak does not drop here (bench/ measures it on a GPU, under
// --memory-fraction, which a CPU refuses).
TEST(TrainingBench, SwappedBlocksRunAndTheEstimateCountsTwoInFlight) {
    BenchSpec spec = tiny_wan_spec("wan2.1-tiny");
    spec.layers = 6;
    const nlohmann::json whole = run_bench(spec);
    spec.blocks_to_swap = 4;
    const nlohmann::json swapped = run_bench(spec);
    EXPECT_EQ(whole["blocks_to_swap"], 0);
    EXPECT_EQ(swapped["blocks_to_swap"], 4);
    EXPECT_EQ(swapped["memory_limit_bytes"], 0);
    EXPECT_LT(swapped["estimate_bytes"].get<std::int64_t>(),
              whole["estimate_bytes"].get<std::int64_t>());
    EXPECT_GT(swapped["median_step_s"].get<double>(), 0.0);

    spec.blocks_to_swap = 7;
    EXPECT_THROW(run_bench(spec), core::Error);
    spec.blocks_to_swap = 2;
    spec.memory_fraction = 0.5;
    try {
        run_bench(spec);
        FAIL() << "expected a usage error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::Usage);
        EXPECT_NE(std::string(error.what()).find("CUDA"), std::string::npos) << error.what();
    }
}

} // namespace
} // namespace tuneframe::train
