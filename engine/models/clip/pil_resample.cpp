#include "engine/models/clip/pil_resample.h"

#include "engine/core/error.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace tuneframe::models::clip {
namespace {

using core::Error;
using core::ErrorCode;

// 8 bits of result, two of headroom for filters whose lobes overshoot.
constexpr int kPrecisionBits = 32 - 8 - 2;

struct Filter {
    double (*weight)(double);
    double support;
};

double box_filter(double x) {
    return x > -0.5 && x <= 0.5 ? 1.0 : 0.0;
}

double bilinear_filter(double x) {
    x = std::abs(x);
    return x < 1.0 ? 1.0 - x : 0.0;
}

double hamming_filter(double x) {
    x = std::abs(x);
    if (x == 0.0) {
        return 1.0;
    }
    if (x >= 1.0) {
        return 0.0;
    }
    x *= M_PI;
    // Pillow writes the window's constants as floats.
    return std::sin(x) / x * (0.54f + 0.46f * std::cos(x));
}

double bicubic_filter(double x) {
    constexpr double a = -0.5;
    x = std::abs(x);
    if (x < 1.0) {
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
    }
    if (x < 2.0) {
        return (((x - 5) * x + 8) * x - 4) * a;
    }
    return 0.0;
}

double sinc(double x) {
    if (x == 0.0) {
        return 1.0;
    }
    x *= M_PI;
    return std::sin(x) / x;
}

double lanczos_filter(double x) {
    return -3.0 <= x && x < 3.0 ? sinc(x) * sinc(x / 3) : 0.0;
}

Filter filter_of(PilResample resample) {
    switch (resample) {
    case PilResample::Box:
        return {box_filter, 0.5};
    case PilResample::Bilinear:
        return {bilinear_filter, 1.0};
    case PilResample::Hamming:
        return {hamming_filter, 1.0};
    case PilResample::Bicubic:
        return {bicubic_filter, 2.0};
    case PilResample::Lanczos:
        return {lanczos_filter, 3.0};
    case PilResample::Nearest:
        break;
    }
    throw Error(ErrorCode::Unsupported,
                "resample " + std::to_string(static_cast<int>(resample)) +
                    " (nearest) is not supported for CLIP images.",
                "Use 3 (bicubic) in preprocessor_config.json, as CLIP processors do.");
}

// One output sample's taps: the first input index and a fixed-point weight per tap.
struct Taps {
    std::int64_t first = 0;
    std::vector<std::int32_t> weights;
};

// precompute_coeffs + normalize_coeffs_8bpc for the box [0, in_size).
std::vector<Taps> coefficients(std::int64_t in_size, std::int64_t out_size, const Filter& filter) {
    const double scale = static_cast<double>(static_cast<float>(in_size)) / out_size;
    const double filter_scale = std::max(scale, 1.0);
    const double support = filter.support * filter_scale;
    const double inverse_scale = 1.0 / filter_scale;
    std::vector<Taps> taps(static_cast<std::size_t>(out_size));
    for (std::int64_t out = 0; out < out_size; ++out) {
        const double center = (out + 0.5) * scale;
        // Truncation toward zero, as C's (int) cast.
        const auto first = std::max<std::int64_t>(static_cast<int>(center - support + 0.5), 0);
        const auto end = std::min<std::int64_t>(static_cast<int>(center + support + 0.5), in_size);
        std::vector<double> weights;
        double total = 0.0;
        for (std::int64_t x = first; x < end; ++x) {
            weights.push_back(filter.weight((x - center + 0.5) * inverse_scale));
            total += weights.back();
        }
        Taps& entry = taps[static_cast<std::size_t>(out)];
        entry.first = first;
        for (double weight : weights) {
            const double normalised = total != 0.0 ? weight / total : weight;
            const double fixed = normalised * (1 << kPrecisionBits);
            entry.weights.push_back(
                static_cast<std::int32_t>(normalised < 0 ? fixed - 0.5 : fixed + 0.5));
        }
    }
    return taps;
}

std::uint8_t clip8(std::int64_t sum) {
    return static_cast<std::uint8_t>(std::clamp<std::int64_t>(sum >> kPrecisionBits, 0, 255));
}

// One pass along `axis` (1: columns of [H, W, C], 0: rows), every other index and channel alike.
at::Tensor resample_axis(const at::Tensor& image, int axis, std::int64_t out_size,
                         const Filter& filter) {
    const std::int64_t height = image.size(0);
    const std::int64_t width = image.size(1);
    const std::int64_t channels = image.size(2);
    const std::vector<Taps> taps = coefficients(image.size(axis), out_size, filter);
    const std::int64_t out_height = axis == 0 ? out_size : height;
    const std::int64_t out_width = axis == 1 ? out_size : width;
    at::Tensor out = torch::empty({out_height, out_width, channels}, torch::kUInt8);
    const std::uint8_t* in = image.data_ptr<std::uint8_t>();
    std::uint8_t* result = out.data_ptr<std::uint8_t>();
    // Input strides along the resampled axis and along the kept one, in elements.
    const std::int64_t step = axis == 1 ? channels : width * channels;
    const std::int64_t across = axis == 1 ? width * channels : channels;
    const std::int64_t kept = axis == 1 ? height : width;
    for (std::int64_t o = 0; o < out_size; ++o) {
        const Taps& tap = taps[static_cast<std::size_t>(o)];
        for (std::int64_t k = 0; k < kept; ++k) {
            for (std::int64_t c = 0; c < channels; ++c) {
                std::int64_t sum = std::int64_t{1} << (kPrecisionBits - 1);
                const std::uint8_t* source = in + k * across + tap.first * step + c;
                for (std::size_t t = 0; t < tap.weights.size(); ++t) {
                    sum += static_cast<std::int64_t>(source[static_cast<std::int64_t>(t) * step]) *
                           tap.weights[t];
                }
                const std::int64_t row = axis == 1 ? k : o;
                const std::int64_t column = axis == 1 ? o : k;
                result[(row * out_width + column) * channels + c] = clip8(sum);
            }
        }
    }
    return out;
}

} // namespace

at::Tensor pil_resize(const at::Tensor& image, std::int64_t width, std::int64_t height,
                      PilResample resample) {
    if (image.dim() != 3 || image.scalar_type() != torch::kUInt8 || image.size(0) < 1 ||
        image.size(1) < 1) {
        throw Error(ErrorCode::BadInput,
                    "an image to resize must be a uint8 [height, width, channels] tensor, not " +
                        std::string(c10::toString(image.scalar_type())) + " " +
                        c10::str(image.sizes()) + ".",
                    "Decode the image to 8-bit RGB first.");
    }
    if (width < 1 || height < 1) {
        throw Error(ErrorCode::BadInput,
                    "cannot resize an image to " + std::to_string(width) + "x" +
                        std::to_string(height) + ".",
                    "Check the processor's size in preprocessor_config.json.");
    }
    const Filter filter = filter_of(resample);
    at::Tensor current = image.contiguous();
    if (width != current.size(1)) {
        current = resample_axis(current, 1, width, filter);
    }
    if (height != current.size(0)) {
        current = resample_axis(current, 0, height, filter);
    }
    return current.is_same(image) ? image.clone() : current;
}

} // namespace tuneframe::models::clip
