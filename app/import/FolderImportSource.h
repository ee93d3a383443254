#pragma once

#include "app/import/ImportPlan.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <atomic>

// Plain files as import sources: a folder of videos and images (searched through its
// subfolders) whose captions sit next to them as same-name .txt files, or the files and
// folders the user dropped. Dropped files are tried whatever their extension; a folder's files
// are picked by extension, and everything else it holds is listed in the notes. Only regular
// files are read: devices, FIFOs and sockets, in a folder or as captions, are named in the
// notes and never opened.
class FolderImportSource {
    Q_DECLARE_TR_FUNCTIONS(FolderImportSource)

public:
    // Lower-case extensions without the dot.
    static const QStringList& videoExtensions();
    static const QStringList& imageExtensions();
    static bool hasMediaExtension(const QString& path);
    // "clips/a.mp4" -> "clips/a.txt".
    static QString captionFileFor(const QString& mediaPath);

    // Files under skippedFolder (the project's own folder, when it lies inside) are left out.
    static void addFolder(const QString& folder, ImportPlan& plan, const QString& skippedFolder,
                          const std::atomic<bool>* cancelRequested);
    // Files only; the caller hands folders to addFolder.
    static void addFiles(const QStringList& files, ImportPlan& plan,
                         const std::atomic<bool>* cancelRequested);

    // Reads the same-name .txt next to item.path when there is one.
    static void attachCaptionFile(ImportItem& item, ImportPlan& plan,
                                  const std::atomic<bool>* cancelRequested);

private:
    static QString listedNames(const QStringList& paths, const QString& folder);
};
