#include "app/engine/EngineLocator.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

const QString EngineLocator::kEnvironmentVariable = QStringLiteral("TUNEFRAME_ENGINE");
const QString EngineLocator::kExecutableName = QStringLiteral("tuneframe-engine");

namespace {

bool isExecutableFile(const QString& path) {
    const QFileInfo info(path);
    return info.isFile() && info.isExecutable();
}

} // namespace

QString EngineLocator::enginePath(const QString& preference) {
    return enginePath(QCoreApplication::applicationDirPath(), preference,
                      qEnvironmentVariable(kEnvironmentVariable.toLatin1().constData()));
}

QString EngineLocator::enginePath(const QString& studioFolder, const QString& override) {
    return enginePath(studioFolder, QString(), override);
}

QString EngineLocator::enginePath(const QString& studioFolder, const QString& preference,
                                  const QString& override) {
    if (!preference.trimmed().isEmpty())
        return preference.trimmed();
    if (!override.isEmpty())
        return override;
    const QDir folder(studioFolder);
    const QString beside = folder.filePath(kExecutableName);
    if (isExecutableFile(beside))
        return QDir::cleanPath(beside);
    const QString buildTree = folder.filePath(QStringLiteral("../engine/cli/") + kExecutableName);
    if (isExecutableFile(buildTree))
        return QDir::cleanPath(buildTree);
    return kExecutableName;
}
