#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

// The studio's one typed settings registry. Every key has a typed getter and setter with its
// default here, so no other code spells a key. Values live in settings.json (grouped JSON with
// a schemaVersion); changes are written after a short delay, coalesced, through QSaveFile.
class Settings : public QObject {
    Q_OBJECT

public:
    enum class Theme { Invalid, System, Light, Dark };
    Q_ENUM(Theme)
    enum class Language { Invalid, System, English, SimplifiedChinese };
    Q_ENUM(Language)

    static constexpr int kSchemaVersion = 1;
    static constexpr int kDefaultWriteDelayMs = 500;

    // An empty configDirectory means $TUNEFRAME_CONFIG_DIR when set, otherwise
    // QStandardPaths::AppConfigLocation.
    explicit Settings(const QString& configDirectory = QString(), QObject* parent = nullptr);
    // Writes pending changes.
    ~Settings() override;

    QString configDirectory() const;
    QString filePath() const;
    // Non-empty when settings.json could not be read and defaults are in use; names the backup.
    // Worded when asked, so it comes in the language installed by then.
    QString loadProblem() const;

    Theme theme() const;
    void setTheme(Theme theme);
    Language language() const;
    void setLanguage(Language language);

    // Most recent first; RecentProjects owns the rules, this only stores the list.
    QStringList recentProjects() const;
    void setRecentProjects(const QStringList& folders);
    // Where the New Project dialog proposes to create the next project.
    QString lastProjectLocation() const;
    void setLastProjectLocation(const QString& folder);

    // The tuneframe-engine the studio runs, as chosen in Preferences; empty: found as
    // EngineLocator says.
    QString enginePath() const;
    void setEnginePath(const QString& path);

    QByteArray mainWindowGeometry() const;
    void setMainWindowGeometry(const QByteArray& geometry);
    QByteArray mainWindowState() const;
    void setMainWindowState(const QByteArray& state);
    // Where the user left a named splitter (QSplitter::saveState); empty when never saved.
    QByteArray splitterState(const QString& name) const;
    void setSplitterState(const QString& name, const QByteArray& state);

    void setWriteDelay(int milliseconds);
    bool hasPendingWrite() const;
    // Writes now if anything changed. On failure returns false and keeps the change pending.
    bool sync();
    QString lastWriteError() const;

    static QString themeKey(Theme theme);
    static Theme themeFromKey(const QString& key);
    static QString languageKey(Language language);
    static Language languageFromKey(const QString& key);

signals:
    void themeChanged(Settings::Theme theme);
    void languageChanged(Settings::Language language);
    void recentProjectsChanged();
    void enginePathChanged(const QString& path);
    void writeFailed(const QString& message);

private:
    void load();
    enum class LoadFailure { None, CannotOpen, MovedAside, CannotMoveAside };
    // reason: a QT_TR_NOOP text of ours, or one Qt has already translated.
    void backUpUnreadableFile(const QString& reason);
    static QJsonObject migrated(QJsonObject root, int fromVersion);
    static QJsonObject migratedToVersion1(const QJsonObject& root);

    QJsonValue value(const QString& group, const QString& key) const;
    // Returns whether the stored value changed.
    bool setValue(const QString& group, const QString& key, const QJsonValue& value);
    QByteArray bytesValue(const QString& group, const QString& key) const;
    void scheduleWrite();

    QString m_configDirectory;
    QJsonObject m_root;
    QTimer m_writeTimer;
    bool m_dirty = false;
    LoadFailure m_loadFailure = LoadFailure::None;
    QString m_loadFailureReason;
    QString m_backupPath;
    QString m_lastWriteError;
};
