#include "app/dataset/ClipInspector.h"

#include "app/dataset/ContentHasher.h"
#include "app/project/UserFile.h"
#include "media/frame_check.h"
#include "media/probe.h"
#include "media/video_reader.h"

#include <QFile>
#include <QFileInfo>

namespace {

namespace media = tuneframe::media;

ClipProblem problemFor(media::ErrorReason reason) {
    switch (reason) {
    case media::ErrorReason::NotFound:
        return ClipProblem::Missing;
    case media::ErrorReason::Empty:
        return ClipProblem::Empty;
    case media::ErrorReason::NotAVideo:
    case media::ErrorReason::InvalidArgument:
        return ClipProblem::NotAVideo;
    case media::ErrorReason::Unsupported:
        return ClipProblem::Unsupported;
    case media::ErrorReason::Io:
        return ClipProblem::Unreadable;
    case media::ErrorReason::Corrupt:
    case media::ErrorReason::None:
        break;
    }
    return ClipProblem::Corrupt;
}

void flag(ClipRecord& clip, ClipProblem problem, const QString& detail) {
    clip.problem = problem;
    clip.problemDetail = detail;
}

// Decodes what proves the file whole (media's check, the one prepare makes too); returns the
// exact frame count, or flags the record.
qint64 verifiedFrameCount(ClipRecord& clip, const media::ProbeInfo& info,
                          const std::string& nativePath, const std::atomic<bool>* cancelRequested) {
    media::ReaderOptions options;
    options.decoder_threads = 1;
    options.cancel_requested = cancelRequested;
    media::VideoReader reader(nativePath, options);
    if (info.is_image) {
        if (!reader.read()) {
            flag(clip, ClipProblem::Corrupt, QStringLiteral("the picture does not decode"));
            return 0;
        }
        return 1;
    }
    const media::FrameCheck check = media::check_frames(reader, media::LastFrame::Decode);
    switch (check.problem) {
    case media::FrameProblem::Truncated:
        flag(clip, ClipProblem::Truncated, QString::fromStdString(check.detail));
        break;
    case media::FrameProblem::NoFrames:
        flag(clip, ClipProblem::Corrupt, QString::fromStdString(check.detail));
        break;
    case media::FrameProblem::None:
        break;
    }
    return check.frames;
}

} // namespace

std::optional<ClipRecord> ClipInspector::inspect(const QString& path,
                                                 const std::atomic<bool>* cancelRequested) {
    ClipRecord clip;
    clip.path = path;
    const QFileInfo info(path);
    if (!info.exists()) {
        flag(clip, ClipProblem::Missing, QStringLiteral("no such file"));
        return clip;
    }
    if (info.isDir()) {
        flag(clip, ClipProblem::NotAVideo, QStringLiteral("a folder, not a file"));
        return clip;
    }
    // The plan already left special files out; this catches one swapped in since.
    const UserFile::Kind kind = UserFile::kindOf(path);
    if (kind != UserFile::Kind::Regular) {
        flag(clip, ClipProblem::NotAVideo, UserFile::refusalReason(path, kind));
        return clip;
    }
    const ContentHasher::Result hash = ContentHasher::hashFile(path, cancelRequested);
    if (hash.cancelled)
        return std::nullopt;
    if (!hash.succeeded()) {
        flag(clip, ClipProblem::Unreadable, hash.errorMessage);
        return clip;
    }
    clip.contentHash = hash.hash;
    clip.fileSizeBytes = hash.sizeBytes;
    if (hash.sizeBytes == 0) {
        flag(clip, ClipProblem::Empty, QStringLiteral("0 bytes"));
        return clip;
    }

    const std::string nativePath = QFile::encodeName(path).toStdString();
    try {
        const media::ProbeInfo probe = media::probe(nativePath, cancelRequested);
        clip.isImage = probe.is_image;
        clip.width = probe.display_width;
        clip.height = probe.display_height;
        clip.codec = QString::fromStdString(probe.codec_name);
        clip.fps = probe.is_image ? 0.0 : probe.fps;
        clip.frameCount = verifiedFrameCount(clip, probe, nativePath, cancelRequested);
        clip.durationSeconds =
            clip.fps > 0.0 ? static_cast<double>(clip.frameCount) / clip.fps : 0.0;
    } catch (const media::MediaError& error) {
        flag(clip, problemFor(error.reason()), QString::fromStdString(error.what()));
    }
    // A cancel stops the probe or the decode with an error that says nothing about the file.
    if (cancelRequested != nullptr && cancelRequested->load())
        return std::nullopt;
    return clip;
}
