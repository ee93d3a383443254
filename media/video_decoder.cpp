#include "media/video_decoder.h"

namespace tuneframe::media {

namespace {

// Far more than any codec's reorder delay plus frame threads; reaching it means the packets
// are not decoding into pictures at all.
constexpr int kMaxPacketsWithoutFrame = 512;
constexpr const char* kRecopyHint =
    "The file is probably damaged; copy or export it again, or re-encode it with ffmpeg.";

} // namespace

VideoDecoder::VideoDecoder(const InputFile& input, int threads)
    : packet_(av_packet_alloc())
    , frame_(av_frame_alloc()) {
    const AVStream* stream = input.video_stream();
    const AVCodec* codec = avcodec_find_decoder(stream->codecpar->codec_id);
    codec_.reset(avcodec_alloc_context3(codec));
    if (!codec_ || !packet_ || !frame_) {
        input.fail(ErrorReason::Io, "could not be decoded: out of memory", "Close other programs.");
    }
    int result = avcodec_parameters_to_context(codec_.get(), stream->codecpar);
    if (result >= 0) {
        codec_->thread_count = threads;
        codec_->pkt_timebase = stream->time_base;
        result = avcodec_open2(codec_.get(), codec, nullptr);
    }
    if (result < 0) {
        input.fail(ErrorReason::Unsupported, "has a video stream the decoder refuses to open",
                   kRecopyHint, result);
    }
}

void VideoDecoder::reset(bool skip_to_keyframe) {
    avcodec_flush_buffers(codec_.get());
    input_ended_ = false;
    skip_to_keyframe_ = skip_to_keyframe;
}

AVFrame* VideoDecoder::next_frame(InputFile& input) {
    for (int packets = 0; packets <= kMaxPacketsWithoutFrame; ++packets) {
        const int received = avcodec_receive_frame(codec_.get(), frame_.get());
        if (received == 0) {
            return frame_.get();
        }
        if (received == AVERROR_EOF) {
            return nullptr;
        }
        if (received == AVERROR(ENOMEM)) {
            input.fail(ErrorReason::Io, "could not be decoded: out of memory",
                       "Close other programs.", received);
        }
        // Any other error is one damaged picture (frame-threaded decoders report them here):
        // skip it, as players do; the loop bound stops a file damaged throughout.
        if (received == AVERROR(EAGAIN) && !feed_one_packet(input)) {
            return nullptr;
        }
    }
    input.fail(ErrorReason::Corrupt, "has hundreds of packets in a row that decode to no picture",
               kRecopyHint);
}

// Sends one packet (or the end-of-stream marker); false only when nothing more can come out.
bool VideoDecoder::feed_one_packet(InputFile& input) {
    if (input_ended_) {
        return false;
    }
    for (;;) {
        if (!input.read_video_packet(packet_.get())) {
            input_ended_ = true;
            // A null packet drains the frames the decoder still holds for reordering.
            avcodec_send_packet(codec_.get(), nullptr);
            return true;
        }
        if (skip_to_keyframe_ && (packet_->flags & AV_PKT_FLAG_KEY) == 0) {
            av_packet_unref(packet_.get());
            continue;
        }
        skip_to_keyframe_ = false;
        // A damaged packet is dropped rather than fatal: the decoder conceals what it can and
        // kMaxPacketsWithoutFrame stops a file that is damaged throughout.
        avcodec_send_packet(codec_.get(), packet_.get());
        av_packet_unref(packet_.get());
        return true;
    }
}

} // namespace tuneframe::media
