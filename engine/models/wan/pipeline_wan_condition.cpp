#include "engine/models/wan/pipeline_wan_condition.h"

#include "engine/models/clip/pil_resample.h"

#include <torch/torch.h>

namespace tuneframe::models::wan {
namespace {

using torch::indexing::None;
using torch::indexing::Slice;

} // namespace

at::Tensor image_to_rgb8(const at::Tensor& image) {
    return (image[0].to(torch::kCPU, torch::kFloat) * 255.0)
        .round()
        .clamp(0, 255)
        .to(torch::kByte)
        .permute({1, 2, 0})
        .contiguous(); // [h, w, 3]
}

at::Tensor preprocess_condition_image(const at::Tensor& image, std::int64_t height,
                                      std::int64_t width) {
    at::Tensor unit = image.to(torch::kCPU, torch::kFloat);
    if (image.size(2) != height || image.size(3) != width) {
        const at::Tensor resized =
            clip::pil_resize(image_to_rgb8(image), width, height, clip::PilResample::Lanczos);
        unit = (resized.to(torch::kFloat) / 255.0).permute({2, 0, 1}).unsqueeze(0);
    }
    return 2.0 * unit.contiguous() - 1.0; // [1, 3, H, W]
}

at::Tensor first_frame_video(const at::Tensor& pixels, std::int64_t frames) {
    const at::Tensor first = pixels.unsqueeze(2); // [1, 3, 1, H, W]
    const at::Tensor rest = torch::zeros(
        {1, pixels.size(1), frames - 1, pixels.size(2), pixels.size(3)}, pixels.options());
    return torch::cat({first, rest}, 2);
}

at::Tensor first_frame_mask_channels(std::int64_t temporal_scale, std::int64_t latent_frames,
                                     std::int64_t latent_height, std::int64_t latent_width,
                                     const c10::TensorOptions& options) {
    // diffusers marks pixel frame 0, repeats it to fill the first latent frame's
    // `temporal_scale` frames and folds the frames into channels; every pixel frame of a
    // latent frame shares its mark, so each channel holds the latent frame's.
    at::Tensor mask = torch::zeros({1, temporal_scale, latent_frames, latent_height, latent_width},
                                   options.dtype(torch::kFloat));
    mask.index_put_({Slice(), Slice(), 0}, 1.0);
    return mask;
}

at::Tensor latent_frame_mask(std::int64_t latent_frames, std::int64_t latent_height,
                             std::int64_t latent_width, bool keep_first,
                             const c10::TensorOptions& options) {
    at::Tensor mask = torch::ones({1, 1, latent_frames, latent_height, latent_width},
                                  options.dtype(torch::kFloat));
    if (keep_first) {
        mask.index_put_({Slice(), Slice(), 0}, 0.0);
    }
    return mask;
}

at::Tensor per_token_timesteps(const at::Tensor& mask, const at::Tensor& t,
                               std::int64_t patch_height, std::int64_t patch_width) {
    const at::Tensor corners = mask[0][0].index(
        {Slice(), Slice(None, None, patch_height), Slice(None, None, patch_width)}); // [F, h', w']
    return (corners * t.to(mask.device())).flatten().unsqueeze(0);                   // [1, tokens]
}

at::Tensor replace_first_frame(const at::Tensor& latents, const at::Tensor& condition,
                               const at::Tensor& mask) {
    return (1 - mask) * condition + mask * latents;
}

} // namespace tuneframe::models::wan
