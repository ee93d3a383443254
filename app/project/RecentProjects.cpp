#include "app/project/RecentProjects.h"

#include "app/project/Settings.h"

#include <QDir>
#include <QFileInfo>

RecentProjects::RecentProjects(Settings* settings, QObject* parent)
    : QObject(parent)
    , m_settings(settings) {
    Q_ASSERT(settings);
    connect(m_settings, &Settings::recentProjectsChanged, this, &RecentProjects::foldersChanged);
}

QStringList RecentProjects::folders() const {
    return m_settings->recentProjects();
}

void RecentProjects::add(const QString& folder) {
    const QString normalized = normalizedPath(folder);
    if (normalized.isEmpty())
        return;
    QStringList updated{normalized};
    for (const QString& existing : m_settings->recentProjects()) {
        const QString existingNormalized = normalizedPath(existing);
        if (!updated.contains(existingNormalized))
            updated.append(existingNormalized);
    }
    while (updated.size() > kMaximumCount)
        updated.removeLast();
    m_settings->setRecentProjects(updated);
}

void RecentProjects::remove(const QString& folder) {
    const QString normalized = normalizedPath(folder);
    QStringList updated;
    for (const QString& existing : m_settings->recentProjects()) {
        if (normalizedPath(existing) != normalized)
            updated.append(existing);
    }
    m_settings->setRecentProjects(updated);
}

void RecentProjects::clear() {
    m_settings->setRecentProjects(QStringList());
}

int RecentProjects::prune() {
    const QStringList current = m_settings->recentProjects();
    QStringList kept;
    for (const QString& folder : current) {
        if (QFileInfo(folder).isDir())
            kept.append(folder);
    }
    m_settings->setRecentProjects(kept);
    return static_cast<int>(current.size() - kept.size());
}

QString RecentProjects::normalizedPath(const QString& folder) {
    if (folder.trimmed().isEmpty())
        return QString();
    const QFileInfo info(folder);
    const QString canonical = info.canonicalFilePath();
    return canonical.isEmpty() ? QDir::cleanPath(info.absoluteFilePath()) : canonical;
}
