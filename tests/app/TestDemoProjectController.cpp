// The demo project's setup with a stand-in engine (a shell script that writes the model's
// folders), so every path runs without LibTorch: first start creates, builds and imports; a
// second start reuses; an engine that fails and a foreign folder are reported. The real engine
// runs in the studio's e2e demo test.
#include "app/dataset/ClipStore.h"
#include "app/dataset/DatasetPreferences.h"
#include "app/demo/DemoClipCatalog.h"
#include "app/demo/DemoProjectController.h"
#include "app/engine/EngineLocator.h"
#include "app/project/Project.h"
#include "media/log_level.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

class TestDemoProjectController : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void firstStartCreatesBuildsAndImports();
    void secondStartReusesTheProject();
    void missingImportIsRedoneWithoutBuilding();
    void failingEngineIsReported();
    void foreignFolderIsRefused();
    void engineLocatorOrder();

private:
    QString fakeEngine(const QString& name, const QString& body) const;
    QString folder(const QString& name) const;

    std::unique_ptr<QTemporaryDir> m_root;
};

namespace {

constexpr int kTimeoutMs = 120000;

const QString kWritesModel = QStringLiteral(
    "if [ \"$1\" = demo-vae ]; then\n"
    "  echo '{}' > \"$3\"/vae/demo_vae.json\n"
    "  echo '{\"v\":1,\"type\":\"done\",\"status\":\"ok\",\"summary\":{}}'\n"
    "  exit 0\n"
    "fi\n"
    "mkdir -p \"$5\"/transformer \"$5\"/vae \"$5\"/text_encoder \"$5\"/tokenizer \"$5\"/scheduler\n"
    "echo '{}' > \"$5\"/model_index.json\n");

} // namespace

void TestDemoProjectController::initTestCase() {
    tuneframe::media::set_log_level();
}

void TestDemoProjectController::init() {
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
}

QString TestDemoProjectController::fakeEngine(const QString& name, const QString& body) const {
    const QString path = QDir(m_root->path()).filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QString();
    file.write("#!/bin/sh\n" + body.toUtf8());
    file.close();
    file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

QString TestDemoProjectController::folder(const QString& name) const {
    return QDir(m_root->path()).filePath(name);
}

void TestDemoProjectController::firstStartCreatesBuildsAndImports() {
    DemoProjectController controller(folder(QStringLiteral("demo")),
                                     fakeEngine(QStringLiteral("engine"), kWritesModel));
    QSignalSpy ready(&controller, &DemoProjectController::ready);
    QSignalSpy failed(&controller, &DemoProjectController::failed);
    QSignalSpy imported(&controller, &DemoProjectController::clipsImported);
    QSignalSpy progress(&controller, &DemoProjectController::progressChanged);
    const std::shared_ptr<Project> project = controller.start();
    QVERIFY2(project, qPrintable(controller.errorMessage()));
    QVERIFY(Project::isProjectFolder(folder(QStringLiteral("demo"))));
    QCOMPARE(controller.state(), DemoProjectController::State::Building);

    QVERIFY(QTest::qWaitFor([&] { return !controller.isRunning(); }, kTimeoutMs));
    QVERIFY2(failed.isEmpty(), qPrintable(controller.errorMessage()));
    QCOMPARE(ready.size(), 1);
    QCOMPARE(controller.state(), DemoProjectController::State::Ready);
    QVERIFY(!controller.reusedExisting());
    QCOMPARE(imported.size(), 1);
    QCOMPARE(imported.at(0).at(0).value<QVector<qint64>>().size(), 8);
    QVERIFY(!progress.isEmpty());

    const QVector<ClipRecord> clips = ClipStore(*project).allClips();
    QCOMPARE(clips.size(), DemoClipCatalog::clips().size());
    for (const ClipRecord& clip : clips) {
        QVERIFY2(clip.isUsable(), qPrintable(clip.path));
        QVERIFY2(clip.caption.startsWith(DemoClipCatalog::kTriggerWord), qPrintable(clip.caption));
    }
    QCOMPARE(DatasetPreferences(*project).triggerWord(), DemoClipCatalog::kTriggerWord);
}

void TestDemoProjectController::secondStartReusesTheProject() {
    const QString demo = folder(QStringLiteral("demo"));
    {
        DemoProjectController first(demo, fakeEngine(QStringLiteral("engine"), kWritesModel));
        QVERIFY(first.start());
        QVERIFY(QTest::qWaitFor([&] { return !first.isRunning(); }, kTimeoutMs));
        QCOMPARE(first.state(), DemoProjectController::State::Ready);
    }
    // An engine that would fail proves nothing is built a second time.
    DemoProjectController second(demo,
                                 fakeEngine(QStringLiteral("broken"), QStringLiteral("exit 3\n")));
    QSignalSpy ready(&second, &DemoProjectController::ready);
    const std::shared_ptr<Project> project = second.start();
    QVERIFY(project);
    QVERIFY(second.reusedExisting());
    QVERIFY(ready.wait(5000));
    QCOMPARE(second.state(), DemoProjectController::State::Ready);
    QCOMPARE(ClipStore(*project).clipCount(), DemoClipCatalog::clips().size());
}

void TestDemoProjectController::missingImportIsRedoneWithoutBuilding() {
    const QString demo = folder(QStringLiteral("demo"));
    {
        DemoProjectController first(demo, fakeEngine(QStringLiteral("engine"), kWritesModel));
        QVERIFY(first.start());
        QVERIFY(QTest::qWaitFor([&] { return !first.isRunning(); }, kTimeoutMs));
    }
    // Clips and model on disk, but a fresh database: only the import runs again.
    for (const QString& name :
         {QStringLiteral("project.sqlite"), QStringLiteral("project.sqlite-wal"),
          QStringLiteral("project.sqlite-shm")})
        QFile::remove(QDir(demo).filePath(name));
    QVERIFY(Project::create(folder(QStringLiteral("fresh")), QStringLiteral("x")).succeeded());
    for (const QString& name : {QStringLiteral("project.sqlite")})
        QVERIFY(QFile::copy(QDir(folder(QStringLiteral("fresh"))).filePath(name),
                            QDir(demo).filePath(name)));
    DemoProjectController second(demo,
                                 fakeEngine(QStringLiteral("broken"), QStringLiteral("exit 3\n")));
    const std::shared_ptr<Project> project = second.start();
    QVERIFY2(project, qPrintable(second.errorMessage()));
    QCOMPARE(second.state(), DemoProjectController::State::Importing);
    QVERIFY(QTest::qWaitFor([&] { return !second.isRunning(); }, kTimeoutMs));
    QCOMPARE(second.state(), DemoProjectController::State::Ready);
    QCOMPARE(ClipStore(*project).clipCount(), DemoClipCatalog::clips().size());
}

void TestDemoProjectController::failingEngineIsReported() {
    DemoProjectController controller(
        folder(QStringLiteral("demo")),
        fakeEngine(QStringLiteral("failing"), QStringLiteral("echo 'out of disk' >&2\nexit 3\n")));
    QSignalSpy failed(&controller, &DemoProjectController::failed);
    QVERIFY(controller.start());
    QVERIFY(failed.wait(kTimeoutMs));
    QCOMPARE(controller.state(), DemoProjectController::State::Failed);
    QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("out of disk")),
             qPrintable(failed.at(0).at(0).toString()));

    DemoProjectController missing(folder(QStringLiteral("other")),
                                  folder(QStringLiteral("no-such-engine")));
    QSignalSpy missingFailed(&missing, &DemoProjectController::failed);
    QVERIFY(missing.start());
    QVERIFY(missingFailed.wait(10000));
    QVERIFY(missing.errorMessage().contains(QStringLiteral("no-such-engine")));
}

void TestDemoProjectController::foreignFolderIsRefused() {
    const QString foreign = folder(QStringLiteral("holiday photos"));
    QVERIFY(QDir().mkpath(foreign));
    QFile file(QDir(foreign).filePath(QStringLiteral("beach.jpg")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("not really");
    file.close();
    DemoProjectController controller(foreign, fakeEngine(QStringLiteral("engine"), kWritesModel));
    QVERIFY(!controller.start());
    QCOMPARE(controller.state(), DemoProjectController::State::Failed);
    QVERIFY(!controller.errorMessage().isEmpty());
    QVERIFY(!QFileInfo::exists(QDir(foreign).filePath(QStringLiteral("project.sqlite"))));
}

void TestDemoProjectController::engineLocatorOrder() {
    const QString studio = folder(QStringLiteral("build/ui"));
    QVERIFY(QDir().mkpath(studio));
    QCOMPARE(EngineLocator::enginePath(studio, QStringLiteral("/opt/engine")),
             QStringLiteral("/opt/engine"));
    QCOMPARE(EngineLocator::enginePath(studio, QString()), EngineLocator::kExecutableName);

    QVERIFY(QDir().mkpath(folder(QStringLiteral("build/engine/cli"))));
    const QString buildTree =
        fakeEngine(QStringLiteral("build/engine/cli/tuneframe-engine"), QStringLiteral("exit 0\n"));
    QCOMPARE(EngineLocator::enginePath(studio, QString()), QDir::cleanPath(buildTree));

    const QString beside =
        fakeEngine(QStringLiteral("build/ui/tuneframe-engine"), QStringLiteral("exit 0\n"));
    QCOMPARE(EngineLocator::enginePath(studio, QString()), QDir::cleanPath(beside));
}

QTEST_GUILESS_MAIN(TestDemoProjectController)
#include "TestDemoProjectController.moc"
