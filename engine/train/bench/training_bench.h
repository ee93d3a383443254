#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace tuneframe::train {

// One benchmark: a transformer of any family's architecture with random weights built in memory
// (nothing is written to disk), a LoRA, an optimizer, and training steps on a batch of random
// prepared samples of one shape, through the family's own objective (models::BenchModel).
struct BenchSpec {
    std::string name;         // the shape's name, or the architecture's
    std::string architecture; // any family's (init-model names, or a bench shape's)
    // Another depth of the architecture's blocks; unset: its own.
    std::optional<std::int64_t> layers;
    std::int64_t frames = 49; // pixels
    std::int64_t height = 480;
    std::int64_t width = 720;
    std::int64_t text_tokens = 0; // 0: the architecture's own prompt length
    std::string task;             // "t2v" or "i2v"; empty: the architecture's first
    std::int64_t rank = 64;
    std::string optimizer = "adamw";
    bool checkpointing = true;
    // With checkpointing, the first this many blocks recompute; unset: all.
    std::optional<std::int64_t> checkpointed_blocks;
    bool keep_attention = false; // recomputed blocks keep their attention outputs
    std::int64_t steps = 5;      // the first is a warm-up and not counted
    std::string device = "auto";
    std::string precision = "bf16";
    std::string attention = "auto"; // core::select_attention_backend
    // The frozen base's block Linears stored as "int8" or "fp8" (lora.base_quantization), or
    // "none".
    std::string quantize = "none";
    // memory.blocks_to_swap: the last N blocks' weights on the host, fetched one block ahead
    // (the model is then built and quantized on the host and only the rest moved to the device).
    std::int64_t blocks_to_swap = 0;
    // memory.offload_activations: each recomputed block's saved input in host memory between
    // forward and backward.
    bool offload_activations = false;
    // Caps the CUDA caching allocator at this fraction of the GPU's memory (a 24 GB card on a
    // larger one); unset: no cap.
    std::optional<double> memory_fraction;
    // Where to write a Chrome trace of one extra step after the timed ones; empty: none.
    std::string profile_path;
    // After the steps, one validation pass as training runs it (train::ValidationPass: the text
    // encoder and the VAE from this pipeline folder, sampled by its family with the transformer
    // being trained, VAE tiling and slicing, the transformer on the host while they run), at the
    // bench's frames and size, with the trained state still held. Empty: none. The folder must
    // be of the benched architecture's family and widths, and sample text-to-video.
    std::string validation_pipeline;
    std::int64_t validation_steps = 2; // the peak of a denoising step does not grow with more
    std::int64_t validation_prompts = 1;
};

// A named shape of any family (models::bench_shapes()): `bench-cpu` (ARCHITECTURE.md: a
// 2b-style transformer with 8 heads of 64, 4 layers, latents [1, 7, 16, 20, 30], fp32 on the
// CPU), `2b-49x480x720`, `5b-49x480x720`, `wan-bench-cpu`, `wan2.1-1.3b-81x480x832`,
// `wan2.1-14b-81x480x832`, `wan2.2-5b-121x704x1280` (the released sizes, bf16, as
// ref_lora_step.py runs them), with rank 64 on to_q/to_k/to_v/to_out.0, AdamW and
// checkpointing.
BenchSpec bench_shape(const std::string& name);
// `architecture` at its own sample size and prompt length.
BenchSpec bench_architecture(const std::string& architecture);

// Runs the benchmark; the JSON holds the family, the architecture and its description,
// median_step_s and every timed step (steps_s, as the reference script reports them), the
// median seconds of each phase (`phases_s`: forward, backward, optimizer), tokens (video and
// context, all samples) and tokens_per_s, peak_memory_bytes (CUDA: the allocator's peak
// allocated bytes, as torch.cuda.max_memory_allocated; CPU: the resident set's peak),
// peak_tensor_bytes (the peak of live tensor bytes: CUDA's allocated bytes, on the CPU counted
// by core::CpuAllocationTracker), the peak of each phase in those terms (`phase_peak_bytes`),
// estimate_bytes (what the job memory estimate predicts for this step), trainable_parameters,
// the base quantization, the blocks swapped and the device cap (`memory_limit_bytes`), the
// shape, and mfu on GPUs whose peak throughput is known. With a
// validation pipeline, `validation` holds its seconds, the peak tensor bytes of each stage
// (text, denoise, decode; the trained state included) and their maximum, and
// `peak_with_validation_bytes` the higher of that and the steps' peak.
nlohmann::json run_bench(const BenchSpec& spec);

} // namespace tuneframe::train
