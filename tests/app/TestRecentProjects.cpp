#include "app/project/RecentProjects.h"

#include "app/project/Settings.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

class TestRecentProjects : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void mostRecentFirst();
    void cappedAtMaximum();
    void deduplicatedByCanonicalPath();
    void missingFoldersArePruned();
    void removeAndClear();
    void storedInSettings();

private:
    QString makeFolder(const QString& name);

    std::unique_ptr<QTemporaryDir> m_folders;
    std::unique_ptr<QTemporaryDir> m_config;
};

void TestRecentProjects::init() {
    m_folders = std::make_unique<QTemporaryDir>();
    m_config = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folders->isValid() && m_config->isValid());
}

void TestRecentProjects::cleanup() {
    m_folders.reset();
    m_config.reset();
}

QString TestRecentProjects::makeFolder(const QString& name) {
    QDir(m_folders->path()).mkpath(name);
    return QFileInfo(QDir(m_folders->path()).filePath(name)).canonicalFilePath();
}

void TestRecentProjects::mostRecentFirst() {
    Settings settings(m_config->path());
    RecentProjects recent(&settings);
    const QString a = makeFolder(QStringLiteral("a"));
    const QString b = makeFolder(QStringLiteral("b"));
    const QString c = makeFolder(QStringLiteral("c"));
    QSignalSpy changes(&recent, &RecentProjects::foldersChanged);
    recent.add(a);
    recent.add(b);
    recent.add(c);
    QCOMPARE(recent.folders(), QStringList({c, b, a}));
    recent.add(a);
    QCOMPARE(recent.folders(), QStringList({a, c, b}));
    QCOMPARE(changes.count(), 4);
    // Adding the folder that is already first changes nothing.
    recent.add(a);
    QCOMPARE(changes.count(), 4);
}

void TestRecentProjects::cappedAtMaximum() {
    Settings settings(m_config->path());
    RecentProjects recent(&settings);
    QStringList added;
    for (int index = 0; index < RecentProjects::kMaximumCount + 3; ++index) {
        added.prepend(makeFolder(QStringLiteral("project-%1").arg(index)));
        recent.add(added.first());
    }
    QCOMPARE(recent.folders().size(), RecentProjects::kMaximumCount);
    QCOMPARE(recent.folders(), added.mid(0, RecentProjects::kMaximumCount));
    QVERIFY(!recent.folders().contains(makeFolder(QStringLiteral("project-0"))));
}

void TestRecentProjects::deduplicatedByCanonicalPath() {
    Settings settings(m_config->path());
    RecentProjects recent(&settings);
    const QString folder = makeFolder(QStringLiteral("clips/waves"));
    const QString link = QDir(m_folders->path()).filePath(QStringLiteral("shortcut"));
    QVERIFY(QFile::link(folder, link));

    recent.add(folder);
    recent.add(folder + QStringLiteral("/"));
    recent.add(QDir(m_folders->path()).filePath(QStringLiteral("clips/../clips/waves")));
    recent.add(link);
    QCOMPARE(recent.folders(), QStringList{folder});

    // Entries stored before (say, through a link) are merged when the list is next changed.
    const QString other = makeFolder(QStringLiteral("other"));
    settings.setRecentProjects({link, folder});
    recent.add(other);
    QCOMPARE(recent.folders(), QStringList({other, folder}));
}

void TestRecentProjects::missingFoldersArePruned() {
    Settings settings(m_config->path());
    RecentProjects recent(&settings);
    const QString kept = makeFolder(QStringLiteral("kept"));
    const QString gone = makeFolder(QStringLiteral("gone"));
    recent.add(kept);
    recent.add(gone);
    QVERIFY(QDir(gone).removeRecursively());
    QCOMPARE(recent.prune(), 1);
    QCOMPARE(recent.folders(), QStringList{kept});
    QCOMPARE(recent.prune(), 0);
}

void TestRecentProjects::removeAndClear() {
    Settings settings(m_config->path());
    RecentProjects recent(&settings);
    const QString a = makeFolder(QStringLiteral("a"));
    const QString b = makeFolder(QStringLiteral("b"));
    recent.add(a);
    recent.add(b);
    recent.remove(a + QStringLiteral("/"));
    QCOMPARE(recent.folders(), QStringList{b});
    recent.clear();
    QVERIFY(recent.folders().isEmpty());
}

void TestRecentProjects::storedInSettings() {
    const QString a = makeFolder(QStringLiteral("a"));
    const QString b = makeFolder(QStringLiteral("b"));
    {
        Settings settings(m_config->path());
        RecentProjects recent(&settings);
        recent.add(a);
        recent.add(b);
    }
    Settings settings(m_config->path());
    QCOMPARE(settings.recentProjects(), QStringList({b, a}));
    // Two views over one Settings agree.
    RecentProjects first(&settings);
    RecentProjects second(&settings);
    QSignalSpy secondChanges(&second, &RecentProjects::foldersChanged);
    first.add(a);
    QCOMPARE(second.folders(), QStringList({a, b}));
    QCOMPARE(secondChanges.count(), 1);
}

QTEST_GUILESS_MAIN(TestRecentProjects)
#include "TestRecentProjects.moc"
