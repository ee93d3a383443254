#include "media/video_writer.h"

#include "media/display_rotation.h"
#include "media/encoder_setup.h"
#include "media/ffmpeg_handles.h"
#include "media/media_error.h"
#include "media/temp_file.h"

#include "common/free_space.h"

#include <cerrno>
#include <cstring>
#include <vector>

namespace tuneframe::media {

namespace {

constexpr const char* kEncodeHint = "Try another codec or pixel format in WriterOptions.";
// swscale's SIMD readers load up to 16 bytes past a row's last pixel; FFmpeg pads its own
// buffers by this much for that reason.
constexpr std::size_t kSourcePadding = 64;

// The errno behind an FFmpeg error code, when it is one (AVERROR(ENOSPC)); 0 for FFmpeg's own
// codes (AVERROR_INVALIDDATA, ...).
int system_error_of(int code) {
    return code < 0 && -code < 4096 ? -code : 0;
}

std::string hint_for(int error_number) {
    if (error_number == EFBIG) {
        return "The video grew past the largest file this drive (FAT32: 4 GiB) or the process's "
               "file size limit (ulimit -f) allows: write it to another drive.";
    }
    if (error_number == EIO) {
        return "The drive reported an error: check it and its connection, then try again.";
    }
    return "Free some disk space on the drive holding this file, then try again.";
}

} // namespace

class VideoWriter::Impl {
public:
    Impl(const std::string& path, int width, int height, const WriterOptions& options);
    ~Impl();

    void write(const uint8_t* rgb);
    void write(const Frame& frame);
    void finish();
    int64_t frames_written() const { return frames_written_; }
    const std::string& path() const { return path_; }

private:
    [[noreturn]] void fail(ErrorReason reason, const std::string& problem, const std::string& hint,
                           int code = 0) const;
    // A step that writes the file failed with `code`: an Io error about the drive when the
    // operating system refused (no space, a quota, the size limit, a disk error), the given one
    // otherwise.
    [[noreturn]] void fail_output(ErrorReason reason, const std::string& problem,
                                  const std::string& hint, int code) const;
    void open_stream();
    void open_output();
    void prepare_conversion();
    void encode(const AVFrame* frame);

    std::string path_;
    int width_;
    int height_;
    WriterOptions options_;
    EncoderSetup setup_;
    const AVOutputFormat* container_;
    TempFile temp_;
    OutputFormatPtr format_;
    CodecContextPtr codec_;
    AVStream* stream_ = nullptr;
    SwsContextPtr sws_;
    FramePtr frame_;
    // The caller's frame, copied into zero padding: swscale reads a little past its input's
    // last pixel (valgrind: an invalid read of 16 bytes), which is past the end of a caller's
    // tightly sized buffer.
    std::vector<uint8_t> source_;
    PacketPtr packet_;
    int64_t frames_written_ = 0;
    bool finished_ = false;
};

VideoWriter::Impl::Impl(const std::string& path, int width, int height,
                        const WriterOptions& options)
    : path_(path)
    , width_(width)
    , height_(height)
    , options_(options)
    , setup_(path, width, height, options)
    , container_(setup_.container())
    , temp_(path)
    , codec_(setup_.open_encoder())
    , source_(static_cast<std::size_t>(width) * height * 3 + kSourcePadding, 0)
    , packet_(av_packet_alloc()) {
    if (!packet_) {
        fail(ErrorReason::Io, "cannot be written: out of memory", "Close other programs.");
    }
    open_stream();
    open_output();
    prepare_conversion();
}

VideoWriter::Impl::~Impl() {
    // Unfinished: close FFmpeg's handle on the temporary file before TempFile removes it.
    if (format_ && format_->pb != nullptr && (container_->flags & AVFMT_NOFILE) == 0) {
        avio_closep(&format_->pb);
    }
}

void VideoWriter::Impl::fail(ErrorReason reason, const std::string& problem,
                             const std::string& hint, int code) const {
    throw MediaError(reason, path_, problem, hint,
                     code == 0 ? std::string() : ffmpeg_error_string(code));
}

void VideoWriter::Impl::fail_output(ErrorReason reason, const std::string& problem,
                                    const std::string& hint, int code) const {
    // A muxer may report a failed write as something else; its I/O context keeps the real one.
    int error_number = system_error_of(code);
    if (error_number == 0 && format_ && format_->pb != nullptr) {
        error_number = system_error_of(format_->pb->error);
    }
    if (common::is_out_of_space(error_number) || error_number == EIO) {
        std::string text = "could not be written: " + std::string(std::strerror(error_number));
        const std::string room = common::free_space_text(path_);
        if (!room.empty()) {
            text += " (" + room + ")";
        }
        fail(ErrorReason::Io, text, hint_for(error_number)); // FFmpeg's text would repeat it
    }
    fail(reason, problem, hint, code);
}

void VideoWriter::Impl::open_stream() {
    AVFormatContext* format = nullptr;
    // The temporary name has no useful extension, so the container is given explicitly; the
    // muxer's url must still be the temporary file (MP4 faststart reopens it by name).
    const int allocated =
        avformat_alloc_output_context2(&format, container_, nullptr, temp_.path().c_str());
    if (allocated < 0) {
        fail(ErrorReason::Io, "cannot be written: out of memory", "Close other programs.",
             allocated);
    }
    format_.reset(format);
    stream_ = avformat_new_stream(format_.get(), nullptr);
    if (stream_ == nullptr) {
        fail(ErrorReason::Io, "cannot be written: out of memory", "Close other programs.");
    }
    stream_->time_base = codec_->time_base;
    stream_->avg_frame_rate = codec_->framerate;
    avcodec_parameters_from_context(stream_->codecpar, codec_.get());
    const int rotation = normalise_rotation(options_.rotation_degrees);
    if (rotation != 0 && !set_stream_rotation(stream_, rotation)) {
        fail(ErrorReason::Io, "cannot be written: out of memory", "Close other programs.");
    }
}

void VideoWriter::Impl::open_output() {
    if ((container_->flags & AVFMT_NOFILE) == 0) {
        const int opened = avio_open(&format_->pb, temp_.path().c_str(), AVIO_FLAG_WRITE);
        if (opened < 0) {
            fail(ErrorReason::Io, "cannot be written: its temporary file cannot be opened",
                 "Check that the folder is writable.", opened);
        }
    }
    AVDictionary* muxer_options = nullptr;
    if (is_mov_family(container_) && options_.faststart) {
        av_dict_set(&muxer_options, "movflags", "+faststart", 0);
    }
    if (std::strcmp(container_->name, "image2") == 0) {
        // One picture to exactly this name, rather than a numbered sequence.
        av_dict_set(&muxer_options, "update", "1", 0);
    }
    const int written = avformat_write_header(format_.get(), &muxer_options);
    av_dict_free(&muxer_options);
    if (written < 0) {
        fail_output(ErrorReason::InvalidArgument,
                    "cannot be written: the container refused the stream settings",
                    "Pick another codec or another file extension.", written);
    }
}

void VideoWriter::Impl::prepare_conversion() {
    sws_.reset(sws_getContext(width_, height_, AV_PIX_FMT_RGB24, width_, height_,
                              setup_.pixel_format(), SWS_BICUBIC, nullptr, nullptr, nullptr));
    frame_.reset(av_frame_alloc());
    if (!sws_ || !frame_) {
        fail(ErrorReason::Unsupported, "cannot be written: no conversion from RGB24",
             "Choose another WriterOptions::pixel_format.");
    }
    if (setup_.uses_bt709()) {
        sws_setColorspaceDetails(sws_.get(), sws_getCoefficients(SWS_CS_DEFAULT), 1,
                                 sws_getCoefficients(SWS_CS_ITU709), 0, 0, 1 << 16, 1 << 16);
    }
    frame_->format = setup_.pixel_format();
    frame_->width = width_;
    frame_->height = height_;
    const int allocated = av_frame_get_buffer(frame_.get(), 0);
    if (allocated < 0) {
        fail(ErrorReason::Io, "cannot be written: out of memory", "Close other programs.",
             allocated);
    }
}

void VideoWriter::Impl::write(const Frame& frame) {
    if (frame.width != width_ || frame.height != height_ ||
        frame.rgb.size() != static_cast<size_t>(width_) * height_ * 3) {
        fail(ErrorReason::InvalidArgument,
             "cannot take a " + std::to_string(frame.width) + "x" + std::to_string(frame.height) +
                 " frame (" + std::to_string(frame.rgb.size()) +
                 " bytes): the writer was opened at " + std::to_string(width_) + "x" +
                 std::to_string(height_),
             "Resize frames to the writer's size before writing them.");
    }
    write(frame.rgb.data());
}

void VideoWriter::Impl::write(const uint8_t* rgb) {
    if (finished_) {
        fail(ErrorReason::InvalidArgument, "is already finished", "Open a new VideoWriter.");
    }
    const int writable = av_frame_make_writable(frame_.get());
    if (writable < 0) {
        fail(ErrorReason::Io, "cannot be written: out of memory", "Close other programs.",
             writable);
    }
    std::memcpy(source_.data(), rgb, static_cast<std::size_t>(width_) * height_ * 3);
    const uint8_t* source[4] = {source_.data(), nullptr, nullptr, nullptr};
    const int source_stride[4] = {width_ * 3, 0, 0, 0};
    sws_scale(sws_.get(), source, source_stride, 0, height_, frame_->data, frame_->linesize);
    frame_->pts = frames_written_;
    encode(frame_.get());
    ++frames_written_;
}

// frame == nullptr drains the encoder.
void VideoWriter::Impl::encode(const AVFrame* frame) {
    int result = avcodec_send_frame(codec_.get(), frame);
    if (result < 0) {
        fail(ErrorReason::InvalidArgument, "could not be encoded", kEncodeHint, result);
    }
    for (;;) {
        result = avcodec_receive_packet(codec_.get(), packet_.get());
        if (result == AVERROR(EAGAIN) || result == AVERROR_EOF) {
            return;
        }
        if (result < 0) {
            fail(ErrorReason::InvalidArgument, "could not be encoded", kEncodeHint, result);
        }
        av_packet_rescale_ts(packet_.get(), codec_->time_base, stream_->time_base);
        packet_->stream_index = stream_->index;
        result = av_interleaved_write_frame(format_.get(), packet_.get());
        if (result < 0) {
            fail_output(ErrorReason::Io, "could not be written to disk",
                        "Check that the disk has free space.", result);
        }
    }
}

void VideoWriter::Impl::finish() {
    if (finished_) {
        fail(ErrorReason::InvalidArgument, "is already finished", "Call finish() once.");
    }
    if (frames_written_ == 0) {
        fail(ErrorReason::InvalidArgument, "cannot be written without frames",
             "Write at least one frame before finish().");
    }
    encode(nullptr);
    int result = av_write_trailer(format_.get());
    if (result < 0) {
        fail_output(ErrorReason::Io, "could not be completed",
                    "Check that the disk has free space.", result);
    }
    if ((container_->flags & AVFMT_NOFILE) == 0) {
        // avio_closep forgets the context, and with it the error it kept.
        const int kept = format_->pb->error;
        result = avio_closep(&format_->pb);
        if (result < 0 || kept < 0) {
            fail_output(ErrorReason::Io, "could not be completed",
                        "Check that the disk has free space.", result < 0 ? result : kept);
        }
    }
    temp_.commit();
    finished_ = true;
}

VideoWriter::VideoWriter(const std::string& path, int width, int height, WriterOptions options)
    : impl_(std::make_unique<Impl>(path, width, height, options)) {}
VideoWriter::~VideoWriter() = default;
VideoWriter::VideoWriter(VideoWriter&&) noexcept = default;
VideoWriter& VideoWriter::operator=(VideoWriter&&) noexcept = default;

void VideoWriter::write(const Frame& frame) {
    impl_->write(frame);
}
void VideoWriter::write(const uint8_t* rgb) {
    impl_->write(rgb);
}
void VideoWriter::finish() {
    impl_->finish();
}
int64_t VideoWriter::frames_written() const {
    return impl_->frames_written();
}
const std::string& VideoWriter::path() const {
    return impl_->path();
}

} // namespace tuneframe::media
