#pragma once

// What the Wan pipelines build around the noise for image-to-video (pipeline_wan_i2v.py's
// prepare_latents and its denoising loop), and the per-token timesteps of expand_timesteps.

#include <ATen/Tensor.h>

#include <cstdint>

namespace tuneframe::models::wan {

// A request's picture [1, 3, h, w] in [0, 1] as the 8-bit RGB image [h, w, 3] the reference
// pipelines are handed (rounded), which CLIPImageProcessor and PIL's resize take.
at::Tensor image_to_rgb8(const at::Tensor& image);

// VideoProcessor.preprocess(image, height, width) on that picture: resized with PIL's Lanczos
// filter on its 8-bit pixels when its size differs, scaled by 1/255, then to [-1, 1].
// -> [1, 3, height, width] float32 on the CPU.
at::Tensor preprocess_condition_image(const at::Tensor& image, std::int64_t height,
                                      std::int64_t width);

// Wan 2.1 I2V's video condition: the image as the first of `frames` frames, the rest zeros
// (mid-grey): [1, 3, frames, H, W].
at::Tensor first_frame_video(const at::Tensor& pixels, std::int64_t frames);

// Wan 2.1 / 2.2 A14B I2V's mask channels: the first pixel frame marked 1 and repeated over the
// `temporal_scale` frames of the first latent frame, the others 0, folded into channels:
// [1, temporal_scale, latent_frames, h, w] float32, 1 on latent frame 0.
at::Tensor first_frame_mask_channels(std::int64_t temporal_scale, std::int64_t latent_frames,
                                     std::int64_t latent_height, std::int64_t latent_width,
                                     const c10::TensorOptions& options);

// Wan 2.2 TI2V's first_frame_mask: [1, 1, latent_frames, h, w] float32, 0 on the first latent
// frame (`keep_first` false: text-to-video, all ones).
at::Tensor latent_frame_mask(std::int64_t latent_frames, std::int64_t latent_height,
                             std::int64_t latent_width, bool keep_first,
                             const c10::TensorOptions& options);

// expand_timesteps: one timestep per token, mask[0][0] sampled at every patch's first row and
// column, times `t` (a 0-dim tensor): [1, tokens] float32.
at::Tensor per_token_timesteps(const at::Tensor& mask, const at::Tensor& t,
                               std::int64_t patch_height, std::int64_t patch_width);

// TI2V image-to-video: the first latent frame replaced by the image latents `condition`
// [B, C, 1, h, w] wherever `mask` is 0: (1 - mask) * condition + mask * latents.
at::Tensor replace_first_frame(const at::Tensor& latents, const at::Tensor& condition,
                               const at::Tensor& mask);

} // namespace tuneframe::models::wan
