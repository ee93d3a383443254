#include "engine/data/clip_preprocessor.h"

#include "engine/core/error.h"

#ifdef TUNEFRAME_HAVE_MEDIA
#include "media/frame_check.h"
#include "media/video_reader.h"
#endif

#include <torch/torch.h>

#include <cstring>

namespace tuneframe::data {

ClipError::ClipError(std::string reason, const std::string& message)
    : std::runtime_error(message)
    , reason_(std::move(reason)) {}

#ifdef TUNEFRAME_HAVE_MEDIA

namespace {

ClipError clip_error(const media::MediaError& error) {
    return ClipError(media::to_string(error.reason()), error.what());
}

media::DecodeOptions decode_options(const FramePlacement& placement) {
    switch (placement.mode) {
    case ResizeMode::Stretch:
        return {placement.width, placement.height, media::ResizeMode::Stretch, true};
    case ResizeMode::CenterCrop:
        return {placement.width, placement.height, media::ResizeMode::Cover, true};
    case ResizeMode::RandomCrop:
        // Decoded at the cover size; the crop window is cut out of the tensor afterwards.
        return {placement.scaled_width, placement.scaled_height, media::ResizeMode::Stretch, true};
    case ResizeMode::Invalid:
        break;
    }
    throw core::Error(core::ErrorCode::Internal, "decode without a resize mode");
}

} // namespace

struct ClipPreprocessor::Impl {
    explicit Impl(const std::filesystem::path& file)
        : path(file)
        , reader(file.string()) {}
    std::filesystem::path path;
    media::VideoReader reader;
};

ClipPreprocessor::ClipPreprocessor(const std::filesystem::path& file) {
    try {
        impl_ = std::make_unique<Impl>(file);
    } catch (const media::MediaError& error) {
        throw clip_error(error);
    }
}

ClipPreprocessor::~ClipPreprocessor() = default;

std::int64_t ClipPreprocessor::frame_count() {
    media::FrameCheck check;
    try {
        // The frames a bucket takes are decoded later anyway, and a cached clip needs none.
        check = media::check_frames(impl_->reader, media::LastFrame::Skip);
    } catch (const media::MediaError& error) {
        throw clip_error(error);
    }
    switch (check.problem) {
    case media::FrameProblem::Truncated:
        // As the studio flags it on import: left out, not trained on the frames that remain.
        throw ClipError("truncated", "The file \"" + impl_->path.string() +
                                         "\" is cut short: " + check.detail +
                                         ". It is left out rather than trained on the frames it "
                                         "still has; copy or export the clip again.");
    case media::FrameProblem::NoFrames:
        throw ClipError("corrupt", "The file \"" + impl_->path.string() + "\" holds no frame (" +
                                       check.detail + "); copy or export the clip again.");
    case media::FrameProblem::None:
        break;
    }
    return check.frames;
}

int ClipPreprocessor::display_width() const {
    return impl_->reader.info().display_width;
}

int ClipPreprocessor::display_height() const {
    return impl_->reader.info().display_height;
}

at::Tensor ClipPreprocessor::decode(const std::vector<std::int64_t>& frame_indices,
                                    const FramePlacement& placement) {
    const media::DecodeOptions options = decode_options(placement);
    const auto frames = static_cast<std::int64_t>(frame_indices.size());
    at::Tensor pixels = torch::empty({frames, options.height, options.width, 3}, torch::kUInt8);
    const std::size_t frame_bytes = static_cast<std::size_t>(options.width) * options.height * 3;
    std::int64_t done = 0;
    try {
        // Runs of consecutive indices decode in one pass; strided ones one frame at a time,
        // which the reader serves by decoding on within a group of pictures.
        while (done < frames) {
            std::int64_t run = 1;
            while (done + run < frames && frame_indices[done + run] == frame_indices[done] + run) {
                ++run;
            }
            const std::vector<media::Frame> decoded =
                impl_->reader.decode_range(frame_indices[done], run, options);
            if (decoded.size() != static_cast<std::size_t>(run)) {
                throw ClipError("corrupt", "The clip ends before frame " +
                                               std::to_string(frame_indices[done] + run - 1) + ".");
            }
            for (const media::Frame& frame : decoded) {
                if (frame.width != options.width || frame.height != options.height ||
                    frame.rgb.size() != frame_bytes) {
                    throw core::Error(core::ErrorCode::Internal,
                                      "the reader returned a " + std::to_string(frame.width) + "x" +
                                          std::to_string(frame.height) + " frame, not " +
                                          std::to_string(options.width) + "x" +
                                          std::to_string(options.height));
                }
                std::memcpy(pixels[done].data_ptr<std::uint8_t>(), frame.rgb.data(), frame_bytes);
                ++done;
            }
        }
    } catch (const media::MediaError& error) {
        throw clip_error(error);
    }
    if (placement.mode == ResizeMode::RandomCrop) {
        using torch::indexing::Slice;
        pixels =
            pixels.index({Slice(), Slice(placement.crop_y, placement.crop_y + placement.height),
                          Slice(placement.crop_x, placement.crop_x + placement.width)});
    }
    // [F, H, W, 3] bytes -> [1, 3, F, H, W] in [-1, 1], cogvideox-factory's x / 255 * 2 - 1.
    return (pixels.permute({3, 0, 1, 2}).unsqueeze(0).to(torch::kFloat) / 255.0 * 2.0 - 1.0)
        .contiguous();
}

#else

struct ClipPreprocessor::Impl {};

ClipPreprocessor::ClipPreprocessor(const std::filesystem::path& file) {
    throw core::Error(core::ErrorCode::Unsupported,
                      "This engine was built without FFmpeg, so it cannot read '" + file.string() +
                          "'.",
                      "Prepare the dataset with an engine built with TUNEFRAME_WITH_FFMPEG=ON; "
                      "the cache it writes works here.");
}

ClipPreprocessor::~ClipPreprocessor() = default;

std::int64_t ClipPreprocessor::frame_count() {
    return 0;
}

int ClipPreprocessor::display_width() const {
    return 0;
}

int ClipPreprocessor::display_height() const {
    return 0;
}

at::Tensor ClipPreprocessor::decode(const std::vector<std::int64_t>&, const FramePlacement&) {
    return {};
}

#endif

} // namespace tuneframe::data
