#include "app/dataset/PreparedSkips.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

namespace {

const QString kIndexFileName = QStringLiteral("prepared.jsonl");

} // namespace

QVector<PreparedSkips::Clip> PreparedSkips::read(const QString& runFolder, QString* error) {
    QFile file(QDir(runFolder).filePath(kIndexFileName));
    if (!file.exists())
        return {};
    if (!file.open(QIODevice::ReadOnly)) {
        *error = tr("%1 could not be read: %2")
                     .arg(QDir::toNativeSeparators(file.fileName()), file.errorString());
        return {};
    }
    QVector<Clip> clips;
    int lineNumber = 0;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine();
        ++lineNumber;
        // Sample lines are most of the file and never say "skipped" as their kind.
        if (!line.contains("\"skipped\""))
            continue;
        QJsonParseError parseError{};
        const QJsonObject object = QJsonDocument::fromJson(line, &parseError).object();
        if (parseError.error != QJsonParseError::NoError) {
            *error = tr("Line %1 of %2 is not valid JSON (%3). Choose Continue to prepare the run "
                        "again.")
                         .arg(lineNumber)
                         .arg(QDir::toNativeSeparators(file.fileName()), parseError.errorString());
            return {};
        }
        if (object.value(QStringLiteral("kind")).toString() != QLatin1String("skipped"))
            continue;
        clips.append({object.value(QStringLiteral("path")).toString(),
                      object.value(QStringLiteral("reason")).toString(),
                      object.value(QStringLiteral("message")).toString()});
    }
    return clips;
}

QString PreparedSkips::reasonText(const Clip& clip) {
    const QString& reason = clip.reason;
    if (reason == QLatin1String("too_short"))
        return tr("too short for the frames this run trains");
    if (reason == QLatin1String("no_frame_buckets") ||
        reason == QLatin1String("no_resolution_buckets"))
        return tr("no bucket of this run fits it");
    if (reason == QLatin1String("invalid_trim"))
        return tr("its trim lies outside the clip");
    if (reason == QLatin1String("unknown_frame_count") || reason == QLatin1String("unknown_size"))
        return tr("its length or size could not be read");
    if (reason == QLatin1String("not_found"))
        return tr("the file is missing");
    if (reason == QLatin1String("empty"))
        return tr("the file is empty");
    if (reason == QLatin1String("not_a_video"))
        return tr("the file is not a video");
    if (reason == QLatin1String("corrupt"))
        return tr("the video is damaged");
    if (reason == QLatin1String("truncated"))
        return tr("the video is cut short: it lacks frames its container lists");
    if (reason == QLatin1String("unsupported"))
        return tr("its format is not supported");
    if (reason == QLatin1String("io"))
        return tr("the file could not be read");
    if (reason == QLatin1String("outside_dataset"))
        return tr("it lies outside the dataset folder");
    return clip.message.isEmpty() ? reason : clip.message;
}
