// The pre-flight memory estimate of a job, on CogVideoX-2b's configuration without weights:
// plans and options move the parts they should, and a phase's stages do not add up. Wan's on
// the tiny pipelines' inventories and on Wan 2.2 A14B's configuration: CLIP, two experts, the
// 512-token text.
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/models/cogvideox/cogvideox_model_folder.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d_config.h"
#include "engine/models/cogvideox/quantized_base.h"
#include "engine/models/model_family.h"
#include "engine/models/wan/wan_model_folder.h"
#include "engine/train/job_memory_estimate.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
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
                   const std::string& name, bool host = false) {
    for (const PhaseMemory& p : host ? estimate.host_phases : estimate.phases) {
        for (const MemoryPart& m : p.parts) {
            if (p.phase == phase && m.name == name) {
                return m.bytes;
            }
        }
    }
    return 0;
}

const PhaseMemory& phase(const JobMemoryEstimate& estimate, const std::string& name,
                         bool host = false) {
    for (const PhaseMemory& p : host ? estimate.host_phases : estimate.phases) {
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

// A MemoryPart's stage, or "absent".
std::string stage_of(const JobMemoryEstimate& estimate, const std::string& phase_name,
                     const std::string& name, bool host = false) {
    for (const MemoryPart& m : phase(estimate, phase_name, host).parts) {
        if (m.name == name) {
            return m.stage;
        }
    }
    return "absent";
}

std::int64_t parameters_of(const std::vector<core::ComponentInventory>& components,
                           const std::string& name) {
    for (const core::ComponentInventory& component : components) {
        if (component.name == name) {
            return component.parameters;
        }
    }
    throw std::runtime_error("no component " + name);
}

// A LoRA job on a tiny Wan pipeline, with its own inventory and folder.
struct WanCase {
    std::vector<core::ComponentInventory> components;
    std::unique_ptr<models::ModelFolder> model;
    common::TrainingJob job;
};

WanCase tiny_wan(const std::string& arch, const std::string& task = "t2v") {
    WanCase c;
    const std::filesystem::path folder = test::tiny_wan_pipeline(arch);
    c.components = core::inventory(folder);
    c.model = models::open_model_folder(folder);
    c.job.model = folder.string();
    c.job.task = task;
    c.job.device = "cpu";
    c.job.lora.rank = 4;
    c.job.dataset.resolution_buckets = {{32, 48}};
    c.job.dataset.frame_buckets = {9};
    c.job.validation.prompts = {"a cat"};
    return c;
}

JobMemoryEstimate estimate(const WanCase& c) {
    return estimate_job_memory(c.job, *c.model, c.components, 1);
}

// Block swap on CogVideoX-2b's 30 blocks: a block is a thirtieth of the held weights; the device
// keeps the resident blocks and two swapped ones in flight, the host the swapped ones, and the
// swapped blocks recompute in backward as checkpointed ones do.
TEST(JobMemoryEstimate, SwappedBlocksLeaveTwoInFlightOnTheDeviceAndTheRestOnTheHost) {
    common::TrainingJob job = lora_job();
    job.device = "cuda";
    job.gradient_checkpointing = false;
    const JobMemoryEstimate whole = estimate_job_memory(job, *model_2b(), pipeline_2b(), 1);
    const std::uint64_t held = part(whole, "train", "transformer weights");
    const std::uint64_t block = held / 30;
    EXPECT_EQ(whole.swapped_blocks, 0);
    EXPECT_EQ(phase(whole, "train", true).total(), 0u);

    job.memory.blocks_to_swap = 10;
    const JobMemoryEstimate swapped = estimate_job_memory(job, *model_2b(), pipeline_2b(), 1);
    EXPECT_EQ(swapped.swapped_blocks, 10);
    EXPECT_EQ(part(swapped, "train", "transformer weights"), held - 10 * block);
    EXPECT_EQ(part(swapped, "train", "swapped blocks in flight"), 2 * block);
    EXPECT_EQ(part(swapped, "train", "swapped blocks", true), 10 * block);
    EXPECT_EQ(phase(swapped, "train").total() + 8 * block,
              phase(whole, "train").total() - part(whole, "train", "activations") +
                  part(swapped, "train", "activations"));
    // The swapped blocks recompute: the activations of 10 checkpointed blocks.
    common::TrainingJob checkpointed = lora_job();
    checkpointed.device = "cuda";
    checkpointed.checkpointed_blocks = 10;
    EXPECT_EQ(part(swapped, "train", "activations"),
              part(estimate_job_memory(checkpointed, *model_2b(), pipeline_2b(), 1), "train",
                   "activations"));
    // Validation's denoising takes the resident blocks and two in flight to the device.
    EXPECT_EQ(stage_of(swapped, "validation", "swapped blocks in flight"), "denoise");
    EXPECT_EQ(part(swapped, "validation", "swapped blocks", true), 10 * block);
    EXPECT_EQ(swapped.to_json()["swapped_blocks"], 10);
    EXPECT_EQ(swapped.to_json()["host_peak"], swapped.host_peak());
    EXPECT_EQ(swapped.to_json()["host_phases"][1]["parts"][0]["name"], "swapped blocks");

    // An int8 base swaps int8 blocks.
    job.lora.base_quantization = "int8";
    const JobMemoryEstimate quantized = estimate_job_memory(job, *model_2b(), pipeline_2b(), 1);
    const std::uint64_t quantized_block = (part(quantized, "train", "transformer weights") +
                                           part(quantized, "train", "swapped blocks", true)) /
                                          30;
    EXPECT_EQ(part(quantized, "train", "swapped blocks", true), 10 * quantized_block);
    EXPECT_LT(quantized_block * 3, block * 2);

    // Two pipeline stages of 15 blocks swap within their own.
    job.parallel.plan = "hybrid";
    job.parallel.pp_size = 2;
    job.memory.blocks_to_swap = 20;
    EXPECT_EQ(estimate_job_memory(job, *model_2b(), pipeline_2b(), 2).swapped_blocks, 15);
}

// A swapped full fine-tune: the swapped blocks' gradients land in host memory (through pinned
// staging on a GPU), and adamw-cpu-offload keeps every weight's moments and float32 master there.
TEST(JobMemoryEstimate, ASwappedFullFineTuneKeepsItsSwappedGradientsOnTheHost) {
    common::TrainingJob full = lora_job();
    full.mode = "full";
    full.device = "cuda";
    full.optimizer.name = "adamw-cpu-offload";
    const std::uint64_t parameters = 1'690'000'000ull;
    const JobMemoryEstimate whole = estimate_job_memory(full, *model_2b(), pipeline_2b(), 1);
    EXPECT_EQ(part(whole, "train", "gradients"), parameters * 2);
    EXPECT_EQ(part(whole, "train", "optimizer state", true), parameters * (8 + 4 + 2));
    full.memory.blocks_to_swap = 15;
    const JobMemoryEstimate swapped = estimate_job_memory(full, *model_2b(), pipeline_2b(), 1);
    EXPECT_EQ(part(swapped, "train", "gradients"), (parameters - parameters / 2) * 2);
    EXPECT_EQ(part(swapped, "train", "swapped blocks' gradients", true), parameters / 2 * 2);
    EXPECT_EQ(part(swapped, "train", "gradient staging", true), parameters / 2 * 2);
    full.device = "cpu";
    EXPECT_EQ(part(estimate_job_memory(full, *model_2b(), pipeline_2b(), 1), "train",
                   "gradient staging", true),
              0u);
}

// Two experts trained together hold both adapters and optimizer states, but each step runs one
// and the other waits parked off the device, so weights and activations stay those of one; the
// parked one's weights are in host memory, or read back from the disk at its turn.
TEST(JobMemoryEstimate, BothExpertsTrainedTogetherHoldOneOnTheDeviceAndParkTheOther) {
    WanCase both = tiny_wan("wan2.2-tiny-a14b");
    WanCase high = tiny_wan("wan2.2-tiny-a14b");
    high.job.flow_matching.expert = "high_noise";
    const JobMemoryEstimate together = estimate(both);
    const JobMemoryEstimate alone = estimate(high);
    const auto second =
        static_cast<std::uint64_t>(parameters_of(both.components, "transformer_2") * 2);
    EXPECT_EQ(part(together, "train", "transformer weights"),
              static_cast<std::uint64_t>(parameters_of(both.components, "transformer") * 2));
    EXPECT_EQ(stage_of(together, "train", "second expert weights"), "absent");
    EXPECT_EQ(part(together, "train", "parked expert weights", true), second);
    EXPECT_EQ(stage_of(together, "train", "parked expert weights", true), "");
    EXPECT_EQ(stage_of(alone, "train", "parked expert weights", true), "absent");
    EXPECT_EQ(phase(alone, "train", true).total(), 0u);
    both.job.memory.inactive_expert = "disk";
    const JobMemoryEstimate on_disk = estimate(both);
    EXPECT_EQ(stage_of(on_disk, "train", "parked expert weights", true), "absent");
    EXPECT_EQ(part(on_disk, "train", "expert read back from disk", true), second);
    EXPECT_EQ(stage_of(on_disk, "train", "expert read back from disk", true), "switch");
    EXPECT_EQ(phase(on_disk, "train").total(), phase(together, "train").total());
    both.job.memory.inactive_expert = "host";
    for (const char* name : {"adapter weights", "gradients", "optimizer state"}) {
        EXPECT_EQ(part(together, "train", name), 2 * part(alone, "train", name)) << name;
        EXPECT_GT(part(alone, "train", name), 0u) << name;
    }
    EXPECT_EQ(part(together, "train", "activations"), part(alone, "train", "activations"));

    // A full fine-tune of both: the gradients and states of every parameter of both.
    both.job.mode = "full";
    high.job.mode = "full";
    EXPECT_EQ(part(estimate(both), "train", "gradients"),
              2 * part(estimate(high), "train", "gradients"));
}

// Validation samples with both experts: an expert the job does not train is loaded from the
// base for the pass, on the host; on a GPU the pipeline brings one expert at a time to the
// device to denoise, so the pass holds one.
TEST(JobMemoryEstimate, ValidationLoadsTheExpertTheJobDoesNotTrain) {
    WanCase low = tiny_wan("wan2.2-tiny-a14b");
    low.job.flow_matching.expert = "low_noise";
    low.job.device = "cpu";
    const std::uint64_t high_weights =
        static_cast<std::uint64_t>(parameters_of(low.components, "transformer") * 2);
    const JobMemoryEstimate on_cpu = estimate(low);
    EXPECT_EQ(part(on_cpu, "train", "transformer weights"),
              static_cast<std::uint64_t>(parameters_of(low.components, "transformer_2") * 2));
    EXPECT_EQ(stage_of(on_cpu, "train", "other expert weights"), "absent");
    EXPECT_EQ(part(on_cpu, "validation", "other expert weights"), high_weights);
    EXPECT_EQ(stage_of(on_cpu, "validation", "other expert weights"), "");

    EXPECT_EQ(part(on_cpu, "validation", "other expert weights", true), high_weights);

    low.job.device = "cuda";
    const JobMemoryEstimate on_gpu = estimate(low);
    EXPECT_EQ(stage_of(on_gpu, "validation", "other expert weights"), "denoise_2");
    EXPECT_EQ(stage_of(on_gpu, "validation", "transformer weights"), "denoise");
    EXPECT_EQ(part(on_gpu, "validation", "other expert weights"), high_weights);
    EXPECT_EQ(part(on_gpu, "validation", "other expert weights", true), high_weights);

    WanCase both = tiny_wan("wan2.2-tiny-a14b");
    both.job.device = "cuda";
    const JobMemoryEstimate trained = estimate(both);
    EXPECT_EQ(stage_of(trained, "validation", "other expert weights"), "absent");
    EXPECT_EQ(stage_of(trained, "validation", "transformer weights"), "denoise");
    EXPECT_EQ(stage_of(trained, "validation", "second expert weights"), "denoise_2");
}

// Wan 2.1 image-to-video encodes the first frame with CLIP while the VAE is loaded, in prepare,
// and in its own stage in validation; a model without CLIP counts none.
TEST(JobMemoryEstimate, Wan21ImageToVideoCountsCLIPBesideTheVAE) {
    const WanCase i2v = tiny_wan("wan2.1-tiny-i2v", "i2v");
    const JobMemoryEstimate with_clip = estimate(i2v);
    const auto clip =
        static_cast<std::uint64_t>(parameters_of(i2v.components, "image_encoder") * 2);
    ASSERT_GT(clip, 0u);
    EXPECT_EQ(part(with_clip, "prepare", "image encoder weights"), clip);
    EXPECT_EQ(stage_of(with_clip, "prepare", "image encoder weights"), "vae");
    EXPECT_EQ(part(with_clip, "validation", "image encoder weights"), clip);
    EXPECT_EQ(stage_of(with_clip, "validation", "image encoder weights"), "image");
    const PhaseMemory& prepare = phase(with_clip, "prepare");
    EXPECT_EQ(prepare.total(),
              std::max(part(with_clip, "prepare", "text encoder weights") +
                           part(with_clip, "prepare", "text encoder activations"),
                       part(with_clip, "prepare", "VAE weights") +
                           part(with_clip, "prepare", "VAE encode activations") + clip));

    for (const char* arch : {"wan2.1-tiny", "wan2.2-tiny-ti2v", "wan2.2-tiny-a14b"}) {
        EXPECT_EQ(stage_of(estimate(tiny_wan(arch)), "prepare", "image encoder weights"), "absent")
            << arch;
    }
}

// Wan's prompts are 512 tokens: the UMT5 layer's [512, d_model] tensors and its 64 heads'
// [512, 512] scores, bias and weights (float32 softmax), one prompt at a time.
TEST(JobMemoryEstimate, WanTextIsEncodedAt512Tokens) {
    const WanCase t2v = tiny_wan("wan2.1-tiny");
    const std::int64_t width = t2v.model->encoder_memory().text_width;
    ASSERT_EQ(t2v.model->text_length(), 512);
    const JobMemoryEstimate wan = estimate(t2v);
    EXPECT_EQ(part(wan, "prepare", "text encoder activations"),
              static_cast<std::uint64_t>(512 * width * 2 * 12 + 64 * 512 * 512 * (3 * 2 + 4)));
    EXPECT_EQ(part(wan, "validation", "text encoder activations"),
              part(wan, "prepare", "text encoder activations"));
    // CogVideoX's T5 at 226 tokens: the same arithmetic, a quarter of the scores.
    const JobMemoryEstimate cogvideox =
        estimate_job_memory(lora_job(), *model_2b(), pipeline_2b(), 1);
    EXPECT_EQ(part(cogvideox, "prepare", "text encoder activations"),
              static_cast<std::uint64_t>(226 * 4096 * 2 * 12 + 64 * 226 * 226 * (3 * 2 + 4)));
}

// Wan 2.2 T2V-A14B as its configs describe it, with no files behind it: two 14 B experts.
TEST(JobMemoryEstimate, Wan22A14BHoldsTwoFourteenBillionExperts) {
    models::wan::WanPipelineFolder folder;
    folder.root = "/models/Wan2.2-T2V-A14B-Diffusers";
    folder.pipeline_class = "WanPipeline";
    const models::wan::WanTransformer3DConfig expert =
        models::wan::find_wan_transformer_preset("wan2.2-t2v-a14b").config;
    folder.transformers = {folder.root / "transformer", folder.root / "transformer_2"};
    folder.transformer_configs = {expert, expert};
    folder.boundary_ratio = 0.875;
    const models::wan::WanModelFolder model(folder);
    std::vector<core::ComponentInventory> components;
    for (const char* name : {"transformer", "transformer_2"}) {
        core::ComponentInventory transformer;
        transformer.name = name;
        transformer.weights = std::string(name) + "/diffusion_pytorch_model.safetensors.index.json";
        transformer.parameters = expert.parameter_count();
        components.push_back(transformer);
    }
    core::ComponentInventory vae;
    vae.name = "vae";
    vae.weights = "vae/diffusion_pytorch_model.safetensors";
    vae.parameters = 127'000'000;
    core::ComponentInventory text;
    text.name = "text_encoder";
    text.weights = "text_encoder/model.safetensors.index.json";
    text.parameters = 5'680'000'000;
    components.push_back(vae);
    components.push_back(text);

    common::TrainingJob job;
    job.model = folder.root.string();
    job.device = "cuda";
    job.lora.rank = 32;
    job.dataset.resolution_buckets = {{480, 832}};
    job.dataset.frame_buckets = {81};
    job.validation.prompts = {"a cat"};
    const JobMemoryEstimate both = estimate_job_memory(job, model, components, 1);
    EXPECT_GT(expert.parameter_count(), 14'000'000'000);
    EXPECT_EQ(part(both, "train", "transformer weights") +
                  part(both, "train", "parked expert weights", true),
              static_cast<std::uint64_t>(expert.parameter_count()) * 4);
    EXPECT_GT(phase(both, "validation").total(), part(both, "validation", "transformer weights"));

    // One expert trained alone holds as much on the device, less the second adapter, its
    // gradients and its optimizer state.
    job.flow_matching.expert = "high_noise";
    const JobMemoryEstimate one = estimate_job_memory(job, model, components, 1);
    EXPECT_EQ(phase(both, "train").total() - phase(one, "train").total(),
              part(one, "train", "adapter weights") + part(one, "train", "gradients") +
                  part(one, "train", "optimizer state"));
}

// Wan 2.1 T2V 14B as its configs describe it: the 24 GB tier's LoRA (fp8 base, rank 32, 49 x
// 480 x 832, checkpointing) fits 24 GiB only with blocks swapped, which put about 10 GB in
// pinned host memory; the whole fp8 base alone would take 13 GiB of the card.
TEST(JobMemoryEstimate, Wan14BLoraFitsA24GBCardWithItsBlocksSwapped) {
    models::wan::WanPipelineFolder folder;
    folder.root = "/models/Wan2.1-T2V-14B-Diffusers";
    folder.pipeline_class = "WanPipeline";
    const models::wan::WanTransformer3DConfig config =
        models::wan::find_wan_transformer_preset("wan2.1-t2v-14b").config;
    folder.transformers = {folder.root / "transformer"};
    folder.transformer_configs = {config};
    const models::wan::WanModelFolder model(folder);
    core::ComponentInventory transformer;
    transformer.name = "transformer";
    transformer.weights = "transformer/diffusion_pytorch_model.safetensors.index.json";
    transformer.parameters = config.parameter_count();
    core::ComponentInventory vae;
    vae.name = "vae";
    vae.weights = "vae/diffusion_pytorch_model.safetensors";
    vae.parameters = 127'000'000;
    core::ComponentInventory text;
    text.name = "text_encoder";
    text.weights = "text_encoder/model.safetensors.index.json";
    text.parameters = 5'680'000'000;
    const std::vector<core::ComponentInventory> components = {transformer, vae, text};

    common::TrainingJob job;
    job.model = folder.root.string();
    job.device = "cuda";
    job.precision = "bf16";
    job.lora.rank = 32;
    job.lora.base_quantization = "fp8";
    job.dataset.resolution_buckets = {{480, 832}};
    job.dataset.frame_buckets = {49};
    job.dataset.vae_tiling = true;
    const double gib = 1024.0 * 1024.0 * 1024.0;
    const JobMemoryEstimate resident = estimate_job_memory(job, model, components, 1);
    job.memory.blocks_to_swap = 30;
    const JobMemoryEstimate swapped = estimate_job_memory(job, model, components, 1);
    const double resident_train = static_cast<double>(phase(resident, "train").total()) / gib;
    const double swapped_train = static_cast<double>(phase(swapped, "train").total()) / gib;
    const double host = static_cast<double>(phase(swapped, "train", true).total()) / gib;
    RecordProperty("resident_train_gib", std::to_string(resident_train));
    RecordProperty("swapped_train_gib", std::to_string(swapped_train));
    RecordProperty("swapped_host_gib", std::to_string(host));
    EXPECT_GT(resident_train, 24.0);
    EXPECT_LT(swapped_train, 24.0);
    EXPECT_NEAR(host, 30.0 / 40.0 * part(resident, "train", "transformer weights") / gib, 0.05);
}

// A Wan model described by `config` alone (no files behind it), with an inventory that counts
// the parameters the config says it holds.
struct ConfigOnlyWan {
    std::unique_ptr<models::wan::WanModelFolder> model;
    std::vector<core::ComponentInventory> components;
};

ConfigOnlyWan config_only_wan(const models::wan::WanTransformer3DConfig& config,
                              std::int64_t parameters) {
    models::wan::WanPipelineFolder folder;
    folder.root = "/models/Wan2.1-T2V-14B-Diffusers";
    folder.pipeline_class = "WanPipeline";
    folder.transformers = {folder.root / "transformer"};
    folder.transformer_configs = {config};
    ConfigOnlyWan wan;
    wan.model = std::make_unique<models::wan::WanModelFolder>(folder);
    core::ComponentInventory transformer;
    transformer.name = "transformer";
    transformer.weights = "transformer/diffusion_pytorch_model.safetensors.index.json";
    transformer.parameters = parameters;
    core::ComponentInventory vae;
    vae.name = "vae";
    vae.weights = "vae/diffusion_pytorch_model.safetensors";
    vae.parameters = 127'000'000;
    core::ComponentInventory text;
    text.name = "text_encoder";
    text.weights = "text_encoder/model.safetensors.index.json";
    text.parameters = 5'680'000'000;
    wan.components = {transformer, vae, text};
    return wan;
}

// The 24 GB preset's LoRA on Wan 2.1 T2V 14B at 81 x 480 x 832.
common::TrainingJob wan14b_lora_job() {
    common::TrainingJob job;
    job.model = "/models/Wan2.1-T2V-14B-Diffusers";
    job.device = "cuda";
    job.precision = "bf16";
    job.lora.rank = 32;
    job.lora.base_quantization = "fp8";
    job.gradient_checkpointing = true;
    job.dataset.resolution_buckets = {{480, 832}};
    job.dataset.frame_buckets = {81};
    job.dataset.vae_tiling = true;
    job.validation.prompts = {"a cat"};
    job.validation.frames = 81;
    job.validation.height = 480;
    job.validation.width = 832;
    return job;
}

std::string refusal_of(const std::function<void()>& run) {
    try {
        run();
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput) << error.what();
        EXPECT_FALSE(error.hint().empty()) << error.what();
        return error.what();
    }
    ADD_FAILURE() << "no refusal";
    return {};
}

// A config.json no model comes near (2^40 layers, 2^33-wide heads) is refused by the family's
// reader with the file and the field named, before any arithmetic multiplies it.
TEST(JobMemoryEstimate, AConfigPastAnyModelIsRefusedNamingItsFileAndField) {
    const std::string origin = "/models/huge/transformer/config.json";
    nlohmann::json wan =
        models::wan::find_wan_transformer_preset("wan2.1-t2v-14b").config.to_json();
    wan["num_layers"] = std::int64_t{1} << 40;
    std::string message =
        refusal_of([&] { models::wan::WanTransformer3DConfig::from_json(wan, origin); });
    EXPECT_NE(message.find(origin), std::string::npos) << message;
    EXPECT_NE(message.find("num_layers is 1099511627776"), std::string::npos) << message;

    wan["num_layers"] = 40;
    wan["attention_head_dim"] = std::int64_t{1} << 33;
    message = refusal_of([&] { models::wan::WanTransformer3DConfig::from_json(wan, origin); });
    EXPECT_NE(message.find("attention_head_dim"), std::string::npos) << message;

    nlohmann::json cogvideox = models::cogvideox::CogVideoXTransformer3DConfig{}.to_json();
    cogvideox["num_layers"] = std::int64_t{1} << 40;
    message = refusal_of(
        [&] { models::cogvideox::CogVideoXTransformer3DConfig::from_json(cogvideox, origin); });
    EXPECT_NE(message.find(origin + ": num_layers"), std::string::npos) << message;
    cogvideox["num_layers"] = 30;
    cogvideox["max_text_seq_length"] = std::int64_t{1} << 40;
    message = refusal_of(
        [&] { models::cogvideox::CogVideoXTransformer3DConfig::from_json(cogvideox, origin); });
    EXPECT_NE(message.find("max_text_seq_length"), std::string::npos) << message;

    // Through the model folder, as `estimate` opens it.
    const std::filesystem::path folder =
        std::filesystem::path(::testing::TempDir()) / "tuneframe-huge-wan";
    std::filesystem::remove_all(folder);
    std::filesystem::copy(test::tiny_wan_pipeline("wan2.1-tiny"), folder,
                          std::filesystem::copy_options::recursive);
    const std::filesystem::path config = folder / "transformer" / "config.json";
    nlohmann::json tiny = core::read_json_file(config);
    tiny["num_layers"] = std::int64_t{1} << 40;
    std::ofstream(config) << tiny.dump();
    message = refusal_of([&] { models::open_model_folder(folder); });
    EXPECT_NE(message.find(config.string()), std::string::npos) << message;
    EXPECT_NE(message.find("num_layers"), std::string::npos) << message;
    std::filesystem::remove_all(folder);
}

// The largest model the readers let through, trained at the largest job the limits table lets
// through, comes to more than 2^63 bytes: refused, never wrapped to a small number.
TEST(JobMemoryEstimate, FiguresPast2To63BytesAreRefusedNotWrapped) {
    models::wan::WanTransformer3DConfig widest =
        models::wan::find_wan_transformer_preset("wan2.1-t2v-14b").config;
    widest.num_layers = 4096;
    widest.num_attention_heads = 1024;
    widest.attention_head_dim = 1024;
    widest.ffn_dim = 1 << 20;
    const ConfigOnlyWan wan = config_only_wan(widest, std::int64_t{1} << 52);
    common::TrainingJob job = wan14b_lora_job();
    job.batch_size = common::kMaxBatchSize;
    job.lora.rank = common::kMaxLoraRank;
    job.dataset.resolution_buckets = {{common::kMaxBucketSide, common::kMaxBucketSide}};
    job.dataset.frame_buckets = {common::kMaxBucketFrames};
    const std::string message =
        refusal_of([&] { estimate_job_memory(job, *wan.model, wan.components, 1); });
    EXPECT_NE(message.find("2^63"), std::string::npos) << message;
}

// Wan 2.1 14B at the limits table's largest bucket and rank: as the batch doubles up to its
// maximum the estimate grows and never wraps (were a figure to pass 2^63 bytes, it and every
// larger batch would be refused).
TEST(JobMemoryEstimate, HugeButAllowedJobsGrowMonotonicallyUntilRefused) {
    const models::wan::WanTransformer3DConfig config =
        models::wan::find_wan_transformer_preset("wan2.1-t2v-14b").config;
    const ConfigOnlyWan wan = config_only_wan(config, config.parameter_count());
    common::TrainingJob job = wan14b_lora_job();
    job.lora.rank = common::kMaxLoraRank;
    job.dataset.resolution_buckets = {{common::kMaxBucketSide, common::kMaxBucketSide}};
    job.dataset.frame_buckets = {common::kMaxBucketFrames};
    job.validation.frames = common::kMaxBucketFrames;
    job.validation.height = common::kMaxBucketSide;
    job.validation.width = common::kMaxBucketSide;
    std::uint64_t previous = 0;
    std::uint64_t previous_activations = 0;
    bool refused = false;
    int estimated = 0;
    for (std::int64_t batch = 1; batch <= common::kMaxBatchSize; batch *= 2) {
        job.batch_size = batch;
        try {
            const JobMemoryEstimate estimate =
                estimate_job_memory(job, *wan.model, wan.components, 1);
            EXPECT_FALSE(refused) << "batch " << batch << " estimated after a smaller refused";
            EXPECT_GT(estimate.peak(), previous) << "batch " << batch;
            EXPECT_GT(part(estimate, "train", "activations"), previous_activations)
                << "batch " << batch;
            EXPECT_LT(estimate.peak(), std::uint64_t{1} << 63);
            previous = estimate.peak();
            previous_activations = part(estimate, "train", "activations");
            ++estimated;
        } catch (const core::Error& error) {
            EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
            EXPECT_NE(std::string(error.what()).find("2^63"), std::string::npos) << error.what();
            refused = true;
        }
    }
    // 1024 x 16.8 M tokens x 5120 wide in bf16 is 1.8e14 bytes per width, 73 widths with every
    // block recomputed: 13 PB, far past any machine but well within what the arithmetic counts.
    EXPECT_EQ(estimated, 11);
    EXPECT_GT(previous_activations, 10'000'000'000'000'000ull);
}

// A quantized-base saving larger than the weights it saves on (a config that does not match the
// checkpoint's inventory) leaves no weights, not 2^64 less a few.
TEST(JobMemoryEstimate, ASavingLargerThanTheWeightsLeavesNothing) {
    const models::wan::WanTransformer3DConfig config =
        models::wan::find_wan_transformer_preset("wan2.1-t2v-14b").config;
    const ConfigOnlyWan wan = config_only_wan(config, 1000);
    common::TrainingJob job = wan14b_lora_job();
    job.memory.blocks_to_swap = 30;
    const JobMemoryEstimate estimate = estimate_job_memory(job, *wan.model, wan.components, 1);
    EXPECT_EQ(part(estimate, "train", "transformer weights"), 0u);
    EXPECT_EQ(part(estimate, "train", "swapped blocks in flight"), 0u);
    EXPECT_EQ(part(estimate, "train", "swapped blocks", true), 0u);
    EXPECT_LT(estimate.peak(), 1ull << 40);
}

// memory.offload_activations on Wan 2.1 14B at 81 x 480 x 832 with every block checkpointed:
// the 40 blocks' inputs move to the host, two stay on the device.
TEST(JobMemoryEstimate, OffloadedActivationsMoveTheBlockInputsToTheHost) {
    const models::wan::WanTransformer3DConfig config =
        models::wan::find_wan_transformer_preset("wan2.1-t2v-14b").config;
    const ConfigOnlyWan wan = config_only_wan(config, config.parameter_count());
    common::TrainingJob job = wan14b_lora_job();
    job.memory.blocks_to_swap = 30; // presets/wan2.1-14b.lora.24gb.json
    const JobMemoryEstimate kept = estimate_job_memory(job, *wan.model, wan.components, 1);
    job.memory.offload_activations = true;
    const JobMemoryEstimate offloaded = estimate_job_memory(job, *wan.model, wan.components, 1);

    // 21 latent frames of 30 x 52 tokens (and the 512 text tokens the family counts with every
    // sequence), 5120 wide, bf16.
    const std::uint64_t input = (21ull * 30 * 52 + 512) * 5120 * 2;
    EXPECT_EQ(part(offloaded, "train", "offloaded activations", true), 40 * input);
    EXPECT_EQ(part(offloaded, "train", "offloaded activations in flight"), 2 * input);
    EXPECT_NEAR(static_cast<double>(phase(kept, "train").total()) -
                    static_cast<double>(phase(offloaded, "train").total()),
                38.0 * static_cast<double>(input), 1e-9 * static_cast<double>(input));
    EXPECT_EQ(phase(offloaded, "train", true).total() - phase(kept, "train", true).total(),
              40 * input);
    EXPECT_EQ(part(kept, "train", "offloaded activations", true), 0u);
    EXPECT_EQ(part(kept, "train", "offloaded activations in flight"), 0u);
    // Gone by validation, on either side.
    EXPECT_EQ(part(offloaded, "validation", "offloaded activations in flight"), 0u);
    EXPECT_EQ(part(offloaded, "validation", "offloaded activations", true), 0u);

    const double gib = 1024.0 * 1024.0 * 1024.0;
    RecordProperty("kept_train_gib", std::to_string(phase(kept, "train").total() / gib));
    RecordProperty("kept_host_gib", std::to_string(phase(kept, "train", true).total() / gib));
    RecordProperty("offloaded_train_gib", std::to_string(phase(offloaded, "train").total() / gib));
    RecordProperty("offloaded_host_gib",
                   std::to_string(phase(offloaded, "train", true).total() / gib));
    RecordProperty("kept_peak_gib", std::to_string(kept.peak() / gib));
    RecordProperty("offloaded_peak_gib", std::to_string(offloaded.peak() / gib));
    RecordProperty("offloaded_host_peak_gib", std::to_string(offloaded.host_peak() / gib));
    RecordProperty("kept_host_peak_gib", std::to_string(kept.host_peak() / gib));
    RecordProperty("block_input_mib", std::to_string(input / 1024.0 / 1024.0));

    // Without recomputation nothing is offloaded.
    job.gradient_checkpointing = false;
    job.memory.blocks_to_swap = 0;
    const JobMemoryEstimate none = estimate_job_memory(job, *wan.model, wan.components, 1);
    EXPECT_EQ(part(none, "train", "offloaded activations", true), 0u);
    EXPECT_EQ(part(none, "train", "offloaded activations in flight"), 0u);
}

} // namespace
} // namespace tuneframe::train
