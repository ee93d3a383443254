// VideoReader: frame-accurate decoding of one video file into RGB24 Frames.
//   VideoReader reader("clip.mp4");              // throws MediaError if it is not a video
//   reader.seek(120);                            // the next read() returns frame 120
//   while (auto frame = reader.read()) { ... }   // steps on without seeking again
//   auto clip = reader.decode_range(0, 49, {720, 480, ResizeMode::Cover});
// Frame numbers are display order from 0. Seeking goes to the keyframe before the target and
// decodes forward, matching frames by timestamp, so it is exact with B-frames too.
// A reader is used by one thread at a time; readers share nothing, so one per thread is safe.
//
// Truncated files: read() hands out every frame that still decodes, then reports the end;
// seek() and decode_range() throw MediaError(Corrupt) for frames the file lists but lost.
#pragma once

#include "media/frame.h"
#include "media/media_error.h"
#include "media/probe.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tuneframe::media {

struct ReaderOptions {
    int decoder_threads = 0; // 0: FFmpeg picks one per core
    // A single FFmpeg read that makes no progress for this long fails with MediaError(Io), so
    // a hung network drive or a demuxer looping on a hostile file cannot block the caller.
    std::chrono::milliseconds stall_timeout{10000};
    // When it turns true, the read under way stops with MediaError(Io) (may be null).
    const std::atomic<bool>* cancel_requested = nullptr;
};

class VideoReader {
public:
    explicit VideoReader(const std::string& path, ReaderOptions options = {});
    ~VideoReader();
    VideoReader(VideoReader&&) noexcept;
    VideoReader& operator=(VideoReader&&) noexcept;

    // Header facts, as probe() reports them.
    const ProbeInfo& info() const;
    // Exact number of frames. The first call demuxes the whole file (no decoding) to index
    // every frame's timestamp; seek() needs the same index and builds it the same way.
    int64_t frame_count();

    // Size, resize mode and rotation of the frames read() returns (default: as displayed).
    void set_output(const DecodeOptions& options);
    const DecodeOptions& output() const;

    // Makes frame_index the next frame read() returns. Stepping forward within the same group
    // of pictures decodes on instead of seeking, so frame-stepping stays cheap.
    void seek(int64_t frame_index);
    // The next frame in display order, or nullopt at the end of the stream.
    std::optional<Frame> read();
    // The frame number the next read() returns.
    int64_t position() const;

    // Exactly count frames from first on, converted with options; leaves the reader after them.
    std::vector<Frame> decode_range(int64_t first, int64_t count, const DecodeOptions& options);

private:
    class Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace tuneframe::media
