#include "media/input_file.h"

#include <array>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace tuneframe::media {

namespace {

namespace fs = std::filesystem;

constexpr const char* kChooseVideoHint =
    "Choose a video file (.mp4, .mov, .mkv, .webm, .gif, .mpg) or an image.";
constexpr const char* kStalledHint =
    "If it is on a network or removable drive, check the connection; otherwise copy it again.";
constexpr const char* kRecopyHint =
    "The file is probably truncated or damaged; copy or export it again.";

// Sniffs the first bytes without the file name, so a text file renamed .mp4 is not mistaken for
// a damaged MP4 while a real MP4 that lost its end still is.
bool looks_like_known_container(const std::string& path) {
    std::array<unsigned char, 4096 + AVPROBE_PADDING_SIZE> buffer{};
    std::ifstream stream(path, std::ios::binary);
    stream.read(reinterpret_cast<char*>(buffer.data()), 4096);
    AVProbeData probe_data{};
    probe_data.filename = "";
    probe_data.buf = buffer.data();
    probe_data.buf_size = static_cast<int>(stream.gcount());
    int score = 0;
    const AVInputFormat* format = av_probe_input_format2(&probe_data, 1, &score);
    return format != nullptr && score >= AVPROBE_SCORE_MAX / 2;
}

} // namespace

InputFile::InputFile(std::string path, std::chrono::milliseconds stall_timeout,
                     const std::atomic<bool>* cancel_requested)
    : path_(std::move(path))
    , stall_timeout_(stall_timeout)
    , cancel_requested_(cancel_requested) {
    check_file_on_disk();
    open();
    select_video_stream();
}

void InputFile::fail(ErrorReason reason, const std::string& problem, const std::string& hint,
                     int ffmpeg_code) const {
    throw MediaError(reason, path_, problem, hint,
                     ffmpeg_code == 0 ? std::string() : ffmpeg_error_string(ffmpeg_code));
}

int InputFile::interrupt_requested(void* opaque) {
    const auto* self = static_cast<const InputFile*>(opaque);
    if (self->cancel_requested_ != nullptr && self->cancel_requested_->load()) {
        return 1;
    }
    return std::chrono::steady_clock::now() > self->deadline_ ? 1 : 0;
}

void InputFile::arm_deadline() {
    deadline_ = std::chrono::steady_clock::now() + stall_timeout_;
}

// FFmpeg would report most of these as a bare "No such file" or "Invalid data"; checking first
// gives each its own reason, and keeps FIFOs and devices (which could block forever) out.
void InputFile::check_file_on_disk() const {
    std::error_code error;
    const fs::file_status status = fs::status(path_, error);
    if (status.type() == fs::file_type::not_found) {
        fail(ErrorReason::NotFound, "does not exist",
             "Check the path, or whether the clip was moved or renamed.");
    }
    if (error) {
        fail(ErrorReason::Io, "cannot be examined: " + error.message(),
             "Check the file's permissions and the folder's.");
    }
    if (status.type() == fs::file_type::directory) {
        fail(ErrorReason::NotAVideo, "is a folder, not a video file",
             "Choose a file inside the folder, or import the folder instead.");
    }
    if (status.type() != fs::file_type::regular) {
        fail(ErrorReason::InvalidArgument, "is not a regular file (a device, pipe or socket)",
             kChooseVideoHint);
    }
    if (fs::file_size(path_, error) == 0 && !error) {
        fail(ErrorReason::Empty, "is empty (0 bytes)",
             "The copy or download probably failed; copy the clip again.");
    }
}

void InputFile::open() {
    AVFormatContext* context = avformat_alloc_context();
    if (context == nullptr) {
        fail(ErrorReason::Io, "could not be opened: out of memory", "Close other programs.");
    }
    context->interrupt_callback = {&InputFile::interrupt_requested, this};
    arm_deadline();
    // avformat_open_input frees the context itself when it fails.
    const int opened = avformat_open_input(&context, path_.c_str(), nullptr, nullptr);
    if (opened < 0) {
        fail_open(opened);
    }
    format_.reset(context);
    arm_deadline();
    const int found = avformat_find_stream_info(format_.get(), nullptr);
    if (found == AVERROR_EXIT) {
        fail_interrupted("analysed", found);
    }
    if (found < 0) {
        fail(ErrorReason::Corrupt, "could not be read: its streams could not be analysed",
             kRecopyHint, found);
    }
}

void InputFile::fail_open(int code) const {
    if (code == AVERROR(ENOENT)) {
        fail(ErrorReason::NotFound, "does not exist", "Check the path.", code);
    }
    if (code == AVERROR(EACCES) || code == AVERROR(EPERM)) {
        fail(ErrorReason::Io, "cannot be read: permission denied", "Check the file's permissions.",
             code);
    }
    if (code == AVERROR_EXIT) {
        fail_interrupted("opened", code);
    }
    if (looks_like_known_container(path_)) {
        fail(ErrorReason::Corrupt,
             "looks like a video but its header or index is missing or damaged, as happens to "
             "an MP4 cut short before its moov atom",
             kRecopyHint, code);
    }
    fail(ErrorReason::NotAVideo, "is not a video or image FFmpeg recognises", kChooseVideoHint,
         code);
}

void InputFile::fail_interrupted(const std::string& while_doing, int code) const {
    if (cancel_requested_ != nullptr && cancel_requested_->load()) {
        fail(ErrorReason::Io, "was cancelled while being " + while_doing, "", code);
    }
    fail(ErrorReason::Io, "stopped delivering data while being " + while_doing, kStalledHint, code);
}

void InputFile::select_video_stream() {
    const int index = av_find_best_stream(format_.get(), AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
    if (index == AVERROR_STREAM_NOT_FOUND) {
        fail(ErrorReason::NotAVideo, "has no video stream", kChooseVideoHint);
    }
    if (index < 0) {
        fail(ErrorReason::Unsupported, "has a video stream this FFmpeg build cannot decode",
             "Convert it to H.264 MP4 first, e.g. ffmpeg -i in -c:v libx264 out.mp4.", index);
    }
    const AVStream* stream = format_->streams[index];
    if ((stream->disposition & AV_DISPOSITION_ATTACHED_PIC) != 0) {
        fail(ErrorReason::NotAVideo, "holds only cover art, not a video", kChooseVideoHint);
    }
    if (stream->codecpar->width <= 0 || stream->codecpar->height <= 0) {
        fail(ErrorReason::Corrupt, "has a video stream without a picture size", kRecopyHint);
    }
    if (avcodec_find_decoder(stream->codecpar->codec_id) == nullptr) {
        fail(ErrorReason::Unsupported,
             std::string("uses the codec ") + avcodec_get_name(stream->codecpar->codec_id) +
                 ", which this FFmpeg build cannot decode",
             "Convert it to H.264 MP4 first, e.g. ffmpeg -i in -c:v libx264 out.mp4.");
    }
    video_index_ = index;
}

bool InputFile::read_video_packet(AVPacket* packet) {
    for (;;) {
        arm_deadline();
        const int result = av_read_frame(format_.get(), packet);
        if (result == AVERROR_EXIT) {
            fail_interrupted("read", result);
        }
        if (result < 0) {
            read_error_ = result == AVERROR_EOF ? 0 : result;
            return false;
        }
        if (packet->stream_index == video_index_) {
            return true;
        }
        av_packet_unref(packet);
    }
}

bool InputFile::seek_backward(int64_t timestamp) {
    arm_deadline();
    read_error_ = 0;
    return av_seek_frame(format_.get(), video_index_, timestamp, AVSEEK_FLAG_BACKWARD) >= 0;
}

bool InputFile::rewind() {
    arm_deadline();
    read_error_ = 0;
    const AVStream* stream = video_stream();
    const int64_t start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    if (av_seek_frame(format_.get(), video_index_, start, AVSEEK_FLAG_BACKWARD) >= 0) {
        return true;
    }
    if ((format_->iformat->flags & AVFMT_NO_BYTE_SEEK) != 0) {
        return false;
    }
    return av_seek_frame(format_.get(), video_index_, 0, AVSEEK_FLAG_BYTE) >= 0;
}

} // namespace tuneframe::media
