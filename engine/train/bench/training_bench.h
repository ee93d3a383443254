#pragma once

#include "engine/models/cogvideox/cogvideox_transformer_3d_config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace tuneframe::train {

// One benchmark: a transformer with random weights built in memory (nothing is written to
// disk), a LoRA, an optimizer, and training steps on random latents of one shape.
struct BenchSpec {
    std::string name; // the shape's name, or the architecture's
    models::cogvideox::CogVideoXTransformer3DConfig transformer;
    std::int64_t frames = 49; // pixels
    std::int64_t height = 480;
    std::int64_t width = 720;
    std::int64_t text_tokens = 226;
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
    // Where to write a Chrome trace of one extra step after the timed ones; empty: none.
    std::string profile_path;
    // After the steps, one validation pass as training runs it (train::ValidationPass: T5 and
    // the VAE from this pipeline folder, the transformer being trained, VAE tiling and slicing,
    // the transformer on the host while T5 and the VAE run), at the bench's frames and size,
    // with the trained state still held. Empty: none. Text-to-video shapes only.
    std::string validation_pipeline;
    std::int64_t validation_steps = 2; // the peak of a denoising step does not grow with more
    std::int64_t validation_prompts = 1;
};

// Named shapes: `bench-cpu` (ARCHITECTURE.md: a 2b-style transformer with 8 heads of 64, 4
// layers, latents [1, 7, 16, 20, 30], rank 64 on q/k/v/out, AdamW, checkpointing, fp32),
// `2b-49x480x720` and `5b-49x480x720` (the real architectures, bf16, rank 64).
BenchSpec bench_shape(const std::string& name);

// Runs the benchmark; the JSON holds median_step_s and every timed step (steps_s, as the
// reference script reports them), the median seconds of each phase (`phases_s`: forward,
// backward, optimizer), tokens_per_s, peak_memory_bytes (CUDA: the allocator's peak allocated
// bytes, as torch.cuda.max_memory_allocated; CPU: the resident set's peak), peak_tensor_bytes
// (the peak of live tensor bytes: CUDA's allocated bytes, on the CPU counted by
// core::CpuAllocationTracker), the peak of each phase in those terms (`phase_peak_bytes`),
// estimate_bytes (what the job memory estimate predicts for this step),
// trainable_parameters, the base quantization, the shape, and mfu on GPUs whose peak throughput is
// known. With a validation pipeline, `validation` holds its seconds, the peak tensor bytes of
// each stage (text, denoise, decode; the trained state included) and their maximum, and
// `peak_with_validation_bytes` the higher of that and the steps' peak.
nlohmann::json run_bench(const BenchSpec& spec);

} // namespace tuneframe::train
