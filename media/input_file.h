// Internal: an opened media file and its best video stream. It turns every way opening can fail
// into a MediaError, and guards each blocking FFmpeg call with a stall deadline (an
// AVIOInterruptCB) so a pathological file cannot hang its caller.
#pragma once

#include "media/ffmpeg_handles.h"
#include "media/media_error.h"
#include "media/probe.h"

#include <atomic>
#include <chrono>
#include <string>

namespace tuneframe::media {

class InputFile {
public:
    static constexpr std::chrono::milliseconds kDefaultStallTimeout{10000};

    // cancel_requested (may be null): when it turns true, the FFmpeg call under way stops and
    // throws MediaError(Io) saying it was cancelled.
    explicit InputFile(std::string path,
                       std::chrono::milliseconds stall_timeout = kDefaultStallTimeout,
                       const std::atomic<bool>* cancel_requested = nullptr);
    // The interrupt callback points at this object, so it must stay where it is.
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    const std::string& path() const { return path_; }
    AVFormatContext* format() const { return format_.get(); }
    AVStream* video_stream() const { return format_->streams[video_index_]; }
    int video_index() const { return video_index_; }

    // Next packet of the video stream. False at the end of the readable data; a read error
    // (typically a truncated file) also ends the stream and is remembered in read_error().
    bool read_video_packet(AVPacket* packet);
    int read_error() const { return read_error_; }

    // Seeks the video stream to the keyframe at or before timestamp (stream time base).
    bool seek_backward(int64_t timestamp);
    // Back to the first packet; returns false when the demuxer cannot.
    bool rewind();

    [[noreturn]] void fail(ErrorReason reason, const std::string& problem, const std::string& hint,
                           int ffmpeg_code = 0) const;

private:
    static int interrupt_requested(void* opaque);
    void arm_deadline();
    void check_file_on_disk() const;
    void open();
    [[noreturn]] void fail_open(int code) const;
    // For AVERROR_EXIT: cancelled, or stalled past the deadline.
    [[noreturn]] void fail_interrupted(const std::string& while_doing, int code) const;
    void select_video_stream();

    std::string path_;
    std::chrono::milliseconds stall_timeout_;
    std::chrono::steady_clock::time_point deadline_;
    const std::atomic<bool>* cancel_requested_;
    InputFormatPtr format_;
    int video_index_ = -1;
    int read_error_ = 0;
};

// What probe() reports, for an already opened file (defined in probe.cpp).
ProbeInfo describe(const InputFile& input);

} // namespace tuneframe::media
