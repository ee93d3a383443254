#include "app/runs/ValidationVideo.h"

#include "app/engine/EngineEvent.h"

#include <QDir>

std::optional<ValidationVideo> ValidationVideo::fromEvent(const EngineEvent& event,
                                                          const QString& runFolder) {
    if (event.type != tuneframe::protocol::EventType::Validation) {
        return std::nullopt;
    }
    // The engine names the file "video"; docs/protocol.md's first draft called it "path".
    QString path = event.string(QStringLiteral("video"));
    if (path.isEmpty())
        path = event.string(QStringLiteral("path"));
    if (path.isEmpty()) {
        return std::nullopt;
    }
    ValidationVideo video;
    video.step = event.integer(QStringLiteral("step"));
    video.promptIndex = static_cast<int>(event.integer(QStringLiteral("prompt_index")));
    video.prompt = event.string(QStringLiteral("prompt"));
    video.path = runFolder.isEmpty() || QDir::isAbsolutePath(path)
                     ? path
                     : QDir(runFolder).absoluteFilePath(path);
    video.seconds = event.number(QStringLiteral("seconds"));
    return video;
}
