#include "media/lanczos_resize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tuneframe::media {
namespace {

// Pillow keeps 8-bit filter weights in fixed point with 22 fractional bits, leaving room for the
// sum of up to 2^8 weighted 8-bit samples in a 32-bit int.
constexpr int kPrecisionBits = 32 - 8 - 2;
constexpr double kLanczosSupport = 3.0;

double sinc(double x) {
    if (x == 0.0) {
        return 1.0;
    }
    x *= M_PI;
    return std::sin(x) / x;
}

double lanczos(double x) {
    if (-kLanczosSupport <= x && x < kLanczosSupport) {
        return sinc(x) * sinc(x / kLanczosSupport);
    }
    return 0.0;
}

// For each output pixel: the first input pixel it reads, how many, and their fixed-point weights
// (kernel_size per output pixel, zero-padded), computed as Pillow's precompute_coeffs and
// normalize_coeffs_8bpc do.
struct Coefficients {
    int kernel_size = 0;
    std::vector<int> first;
    std::vector<int> count;
    std::vector<std::int32_t> weights;
};

Coefficients coefficients(int in_size, int out_size) {
    const double scale = static_cast<double>(in_size) / out_size;
    const double filter_scale = std::max(scale, 1.0);
    const double support = kLanczosSupport * filter_scale;
    Coefficients result;
    result.kernel_size = static_cast<int>(std::ceil(support)) * 2 + 1;
    result.first.resize(out_size);
    result.count.resize(out_size);
    result.weights.assign(static_cast<std::size_t>(out_size) * result.kernel_size, 0);
    std::vector<double> kernel(result.kernel_size);
    for (int out = 0; out < out_size; ++out) {
        const double center = (out + 0.5) * scale;
        // Truncation toward zero, as Pillow's (int) casts.
        const int first = std::max(static_cast<int>(center - support + 0.5), 0);
        const int last = std::min(static_cast<int>(center + support + 0.5), in_size);
        const int count = last - first;
        double total = 0.0;
        for (int i = 0; i < count; ++i) {
            kernel[i] = lanczos((i + first - center + 0.5) / filter_scale);
            total += kernel[i];
        }
        std::int32_t* weights = &result.weights[static_cast<std::size_t>(out) * result.kernel_size];
        for (int i = 0; i < count; ++i) {
            const double weight = total != 0.0 ? kernel[i] / total : kernel[i];
            const double fixed = weight * (1 << kPrecisionBits);
            weights[i] = static_cast<std::int32_t>(fixed < 0 ? fixed - 0.5 : fixed + 0.5);
        }
        result.first[out] = first;
        result.count[out] = count;
    }
    return result;
}

std::uint8_t clip8(std::int32_t value) {
    if (value >= (1 << kPrecisionBits) << 8) {
        return 255;
    }
    if (value <= 0) {
        return 0;
    }
    return static_cast<std::uint8_t>(value >> kPrecisionBits);
}

// One pass along x (stride 3 between samples) or y (stride 3 * width).
std::vector<std::uint8_t> resample_rows(const std::vector<std::uint8_t>& in, int in_width,
                                        int height, int out_width) {
    const Coefficients c = coefficients(in_width, out_width);
    std::vector<std::uint8_t> out(static_cast<std::size_t>(out_width) * height * 3);
    for (int y = 0; y < height; ++y) {
        const std::uint8_t* row = &in[static_cast<std::size_t>(y) * in_width * 3];
        std::uint8_t* target = &out[static_cast<std::size_t>(y) * out_width * 3];
        for (int x = 0; x < out_width; ++x) {
            const std::int32_t* weights = &c.weights[static_cast<std::size_t>(x) * c.kernel_size];
            for (int channel = 0; channel < 3; ++channel) {
                std::int32_t sum = 1 << (kPrecisionBits - 1);
                for (int i = 0; i < c.count[x]; ++i) {
                    sum += row[(c.first[x] + i) * 3 + channel] * weights[i];
                }
                target[x * 3 + channel] = clip8(sum);
            }
        }
    }
    return out;
}

std::vector<std::uint8_t> resample_columns(const std::vector<std::uint8_t>& in, int width,
                                           int in_height, int out_height) {
    const Coefficients c = coefficients(in_height, out_height);
    const std::size_t stride = static_cast<std::size_t>(width) * 3;
    std::vector<std::uint8_t> out(stride * out_height);
    for (int y = 0; y < out_height; ++y) {
        const std::int32_t* weights = &c.weights[static_cast<std::size_t>(y) * c.kernel_size];
        std::uint8_t* target = &out[stride * y];
        for (std::size_t column = 0; column < stride; ++column) {
            std::int32_t sum = 1 << (kPrecisionBits - 1);
            for (int i = 0; i < c.count[y]; ++i) {
                sum += in[stride * (c.first[y] + i) + column] * weights[i];
            }
            target[column] = clip8(sum);
        }
    }
    return out;
}

} // namespace

Frame resize_lanczos(const Frame& frame, int width, int height) {
    if (frame.width < 1 || frame.height < 1 ||
        frame.rgb.size() != static_cast<std::size_t>(frame.width) * frame.height * 3) {
        throw std::invalid_argument("resize_lanczos: the frame is empty or its size and bytes "
                                    "disagree");
    }
    if (width < 1 || height < 1) {
        throw std::invalid_argument("resize_lanczos: the target size must be at least 1x1, not " +
                                    std::to_string(width) + "x" + std::to_string(height));
    }
    // Pillow runs the horizontal pass first and skips a pass whose size does not change.
    std::vector<std::uint8_t> pixels = frame.rgb;
    if (width != frame.width) {
        pixels = resample_rows(pixels, frame.width, frame.height, width);
    }
    if (height != frame.height) {
        pixels = resample_columns(pixels, width, frame.height, height);
    }
    Frame result;
    result.width = width;
    result.height = height;
    result.index = frame.index;
    result.pts_seconds = frame.pts_seconds;
    result.rgb = std::move(pixels);
    return result;
}

} // namespace tuneframe::media
