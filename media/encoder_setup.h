// Internal: turns WriterOptions into the container, encoder and pixel format VideoWriter
// uses, and opens the encoder. Every refusal is a MediaError that names the fix.
#pragma once

#include "media/ffmpeg_handles.h"
#include "media/video_writer.h"

#include <string>

namespace tuneframe::media {

class EncoderSetup {
public:
    // Chooses and checks everything that does not need an encoder instance.
    EncoderSetup(std::string path, int width, int height, const WriterOptions& options);

    const AVOutputFormat* container() const { return container_; }
    const AVCodec* encoder() const { return encoder_; }
    AVPixelFormat pixel_format() const { return pixel_format_; }
    // Pixel formats with YUV components are converted with BT.709 and tagged so.
    bool uses_bt709() const;
    // An encoder context with size, rate, quality and colour tags set, opened.
    CodecContextPtr open_encoder() const;

private:
    [[noreturn]] void fail(ErrorReason reason, const std::string& problem, const std::string& hint,
                           int code = 0) const;
    void choose_container();
    void choose_encoder();
    void choose_pixel_format();
    void check_size() const;
    void configure_quality(AVCodecContext* codec) const;

    std::string path_;
    int width_;
    int height_;
    WriterOptions options_;
    const AVOutputFormat* container_ = nullptr;
    const AVCodec* encoder_ = nullptr;
    AVPixelFormat pixel_format_ = AV_PIX_FMT_NONE;
};

// MP4 and MOV are the containers that store a display matrix (rotation) and know faststart.
bool is_mov_family(const AVOutputFormat* format);

} // namespace tuneframe::media
