#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

// A training preset (presets/*.json): a partial job plus a "preset" member naming it, the model
// family, the memory tier it is sized for (0: a CPU demo) and the mode.
struct JobPreset {
    QString id; // the file name without .json: "cogvideox-2b.lora.24gb"
    QString name;
    QString description;
    QString modelFamily;
    int tierGb = 0;
    QString mode;
    QJsonObject job; // without the "preset" member
    QString file;
};

// Finds, reads and checks presets, and validates jobs with the same reader the engine uses
// (common/training_job), so the studio refuses exactly what the engine would.
class JobPresets {
    Q_DECLARE_TR_FUNCTIONS(JobPresets)

public:
    // $TUNEFRAME_PRESETS_DIR, the installed share/tuneframe/presets beside the executable's bin/,
    // and the source tree's presets/ of a development build, in that order; those that exist.
    static QStringList searchFolders();
    // Every *.json in the folders (the first folder wins for a file name). A file that cannot be
    // used is left out and described in problems (file, field and fix).
    static QVector<JobPreset> load(const QStringList& folders, QStringList* problems);
    static QVector<JobPreset> loadDefault(QStringList* problems);

    // Empty when the job (merged over the defaults) is valid, else the engine's message naming
    // the field, followed by its hint.
    static QString validate(const QJsonObject& job);
    // overrides merged into base object by object, arrays and values replacing (merge_job_json).
    static QJsonObject merge(const QJsonObject& base, const QJsonObject& overrides);
};
