#include "engine/data/frame_placement.h"

#include "engine/core/error.h"

#include <algorithm>
#include <cmath>

namespace tuneframe::data {
namespace {

std::uint64_t split_mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

int scaled(int size, double factor) {
    return std::max(1, static_cast<int>(std::lround(size * factor)));
}

} // namespace

ResizeMode parse_resize_mode(const std::string& name) {
    if (name == "stretch") {
        return ResizeMode::Stretch;
    }
    if (name == "center_crop") {
        return ResizeMode::CenterCrop;
    }
    if (name == "random_crop") {
        return ResizeMode::RandomCrop;
    }
    throw core::Error(core::ErrorCode::BadInput, "Unknown dataset.resize_mode '" + name + "'.",
                      "Use stretch, center_crop or random_crop.");
}

std::string_view to_string(ResizeMode mode) {
    switch (mode) {
    case ResizeMode::Stretch:
        return "stretch";
    case ResizeMode::CenterCrop:
        return "center_crop";
    case ResizeMode::RandomCrop:
        return "random_crop";
    case ResizeMode::Invalid:
        break;
    }
    return "invalid";
}

FramePlacement place_frames(ResizeMode mode, int display_width, int display_height,
                            int bucket_width, int bucket_height, std::uint64_t seed,
                            std::int64_t clip_index) {
    if (display_width <= 0 || display_height <= 0 || bucket_width <= 0 || bucket_height <= 0 ||
        mode == ResizeMode::Invalid) {
        throw core::Error(core::ErrorCode::Internal,
                          "place_frames needs positive sizes and a resize mode");
    }
    FramePlacement placement;
    placement.mode = mode;
    placement.width = bucket_width;
    placement.height = bucket_height;
    if (mode == ResizeMode::Stretch) {
        placement.scaled_width = bucket_width;
        placement.scaled_height = bucket_height;
        return placement;
    }
    const double factor = std::max(static_cast<double>(bucket_width) / display_width,
                                   static_cast<double>(bucket_height) / display_height);
    placement.scaled_width = std::max(bucket_width, scaled(display_width, factor));
    placement.scaled_height = std::max(bucket_height, scaled(display_height, factor));
    const int spare_x = placement.scaled_width - bucket_width;
    const int spare_y = placement.scaled_height - bucket_height;
    if (mode == ResizeMode::CenterCrop) {
        placement.crop_x = spare_x / 2;
        placement.crop_y = spare_y / 2;
        return placement;
    }
    const std::uint64_t first = split_mix(seed ^ split_mix(static_cast<std::uint64_t>(clip_index)));
    const std::uint64_t second = split_mix(first);
    placement.crop_x = static_cast<int>(first % static_cast<std::uint64_t>(spare_x + 1));
    placement.crop_y = static_cast<int>(second % static_cast<std::uint64_t>(spare_y + 1));
    return placement;
}

} // namespace tuneframe::data
