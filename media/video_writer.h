// VideoWriter: encodes RGB24 frames into a video file, atomically.
//   VideoWriter writer("out.mp4", 720, 480);        // H.264 in MP4, yuv420p, 25 fps, CRF 23
//   for (const Frame& f : frames) writer.write(f);
//   writer.finish();                                 // only now does out.mp4 appear
// Frames go to "out.mp4.tmp-XXXXXX" in the same folder; finish() flushes the encoder, fsyncs
// and renames. A writer destroyed before finish() removes its temporary file, so a failed or
// abandoned export never leaves a half-written video behind. A write the drive refuses (no
// space, a quota, the file size limit) is MediaError(Io) saying so and how much space is left.
// The same frames and options give the same bytes, whatever else the process holds in memory.
//
// Odd sizes: codecs storing chroma at half resolution (yuv420p, the default for H.264, VP9,
// MPEG-2, MPEG-4) need an even width and height. The writer refuses odd sizes there with
// MediaError(InvalidArgument) instead of cropping or padding silently; use pixel_format
// "yuv444p" (VP9, ffv1, H.264 High 4:4:4) or a codec such as gif or ffv1 for odd sizes.
#pragma once

#include "media/frame.h"
#include "media/media_error.h"

#include <cstdint>
#include <memory>
#include <string>

namespace tuneframe::media {

struct WriterOptions {
    Rational fps{25, 1};
    // FFmpeg muxer name ("mp4", "mov", "matroska", "webm", "gif", "mpeg", "image2");
    // empty: chosen from the file extension.
    std::string container;
    // FFmpeg encoder name ("libx264", "libvpx-vp9", "mpeg2video", "mpeg4", "gif", "ffv1",
    // "png"); empty: libx264 for mp4/mov/mkv, libvpx-vp9 for webm, otherwise the container's
    // own default.
    std::string codec;
    // Empty: yuv420p where the encoder takes it, otherwise the format closest to RGB24.
    std::string pixel_format;
    // Constant-quality factor for encoders that have one (libx264, libx265, libvpx-vp9);
    // -1 picks 23 for libx264 and 32 for VP9. Setting it for other encoders is an error.
    int crf = -1;
    int64_t bit_rate = 0;  // bits per second; 0: quality-based (crf or a fixed quantiser)
    int gop_size = -1;     // frames between keyframes; -1: encoder default
    int max_b_frames = -1; // -1: encoder default (libx264 uses B-frames, mpeg2video does not)
    // Clockwise turn a player applies when showing the video (display matrix), 0/90/180/270.
    // Stored only by MP4 and MOV; other containers refuse a non-zero rotation.
    int rotation_degrees = 0;
    // MP4/MOV: index (moov atom) at the front, so playback can start before the download ends.
    bool faststart = true;
};

class VideoWriter {
public:
    // Opens the encoder and the temporary file; throws MediaError (InvalidArgument for bad
    // options or sizes, Unsupported for a missing encoder, Io for the folder).
    VideoWriter(const std::string& path, int width, int height, WriterOptions options = {});
    ~VideoWriter();
    VideoWriter(VideoWriter&&) noexcept;
    VideoWriter& operator=(VideoWriter&&) noexcept;

    // frame.width/height must equal the writer's; index and pts are ignored (frames are
    // spaced 1/fps apart in the order written).
    void write(const Frame& frame);
    // rgb holds 3 * width * height bytes, tightly packed.
    void write(const uint8_t* rgb);
    // Flushes the encoder, finishes the container and moves the file into place; MediaError(Io)
    // when the drive refuses the rest of the file.
    void finish();

    int64_t frames_written() const;
    const std::string& path() const;

private:
    class Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace tuneframe::media
