#include "media/log_level.h"

extern "C" {
#include <libavutil/log.h>
}

namespace tuneframe::media {

void set_log_level(LogLevel level) {
    switch (level) {
    case LogLevel::Quiet:
        av_log_set_level(AV_LOG_QUIET);
        return;
    case LogLevel::Error:
        av_log_set_level(AV_LOG_ERROR);
        return;
    case LogLevel::Warning:
        av_log_set_level(AV_LOG_WARNING);
        return;
    case LogLevel::Info:
        av_log_set_level(AV_LOG_INFO);
        return;
    case LogLevel::Debug:
        av_log_set_level(AV_LOG_DEBUG);
        return;
    }
}

} // namespace tuneframe::media
