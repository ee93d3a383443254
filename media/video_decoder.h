// Internal: a video decoder fed from an InputFile, handing out frames in display order. It
// bounds the work done per frame so a file whose packets never decode ends in a MediaError.
#pragma once

#include "media/ffmpeg_handles.h"
#include "media/input_file.h"

namespace tuneframe::media {

class VideoDecoder {
public:
    // threads: 0 lets FFmpeg pick one per core.
    VideoDecoder(const InputFile& input, int threads);

    // The next decoded frame (owned by the decoder, valid until the next call), or nullptr once
    // the stream is exhausted.
    AVFrame* next_frame(InputFile& input);
    // Forgets buffered frames after the input was repositioned. With skip_to_keyframe, packets
    // before the next keyframe are dropped: a seek may land on a P-frame whose references are
    // gone, and decoding it would hand out a broken picture with a plausible timestamp.
    void reset(bool skip_to_keyframe);

private:
    bool feed_one_packet(InputFile& input);

    CodecContextPtr codec_;
    PacketPtr packet_;
    FramePtr frame_;
    bool input_ended_ = false;
    bool skip_to_keyframe_ = false;
};

} // namespace tuneframe::media
