#include "media/encoder_setup.h"

#include "media/display_rotation.h"
#include "media/media_error.h"

extern "C" {
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

#include <cstring>
#include <utility>

namespace tuneframe::media {

namespace {

constexpr const char* kListEncodersHint =
    "Run `ffmpeg -encoders` to see the encoders this FFmpeg build has.";

// FFmpeg's mpeg-family encoders default to 200 kb/s, which blurs anything above thumbnail
// size; a fixed quantiser gives them the constant quality CRF gives x264.
bool uses_fixed_quantiser(AVCodecID id) {
    switch (id) {
    case AV_CODEC_ID_MPEG1VIDEO:
    case AV_CODEC_ID_MPEG2VIDEO:
    case AV_CODEC_ID_MPEG4:
    case AV_CODEC_ID_MJPEG:
    case AV_CODEC_ID_H263P:
        return true;
    default:
        return false;
    }
}

bool supports(const AVCodec* codec, AVPixelFormat format) {
    if (codec->pix_fmts == nullptr) {
        return true;
    }
    for (const AVPixelFormat* p = codec->pix_fmts; *p != AV_PIX_FMT_NONE; ++p) {
        if (*p == format) {
            return true;
        }
    }
    return false;
}

} // namespace

bool is_mov_family(const AVOutputFormat* format) {
    return std::strcmp(format->name, "mp4") == 0 || std::strcmp(format->name, "mov") == 0;
}

EncoderSetup::EncoderSetup(std::string path, int width, int height, const WriterOptions& options)
    : path_(std::move(path))
    , width_(width)
    , height_(height)
    , options_(options) {
    choose_container();
    choose_encoder();
    choose_pixel_format();
    check_size();
}

void EncoderSetup::fail(ErrorReason reason, const std::string& problem, const std::string& hint,
                        int code) const {
    throw MediaError(reason, path_, problem, hint,
                     code == 0 ? std::string() : ffmpeg_error_string(code));
}

bool EncoderSetup::uses_bt709() const {
    const AVPixFmtDescriptor* descriptor = av_pix_fmt_desc_get(pixel_format_);
    return (descriptor->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL)) == 0 &&
           descriptor->nb_components >= 3;
}

void EncoderSetup::choose_container() {
    const char* name = options_.container.empty() ? nullptr : options_.container.c_str();
    container_ = av_guess_format(name, path_.c_str(), nullptr);
    if (container_ == nullptr) {
        fail(ErrorReason::InvalidArgument, "cannot be written: no container matches its extension",
             "Use .mp4, .mov, .mkv, .webm, .gif or .mpg, or set WriterOptions::container.");
    }
    if (options_.rotation_degrees % 90 != 0) {
        fail(ErrorReason::InvalidArgument,
             "cannot be written with a rotation that is not a multiple of 90 degrees",
             "Use 0, 90, 180 or 270.");
    }
    if (normalise_rotation(options_.rotation_degrees) != 0 && !is_mov_family(container_)) {
        fail(ErrorReason::Unsupported,
             std::string("cannot store a rotation in the ") + container_->name + " container",
             "Write .mp4 or .mov, or turn the frames yourself and write rotation 0.");
    }
}

void EncoderSetup::choose_encoder() {
    std::string name = options_.codec;
    if (name.empty()) {
        const std::string container = container_->name;
        if (container == "mp4" || container == "mov" || container == "matroska") {
            name = "libx264";
        } else if (container == "webm") {
            name = "libvpx-vp9";
        }
    }
    if (!name.empty()) {
        encoder_ = avcodec_find_encoder_by_name(name.c_str());
    } else {
        encoder_ = avcodec_find_encoder(
            av_guess_codec(container_, nullptr, path_.c_str(), nullptr, AVMEDIA_TYPE_VIDEO));
    }
    if (encoder_ == nullptr || encoder_->type != AVMEDIA_TYPE_VIDEO) {
        fail(ErrorReason::Unsupported,
             "cannot be written: there is no video encoder named \"" + name + "\"",
             kListEncodersHint);
    }
    if (avformat_query_codec(container_, encoder_->id, FF_COMPLIANCE_NORMAL) == 0) {
        fail(ErrorReason::InvalidArgument,
             std::string("cannot be written: the ") + container_->name + " container cannot hold " +
                 encoder_->name + " video",
             "Pick another codec or another file extension.");
    }
}

void EncoderSetup::choose_pixel_format() {
    if (!options_.pixel_format.empty()) {
        pixel_format_ = av_get_pix_fmt(options_.pixel_format.c_str());
        if (pixel_format_ == AV_PIX_FMT_NONE || !supports(encoder_, pixel_format_)) {
            fail(ErrorReason::InvalidArgument,
                 std::string("cannot be written: ") + encoder_->name +
                     " does not take pixel format \"" + options_.pixel_format + "\"",
                 "Leave WriterOptions::pixel_format empty to get a format it takes.");
        }
    } else if (encoder_->pix_fmts == nullptr) {
        pixel_format_ = AV_PIX_FMT_RGB24;
    } else if (supports(encoder_, AV_PIX_FMT_YUV420P)) {
        pixel_format_ = AV_PIX_FMT_YUV420P;
    } else {
        pixel_format_ =
            avcodec_find_best_pix_fmt_of_list(encoder_->pix_fmts, AV_PIX_FMT_RGB24, 0, nullptr);
    }
    if (sws_isSupportedOutput(pixel_format_) == 0) {
        fail(ErrorReason::Unsupported,
             std::string("cannot be written: no conversion from RGB to ") +
                 av_get_pix_fmt_name(pixel_format_),
             "Choose another WriterOptions::pixel_format.");
    }
}

void EncoderSetup::check_size() const {
    if (width_ <= 0 || height_ <= 0) {
        fail(ErrorReason::InvalidArgument,
             "cannot be written with size " + std::to_string(width_) + "x" +
                 std::to_string(height_),
             "Width and height must be at least 1.");
    }
    const AVPixFmtDescriptor* descriptor = av_pix_fmt_desc_get(pixel_format_);
    const int step_x = 1 << descriptor->log2_chroma_w;
    const int step_y = 1 << descriptor->log2_chroma_h;
    if (width_ % step_x != 0 || height_ % step_y != 0) {
        const int up_x = (width_ + step_x - 1) / step_x * step_x;
        const int up_y = (height_ + step_y - 1) / step_y * step_y;
        fail(ErrorReason::InvalidArgument,
             std::string("cannot be written: ") + encoder_->name + " in " + descriptor->name +
                 " needs a width divisible by " + std::to_string(step_x) +
                 " and a height divisible by " + std::to_string(step_y) + ", but the frames are " +
                 std::to_string(width_) + "x" + std::to_string(height_),
             "Resize or pad the frames to " + std::to_string(up_x) + "x" + std::to_string(up_y) +
                 ", or use pixel_format \"yuv444p\" or a codec that takes any size (ffv1, gif).");
    }
}

CodecContextPtr EncoderSetup::open_encoder() const {
    CodecContextPtr codec(avcodec_alloc_context3(encoder_));
    if (!codec) {
        fail(ErrorReason::Io, "cannot be written: out of memory", "Close other programs.");
    }
    if (options_.fps.num <= 0 || options_.fps.den <= 0) {
        fail(ErrorReason::InvalidArgument,
             "cannot be written with a frame rate of " + std::to_string(options_.fps.num) + "/" +
                 std::to_string(options_.fps.den),
             "Pass a positive frame rate such as 25/1 or 30000/1001.");
    }
    codec->width = width_;
    codec->height = height_;
    codec->pix_fmt = pixel_format_;
    codec->time_base = AVRational{options_.fps.den, options_.fps.num};
    codec->framerate = AVRational{options_.fps.num, options_.fps.den};
    if (options_.gop_size >= 0) {
        codec->gop_size = options_.gop_size;
    }
    if (options_.max_b_frames >= 0) {
        codec->max_b_frames = options_.max_b_frames;
    }
    if (uses_bt709()) {
        // VideoWriter converts RGB with the BT.709 matrix; untagged, players would guess.
        codec->colorspace = AVCOL_SPC_BT709;
        codec->color_primaries = AVCOL_PRI_BT709;
        codec->color_trc = AVCOL_TRC_BT709;
        codec->color_range = AVCOL_RANGE_MPEG;
    }
    if ((container_->flags & AVFMT_GLOBALHEADER) != 0) {
        codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    }
    configure_quality(codec.get());
    if (encoder_->id == AV_CODEC_ID_H264 && std::strcmp(encoder_->name, "libx264") == 0) {
        // x264's macroblock-tree rate control reads memory it never wrote when its vectors run
        // past the end of a row (seen on AVX-512 CPUs at most frame widths): the same frames
        // then encode to different bytes from run to run, depending on what the process held
        // there before. Without it the output is a function of the frames alone, at a slightly
        // higher bit rate for the same quality.
        av_opt_set_int(codec->priv_data, "mbtree", 0, 0);
    }
    const int opened = avcodec_open2(codec.get(), encoder_, nullptr);
    if (opened < 0) {
        fail(ErrorReason::InvalidArgument,
             std::string("cannot be written: the ") + encoder_->name +
                 " encoder refused these settings (size, frame rate or quality)",
             "MPEG-1/2 take only standard frame rates (24, 25, 30, 30000/1001, ...).", opened);
    }
    return codec;
}

void EncoderSetup::configure_quality(AVCodecContext* codec) const {
    const bool has_crf = av_opt_find(codec->priv_data, "crf", nullptr, 0, 0) != nullptr;
    if (options_.crf >= 0 && !has_crf) {
        fail(ErrorReason::InvalidArgument,
             std::string("cannot be written: the ") + encoder_->name + " encoder has no CRF",
             "Set WriterOptions::bit_rate instead, or leave crf at -1.");
    }
    if (options_.bit_rate > 0) {
        codec->bit_rate = options_.bit_rate;
        return;
    }
    if (has_crf) {
        int crf = options_.crf;
        if (crf < 0 && encoder_->id == AV_CODEC_ID_VP9) {
            crf = 32; // libvpx's own default is a 256 kb/s bitrate target, not a quality
        }
        if (crf >= 0) {
            av_opt_set_int(codec->priv_data, "crf", crf, 0);
            // libvpx treats crf as a cap unless the bitrate is 0 (pure constant quality).
            codec->bit_rate = 0;
        }
    } else if (uses_fixed_quantiser(encoder_->id)) {
        codec->flags |= AV_CODEC_FLAG_QSCALE;
        codec->global_quality = FF_QP2LAMBDA * 3;
    }
}

} // namespace tuneframe::media
