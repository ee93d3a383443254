#pragma once

// What WanPipeline holds of each request between its stages, shared by pipeline_wan.cpp (the
// stages) and pipeline_wan_inputs.cpp (what a request brings to the denoising). Internal to them.

#include "engine/models/wan/pipeline_wan.h"
#include "engine/models/wan/pipeline_wan_scheduler.h"
#include "engine/models/wan/wan_prompt_encoder.h"

#include <ATen/Tensor.h>
#include <torch/torch.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tuneframe::models::wan {

struct WanPipeline::Geometry {
    std::int64_t frames = 0; // pixel frames of the video
    std::int64_t height = 0;
    std::int64_t width = 0;
    std::int64_t latent_frames = 0;
    std::int64_t latent_height = 0;
    std::int64_t latent_width = 0;
    int text_length = kMaxSequenceLength;
};

// One request between the stages of generate_all.
struct WanPipeline::Pending {
    SampleRequest request;
    Geometry g;
    SampleResult result;
    std::unique_ptr<WanScheduler> scheduler;
    std::vector<int> experts; // which transformer runs each step: 0, or 1 for transformer_2
    std::size_t next_step = 0;
    at::Tensor prompt_embeds;
    at::Tensor negative_embeds;
    at::Tensor image_embeds; // Wan 2.1 I2V: CLIP's penultimate hidden states
    // Beside the noise (I2V: [1, 4 + z, F, h, w], mask then latents) or, with
    // expand_timesteps, the image's normalised latents [1, z, 1, h, w].
    at::Tensor condition;
    at::Tensor frame_mask; // expand_timesteps: [1, 1, F, h, w]
    at::Tensor latents;    // float32, as diffusers keeps them
    // Keeps `value` on the CPU under the golden sets' `name` when the request asks for it.
    void keep(const std::string& name, const at::Tensor& value) {
        if (request.record_tensors) {
            result.tensors[name] = value.detach().to(torch::kCPU).clone();
        }
    }
    // As diffusers decides: by the first guidance alone, also for the second expert.
    bool guided() const { return request.guidance > 1.0; }
    double guidance(int expert) const {
        return expert == 0 ? request.guidance : request.guidance_2.value_or(request.guidance);
    }
};

inline void tell_progress(const SampleProgress& progress, const char* stage, int done, int total) {
    if (progress) {
        progress(stage, done, total);
    }
}

} // namespace tuneframe::models::wan
