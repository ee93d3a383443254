#include "media/frame_converter.h"

#include "media/display_rotation.h"
#include "media/media_error.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace tuneframe::media {

namespace {

// What swscale's widest stores need: rows start 64-byte aligned and the last one has room to
// spare.
constexpr size_t kRowAlignment = 64;

int scaled(int size, double factor) {
    return std::max(1, static_cast<int>(std::lround(size * factor)));
}

// Fills a missing side from the other so that the display aspect ratio is kept.
void complete_box(int display_width, int display_height, int& width, int& height) {
    if (width == 0 && height == 0) {
        width = display_width;
        height = display_height;
    } else if (width == 0) {
        width = scaled(display_width, static_cast<double>(height) / display_height);
    } else if (height == 0) {
        height = scaled(display_height, static_cast<double>(width) / display_width);
    }
}

std::vector<uint8_t> crop(const std::vector<uint8_t>& rgb, int width, const OutputPlan& plan) {
    std::vector<uint8_t> out(static_cast<size_t>(plan.width) * plan.height * 3);
    const size_t row_bytes = static_cast<size_t>(plan.width) * 3;
    for (int y = 0; y < plan.height; ++y) {
        const size_t source = (static_cast<size_t>(y + plan.crop_y) * width + plan.crop_x) * 3;
        std::memcpy(&out[y * row_bytes], &rgb[source], row_bytes);
    }
    return out;
}

// Without this, swscale assumes BT.601 limited range, so HD (BT.709) and full-range (JPEG,
// many phones) clips come out with shifted colours. RGB sources (GIF, PNG) have no details.
void use_source_colours(SwsContext* sws, const AVFrame& frame) {
    int* source_table = nullptr;
    int* destination_table = nullptr;
    int source_range = 0;
    int destination_range = 0;
    int brightness = 0;
    int contrast = 0;
    int saturation = 0;
    if (sws_getColorspaceDetails(sws, &source_table, &source_range, &destination_table,
                                 &destination_range, &brightness, &contrast, &saturation) < 0) {
        return;
    }
    const int colorspace =
        frame.colorspace == AVCOL_SPC_UNSPECIFIED ? SWS_CS_DEFAULT : frame.colorspace;
    // yuvj* formats already set source_range; the frame's tag covers the rest.
    const int full_range = frame.color_range == AVCOL_RANGE_JPEG ? 1 : source_range;
    sws_setColorspaceDetails(sws, sws_getCoefficients(colorspace), full_range,
                             sws_getCoefficients(SWS_CS_DEFAULT), 1, brightness, contrast,
                             saturation);
}

} // namespace

OutputPlan plan_output(int display_width, int display_height, const DecodeOptions& options) {
    if (options.width < 0 || options.height < 0) {
        throw std::invalid_argument("output width and height must not be negative");
    }
    int box_width = options.width;
    int box_height = options.height;
    complete_box(display_width, display_height, box_width, box_height);
    const double fit_x = static_cast<double>(box_width) / display_width;
    const double fit_y = static_cast<double>(box_height) / display_height;

    OutputPlan plan;
    if (options.resize == ResizeMode::Stretch) {
        plan.scaled_width = box_width;
        plan.scaled_height = box_height;
    } else if (options.resize == ResizeMode::Fit) {
        const double factor = std::min(fit_x, fit_y);
        plan.scaled_width = std::min(box_width, scaled(display_width, factor));
        plan.scaled_height = std::min(box_height, scaled(display_height, factor));
    } else {
        const double factor = std::max(fit_x, fit_y);
        plan.scaled_width = std::max(box_width, scaled(display_width, factor));
        plan.scaled_height = std::max(box_height, scaled(display_height, factor));
    }
    plan.width = std::min(box_width, plan.scaled_width);
    plan.height = std::min(box_height, plan.scaled_height);
    plan.crop_x = (plan.scaled_width - plan.width) / 2;
    plan.crop_y = (plan.scaled_height - plan.height) / 2;
    return plan;
}

Frame FrameConverter::convert(const AVFrame& frame, const DecodeOptions& options,
                              int rotation_degrees) {
    const int rotation = options.apply_rotation ? normalise_rotation(rotation_degrees) : 0;
    const bool quarter_turn = rotation == 90 || rotation == 270;
    const int display_width = quarter_turn ? frame.height : frame.width;
    const int display_height = quarter_turn ? frame.width : frame.height;
    OutputPlan plan;
    try {
        plan = plan_output(display_width, display_height, options);
    } catch (const std::invalid_argument& error) {
        throw MediaError(ErrorReason::InvalidArgument, path_,
                         std::string("cannot be decoded as asked: ") + error.what(),
                         "Pass an output width and height of 0 (source size) or more.");
    }

    // Scale first and turn afterwards: turning the smaller picture is cheaper.
    Frame out;
    out.width = quarter_turn ? plan.scaled_height : plan.scaled_width;
    out.height = quarter_turn ? plan.scaled_width : plan.scaled_height;
    out.rgb = scale(frame, out.width, out.height);
    if (rotation != 0) {
        out.rgb = rotate_rgb(out.rgb, out.width, out.height, rotation);
    }
    if (plan.width != out.width || plan.height != out.height) {
        out.rgb = crop(out.rgb, out.width, plan);
        out.width = plan.width;
        out.height = plan.height;
    }
    return out;
}

std::vector<uint8_t> FrameConverter::scale(const AVFrame& frame, int width, int height) {
    const auto format = static_cast<AVPixelFormat>(frame.format);
    sws_.reset(sws_getCachedContext(sws_.release(), frame.width, frame.height, format, width,
                                    height, AV_PIX_FMT_RGB24, SWS_BICUBIC, nullptr, nullptr,
                                    nullptr));
    if (!sws_) {
        const char* name = av_get_pix_fmt_name(format);
        throw MediaError(ErrorReason::Unsupported, path_,
                         std::string("has pixel format ") + (name != nullptr ? name : "unknown") +
                             ", which cannot be converted to RGB",
                         "Convert it to H.264 MP4 first, e.g. ffmpeg -i in -c:v libx264 out.mp4.");
    }
    use_source_colours(sws_.get(), frame);
    // swscale's vector code stores whole registers: on narrow pictures (2 pixels wide, say) it
    // writes past a tightly packed row, so it writes into aligned, padded rows and the pixels
    // are packed afterwards.
    const size_t row_bytes = static_cast<size_t>(width) * 3;
    const size_t stride = (row_bytes + kRowAlignment - 1) / kRowAlignment * kRowAlignment;
    std::vector<uint8_t> padded(stride * static_cast<size_t>(height) + kRowAlignment);
    uint8_t* destination[4] = {padded.data(), nullptr, nullptr, nullptr};
    const int destination_stride[4] = {static_cast<int>(stride), 0, 0, 0};
    sws_scale(sws_.get(), frame.data, frame.linesize, 0, frame.height, destination,
              destination_stride);
    std::vector<uint8_t> rgb(row_bytes * static_cast<size_t>(height));
    for (size_t y = 0; y < static_cast<size_t>(height); ++y) {
        std::memcpy(&rgb[y * row_bytes], &padded[y * stride], row_bytes);
    }
    return rgb;
}

} // namespace tuneframe::media
