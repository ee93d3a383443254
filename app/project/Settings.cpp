#include "app/project/Settings.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSaveFile>
#include <QStandardPaths>

namespace {

const QString kFileName = QStringLiteral("settings.json");
const QString kVersionKey = QStringLiteral("schemaVersion");

const QString kAppearanceGroup = QStringLiteral("appearance");
const QString kProjectsGroup = QStringLiteral("projects");
const QString kMainWindowGroup = QStringLiteral("mainWindow");
const QString kEngineGroup = QStringLiteral("engine");

const QString kThemeKey = QStringLiteral("theme");
const QString kLanguageKey = QStringLiteral("language");
const QString kRecentKey = QStringLiteral("recent");
const QString kLastLocationKey = QStringLiteral("lastLocation");
const QString kGeometryKey = QStringLiteral("geometry");
const QString kStateKey = QStringLiteral("state");
const QString kSplittersGroup = QStringLiteral("splitters");
const QString kEnginePathKey = QStringLiteral("path");

QString defaultConfigDirectory() {
    const QString fromEnvironment = qEnvironmentVariable("TUNEFRAME_CONFIG_DIR");
    if (!fromEnvironment.isEmpty())
        return fromEnvironment;
    const QString standard = QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation);
    if (!standard.isEmpty())
        return standard;
    return QDir::home().filePath(QStringLiteral(".config/tuneframe"));
}

QJsonObject defaultRoot() {
    return QJsonObject{{kVersionKey, Settings::kSchemaVersion}};
}

} // namespace

Settings::Settings(const QString& configDirectory, QObject* parent)
    : QObject(parent)
    , m_configDirectory(QDir(configDirectory.isEmpty() ? defaultConfigDirectory() : configDirectory)
                            .absolutePath()) {
    m_writeTimer.setSingleShot(true);
    m_writeTimer.setInterval(kDefaultWriteDelayMs);
    connect(&m_writeTimer, &QTimer::timeout, this, [this] { sync(); });
    load();
}

Settings::~Settings() {
    sync();
}

QString Settings::configDirectory() const {
    return m_configDirectory;
}

QString Settings::filePath() const {
    return QDir(m_configDirectory).filePath(kFileName);
}

QString Settings::loadProblem() const {
    const QString file = QDir::toNativeSeparators(filePath());
    const QString reason = tr(m_loadFailureReason.toUtf8().constData());
    switch (m_loadFailure) {
    case LoadFailure::CannotOpen:
        return tr("Could not read the settings file %1 (%2), so Tuneframe started with default "
                  "settings. Check the file's permissions.")
            .arg(file, reason);
    case LoadFailure::MovedAside:
        return tr("Your settings file could not be read (%1), so Tuneframe started with default "
                  "settings. The unreadable file was kept as %2.")
            .arg(reason, QDir::toNativeSeparators(m_backupPath));
    case LoadFailure::CannotMoveAside:
        return tr("Your settings file %1 could not be read (%2) or moved aside, so Tuneframe "
                  "started with default settings and will replace it.")
            .arg(file, reason);
    case LoadFailure::None:
        break;
    }
    return QString();
}

void Settings::load() {
    m_root = defaultRoot();
    QFile file(filePath());
    if (!file.exists())
        return;
    if (!file.open(QIODevice::ReadOnly)) {
        m_loadFailure = LoadFailure::CannotOpen;
        m_loadFailureReason = file.errorString();
        return;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    file.close();
    if (parseError.error != QJsonParseError::NoError) {
        backUpUnreadableFile(parseError.errorString());
        return;
    }
    if (!document.isObject()) {
        backUpUnreadableFile(QStringLiteral(QT_TR_NOOP("it does not hold a JSON object")));
        return;
    }
    QJsonObject root = document.object();
    int fileVersion = 0; // the pre-release layout carried no version
    const QJsonValue versionValue = root.value(kVersionKey);
    if (!versionValue.isUndefined()) {
        const double number = versionValue.toDouble(-1);
        if (!versionValue.isDouble() || number < 0 || number != static_cast<int>(number)) {
            backUpUnreadableFile(
                QStringLiteral(QT_TR_NOOP("its schemaVersion is not a whole number")));
            return;
        }
        fileVersion = static_cast<int>(number);
    }
    if (fileVersion < kSchemaVersion) {
        // Keep what the older build wrote, in case the user goes back to it.
        const QString keepPath = filePath() + QStringLiteral(".v%1.bak").arg(fileVersion);
        if (!QFileInfo::exists(keepPath))
            QFile::copy(filePath(), keepPath);
        m_root = migrated(root, fileVersion);
        scheduleWrite();
        return;
    }
    // A newer build's file is used as it is: unknown keys and its version survive our writes.
    m_root = root;
}

void Settings::backUpUnreadableFile(const QString& reason) {
    const QString stamp =
        QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QString backupPath = filePath() + QStringLiteral(".corrupt-") + stamp;
    for (int attempt = 2; QFileInfo::exists(backupPath); ++attempt)
        backupPath = filePath() + QStringLiteral(".corrupt-%1-%2").arg(stamp).arg(attempt);
    m_loadFailureReason = reason;
    if (QFile::rename(filePath(), backupPath)) {
        m_loadFailure = LoadFailure::MovedAside;
        m_backupPath = backupPath;
    } else {
        m_loadFailure = LoadFailure::CannotMoveAside;
    }
    m_root = defaultRoot();
}

QJsonObject Settings::migrated(QJsonObject root, int fromVersion) {
    // One step per version; each takes the layout of version N and returns that of N + 1.
    using Step = QJsonObject (*)(const QJsonObject&);
    static const Step steps[] = {&Settings::migratedToVersion1};
    static_assert(sizeof(steps) / sizeof(steps[0]) == kSchemaVersion,
                  "one migration step per schema version");
    for (int version = fromVersion; version < kSchemaVersion; ++version)
        root = steps[version](root);
    return root;
}

QJsonObject Settings::migratedToVersion1(const QJsonObject& root) {
    // Version 0 was flat: theme ("System"/"Light"/"Dark"), language (a locale name or empty),
    // recentProjects, lastProjectLocation, windowGeometry and windowState (Base64).
    QJsonObject appearance;
    const QString theme = root.value(QStringLiteral("theme")).toString().toLower();
    if (themeFromKey(theme) != Theme::Invalid)
        appearance.insert(kThemeKey, theme);
    const QString language = root.value(QStringLiteral("language")).toString();
    appearance.insert(kLanguageKey, language.isEmpty() ? languageKey(Language::System) : language);

    QJsonObject projects;
    const QJsonValue recent = root.value(QStringLiteral("recentProjects"));
    if (recent.isArray())
        projects.insert(kRecentKey, recent);
    const QJsonValue lastLocation = root.value(QStringLiteral("lastProjectLocation"));
    if (lastLocation.isString())
        projects.insert(kLastLocationKey, lastLocation);

    QJsonObject mainWindow;
    const QJsonValue geometry = root.value(QStringLiteral("windowGeometry"));
    if (geometry.isString())
        mainWindow.insert(kGeometryKey, geometry);
    const QJsonValue state = root.value(QStringLiteral("windowState"));
    if (state.isString())
        mainWindow.insert(kStateKey, state);

    return QJsonObject{{kVersionKey, 1},
                       {kAppearanceGroup, appearance},
                       {kProjectsGroup, projects},
                       {kMainWindowGroup, mainWindow}};
}

Settings::Theme Settings::theme() const {
    const Theme theme = themeFromKey(value(kAppearanceGroup, kThemeKey).toString());
    return theme == Theme::Invalid ? Theme::System : theme;
}

void Settings::setTheme(Theme theme) {
    if (theme == Theme::Invalid)
        return;
    if (setValue(kAppearanceGroup, kThemeKey, themeKey(theme)))
        emit themeChanged(theme);
}

Settings::Language Settings::language() const {
    const Language language = languageFromKey(value(kAppearanceGroup, kLanguageKey).toString());
    return language == Language::Invalid ? Language::System : language;
}

void Settings::setLanguage(Language language) {
    if (language == Language::Invalid)
        return;
    if (setValue(kAppearanceGroup, kLanguageKey, languageKey(language)))
        emit languageChanged(language);
}

QStringList Settings::recentProjects() const {
    QStringList folders;
    const QJsonArray array = value(kProjectsGroup, kRecentKey).toArray();
    for (const QJsonValue& entry : array) {
        if (entry.isString() && !entry.toString().isEmpty())
            folders.append(entry.toString());
    }
    return folders;
}

void Settings::setRecentProjects(const QStringList& folders) {
    if (setValue(kProjectsGroup, kRecentKey, QJsonArray::fromStringList(folders)))
        emit recentProjectsChanged();
}

QString Settings::lastProjectLocation() const {
    const QString stored = value(kProjectsGroup, kLastLocationKey).toString();
    if (!stored.isEmpty())
        return stored;
    // A folder of their own, not the bare home folder; New Project creates it with the first.
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    return QDir(QFileInfo(documents).isDir() ? documents : QDir::homePath())
        .filePath(QStringLiteral("Tuneframe Projects"));
}

void Settings::setLastProjectLocation(const QString& folder) {
    setValue(kProjectsGroup, kLastLocationKey, folder);
}

QString Settings::enginePath() const {
    return value(kEngineGroup, kEnginePathKey).toString();
}

void Settings::setEnginePath(const QString& path) {
    if (setValue(kEngineGroup, kEnginePathKey, path.trimmed()))
        emit enginePathChanged(path.trimmed());
}

QByteArray Settings::mainWindowGeometry() const {
    return bytesValue(kMainWindowGroup, kGeometryKey);
}

void Settings::setMainWindowGeometry(const QByteArray& geometry) {
    setValue(kMainWindowGroup, kGeometryKey, QString::fromLatin1(geometry.toBase64()));
}

QByteArray Settings::mainWindowState() const {
    return bytesValue(kMainWindowGroup, kStateKey);
}

void Settings::setMainWindowState(const QByteArray& state) {
    setValue(kMainWindowGroup, kStateKey, QString::fromLatin1(state.toBase64()));
}

QByteArray Settings::splitterState(const QString& name) const {
    return bytesValue(kSplittersGroup, name);
}

void Settings::setSplitterState(const QString& name, const QByteArray& state) {
    setValue(kSplittersGroup, name, QString::fromLatin1(state.toBase64()));
}

void Settings::setWriteDelay(int milliseconds) {
    m_writeTimer.setInterval(milliseconds);
}

bool Settings::hasPendingWrite() const {
    return m_dirty;
}

bool Settings::sync() {
    m_writeTimer.stop();
    if (!m_dirty)
        return true;
    QString problem;
    if (!QDir().mkpath(m_configDirectory)) {
        problem = tr("the folder cannot be created");
    } else {
        QSaveFile file(filePath());
        if (!file.open(QIODevice::WriteOnly)) {
            problem = file.errorString();
        } else {
            file.write(QJsonDocument(m_root).toJson(QJsonDocument::Indented));
            if (!file.commit())
                problem = file.errorString();
        }
    }
    if (!problem.isEmpty()) {
        m_lastWriteError = tr("Could not save settings to %1: %2. Check that the folder is "
                              "writable and the disk is not full.")
                               .arg(QDir::toNativeSeparators(filePath()), problem);
        emit writeFailed(m_lastWriteError);
        return false;
    }
    m_dirty = false;
    m_lastWriteError.clear();
    return true;
}

QString Settings::lastWriteError() const {
    return m_lastWriteError;
}

QString Settings::themeKey(Theme theme) {
    switch (theme) {
    case Theme::System:
        return QStringLiteral("system");
    case Theme::Light:
        return QStringLiteral("light");
    case Theme::Dark:
        return QStringLiteral("dark");
    case Theme::Invalid:
        break;
    }
    return QString();
}

Settings::Theme Settings::themeFromKey(const QString& key) {
    for (Theme theme : {Theme::System, Theme::Light, Theme::Dark}) {
        if (key == themeKey(theme))
            return theme;
    }
    return Theme::Invalid;
}

QString Settings::languageKey(Language language) {
    switch (language) {
    case Language::System:
        return QStringLiteral("system");
    case Language::English:
        return QStringLiteral("en");
    case Language::SimplifiedChinese:
        return QStringLiteral("zh_CN");
    case Language::Invalid:
        break;
    }
    return QString();
}

Settings::Language Settings::languageFromKey(const QString& key) {
    for (Language language : {Language::System, Language::English, Language::SimplifiedChinese}) {
        if (key == languageKey(language))
            return language;
    }
    return Language::Invalid;
}

QJsonValue Settings::value(const QString& group, const QString& key) const {
    return m_root.value(group).toObject().value(key);
}

bool Settings::setValue(const QString& group, const QString& key, const QJsonValue& value) {
    QJsonObject groupObject = m_root.value(group).toObject();
    if (groupObject.value(key) == value)
        return false;
    groupObject.insert(key, value);
    m_root.insert(group, groupObject);
    scheduleWrite();
    return true;
}

QByteArray Settings::bytesValue(const QString& group, const QString& key) const {
    return QByteArray::fromBase64(value(group, key).toString().toLatin1());
}

void Settings::scheduleWrite() {
    m_dirty = true;
    // Coalesce: the first change starts the timer, later ones ride along with it.
    if (!m_writeTimer.isActive())
        m_writeTimer.start();
}
