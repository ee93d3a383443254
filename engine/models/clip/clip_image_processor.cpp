#include "engine/models/clip/clip_image_processor.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"

#include <torch/torch.h>

#include <algorithm>

namespace tuneframe::models::clip {
namespace {

using core::Error;
using core::ErrorCode;

const char* const kRestore = "Restore preprocessor_config.json from the model's download.";

// Python's floor division, which the crop box uses.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    const std::int64_t quotient = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient;
}

at::Tensor to_rgb(const at::Tensor& image) {
    const bool grey = image.dim() == 2 || (image.dim() == 3 && image.size(2) == 1);
    const bool colour = image.dim() == 3 && (image.size(2) == 3 || image.size(2) == 4);
    if (image.scalar_type() != torch::kUInt8 || !(grey || colour) || image.size(0) < 1 ||
        image.size(1) < 1) {
        throw Error(ErrorCode::BadInput,
                    "an image for CLIP must be a uint8 [height, width, 3] RGB tensor, not " +
                        std::string(c10::toString(image.scalar_type())) + " " +
                        c10::str(image.sizes()) + ".",
                    "Decode the image to 8-bit RGB (grey and RGBA are converted).");
    }
    if (grey) {
        return image.reshape({image.size(0), image.size(1), 1}).expand({-1, -1, 3}).contiguous();
    }
    // PIL's RGBA -> RGB drops the alpha channel without compositing.
    return image.size(2) == 4 ? image.slice(2, 0, 3).contiguous() : image.contiguous();
}

// get_resize_output_image_size with default_to_square=False: (height, width).
std::pair<std::int64_t, std::int64_t> shortest_edge_size(std::int64_t height, std::int64_t width,
                                                         std::int64_t size) {
    const bool portrait = width <= height;
    const std::int64_t short_side = portrait ? width : height;
    const std::int64_t long_side = portrait ? height : width;
    const auto new_long = static_cast<std::int64_t>(static_cast<double>(size * long_side) /
                                                    static_cast<double>(short_side));
    return portrait ? std::pair{new_long, size} : std::pair{size, new_long};
}

// image_transforms.center_crop on an [H, W, C] image, zero-padded where it is too small.
at::Tensor center_crop(const at::Tensor& image, std::int64_t crop_height, std::int64_t crop_width) {
    const std::int64_t height = image.size(0);
    const std::int64_t width = image.size(1);
    std::int64_t top = floor_div(height - crop_height, 2);
    std::int64_t left = floor_div(width - crop_width, 2);
    if (top >= 0 && left >= 0 && top + crop_height <= height && left + crop_width <= width) {
        return image.slice(0, top, top + crop_height)
            .slice(1, left, left + crop_width)
            .contiguous();
    }
    const std::int64_t new_height = std::max(crop_height, height);
    const std::int64_t new_width = std::max(crop_width, width);
    const std::int64_t top_pad = (new_height - height + 1) / 2; // ceil of half
    const std::int64_t left_pad = (new_width - width + 1) / 2;
    at::Tensor padded = torch::zeros({new_height, new_width, image.size(2)}, image.options());
    padded.slice(0, top_pad, top_pad + height).slice(1, left_pad, left_pad + width).copy_(image);
    top += top_pad;
    left += left_pad;
    return padded.slice(0, std::max<std::int64_t>(0, top), std::min(new_height, top + crop_height))
        .slice(1, std::max<std::int64_t>(0, left), std::min(new_width, left + crop_width))
        .contiguous();
}

// {"shortest_edge": n}, {"height": h, "width": w} or a bare number (older configs).
void read_size(const nlohmann::json& value, const std::string& origin, bool crop,
               CLIPImageProcessorConfig& config) {
    const std::string field = crop ? "crop_size" : "size";
    if (value.is_number_integer()) {
        const auto size = value.get<std::int64_t>();
        if (crop) {
            config.crop_height = config.crop_width = size;
        } else {
            config.shortest_edge = size;
        }
        return;
    }
    if (!value.is_object()) {
        throw Error(ErrorCode::BadInput,
                    origin + ": \"" + field + "\" must be an object or a number.", kRestore);
    }
    const core::JsonFields fields(value, origin + " (" + field + ")");
    if (!crop && fields.has("shortest_edge")) {
        config.shortest_edge = fields.required<std::int64_t>("shortest_edge");
    } else if (fields.has("height") && fields.has("width")) {
        auto& height = crop ? config.crop_height : config.resize_height;
        auto& width = crop ? config.crop_width : config.resize_width;
        height = fields.required<std::int64_t>("height");
        width = fields.required<std::int64_t>("width");
        if (!crop) {
            config.shortest_edge = 0;
        }
    } else {
        throw Error(ErrorCode::BadInput,
                    origin + ": \"" + field + "\" must hold " +
                        (crop ? "\"height\" and \"width\"."
                              : "\"shortest_edge\", or \"height\" and \"width\"."),
                    kRestore);
    }
}

std::vector<double> read_triple(const core::JsonFields& fields, const std::string& key,
                                const std::vector<double>& fallback) {
    const auto values = fields.optional<std::vector<double>>(key, fallback);
    if (values.size() != 3) {
        throw Error(ErrorCode::BadInput,
                    fields.origin() + ": \"" + key + "\" must hold 3 numbers, one per channel.",
                    kRestore);
    }
    return values;
}

} // namespace

CLIPImageProcessorConfig CLIPImageProcessorConfig::from_json(const nlohmann::json& json,
                                                             const std::string& origin) {
    const core::JsonFields fields(json, origin);
    CLIPImageProcessorConfig config;
    config.do_convert_rgb = fields.optional<bool>("do_convert_rgb", config.do_convert_rgb);
    config.do_resize = fields.optional<bool>("do_resize", config.do_resize);
    if (json.contains("size")) {
        read_size(json.at("size"), origin, false, config);
    }
    config.resample = static_cast<PilResample>(fields.optional<int>("resample", 3));
    config.do_center_crop = fields.optional<bool>("do_center_crop", config.do_center_crop);
    if (json.contains("crop_size")) {
        read_size(json.at("crop_size"), origin, true, config);
    }
    config.do_rescale = fields.optional<bool>("do_rescale", config.do_rescale);
    config.rescale_factor = fields.optional<double>("rescale_factor", config.rescale_factor);
    config.do_normalize = fields.optional<bool>("do_normalize", config.do_normalize);
    config.image_mean = read_triple(fields, "image_mean", config.image_mean);
    config.image_std = read_triple(fields, "image_std", config.image_std);
    const int resample = static_cast<int>(config.resample);
    if (resample < 0 || resample > 5) {
        throw Error(ErrorCode::BadInput,
                    origin + ": \"resample\" " + std::to_string(resample) +
                        " is none of PIL's filters (0 to 5).",
                    kRestore);
    }
    const bool sizes_positive =
        config.crop_height > 0 && config.crop_width > 0 &&
        (config.shortest_edge > 0 || (config.resize_height > 0 && config.resize_width > 0));
    const bool stds_nonzero = std::none_of(config.image_std.begin(), config.image_std.end(),
                                           [](double value) { return value == 0.0; });
    if (!sizes_positive || !stds_nonzero) {
        throw Error(ErrorCode::BadInput,
                    origin + ": sizes must be positive and image_std must not hold a zero.",
                    kRestore);
    }
    return config;
}

nlohmann::json CLIPImageProcessorConfig::to_json() const {
    nlohmann::json size = shortest_edge > 0
                              ? nlohmann::json{{"shortest_edge", shortest_edge}}
                              : nlohmann::json{{"height", resize_height}, {"width", resize_width}};
    return {{"crop_size", {{"height", crop_height}, {"width", crop_width}}},
            {"do_center_crop", do_center_crop},
            {"do_convert_rgb", do_convert_rgb},
            {"do_normalize", do_normalize},
            {"do_rescale", do_rescale},
            {"do_resize", do_resize},
            {"image_mean", image_mean},
            {"image_processor_type", "CLIPImageProcessor"},
            {"image_std", image_std},
            {"resample", static_cast<int>(resample)},
            {"rescale_factor", rescale_factor},
            {"size", size}};
}

CLIPImageProcessor::CLIPImageProcessor(CLIPImageProcessorConfig config)
    : config_(std::move(config)) {}

CLIPImageProcessor CLIPImageProcessor::from_folder(const std::filesystem::path& folder) {
    const auto path = folder / "preprocessor_config.json";
    if (!std::filesystem::exists(path)) {
        throw Error(ErrorCode::BadInput,
                    "'" + folder.string() + "' has no preprocessor_config.json.",
                    "Point at the image_processor/ folder of a Wan image-to-video pipeline.");
    }
    return CLIPImageProcessor(
        CLIPImageProcessorConfig::from_json(core::read_json_file(path), path.string()));
}

at::Tensor CLIPImageProcessor::resize_and_crop(const at::Tensor& image) const {
    at::Tensor current = to_rgb(image.cpu());
    if (config_.do_resize) {
        const auto [height, width] =
            config_.shortest_edge > 0
                ? shortest_edge_size(current.size(0), current.size(1), config_.shortest_edge)
                : std::pair{config_.resize_height, config_.resize_width};
        if (height != current.size(0) || width != current.size(1)) {
            current = pil_resize(current, width, height, config_.resample);
        }
    }
    if (config_.do_center_crop) {
        current = center_crop(current, config_.crop_height, config_.crop_width);
    }
    return current;
}

at::Tensor CLIPImageProcessor::preprocess(const at::Tensor& image) const {
    at::Tensor pixels = resize_and_crop(image).to(torch::kFloat64); // [h, w, 3]
    if (config_.do_rescale) {
        pixels = pixels * config_.rescale_factor;
    }
    pixels = pixels.to(torch::kFloat32);
    if (config_.do_normalize) {
        // numpy does (x - mean) / std with the statistics cast to the image's float32.
        const auto statistics = [](const std::vector<double>& values) {
            return torch::tensor(values, torch::kFloat64).to(torch::kFloat32);
        };
        pixels = (pixels - statistics(config_.image_mean)) / statistics(config_.image_std);
    }
    return pixels.permute({2, 0, 1}).unsqueeze(0).contiguous(); // [1, 3, h, w]
}

} // namespace tuneframe::models::clip
