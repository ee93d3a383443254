#include "app/FolderImportSource.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QSet>

namespace {

// How many file names a note quotes before it says "and N more".
constexpr int kNamesQuoted = 5;

QString cleanAbsolute(const QString& path) {
    return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

} // namespace

const QStringList& FolderImportSource::videoExtensions() {
    static const QStringList extensions = {
        QStringLiteral("mp4"),  QStringLiteral("mov"),  QStringLiteral("mkv"),
        QStringLiteral("webm"), QStringLiteral("avi"),  QStringLiteral("m4v"),
        QStringLiteral("mpg"),  QStringLiteral("mpeg"), QStringLiteral("wmv"),
        QStringLiteral("flv"),  QStringLiteral("ts"),   QStringLiteral("mts"),
        QStringLiteral("m2ts"), QStringLiteral("3gp"),  QStringLiteral("ogv"),
        QStringLiteral("gif"),
    };
    return extensions;
}

const QStringList& FolderImportSource::imageExtensions() {
    static const QStringList extensions = {
        QStringLiteral("png"),  QStringLiteral("jpg"),  QStringLiteral("jpeg"),
        QStringLiteral("bmp"),  QStringLiteral("webp"), QStringLiteral("tif"),
        QStringLiteral("tiff"),
    };
    return extensions;
}

bool FolderImportSource::hasMediaExtension(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    return videoExtensions().contains(suffix) || imageExtensions().contains(suffix);
}

QString FolderImportSource::captionFileFor(const QString& mediaPath) {
    const QFileInfo info(mediaPath);
    return info.dir().filePath(info.completeBaseName() + QStringLiteral(".txt"));
}

QString FolderImportSource::listedNames(const QStringList& paths, const QString& folder) {
    const QDir base(folder);
    QStringList names;
    for (int index = 0; index < paths.size() && index < kNamesQuoted; ++index)
        names.append(QDir::toNativeSeparators(base.relativeFilePath(paths.at(index))));
    QString text = names.join(QStringLiteral(", "));
    if (paths.size() > kNamesQuoted)
        text = tr("%1 and %2 more").arg(text).arg(paths.size() - kNamesQuoted);
    return text;
}

void FolderImportSource::attachCaptionFile(ImportItem& item, ImportPlan& plan) {
    const QString captionPath = captionFileFor(item.path);
    QFile file(captionPath);
    if (!file.exists())
        return;
    if (!file.open(QIODevice::ReadOnly)) {
        plan.notes.append(tr("The caption file “%1” could not be read (%2), so its clip was "
                             "imported without a caption. Check the file's permissions.")
                              .arg(QDir::toNativeSeparators(captionPath), file.errorString()));
        return;
    }
    const CaptionDecoder::Result decoded = CaptionDecoder::decode(file.readAll());
    item.hasCaption = true;
    item.caption = CaptionDecoder::tidied(decoded.text);
    item.captionSource = captionPath;
    item.captionEncoding = decoded.encoding;
    item.captionNeedsCheck = decoded.guessed;
}

void FolderImportSource::addFolder(const QString& folder, ImportPlan& plan,
                                   const QString& skippedFolder,
                                   const std::atomic<bool>* cancelRequested) {
    const QString root = cleanAbsolute(folder);
    if (!QFileInfo(root).isDir()) {
        plan.errors.append(tr("The folder “%1” does not exist. Choose an existing folder.")
                               .arg(QDir::toNativeSeparators(root)));
        return;
    }
    const QString skippedPrefix =
        skippedFolder.isEmpty() ? QString() : cleanAbsolute(skippedFolder) + QLatin1Char('/');
    QStringList media;
    QStringList captions;
    QStringList others;
    QDirIterator files(root, QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        if (cancelRequested != nullptr && cancelRequested->load())
            return;
        const QString path = cleanAbsolute(files.next());
        if (!skippedPrefix.isEmpty() && path.startsWith(skippedPrefix))
            continue;
        const QString suffix = QFileInfo(path).suffix().toLower();
        if (hasMediaExtension(path))
            media.append(path);
        else if (suffix == QLatin1String("txt"))
            captions.append(path);
        else
            others.append(path);
    }
    media.sort();
    QSet<QString> usedCaptions;
    for (const QString& path : std::as_const(media)) {
        ImportItem item;
        item.path = path;
        attachCaptionFile(item, plan);
        if (item.hasCaption)
            usedCaptions.insert(item.captionSource);
        plan.items.append(item);
    }
    QStringList unused;
    for (const QString& caption : std::as_const(captions)) {
        if (!usedCaptions.contains(caption))
            unused.append(caption);
    }
    unused.sort();
    others.sort();
    if (!unused.isEmpty()) {
        plan.notes.append(tr("Text files in “%1” that have no video or image of the same name were "
                             "not used as captions: %2.")
                              .arg(QDir::toNativeSeparators(root), listedNames(unused, root)));
    }
    if (!others.isEmpty()) {
        plan.notes.append(tr("Files in “%1” that are not videos or images by their extension were "
                             "not imported: %2. Import them as single files to try them anyway.")
                              .arg(QDir::toNativeSeparators(root), listedNames(others, root)));
    }
    if (media.isEmpty()) {
        plan.notes.append(
            tr("The folder “%1” holds no videos or images.").arg(QDir::toNativeSeparators(root)));
    }
}

void FolderImportSource::addFiles(const QStringList& files, ImportPlan& plan) {
    QSet<QString> mediaCaptions;
    QStringList textFiles;
    for (const QString& file : files) {
        const QString path = cleanAbsolute(file);
        if (QFileInfo(path).suffix().toLower() == QLatin1String("txt")) {
            textFiles.append(path);
            continue;
        }
        ImportItem item;
        item.path = path;
        attachCaptionFile(item, plan);
        mediaCaptions.insert(captionFileFor(path));
        plan.items.append(item);
    }
    for (const QString& text : std::as_const(textFiles)) {
        if (mediaCaptions.contains(text))
            continue;
        plan.notes.append(tr("“%1” is a text file with no video or image of the same name among "
                             "the dropped files, so it was not imported. Drop it together with "
                             "its clip.")
                              .arg(QDir::toNativeSeparators(text)));
    }
}
