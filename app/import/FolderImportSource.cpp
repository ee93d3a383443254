#include "app/import/FolderImportSource.h"

#include "app/project/UserFile.h"

#include <QDir>
#include <QDirIterator>
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

void FolderImportSource::attachCaptionFile(ImportItem& item, ImportPlan& plan,
                                           const std::atomic<bool>* cancelRequested) {
    const QString captionPath = captionFileFor(item.path);
    if (UserFile::kindOf(captionPath) == UserFile::Kind::Missing)
        return;
    CaptionDecoder::Result decoded;
    QString error;
    if (!CaptionDecoder::readFile(captionPath, &decoded, &error, cancelRequested)) {
        if (!error.isEmpty()) {
            plan.notes.append(tr("The caption of “%1” was not imported: %2")
                                  .arg(QDir::toNativeSeparators(item.path), error));
        }
        return;
    }
    item.setCaption(decoded.text, captionPath, decoded);
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
    QStringList special;
    // QDir::System lists FIFOs, devices and sockets too, so they are named rather than skipped.
    QDirIterator files(root, QDir::Files | QDir::System | QDir::NoDotAndDotDot,
                       QDirIterator::Subdirectories);
    while (files.hasNext()) {
        if (cancelRequested != nullptr && cancelRequested->load())
            return;
        const QString path = cleanAbsolute(files.next());
        if (!skippedPrefix.isEmpty() && path.startsWith(skippedPrefix))
            continue;
        const QString suffix = QFileInfo(path).suffix().toLower();
        const UserFile::Kind kind = UserFile::kindOf(path);
        if (kind == UserFile::Kind::Missing)
            continue; // a dangling symbolic link names nothing to import
        if (kind != UserFile::Kind::Regular)
            special.append(path);
        else if (hasMediaExtension(path))
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
        attachCaptionFile(item, plan, cancelRequested);
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
    special.sort();
    if (!special.isEmpty()) {
        plan.notes.append(tr("Files in “%1” that are not regular files (devices, named pipes or "
                             "sockets) were not read: %2.")
                              .arg(QDir::toNativeSeparators(root), listedNames(special, root)));
    }
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

void FolderImportSource::addFiles(const QStringList& files, ImportPlan& plan,
                                  const std::atomic<bool>* cancelRequested) {
    QSet<QString> mediaCaptions;
    QStringList textFiles;
    for (const QString& file : files) {
        if (cancelRequested != nullptr && cancelRequested->load())
            return;
        const QString path = cleanAbsolute(file);
        if (QFileInfo(path).suffix().toLower() == QLatin1String("txt")) {
            textFiles.append(path);
            continue;
        }
        ImportItem item;
        item.path = path;
        attachCaptionFile(item, plan, cancelRequested);
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
