#include "app/import/FactoryLayoutSource.h"

#include "app/dataset/DatasetPathResolver.h"
#include "app/project/UserFile.h"

#include <QDir>
#include <QFileInfo>

const QString FactoryLayoutSource::kVideosFileName = QStringLiteral("videos.txt");
const QString FactoryLayoutSource::kPromptFileName = QStringLiteral("prompt.txt");
const QString FactoryLayoutSource::kPromptsFileName = QStringLiteral("prompts.txt");

bool FactoryLayoutSource::isFactoryLayout(const QString& folder) {
    const QDir directory(folder);
    const auto present = [&directory](const QString& name) {
        return UserFile::kindOf(directory.filePath(name)) != UserFile::Kind::Missing;
    };
    return present(kVideosFileName) && (present(kPromptFileName) || present(kPromptsFileName));
}

QString FactoryLayoutSource::promptFile(const QString& folder) {
    const QDir directory(folder);
    const QString prompt = directory.filePath(kPromptFileName);
    return UserFile::kindOf(prompt) != UserFile::Kind::Missing
               ? prompt
               : directory.filePath(kPromptsFileName);
}

void FactoryLayoutSource::add(const QString& folder, ImportPlan& plan, const ImportOptions& options,
                              const std::atomic<bool>* cancelRequested) {
    const QDir root(QDir::cleanPath(QFileInfo(folder).absoluteFilePath()));
    const QString videosPath = root.filePath(kVideosFileName);
    const QString promptPath = promptFile(root.path());
    CaptionDecoder::Result videos;
    CaptionDecoder::Result prompts;
    QString error;
    if (!CaptionDecoder::readFile(videosPath, &videos, &error, cancelRequested) ||
        !CaptionDecoder::readFile(promptPath, &prompts, &error, cancelRequested)) {
        if (!error.isEmpty())
            plan.errors.append(error);
        return;
    }
    const QStringList videoLines = CaptionDecoder::lines(videos.text);
    const QStringList promptLines = CaptionDecoder::lines(prompts.text);
    if (videoLines.size() != promptLines.size()) {
        plan.errors.append(
            tr("“%1” lists %2 videos but “%3” holds %4 captions, so Tuneframe cannot tell which "
               "caption belongs to which video and imported nothing from this folder. Give both "
               "files one line per clip, in the same order, then import the folder again.")
                .arg(QDir::toNativeSeparators(videosPath))
                .arg(videoLines.size())
                .arg(QDir::toNativeSeparators(promptPath))
                .arg(promptLines.size()));
        return;
    }
    const DatasetPathResolver paths(videosPath, options.allowPathsOutsideDataset);
    for (int index = 0; index < videoLines.size(); ++index) {
        const QString video = videoLines.at(index).trimmed();
        const int line = index + 1;
        if (video.isEmpty()) {
            plan.notes.append(tr("Line %1 of “%2” is empty, so the caption on line %1 of “%3” was "
                                 "not imported.")
                                  .arg(line)
                                  .arg(QDir::toNativeSeparators(videosPath),
                                       QDir::toNativeSeparators(promptPath)));
            continue;
        }
        QString refusal;
        const std::optional<QString> path = paths.resolve(video, line, &refusal);
        if (!path) {
            plan.notes.append(refusal);
            continue;
        }
        ImportItem item;
        item.path = *path;
        item.setCaption(promptLines.at(index), QStringLiteral("%1:%2").arg(promptPath).arg(line),
                        prompts);
        plan.items.append(item);
    }
}
