#pragma once

#include <QObject>
#include <QStringList>

class Settings;

// The recently opened project folders, most recent first, stored in Settings. A folder is
// listed once however it was reached (symbolic links, "..", trailing slashes), and folders
// that no longer exist are dropped by prune().
class RecentProjects : public QObject {
    Q_OBJECT

public:
    static constexpr int kMaximumCount = 10;

    explicit RecentProjects(Settings* settings, QObject* parent = nullptr);

    QStringList folders() const;
    // Moves folder to the front, adding it if new and dropping the oldest past the cap.
    void add(const QString& folder);
    void remove(const QString& folder);
    void clear();
    // Drops folders that no longer exist; returns how many were dropped.
    int prune();

    // The form folders are stored and compared in: canonical when the folder exists.
    static QString normalizedPath(const QString& folder);

signals:
    void foldersChanged();

private:
    Settings* m_settings;
};
