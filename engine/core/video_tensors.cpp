#include "engine/core/video_tensors.h"

#include "engine/core/error.h"

#ifdef TUNEFRAME_HAVE_MEDIA
#include "media/lanczos_resize.h"
#include "media/video_reader.h"
#include "media/video_writer.h"
#endif

#include <torch/torch.h>

#include <cstring>

namespace tuneframe::core {

#ifdef TUNEFRAME_HAVE_MEDIA

namespace {

Error media_failure(const media::MediaError& error) {
    const ErrorCode code =
        error.reason() == media::ErrorReason::Io ? ErrorCode::Io : ErrorCode::BadInput;
    return Error(code, error.what(), error.hint());
}

} // namespace

void write_video_file(const at::Tensor& video, const std::filesystem::path& path, int fps) {
    if (!video.defined() || video.dim() != 4 || video.size(1) != 3) {
        throw Error(ErrorCode::Internal,
                    "write_video_file needs [F, 3, H, W], not " +
                        (video.defined() ? c10::str(video.sizes()) : std::string("nothing")));
    }
    // [F, H, W, 3] bytes, as diffusers' (frame * 255).round() to uint8.
    const at::Tensor bytes = (video.to(torch::kCPU, torch::kFloat).clamp(0.0, 1.0) * 255.0)
                                 .round()
                                 .to(torch::kUInt8)
                                 .permute({0, 2, 3, 1})
                                 .contiguous();
    const int height = static_cast<int>(video.size(2));
    const int width = static_cast<int>(video.size(3));
    try {
        media::WriterOptions options;
        options.fps = media::Rational{fps, 1};
        media::VideoWriter writer(path.string(), width, height, options);
        const std::size_t frame_bytes = static_cast<std::size_t>(width) * height * 3;
        for (std::int64_t f = 0; f < bytes.size(0); ++f) {
            writer.write(bytes.data_ptr<std::uint8_t>() + frame_bytes * f);
        }
        writer.finish();
    } catch (const media::MediaError& error) {
        throw media_failure(error);
    }
}

at::Tensor read_image_file(const std::filesystem::path& path, std::int64_t height,
                           std::int64_t width) {
    media::Frame frame;
    try {
        media::VideoReader reader(path.string());
        std::optional<media::Frame> first = reader.read();
        if (!first) {
            throw Error(ErrorCode::BadInput,
                        "'" + path.string() + "' holds no picture that decodes.",
                        "Give a PNG, JPEG or WebP picture, or a video whose first frame to use.");
        }
        frame = std::move(*first);
        if ((height > 0 && height != frame.height) || (width > 0 && width != frame.width)) {
            frame = media::resize_lanczos(frame, static_cast<int>(width > 0 ? width : frame.width),
                                          static_cast<int>(height > 0 ? height : frame.height));
        }
    } catch (const media::MediaError& error) {
        throw media_failure(error);
    }
    at::Tensor pixels = torch::empty({frame.height, frame.width, 3}, torch::kUInt8);
    std::memcpy(pixels.data_ptr<std::uint8_t>(), frame.rgb.data(), frame.rgb.size());
    // Pillow's ToTensor: x / 255 in float32.
    return (pixels.permute({2, 0, 1}).unsqueeze(0).to(torch::kFloat) / 255.0).contiguous();
}

#else

void write_video_file(const at::Tensor&, const std::filesystem::path& path, int) {
    throw Error(ErrorCode::Unsupported,
                "This engine was built without FFmpeg, so it cannot write '" + path.string() + "'.",
                "Save tensors instead (--save-tensors), or build with TUNEFRAME_WITH_FFMPEG=ON.");
}

at::Tensor read_image_file(const std::filesystem::path& path, std::int64_t, std::int64_t) {
    throw Error(ErrorCode::Unsupported,
                "This engine was built without FFmpeg, so it cannot read '" + path.string() + "'.",
                "Give the image as a safetensors file holding `image` [1, 3, H, W] in [0, 1], or "
                "build with TUNEFRAME_WITH_FFMPEG=ON.");
}

#endif

} // namespace tuneframe::core
