// FFmpeg logs to stderr through one process-wide setting. Programs call set_log_level() once at
// start-up (the default argument silences it); media/ never changes it behind their back.
// Errors reach callers as MediaError instead, with FFmpeg's error string included.
#pragma once

namespace tuneframe::media {

enum class LogLevel { Quiet, Error, Warning, Info, Debug };

// Sets FFmpeg's global log level; safe to call again, e.g. from a --verbose flag.
void set_log_level(LogLevel level = LogLevel::Quiet);

} // namespace tuneframe::media
