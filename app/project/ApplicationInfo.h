#pragma once

#include <QString>

// Names and version of the studio, in one place so the window title, --version, the settings
// location and the About box agree.
class ApplicationInfo {
public:
    // "0.1.0": the project version CMake passes in as TUNEFRAME_VERSION.
    static QString version();
    // "tuneframe": the executable, the settings folder and the desktop file.
    static QString executableName();
    // "Tuneframe": what the user reads in titles.
    static QString displayName();
    // Sets QCoreApplication's names and version; call before Settings picks its folder.
    static void registerWithQt();
};
