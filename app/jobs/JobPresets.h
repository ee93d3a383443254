#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

// A training preset (presets/*.json): a partial job plus a "preset" member naming it (in English
// and Simplified Chinese), the model it is for and that model's family, the memory tier it is
// sized for (0: a CPU demo) and the mode.
struct JobPreset {
    QString id;   // the file name without .json: "cogvideox-2b.lora.24gb"
    QString name; // English, as runs record it
    QString description;
    QString nameZh; // name_zh_CN, description_zh_CN; empty: the English ones
    QString descriptionZh;
    QString modelFamily; // the model the preset is sized for: "cogvideox-2b", "wan2.1-14b"
    QString family = QStringLiteral("cogvideox"); // the engine's family name: "cogvideox", "wan"
    // A demo preset's model in the demo project's models/ folder ("wan2.1-tiny"); else empty.
    QString demoModel;
    int tierGb = 0;
    int gpus = 1; // a parallel plan's GPUs, each of tierGb
    QString mode;
    QJsonObject job; // without the "preset" member
    QString file;
    bool user = false; // saved by the user (and so deletable), not shipped

    // The name and description in the studio's language.
    QString displayName() const;
    QString displayDescription() const;
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
    // Presets from userFolder (searched first) are marked as the user's.
    static QVector<JobPreset> load(const QStringList& folders, QStringList* problems,
                                   const QString& userFolder = QString());
    static QVector<JobPreset> loadDefault(QStringList* problems,
                                          const QString& userFolder = QString());
    // Where the user's own presets live: <config directory>/presets.
    static QString userFolder(const QString& configDirectory);
    // Writes job (a whole or partial job; its model folder is left out, since presets travel
    // between machines) as the user's preset `name`, atomically; the same name replaces it.
    // base gives the model family, tier and mode it was made from.
    static std::optional<JobPreset> saveUser(const QString& folder, const QString& name,
                                             const JobPreset& base, const QJsonObject& job,
                                             QString* error);
    static bool removeUser(const JobPreset& preset, QString* error);

    // Empty when the job (merged over the defaults) is valid, else the engine's message naming
    // the field, followed by its hint.
    static QString validate(const QJsonObject& job);
    // overrides merged into base object by object, arrays and values replacing (merge_job_json).
    static QJsonObject merge(const QJsonObject& base, const QJsonObject& overrides);
};
