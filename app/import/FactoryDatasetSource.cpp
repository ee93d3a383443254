#include "app/import/FactoryDatasetSource.h"

#include "app/captions/CaptionDecoder.h"
#include "app/import/CsvTable.h"

#include <QDir>
#include <QFileInfo>

namespace {

QString absoluteClean(const QString& path) {
    return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

QString shown(const QString& path) {
    return QDir::toNativeSeparators(path);
}

// The factory drops blank lines before it pairs the two files.
QStringList nonEmptyLines(const QString& text, QVector<int>* lineNumbers) {
    QStringList kept;
    const QStringList all = CaptionDecoder::lines(text);
    for (int index = 0; index < all.size(); ++index) {
        if (all.at(index).trimmed().isEmpty())
            continue;
        kept.append(all.at(index).trimmed());
        lineNumbers->append(index + 1);
    }
    return kept;
}

} // namespace

void FactoryDatasetSource::add(const FactoryDataset& dataset, ImportPlan& plan) {
    if (dataset.root.isEmpty()) {
        plan.errors.append(tr("The command names no --data_root, so Tuneframe cannot tell where "
                              "the clips are. Add --data_root with the dataset folder."));
        return;
    }
    if (!QFileInfo(dataset.root).isDir()) {
        plan.errors.append(tr("The dataset folder “%1” (--data_root) does not exist. Copy the "
                              "dataset to this computer and correct the path in the command.")
                               .arg(shown(dataset.root)));
        return;
    }
    if (dataset.datasetFile.isEmpty())
        addLineFiles(dataset, plan);
    else
        addCsv(dataset, plan);
}

void FactoryDatasetSource::addLineFiles(const FactoryDataset& dataset, ImportPlan& plan) {
    const QDir root(absoluteClean(dataset.root));
    const QString captionsPath = root.filePath(dataset.captionColumn);
    const QString videosPath = root.filePath(dataset.videoColumn);
    CaptionDecoder::Result captions;
    CaptionDecoder::Result videos;
    QString error;
    if (!CaptionDecoder::readFile(captionsPath, &captions, &error) ||
        !CaptionDecoder::readFile(videosPath, &videos, &error)) {
        plan.errors.append(tr("%1 Without --dataset_file, --caption_column and --video_column "
                              "name line files in the --data_root folder.")
                               .arg(error));
        return;
    }
    QVector<int> captionLines;
    QVector<int> videoLines;
    const QStringList captionTexts = nonEmptyLines(captions.text, &captionLines);
    const QStringList videoPaths = nonEmptyLines(videos.text, &videoLines);
    if (captionTexts.size() != videoPaths.size()) {
        plan.errors.append(
            tr("“%1” lists %2 videos but “%3” holds %4 captions, so Tuneframe cannot tell which "
               "caption belongs to which video and imported nothing from them. Give both files "
               "one line per clip, in the same order, then import the command again.")
                .arg(shown(videosPath))
                .arg(videoPaths.size())
                .arg(shown(captionsPath))
                .arg(captionTexts.size()));
        return;
    }
    for (int index = 0; index < videoPaths.size(); ++index) {
        ImportItem item;
        item.path = QDir::cleanPath(root.absoluteFilePath(videoPaths.at(index)));
        item.setCaption(captionTexts.at(index),
                        QStringLiteral("%1:%2").arg(captionsPath).arg(captionLines.at(index)),
                        captions);
        plan.items.append(item);
    }
}

void FactoryDatasetSource::addCsv(const FactoryDataset& dataset, ImportPlan& plan) {
    const QDir root(absoluteClean(dataset.root));
    // The factory opens --dataset_file as given, from where it was started; a relative one is
    // most likely beside the data.
    const QString file = QFileInfo(dataset.datasetFile).isRelative()
                             ? root.filePath(dataset.datasetFile)
                             : absoluteClean(dataset.datasetFile);
    CaptionDecoder::Result decoded;
    QString error;
    if (!CaptionDecoder::readFile(file, &decoded, &error)) {
        plan.errors.append(error);
        return;
    }
    const CsvTable table = CsvTable::parse(decoded.text);
    const int videoColumn = table.column({dataset.videoColumn});
    const int captionColumn = table.column({dataset.captionColumn});
    if (videoColumn < 0 || captionColumn < 0) {
        plan.errors.append(tr("The CSV file “%1” has no column “%2” (its header reads: %3). "
                              "Correct --video_column and --caption_column in the command to "
                              "the file's column names.")
                               .arg(shown(file),
                                    videoColumn < 0 ? dataset.videoColumn : dataset.captionColumn,
                                    table.header().join(QStringLiteral(", "))));
        return;
    }
    for (int row = 0; row < table.rows().size(); ++row) {
        const QStringList& fields = table.rows().at(row);
        const int line = table.rowLines().at(row);
        const QString path = fields.value(videoColumn).trimmed();
        if (path.isEmpty()) {
            plan.notes.append(tr("Line %1 of “%2” names no file, so it was not imported.")
                                  .arg(line)
                                  .arg(shown(file)));
            continue;
        }
        ImportItem item;
        item.path = QDir::cleanPath(root.absoluteFilePath(path));
        item.setCaption(fields.value(captionColumn), QStringLiteral("%1:%2").arg(file).arg(line),
                        decoded);
        plan.items.append(item);
    }
}
