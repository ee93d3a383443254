#include "app/project/ApplicationInfo.h"

#include <QCoreApplication>

#ifndef TUNEFRAME_VERSION
#error "CMake passes TUNEFRAME_VERSION to tuneframe_app"
#endif

QString ApplicationInfo::version() {
    return QStringLiteral(TUNEFRAME_VERSION);
}

QString ApplicationInfo::executableName() {
    return QStringLiteral("tuneframe");
}

QString ApplicationInfo::displayName() {
    return QStringLiteral("Tuneframe");
}

void ApplicationInfo::registerWithQt() {
    QCoreApplication::setApplicationName(executableName());
    QCoreApplication::setApplicationVersion(version());
}
