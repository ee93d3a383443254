#pragma once

#include <QMetaType>
#include <QString>

#include <optional>

struct EngineEvent;

// A validation video a run wrote (a `validation` event): the gallery groups them by step and
// prompt. path is absolute once the run folder is known.
struct ValidationVideo {
    qint64 runId = 0;
    qint64 step = 0;
    int promptIndex = 0;
    QString prompt;
    QString path;
    double seconds = 0.0;

    // nullopt for anything but a validation event with a path. A relative path is taken as
    // relative to runFolder.
    static std::optional<ValidationVideo> fromEvent(const EngineEvent& event,
                                                    const QString& runFolder = QString());
};

Q_DECLARE_METATYPE(ValidationVideo)
