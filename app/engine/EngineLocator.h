#pragma once

#include <QString>

// Where the studio finds tuneframe-engine. In order: the path chosen in Preferences
// (Settings::enginePath); $TUNEFRAME_ENGINE; the executable beside the studio's (an installed
// studio, bin/); the build tree's engine/cli/ next to ui/; otherwise the bare name, for a lookup
// in PATH. The user's explicit choice wins over the environment the studio was started from.
class EngineLocator {
public:
    static const QString kEnvironmentVariable;
    static const QString kExecutableName;

    // For this process: QCoreApplication::applicationDirPath() and the environment;
    // preference: the path chosen in Preferences, empty when none.
    static QString enginePath(const QString& preference = QString());
    // studioFolder: the folder holding the studio's executable; override: the environment
    // variable's value, empty when unset.
    static QString enginePath(const QString& studioFolder, const QString& override);
    static QString enginePath(const QString& studioFolder, const QString& preference,
                              const QString& override);
};
