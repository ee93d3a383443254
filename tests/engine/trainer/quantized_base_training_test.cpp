// LoRA training over a quantized frozen base (lora.base_quantization) on the tiny pipeline: it
// learns, its adapter exports and applies to the unquantized base, an fp8 job runs or fails by
// name depending on the LibTorch, and the pre-flight estimate counts the smaller weights.
#include "engine/core/error.h"
#include "engine/core/kernels/float8.h"
#include "engine/core/tensor_io.h"
#include "engine/diffusion/pipeline_folder.h"
#include "engine/lora/lora_injection.h"
#include "engine/lora/lora_weights.h"
#include "engine/models/cogvideox/quantized_base.h"
#include "engine/models/cogvideox/transformer_checkpoint.h"
#include "engine/train/run_export.h"
#include "tests/engine/trainer/trainer_test_support.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::train {
namespace {

namespace fs = std::filesystem;
namespace cogvideox = models::cogvideox;

using test_support::fixed_batch_loss;
using test_support::MemoryDataset;

common::TrainingJob quantized_job(std::int64_t steps, double lr, const std::string& base) {
    nlohmann::json json = test_support::small_job(steps, lr).to_json();
    json["lora"]["base_quantization"] = base;
    json["gradient_checkpointing"] = true; // recomputation converts the int8 weights again
    return common::TrainingJob::from_json(json, "quantized job");
}

// The tiny transformer with a rank-4 adapter, its base quantized or not.
cogvideox::CogVideoXTransformer3DModel tiny_with_adapter(lora::BaseQuantization quantization) {
    const auto pipeline = diffusion::PipelineFolder::open(test::tiny_pipeline());
    auto transformer = cogvideox::load_cogvideox_transformer(pipeline.transformer);
    cogvideox::quantize_transformer_base(*transformer, quantization);
    lora::LoRAConfig config;
    config.rank = 4;
    config.alpha = 4;
    lora::inject_lora(*transformer, config);
    return transformer;
}

void load_adapter(cogvideox::CogVideoXTransformer3DModel& transformer, const fs::path& checkpoint) {
    const auto trained = core::read_tensors(checkpoint / "trainable.safetensors");
    torch::NoGradGuard no_grad;
    std::size_t copied = 0;
    for (auto& item : transformer->named_parameters()) {
        if (auto it = trained.find(item.key()); it != trained.end()) {
            item.value().copy_(it->second);
            ++copied;
        }
    }
    ASSERT_EQ(copied, trained.size());
}

TEST(QuantizedBaseTraining, Int8BaseLowersTheLossAndTheAdapterCarriesOverToTheFullBase) {
    test::TemporaryDirectory dir;
    const TrainResult result =
        test_support::run_trainer(quantized_job(60, 1e-2, "int8"), dir / "run");
    EXPECT_EQ(result.status, "finished");

    auto quantized = tiny_with_adapter(lora::BaseQuantization::Int8);
    const double before = fixed_batch_loss(quantized);
    load_adapter(quantized, result.last_checkpoint);
    const double after = fixed_batch_loss(quantized);
    EXPECT_LT(after, before * 0.9) << "before " << before << ", after " << after;

    // The adapter was trained against int8 weights; on the unquantized base it does as well.
    auto full = tiny_with_adapter(lora::BaseQuantization::None);
    const double full_before = fixed_batch_loss(full);
    load_adapter(full, result.last_checkpoint);
    const double full_after = fixed_batch_loss(full);
    EXPECT_LT(full_after, full_before * 0.9)
        << "before " << full_before << ", after " << full_after;
}

// export_run loads the unquantized base afresh, applies the checkpoint's adapter, writes it and
// verifies that the written file reproduces that model: the export of an int8 run is an
// adapter for the unquantized base, and merged exports merge into it.
TEST(QuantizedBaseTraining, ExportsOfAnInt8RunApplyToTheUnquantizedBase) {
    test::TemporaryDirectory dir;
    const TrainResult result =
        test_support::run_trainer(quantized_job(2, 1e-3, "int8"), dir / "run");
    ExportRequest request;
    request.run = dir / "run";
    request.format = "diffusers";
    request.out = dir / "diffusers";
    const ExportResult diffusers = export_run(request);
    EXPECT_LE(diffusers.max_abs_diff, diffusers.tolerance);

    // By hand: the exported file on the unquantized base gives the checkpoint's adapter.
    const auto pipeline = diffusion::PipelineFolder::open(test::tiny_pipeline());
    auto reloaded = cogvideox::load_cogvideox_transformer(pipeline.transformer);
    lora::load_lora_weights(*reloaded, diffusers.path);
    auto expected = tiny_with_adapter(lora::BaseQuantization::None);
    load_adapter(expected, result.last_checkpoint);
    EXPECT_NEAR(fixed_batch_loss(reloaded), fixed_batch_loss(expected), 1e-5);

    request.format = "merged";
    request.out = dir / "merged";
    const ExportResult merged = export_run(request);
    EXPECT_LE(merged.max_abs_diff, merged.tolerance);
    auto merged_model = cogvideox::load_cogvideox_transformer(merged.path);
    for (const auto& item : merged_model->named_parameters()) {
        EXPECT_NE(item.value().scalar_type(), torch::kInt8) << item.key();
    }
}

TEST(QuantizedBaseTraining, Fp8TrainsWhereLibTorchHasItAndIsRefusedByNameElsewhere) {
    test::TemporaryDirectory dir;
    if (core::kHasFloat8) {
        const TrainResult result =
            test_support::run_trainer(quantized_job(2, 1e-3, "fp8"), dir / "run");
        EXPECT_EQ(result.steps, 2);
        EXPECT_TRUE(std::isfinite(result.last_loss));
        return;
    }
    try {
        test_support::run_trainer(quantized_job(2, 1e-3, "fp8"), dir / "run");
        FAIL() << "expected the fp8 job to be refused";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::Unsupported);
        const std::string message = error.what();
        EXPECT_NE(message.find("LibTorch 2.1"), std::string::npos) << message;
        EXPECT_NE(message.find("lora.base_quantization"), std::string::npos) << message;
    }
}

} // namespace
} // namespace tuneframe::train
