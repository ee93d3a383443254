// The pre-flight memory estimate of a job, on CogVideoX-2b's configuration without weights:
// plans and options move the parts they should, and a phase's stages do not add up.
#include "engine/core/error.h"
#include "engine/models/cogvideox/cogvideox_model_folder.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d_config.h"
#include "engine/models/cogvideox/quantized_base.h"
#include "engine/train/job_memory_estimate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace tuneframe::train {
namespace {

std::vector<core::ComponentInventory> pipeline_2b() {
    core::ComponentInventory transformer;
    transformer.name = "transformer";
    transformer.weights = "transformer/diffusion_pytorch_model.safetensors";
    transformer.config = models::cogvideox::CogVideoXTransformer3DConfig{}.to_json();
    transformer.parameters = 1'690'000'000;
    core::ComponentInventory vae;
    vae.name = "vae";
    vae.weights = "vae/diffusion_pytorch_model.safetensors";
    vae.config = {{"block_out_channels", {128, 256, 256, 512}},
                  {"sample_height", 480},
                  {"sample_width", 720}};
    vae.parameters = 215'000'000;
    core::ComponentInventory text;
    text.name = "text_encoder";
    text.weights = "text_encoder/model.safetensors.index.json";
    text.config = {{"d_model", 4096}};
    text.parameters = 4'760'000'000;
    return {transformer, vae, text};
}

// CogVideoX-2b as its configs describe it (the class defaults), with no files behind it.
std::unique_ptr<models::ModelFolder> model_2b() {
    diffusion::PipelineFolder folder;
    folder.root = "/models/CogVideoX-2b";
    folder.text_encoder_width = 4096;
    return std::make_unique<models::cogvideox::CogVideoXModelFolder>(folder);
}

common::TrainingJob lora_job() {
    common::TrainingJob job;
    job.model = "/models/CogVideoX-2b";
    job.lora.rank = 128;
    job.validation.prompts = {"a cat"};
    return job;
}

std::uint64_t part(const JobMemoryEstimate& estimate, const std::string& phase,
                   const std::string& name) {
    for (const PhaseMemory& p : estimate.phases) {
        for (const MemoryPart& m : p.parts) {
            if (p.phase == phase && m.name == name) {
                return m.bytes;
            }
        }
    }
    return 0;
}

const PhaseMemory& phase(const JobMemoryEstimate& estimate, const std::string& name) {
    for (const PhaseMemory& p : estimate.phases) {
        if (p.phase == name) {
            return p;
        }
    }
    throw std::runtime_error("no phase " + name);
}

TEST(JobMemoryEstimate, PrepareHoldsOneModelAtATime) {
    const JobMemoryEstimate estimate =
        estimate_job_memory(lora_job(), *model_2b(), pipeline_2b(), 1);
    const PhaseMemory& prepare = phase(estimate, "prepare");
    const std::uint64_t text = part(estimate, "prepare", "text encoder weights") +
                               part(estimate, "prepare", "text encoder activations");
    const std::uint64_t vae = part(estimate, "prepare", "VAE weights") +
                              part(estimate, "prepare", "VAE encode activations");
    EXPECT_EQ(prepare.total(), part(estimate, "prepare", "CUDA context") + std::max(text, vae));
    EXPECT_EQ(part(estimate, "prepare", "text encoder weights"), 4'760'000'000ull * 2);

    common::TrainingJob tiled = lora_job();
    tiled.dataset.vae_tiling = true;
    EXPECT_LT(part(estimate_job_memory(tiled, *model_2b(), pipeline_2b(), 1), "prepare",
                   "VAE encode activations"),
              part(estimate, "prepare", "VAE encode activations") / 2);
}

TEST(JobMemoryEstimate, PlansShardStateAndTokens) {
    const JobMemoryEstimate alone = estimate_job_memory(lora_job(), *model_2b(), pipeline_2b(), 1);
    EXPECT_EQ(part(alone, "train", "transformer weights"), 1'690'000'000ull * 2);
    // 30 blocks x 4 projections x (A and B of 128 x 1920), AdamW: two float32 moments.
    EXPECT_EQ(part(alone, "train", "optimizer state"), 30ull * 4 * 128 * 2 * 1920 * 8);

    common::TrainingJob zero2 = lora_job();
    zero2.parallel.plan = "zero2";
    const JobMemoryEstimate sharded = estimate_job_memory(zero2, *model_2b(), pipeline_2b(), 4);
    EXPECT_EQ(sharded.data_parallel, 4);
    EXPECT_EQ(part(sharded, "train", "optimizer state") * 4,
              part(alone, "train", "optimizer state"));

    // The gradients follow the plan: ddp keeps them whole plus their buckets, zero1 shards only
    // the optimizer state, zero2 keeps its float32 shard and one bucket.
    common::TrainingJob ddp = lora_job();
    const std::uint64_t adapter = 30ull * 4 * 128 * 2 * 1920 * 4;
    EXPECT_EQ(part(alone, "train", "gradients"), adapter);
    EXPECT_EQ(part(estimate_job_memory(ddp, *model_2b(), pipeline_2b(), 4), "train", "gradients"),
              2 * adapter);
    common::TrainingJob zero1 = lora_job();
    zero1.parallel.plan = "zero1";
    const JobMemoryEstimate state_only = estimate_job_memory(zero1, *model_2b(), pipeline_2b(), 4);
    EXPECT_EQ(part(state_only, "train", "gradients"), 2 * adapter);
    EXPECT_EQ(part(state_only, "train", "optimizer state"),
              part(sharded, "train", "optimizer state"));
    EXPECT_EQ(part(sharded, "train", "gradients"), adapter / 4 + (25ull << 20));

    common::TrainingJob hybrid = lora_job();
    hybrid.parallel.plan = "hybrid";
    hybrid.parallel.sp_size = 2;
    const JobMemoryEstimate split = estimate_job_memory(hybrid, *model_2b(), pipeline_2b(), 2);
    EXPECT_EQ(split.sequence_parallel, 2);
    EXPECT_EQ(split.data_parallel, 1);
    EXPECT_NEAR(static_cast<double>(part(split, "train", "activations")) /
                    static_cast<double>(part(alone, "train", "activations")),
                0.5, 0.01);
    // Validation runs on rank 0 with the whole sequence.
    EXPECT_EQ(part(split, "validation", "denoising activations (CFG)"),
              part(alone, "validation", "denoising activations (CFG)"));
}

// 2b's 30 blocks over 4 stages: 7, 7, 8, 8, so the largest stage holds 8/30 of the blocks'
// weights, adapter and state; activations stay whole (1F1B keeps 4 micro-batches of the first
// stage's share in flight); rank 0 samples with a whole transformer of its own.
TEST(JobMemoryEstimate, PipelineStagesHoldTheirShareOfTheBlocks) {
    const JobMemoryEstimate alone = estimate_job_memory(lora_job(), *model_2b(), pipeline_2b(), 1);
    common::TrainingJob staged = lora_job();
    staged.parallel.plan = "hybrid";
    staged.parallel.pp_size = 4;
    const JobMemoryEstimate split = estimate_job_memory(staged, *model_2b(), pipeline_2b(), 8);
    EXPECT_EQ(split.pipeline_parallel, 4);
    EXPECT_EQ(split.data_parallel, 2);
    for (const char* name : {"transformer weights", "adapter weights", "optimizer state"}) {
        SCOPED_TRACE(name);
        EXPECT_NEAR(static_cast<double>(part(split, "train", name)) /
                        static_cast<double>(part(alone, "train", name)),
                    8.0 / 30.0, 1e-6);
    }
    EXPECT_EQ(part(split, "train", "activations"), part(alone, "train", "activations"));
    EXPECT_EQ(part(split, "validation", "whole transformer for sampling"),
              part(alone, "train", "transformer weights"));
    EXPECT_EQ(part(alone, "validation", "whole transformer for sampling"), 0u);
}

TEST(JobMemoryEstimate, FullFineTuneAndOffloading) {
    common::TrainingJob full = lora_job();
    full.mode = "full";
    const JobMemoryEstimate estimate = estimate_job_memory(full, *model_2b(), pipeline_2b(), 1);
    // bf16 weights and gradients, float32 master weights and two moments: 16 bytes a parameter.
    EXPECT_EQ(part(estimate, "train", "gradients"), 1'690'000'000ull * 2);
    EXPECT_EQ(part(estimate, "train", "optimizer state"), 1'690'000'000ull * 12);
    EXPECT_GT(
        phase(estimate, "train").total(),
        phase(estimate_job_memory(lora_job(), *model_2b(), pipeline_2b(), 1), "train").total());
    full.optimizer.name = "adamw-cpu-offload";
    EXPECT_EQ(
        part(estimate_job_memory(full, *model_2b(), pipeline_2b(), 1), "train", "optimizer state"),
        0u);
}

TEST(JobMemoryEstimate, AQuantizedBaseHoldsOneBytePerBlockWeight) {
    const JobMemoryEstimate bf16 = estimate_job_memory(lora_job(), *model_2b(), pipeline_2b(), 1);
    for (const char* base : {"int8", "fp8"}) {
        common::TrainingJob job = lora_job();
        job.lora.base_quantization = base;
        const JobMemoryEstimate quantized = estimate_job_memory(job, *model_2b(), pipeline_2b(), 1);
        const auto count = models::cogvideox::quantized_base_count(
            models::cogvideox::CogVideoXTransformer3DConfig{});
        // Each block weight drops from two bytes to one and gains a float32 scale per row.
        EXPECT_EQ(part(bf16, "train", "transformer weights") -
                      part(quantized, "train", "transformer weights"),
                  static_cast<std::uint64_t>(count.weights - 4 * count.channels))
            << base;
        EXPECT_EQ(part(quantized, "validation", "transformer weights"),
                  part(quantized, "train", "transformer weights"))
            << base;
        EXPECT_EQ(part(quantized, "train", "activations"), part(bf16, "train", "activations"));
        EXPECT_LT(phase(quantized, "train").total(), phase(bf16, "train").total());
    }
}

TEST(JobMemoryEstimate, OnAGpuValidationHoldsTheTransformerOnlyWhileItDenoises) {
    common::TrainingJob job = lora_job();
    job.device = "cuda";
    const PhaseMemory validation =
        phase(estimate_job_memory(job, *model_2b(), pipeline_2b(), 1), "validation");
    std::uint64_t resident = 0;
    std::map<std::string, std::uint64_t> stages;
    for (const MemoryPart& p : validation.parts) {
        (p.stage.empty() ? resident : stages[p.stage]) += p.bytes;
        if (p.name == "transformer weights") {
            EXPECT_EQ(p.stage, "denoise");
        }
    }
    EXPECT_EQ(validation.total(),
              resident + std::max({stages["text"], stages["denoise"], stages["vae"]}));
    job.device = "cpu";
    const PhaseMemory on_cpu =
        phase(estimate_job_memory(job, *model_2b(), pipeline_2b(), 1), "validation");
    for (const MemoryPart& p : on_cpu.parts) {
        if (p.name == "transformer weights") {
            EXPECT_EQ(p.stage, ""); // nothing moves off the CPU: resident throughout
        }
    }
}

TEST(JobMemoryEstimate, ValidationAndTheCpu) {
    common::TrainingJob job = lora_job();
    job.validation.prompts.clear();
    job.device = "cpu";
    const JobMemoryEstimate estimate = estimate_job_memory(job, *model_2b(), pipeline_2b(), 1);
    EXPECT_TRUE(phase(estimate, "validation").skipped);
    EXPECT_EQ(estimate.peak(),
              std::max(phase(estimate, "prepare").total(), phase(estimate, "train").total()));
    EXPECT_EQ(part(estimate, "train", "CUDA context"), 0u);
    const nlohmann::json json = estimate.to_json();
    EXPECT_EQ(json["phases"].size(), 3u);
    EXPECT_EQ(json["largest_bucket"], nlohmann::json({49, 480, 720}));
}

TEST(JobMemoryEstimate, MissingComponentNamesTheFolder) {
    std::vector<core::ComponentInventory> components = pipeline_2b();
    components.erase(components.begin() + 1);
    try {
        estimate_job_memory(lora_job(), *model_2b(), components, 1);
        FAIL() << "a pipeline without a VAE was estimated";
    } catch (const core::Error& error) {
        EXPECT_NE(std::string(error.what()).find("/models/CogVideoX-2b"), std::string::npos);
        EXPECT_NE(std::string(error.what()).find("vae"), std::string::npos);
    }
}

} // namespace
} // namespace tuneframe::train
