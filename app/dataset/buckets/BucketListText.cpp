#include "app/dataset/buckets/BucketListText.h"

#include <QRegularExpression>
#include <QStringList>

namespace {

QStringList entries(const QString& text) {
    static const QRegularExpression separators(QStringLiteral("[,;\\s]+"));
    return text.split(separators, Qt::SkipEmptyParts);
}

} // namespace

bool BucketListText::parseResolutions(const QString& text,
                                      std::vector<tuneframe::common::ResolutionBucket>* resolutions,
                                      QString* error) {
    // White space around the 'x' would split an entry in two; close it up first.
    static const QRegularExpression spacedTimes(QStringLiteral("\\s*[xX×]\\s*"));
    static const QRegularExpression entryPattern(QStringLiteral("^(\\d{1,5})x(\\d{1,5})$"));
    QString joined = text;
    joined.replace(spacedTimes, QStringLiteral("x"));
    std::vector<tuneframe::common::ResolutionBucket> parsed;
    for (const QString& entry : entries(joined)) {
        const QRegularExpressionMatch match = entryPattern.match(entry);
        const int height = match.hasMatch() ? match.captured(1).toInt() : 0;
        const int width = match.hasMatch() ? match.captured(2).toInt() : 0;
        if (height <= 0 || width <= 0) {
            if (error)
                *error = tr("“%1” is not a resolution. Write height by width, for example "
                            "480x720.")
                             .arg(entry);
            return false;
        }
        parsed.push_back({height, width});
    }
    if (resolutions)
        *resolutions = std::move(parsed);
    return true;
}

bool BucketListText::parseFrameBuckets(const QString& text, std::vector<int>* frames,
                                       QString* error) {
    std::vector<int> parsed;
    for (const QString& entry : entries(text)) {
        bool ok = false;
        const int count = entry.toInt(&ok);
        if (!ok || count <= 0) {
            if (error)
                *error = tr("“%1” is not a frame count. Write whole numbers above zero, for "
                            "example 49.")
                             .arg(entry);
            return false;
        }
        parsed.push_back(count);
    }
    if (frames)
        *frames = std::move(parsed);
    return true;
}

QString BucketListText::formatResolutions(
    const std::vector<tuneframe::common::ResolutionBucket>& resolutions) {
    QStringList parts;
    for (const auto& resolution : resolutions)
        parts.append(QStringLiteral("%1x%2").arg(resolution.height).arg(resolution.width));
    return parts.join(QStringLiteral(", "));
}

QString BucketListText::formatFrameBuckets(const std::vector<int>& frames) {
    QStringList parts;
    for (const int count : frames)
        parts.append(QString::number(count));
    return parts.join(QStringLiteral(", "));
}
