#pragma once

// transformers' CLIPImageProcessor (models/clip/image_processing_clip.py) as the Wan I2V
// pipelines call it on one image: convert to RGB, resize (the shortest edge to `size`, the other
// by int(size * long / short), with PIL's resampling on the uint8 image), center crop (the
// numpy crop of image_transforms.center_crop, zero-padded when the image is smaller), rescale
// by 1/255 in float64 then float32, normalise with image_mean / image_std in float32, channels
// first.

#include "engine/models/clip/pil_resample.h"

#include <ATen/Tensor.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace tuneframe::models::clip {

// The OpenAI CLIP statistics, CLIPImageProcessor's defaults.
inline const std::vector<double> kOpenAIClipMean = {0.48145466, 0.4578275, 0.40821073};
inline const std::vector<double> kOpenAIClipStd = {0.26862954, 0.26130258, 0.27577711};

struct CLIPImageProcessorConfig {
    bool do_convert_rgb = true;
    bool do_resize = true;
    // {"shortest_edge": n} (shortest_edge > 0), or {"height": h, "width": w}.
    std::int64_t shortest_edge = 224;
    std::int64_t resize_height = 0;
    std::int64_t resize_width = 0;
    PilResample resample = PilResample::Bicubic;
    bool do_center_crop = true;
    std::int64_t crop_height = 224;
    std::int64_t crop_width = 224;
    bool do_rescale = true;
    double rescale_factor = 1.0 / 255.0;
    bool do_normalize = true;
    std::vector<double> image_mean = kOpenAIClipMean;
    std::vector<double> image_std = kOpenAIClipStd;

    // `origin` names the file in errors (".../image_processor/preprocessor_config.json").
    static CLIPImageProcessorConfig from_json(const nlohmann::json& json,
                                              const std::string& origin);
    nlohmann::json to_json() const; // the preprocessor_config.json transformers writes
};

class CLIPImageProcessor {
public:
    explicit CLIPImageProcessor(CLIPImageProcessorConfig config);
    // Reads `folder`/preprocessor_config.json (an image_processor/ folder).
    static CLIPImageProcessor from_folder(const std::filesystem::path& folder);

    // uint8 [H, W, 3] (RGB; [H, W] or [H, W, 1] grey and [H, W, 4] RGBA are converted as
    // PIL's convert("RGB") does) -> pixel_values [1, 3, crop_height, crop_width] float32.
    at::Tensor preprocess(const at::Tensor& image) const;
    // The uint8 [h, w, 3] image after conversion, resize and crop, before any arithmetic.
    at::Tensor resize_and_crop(const at::Tensor& image) const;

    const CLIPImageProcessorConfig& config() const { return config_; }

private:
    CLIPImageProcessorConfig config_;
};

} // namespace tuneframe::models::clip
