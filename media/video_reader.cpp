#include "media/video_reader.h"

#include "media/frame_converter.h"
#include "media/frame_index.h"
#include "media/input_file.h"
#include "media/video_decoder.h"

namespace tuneframe::media {

namespace {

constexpr const char* kRecopyHint =
    "The file is probably truncated or damaged; copy or export it again.";

} // namespace

class VideoReader::Impl {
public:
    Impl(const std::string& path, ReaderOptions options)
        : options_(options)
        , input_(std::make_unique<InputFile>(path, options.stall_timeout, options.cancel_requested))
        , info_(describe(*input_))
        , decoder_(*input_, options.decoder_threads)
        , converter_(path) {}

    const ProbeInfo& info() const { return info_; }
    int64_t frame_count() { return index().size(); }
    DecodeOptions& output() { return output_; }
    int64_t position() const { return next_index_; }

    void seek(int64_t target);
    std::optional<Frame> read(const DecodeOptions& options);
    std::vector<Frame> decode_range(int64_t first, int64_t count, const DecodeOptions& options);

private:
    const FrameIndex& index();
    void check_readable(int64_t first, int64_t count);
    bool decode_until(int64_t target);
    bool seek_to_keyframe(int64_t target);
    void rewind();
    int64_t index_of(const AVFrame& frame) const;
    Frame to_frame(const AVFrame& decoded, int64_t frame_index, const DecodeOptions& options);

    ReaderOptions options_;
    std::unique_ptr<InputFile> input_;
    ProbeInfo info_;
    VideoDecoder decoder_;
    FrameConverter converter_;
    DecodeOptions output_;
    std::optional<FrameIndex> index_;
    int64_t next_index_ = 0;
    // A frame seek() decoded and read() has not handed out yet; owned by decoder_.
    AVFrame* pending_ = nullptr;
    bool ended_ = false;
    // next_index_ describes the decoder's position; false after a failed seek.
    bool positioned_ = true;
};

const FrameIndex& VideoReader::Impl::index() {
    if (!index_) {
        // A second handle, so building the index does not move the one frames are read from.
        InputFile scan_input(input_->path(), options_.stall_timeout, options_.cancel_requested);
        index_ = FrameIndex::scan(scan_input);
    }
    return *index_;
}

void VideoReader::Impl::check_readable(int64_t first, int64_t count) {
    const int64_t available = index().size();
    const int64_t end = first + count;
    if (first >= 0 && count >= 0 && end <= available) {
        return;
    }
    const bool lost_frames =
        index().ended_early() || (info_.frame_count_exact && info_.frame_count > available &&
                                  end <= info_.frame_count && first >= 0 && count >= 0);
    if (lost_frames) {
        input_->fail(ErrorReason::Corrupt,
                     "lists " + std::to_string(info_.frame_count) + " frames but only the first " +
                         std::to_string(available) + " can be read",
                     kRecopyHint);
    }
    if (available == 0) {
        input_->fail(ErrorReason::Corrupt, "has no frame that can be read", kRecopyHint);
    }
    const std::string asked =
        count == 1 ? "frame " + std::to_string(first)
                   : std::to_string(count) + " frames from frame " + std::to_string(first);
    input_->fail(ErrorReason::InvalidArgument,
                 "has " + std::to_string(available) + " frames, numbered 0 to " +
                     std::to_string(available - 1) + ", so it cannot give " + asked,
                 "Ask for frames inside that range.");
}

int64_t VideoReader::Impl::index_of(const AVFrame& frame) const {
    if (index_ && index_->has_timestamps() && index_->size() > 0 &&
        frame.best_effort_timestamp != AV_NOPTS_VALUE) {
        return index_->index_of(frame.best_effort_timestamp);
    }
    return next_index_;
}

// Decodes forward until the frame at target; false when the stream passes it or ends first.
bool VideoReader::Impl::decode_until(int64_t target) {
    pending_ = nullptr;
    for (;;) {
        AVFrame* frame = decoder_.next_frame(*input_);
        if (frame == nullptr) {
            ended_ = true;
            return false;
        }
        const int64_t frame_index = index_of(*frame);
        if (frame_index == target) {
            pending_ = frame;
            next_index_ = target;
            positioned_ = true;
            return true;
        }
        if (frame_index > target) {
            return false;
        }
        next_index_ = frame_index + 1;
    }
}

bool VideoReader::Impl::seek_to_keyframe(int64_t target) {
    if (!index().has_timestamps()) {
        return false;
    }
    int64_t keyframe = 0;
    const int64_t timestamp = index().seek_timestamp(target, keyframe);
    if (!input_->seek_backward(timestamp)) {
        return false;
    }
    decoder_.reset(true);
    ended_ = false;
    next_index_ = keyframe;
    return decode_until(target);
}

// Counting frames needs the very first packet, and some demuxers (GIF, raw streams) cannot
// seek at all; a fresh handle always starts there. With timestamps, landing near the start is
// enough, because frames are matched by pts.
void VideoReader::Impl::rewind() {
    if (!index().has_timestamps() || !input_->rewind()) {
        input_ = std::make_unique<InputFile>(input_->path(), options_.stall_timeout,
                                             options_.cancel_requested);
    }
    decoder_.reset(false);
    ended_ = false;
    next_index_ = 0;
}

void VideoReader::Impl::seek(int64_t target) {
    check_readable(target, 1);
    if (positioned_ && pending_ != nullptr && next_index_ == target) {
        return;
    }
    int64_t keyframe = 0;
    if (index().has_timestamps()) {
        index().seek_timestamp(target, keyframe);
    }
    const bool step_forward =
        positioned_ && !ended_ && keyframe <= next_index_ && next_index_ <= target;
    positioned_ = false;
    if (step_forward && decode_until(target)) {
        return;
    }
    if (seek_to_keyframe(target)) {
        return;
    }
    rewind();
    if (decode_until(target)) {
        return;
    }
    input_->fail(ErrorReason::Corrupt,
                 "lists frame " + std::to_string(target) + " but it could not be decoded",
                 kRecopyHint);
}

std::optional<Frame> VideoReader::Impl::read(const DecodeOptions& options) {
    AVFrame* frame = pending_;
    pending_ = nullptr;
    if (frame == nullptr && !ended_) {
        frame = decoder_.next_frame(*input_);
    }
    if (frame == nullptr) {
        ended_ = true;
        return std::nullopt;
    }
    const int64_t frame_index = index_of(*frame);
    next_index_ = frame_index + 1;
    return to_frame(*frame, frame_index, options);
}

std::vector<Frame> VideoReader::Impl::decode_range(int64_t first, int64_t count,
                                                   const DecodeOptions& options) {
    check_readable(first, count);
    std::vector<Frame> frames;
    if (count == 0) {
        return frames;
    }
    seek(first);
    frames.reserve(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
        std::optional<Frame> frame = read(options);
        if (!frame) {
            input_->fail(ErrorReason::Corrupt,
                         "ends after frame " + std::to_string(first + i - 1) +
                             " although it lists " + std::to_string(index().size()) + " frames",
                         kRecopyHint);
        }
        frames.push_back(std::move(*frame));
    }
    return frames;
}

Frame VideoReader::Impl::to_frame(const AVFrame& decoded, int64_t frame_index,
                                  const DecodeOptions& options) {
    Frame frame = converter_.convert(decoded, options, info_.rotation_degrees);
    frame.index = frame_index;
    const AVStream* stream = input_->video_stream();
    const int64_t start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    if (decoded.best_effort_timestamp != AV_NOPTS_VALUE) {
        frame.pts_seconds =
            static_cast<double>(decoded.best_effort_timestamp - start) * av_q2d(stream->time_base);
    } else if (info_.fps > 0) {
        frame.pts_seconds = static_cast<double>(frame_index) / info_.fps;
    }
    return frame;
}

VideoReader::VideoReader(const std::string& path, ReaderOptions options)
    : impl_(std::make_unique<Impl>(path, options)) {}
VideoReader::~VideoReader() = default;
VideoReader::VideoReader(VideoReader&&) noexcept = default;
VideoReader& VideoReader::operator=(VideoReader&&) noexcept = default;

const ProbeInfo& VideoReader::info() const {
    return impl_->info();
}
int64_t VideoReader::frame_count() {
    return impl_->frame_count();
}
void VideoReader::set_output(const DecodeOptions& options) {
    impl_->output() = options;
}
const DecodeOptions& VideoReader::output() const {
    return impl_->output();
}
void VideoReader::seek(int64_t frame_index) {
    impl_->seek(frame_index);
}
std::optional<Frame> VideoReader::read() {
    return impl_->read(impl_->output());
}
int64_t VideoReader::position() const {
    return impl_->position();
}
std::vector<Frame> VideoReader::decode_range(int64_t first, int64_t count,
                                             const DecodeOptions& options) {
    return impl_->decode_range(first, count, options);
}

} // namespace tuneframe::media
