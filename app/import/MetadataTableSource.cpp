#include "app/import/MetadataTableSource.h"

#include "app/dataset/DatasetPathResolver.h"
#include "app/import/CsvTable.h"
#include "common/dataset_manifest.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QJsonValue>

namespace {

QString located(const QString& file, int line) {
    return QStringLiteral("%1:%2").arg(file).arg(line);
}

} // namespace

const QStringList& MetadataTableSource::pathKeys() {
    static const QStringList keys = {
        QStringLiteral("path"),       QStringLiteral("video"),     QStringLiteral("file"),
        QStringLiteral("video_path"), QStringLiteral("file_path"), QStringLiteral("filename"),
        QStringLiteral("file_name"),  QStringLiteral("image"),     QStringLiteral("image_path"),
    };
    return keys;
}

const QStringList& MetadataTableSource::captionKeys() {
    static const QStringList keys = {
        QStringLiteral("caption"),  QStringLiteral("prompt"),  QStringLiteral("text"),
        QStringLiteral("captions"), QStringLiteral("prompts"),
    };
    return keys;
}

bool MetadataTableSource::isCsvFile(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == QLatin1String("csv") || suffix == QLatin1String("tsv");
}

bool MetadataTableSource::isJsonLinesFile(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == QLatin1String("jsonl") || suffix == QLatin1String("ndjson");
}

void MetadataTableSource::addCsv(const QString& file, ImportPlan& plan,
                                 const ImportOptions& options,
                                 const std::atomic<bool>* cancelRequested) {
    const QString absolute = QDir::cleanPath(QFileInfo(file).absoluteFilePath());
    CaptionDecoder::Result decoded;
    QString error;
    if (!CaptionDecoder::readFile(absolute, &decoded, &error, cancelRequested)) {
        if (!error.isEmpty())
            plan.errors.append(error);
        return;
    }
    const CsvTable table = CsvTable::parse(decoded.text);
    const int pathColumn = table.column(pathKeys());
    const int captionColumn = table.column(captionKeys());
    const QString shown = QDir::toNativeSeparators(absolute);
    if (pathColumn < 0) {
        plan.errors.append(tr("The CSV file “%1” has no column naming the clips (its header "
                              "reads: %2). Name that column path, video or file, then import "
                              "it again.")
                               .arg(shown, table.header().join(QStringLiteral(", "))));
        return;
    }
    if (captionColumn < 0) {
        plan.notes.append(tr("The CSV file “%1” has no caption column (caption, prompt or text), "
                             "so its clips were imported without captions.")
                              .arg(shown));
    }
    const DatasetPathResolver paths(absolute, options.allowPathsOutsideDataset);
    for (int row = 0; row < table.rows().size(); ++row) {
        const QStringList& fields = table.rows().at(row);
        const int line = table.rowLines().at(row);
        const QString path = fields.value(pathColumn).trimmed();
        if (path.isEmpty()) {
            plan.notes.append(
                tr("Line %1 of “%2” names no file, so it was not imported.").arg(line).arg(shown));
            continue;
        }
        QString refusal;
        const std::optional<QString> resolved = paths.resolve(path, line, &refusal);
        if (!resolved) {
            plan.notes.append(refusal);
            continue;
        }
        ImportItem item;
        item.path = *resolved;
        if (captionColumn >= 0)
            item.setCaption(fields.value(captionColumn), located(absolute, line), decoded);
        plan.items.append(item);
    }
}

QString MetadataTableSource::valueOf(const QJsonObject& object, const QStringList& keys,
                                     bool* found) {
    for (const QString& key : keys) {
        for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
            if (it.key().compare(key, Qt::CaseInsensitive) == 0 && it.value().isString()) {
                *found = true;
                return it.value().toString();
            }
        }
    }
    *found = false;
    return QString();
}

void MetadataTableSource::addJsonLines(const QString& file, ImportPlan& plan,
                                       const ImportOptions& options,
                                       const std::atomic<bool>* cancelRequested) {
    const QString absolute = QDir::cleanPath(QFileInfo(file).absoluteFilePath());
    CaptionDecoder::Result decoded;
    QString error;
    if (!CaptionDecoder::readFile(absolute, &decoded, &error, cancelRequested)) {
        if (!error.isEmpty())
            plan.errors.append(error);
        return;
    }
    const QString shown = QDir::toNativeSeparators(absolute);
    const QStringList lines = CaptionDecoder::lines(decoded.text);
    for (const QString& line : lines) {
        if (line.trimmed().isEmpty())
            continue;
        const QJsonObject first = QJsonDocument::fromJson(line.toUtf8()).object();
        if (first.contains(QLatin1String("v"))) {
            addManifest(absolute, decoded.text, decoded, plan, options);
            return;
        }
        break;
    }

    const DatasetPathResolver paths(absolute, options.allowPathsOutsideDataset);
    for (int index = 0; index < lines.size(); ++index) {
        const int line = index + 1;
        if (lines.at(index).trimmed().isEmpty())
            continue;
        QJsonParseError parseError;
        const QJsonDocument document =
            QJsonDocument::fromJson(lines.at(index).toUtf8(), &parseError);
        if (!document.isObject()) {
            plan.notes.append(tr("Line %1 of “%2” is not a JSON object (%3), so it was not "
                                 "imported. Each line must be one object such as "
                                 "{\"path\": \"a.mp4\", \"caption\": \"…\"}.")
                                  .arg(line)
                                  .arg(shown, parseError.error == QJsonParseError::NoError
                                                  ? tr("another JSON value")
                                                  : parseError.errorString()));
            continue;
        }
        const QJsonObject object = document.object();
        bool hasPath = false;
        const QString path = valueOf(object, pathKeys(), &hasPath).trimmed();
        if (!hasPath || path.isEmpty()) {
            plan.notes.append(tr("Line %1 of “%2” has no \"path\", \"video\" or \"file\" naming "
                                 "the clip, so it was not imported.")
                                  .arg(line)
                                  .arg(shown));
            continue;
        }
        QString refusal;
        const std::optional<QString> resolved = paths.resolve(path, line, &refusal);
        if (!resolved) {
            plan.notes.append(refusal);
            continue;
        }
        ImportItem item;
        item.path = *resolved;
        bool hasCaption = false;
        const QString caption = valueOf(object, captionKeys(), &hasCaption);
        if (hasCaption)
            item.setCaption(caption, located(absolute, line), decoded);
        plan.items.append(item);
    }
}

void MetadataTableSource::addManifest(const QString& file, const QString& text,
                                      const CaptionDecoder::Result& decoded, ImportPlan& plan,
                                      const ImportOptions& options) {
    namespace common = tuneframe::common;
    const common::ManifestReadResult manifest =
        common::parse_manifest(text.toStdString(), QDir::toNativeSeparators(file).toStdString());
    for (const common::ManifestIssue& issue : manifest.issues) {
        plan.notes.append(tr("Not imported: %1.").arg(QString::fromStdString(issue.to_string())));
    }
    const DatasetPathResolver paths(file, options.allowPathsOutsideDataset);
    for (std::size_t index = 0; index < manifest.entries.size(); ++index) {
        const common::ManifestEntry& entry = manifest.entries[index];
        const int line = static_cast<int>(manifest.entry_lines[index]);
        QString refusal;
        const std::optional<QString> resolved =
            paths.resolve(QString::fromStdString(entry.path), line, &refusal);
        if (!resolved) {
            plan.notes.append(refusal);
            continue;
        }
        ImportItem item;
        item.path = *resolved;
        item.setCaption(QString::fromStdString(entry.caption), located(file, line), decoded);
        item.trimIn = entry.trim_in;
        if (entry.trim_out)
            item.trimOut = *entry.trim_out;
        plan.items.append(item);
    }
}
