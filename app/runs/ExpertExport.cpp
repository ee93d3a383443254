#include "app/runs/ExpertExport.h"

#include <QDir>
#include <QFileInfo>

namespace {

const QString kHighNoise = QStringLiteral("_high_noise");
const QString kLowNoise = QStringLiteral("_low_noise");

bool isTransformerFolder(const QString& folder) {
    return QFileInfo(QDir(folder).filePath(QStringLiteral("config.json"))).isFile();
}

} // namespace

ExpertExport ExpertExport::of(const QString& format, const QString& path) {
    ExpertExport experts;
    if (format == QLatin1String("merged") || format == QLatin1String("pipeline")) {
        const QString first = QDir(path).filePath(QStringLiteral("transformer"));
        const QString second = QDir(path).filePath(QStringLiteral("transformer_2"));
        if (isTransformerFolder(first) && isTransformerFolder(second)) {
            experts.highNoise = first;
            experts.lowNoise = second;
        }
        return experts;
    }
    const QFileInfo file(path);
    const QString stem = file.completeBaseName();
    const QString suffix = file.suffix().isEmpty() ? QString() : QLatin1Char('.') + file.suffix();
    QString base;
    if (stem.endsWith(kHighNoise))
        base = stem.chopped(kHighNoise.size());
    else if (stem.endsWith(kLowNoise))
        base = stem.chopped(kLowNoise.size());
    else
        return experts;
    const QDir folder = file.absoluteDir();
    const QString high = folder.filePath(base + kHighNoise + suffix);
    const QString low = folder.filePath(base + kLowNoise + suffix);
    if (QFileInfo(high).isFile())
        experts.highNoise = high;
    if (QFileInfo(low).isFile())
        experts.lowNoise = low;
    return experts;
}
