#include "media/probe.h"

#include "media/display_rotation.h"
#include "media/input_file.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

#include <cmath>
#include <cstring>

namespace tuneframe::media {

namespace {

bool is_image_demuxer(const AVInputFormat* format) {
    const char* name = format->name;
    const size_t length = std::strlen(name);
    const bool pipe = length > 5 && std::strcmp(name + length - 5, "_pipe") == 0;
    return pipe || std::strcmp(name, "image2") == 0;
}

Rational average_frame_rate(const AVStream* stream) {
    AVRational rate = stream->avg_frame_rate;
    if (rate.num <= 0 || rate.den <= 0) {
        rate = stream->r_frame_rate;
    }
    if (rate.num <= 0 || rate.den <= 0) {
        return {};
    }
    return {rate.num, rate.den};
}

double duration_seconds(const AVFormatContext* format, const AVStream* stream) {
    if (stream->duration != AV_NOPTS_VALUE && stream->duration > 0) {
        return static_cast<double>(stream->duration) * av_q2d(stream->time_base);
    }
    if (format->duration != AV_NOPTS_VALUE && format->duration > 0) {
        return static_cast<double>(format->duration) / AV_TIME_BASE;
    }
    return 0.0;
}

bool has_audio_stream(const AVFormatContext* format) {
    for (unsigned i = 0; i < format->nb_streams; ++i) {
        if (format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) {
            return true;
        }
    }
    return false;
}

void fill_frame_count(const AVStream* stream, ProbeInfo& info) {
    if (info.is_image) {
        info.frame_count = 1;
        info.frame_count_exact = true;
    } else if (stream->nb_frames > 0) {
        info.frame_count = stream->nb_frames;
        info.frame_count_exact = true;
    } else {
        info.frame_count = std::llround(info.duration_seconds * info.fps);
        info.frame_count_exact = false;
    }
}

} // namespace

ProbeInfo describe(const InputFile& input) {
    const AVFormatContext* format = input.format();
    const AVStream* stream = input.video_stream();
    const AVCodecParameters* codec = stream->codecpar;

    ProbeInfo info;
    info.path = input.path();
    info.format_name = format->iformat->name;
    info.codec_name = avcodec_get_name(codec->codec_id);
    const char* pixel_format = av_get_pix_fmt_name(static_cast<AVPixelFormat>(codec->format));
    info.pixel_format = pixel_format != nullptr ? pixel_format : "";
    info.coded_width = codec->width;
    info.coded_height = codec->height;
    info.rotation_degrees = stream_rotation_degrees(stream);
    const bool quarter_turn = info.rotation_degrees == 90 || info.rotation_degrees == 270;
    info.display_width = quarter_turn ? codec->height : codec->width;
    info.display_height = quarter_turn ? codec->width : codec->height;
    info.frame_rate = average_frame_rate(stream);
    info.fps = info.frame_rate.value();
    info.is_image = is_image_demuxer(format->iformat);
    info.duration_seconds = info.is_image ? 0.0 : duration_seconds(format, stream);
    info.has_audio = has_audio_stream(format);
    fill_frame_count(stream, info);
    return info;
}

ProbeInfo probe(const std::string& path, const std::atomic<bool>* cancel_requested) {
    const InputFile input(path, InputFile::kDefaultStallTimeout, cancel_requested);
    return describe(input);
}

} // namespace tuneframe::media
