#pragma once

#include <QString>

// Where the studio finds tuneframe-engine. In order: $TUNEFRAME_ENGINE; the executable beside
// the studio's (an installed studio, bin/); the build tree's engine/cli/ next to ui/; otherwise
// the bare name, for a lookup in PATH.
class EngineLocator {
public:
    static const QString kEnvironmentVariable;
    static const QString kExecutableName;

    // For this process: QCoreApplication::applicationDirPath() and the environment.
    static QString enginePath();
    // studioFolder: the folder holding the studio's executable; override: the environment
    // variable's value, empty when unset.
    static QString enginePath(const QString& studioFolder, const QString& override);
};
