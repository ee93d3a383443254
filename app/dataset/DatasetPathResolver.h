#pragma once

#include <QCoreApplication>
#include <QString>

#include <optional>

// Resolves the paths a dataset file names (videos.txt, a CSV or JSON Lines file, a manifest)
// against the file's folder, and keeps them inside it: an absolute path elsewhere, a ".." that
// climbs out or a symbolic link that leads elsewhere is refused with the file and line (an
// absolute path to a file inside the folder is fine), so a downloaded
// dataset cannot make the import read /etc/passwd or another user's files. The user may allow
// such paths for one import (ImportOptions).
class DatasetPathResolver {
    Q_DECLARE_TR_FUNCTIONS(DatasetPathResolver)

public:
    DatasetPathResolver(const QString& datasetFile, bool allowOutside);

    // The clean absolute path of listed, or nullopt with *refusal set when it leaves the folder.
    std::optional<QString> resolve(const QString& listed, int line, QString* refusal) const;
    const QString& folder() const { return m_folder; }

private:
    // The canonical path of path, or of its nearest existing ancestor plus the rest.
    static QString canonicalPrefix(const QString& path);
    bool isInside(const QString& path) const;

    QString m_file;
    QString m_folder;          // clean and absolute
    QString m_canonicalFolder; // symbolic links resolved
    bool m_allowOutside;
};
