#include "app/dataset/DatasetPathResolver.h"

#include <QDir>
#include <QFileInfo>

DatasetPathResolver::DatasetPathResolver(const QString& datasetFile, bool allowOutside)
    : m_file(QDir::cleanPath(QFileInfo(datasetFile).absoluteFilePath()))
    , m_folder(QFileInfo(m_file).absolutePath())
    , m_canonicalFolder(canonicalPrefix(m_folder))
    , m_allowOutside(allowOutside) {}

QString DatasetPathResolver::canonicalPrefix(const QString& path) {
    QString existing = QDir::cleanPath(path);
    QString rest;
    // A missing clip is reported later as missing; what matters here is where the part that
    // exists leads.
    while (!QFileInfo::exists(existing)) {
        const QFileInfo info(existing);
        rest = rest.isEmpty() ? info.fileName() : info.fileName() + QLatin1Char('/') + rest;
        const QString parent = info.path();
        if (parent == existing)
            return existing;
        existing = parent;
    }
    const QString canonical = QFileInfo(existing).canonicalFilePath();
    return rest.isEmpty() ? canonical : QDir::cleanPath(canonical + QLatin1Char('/') + rest);
}

bool DatasetPathResolver::isInside(const QString& path) const {
    const QString folder = m_canonicalFolder.endsWith(QLatin1Char('/'))
                               ? m_canonicalFolder
                               : m_canonicalFolder + QLatin1Char('/');
    return path.startsWith(folder);
}

std::optional<QString> DatasetPathResolver::resolve(const QString& listed, int line,
                                                    QString* refusal) const {
    const QString path = QDir::cleanPath(QDir(m_folder).absoluteFilePath(listed));
    if (m_allowOutside)
        return path;
    // An absolute path is fine where it names a file inside the folder (other tools write
    // them so); the symbolic-link check below still applies to it.
    const bool lexicallyInside = path.startsWith(
        m_folder.endsWith(QLatin1Char('/')) ? m_folder : m_folder + QLatin1Char('/'));
    if (QDir::isAbsolutePath(listed) && !lexicallyInside && !isInside(canonicalPrefix(path))) {
        *refusal = tr("Line %1 of “%2” names the absolute path “%3”, outside the dataset's folder, "
                      "so it was not imported. Move the file into the folder and name it "
                      "relative to it, or tick “Allow files outside the dataset's folder” when "
                      "you import again.")
                       .arg(line)
                       .arg(QDir::toNativeSeparators(m_file), listed);
        return std::nullopt;
    }
    const QString relative = QDir::cleanPath(listed);
    if (relative == QLatin1String("..") || relative.startsWith(QLatin1String("../"))) {
        *refusal = tr("Line %1 of “%2” names “%3”, which leads out of the dataset's folder "
                      "through “..”, so it was not imported. Move the file into the folder, or "
                      "tick “Allow files outside the dataset's folder” when you import again.")
                       .arg(line)
                       .arg(QDir::toNativeSeparators(m_file), listed);
        return std::nullopt;
    }
    if (!isInside(canonicalPrefix(path))) {
        *refusal = tr("Line %1 of “%2” names “%3”, which a symbolic link leads out of the "
                      "dataset's folder, so it was not imported. Copy the file into the folder, "
                      "or tick “Allow files outside the dataset's folder” when you import again.")
                       .arg(line)
                       .arg(QDir::toNativeSeparators(m_file), listed);
        return std::nullopt;
    }
    return path;
}
