#include "app/demo/DemoProjectBuilder.h"

#include "app/demo/DemoClipCatalog.h"
#include "app/playback/FrameImage.h"
#include "media/log_level.h"
#include "media/video_reader.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

// DemoProjectBuilder with stand-in engines (shell scripts), so every outcome of the model step
// is reachable; the real engine runs in TestDemoProjectEngine (label e2e).
class TestDemoProjectBuilder : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void catalogHasEightVariedClips();
    void writesClipsThatDecodeAsSpecified();
    void captionsCarryTheTriggerWord();
    void contentIsTheSameEveryTime();
    void framesMove();
    void missingEngineFailsBeforeWritingAnything();
    void failingEngineQuotesItsLastLines();
    void engineLeavingNoModelFails();
    void modelIsMovedIntoPlaceWhenComplete();
    void completeModelFromEarlierBuildIsKept();
    void aPipelineWithoutTheDemoVaeGetsItInPlace();
    void anOlderDemoModelStaysBesideTheNewOne();
    void aDemoProjectWithoutTheWanModelGetsIt();
    void failedDemoVaeSaysWhyAndLeavesNoModel();
    void foreignFolderInTheModelsPlaceIsRefused();
    void cancelStopsTheEngineAndCleansUp();

private:
    // A stand-in engine: a shell script whose body runs with "$@" = the builder's arguments.
    QString fakeEngine(const QString& name, const QString& body);
    QString projectFolder(const QString& name) const;
    // Mean absolute difference per channel, on a sparse grid.
    static double meanDifference(const QImage& a, const QImage& b);

    std::unique_ptr<QTemporaryDir> m_root;
};

namespace {

// init-model writes every component folder into the --out folder ($5); demo-vae (--model is $3)
// reports two clips, leaves its record and says done, as the engine does.
const QString kWritesModel = QStringLiteral(
    "if [ \"$1\" = demo-vae ]; then\n"
    "  echo \"$@\" > \"$3\"/vae/demo-vae-arguments.txt\n"
    "  echo '{\"v\":1,\"type\":\"progress\",\"done\":1,\"total\":2,\"unit\":\"clips\"}'\n"
    "  echo '{\"v\":1,\"type\":\"progress\",\"done\":2,\"total\":2,\"unit\":\"clips\"}'\n"
    "  echo '{}' > \"$3\"/vae/demo_vae.json\n"
    "  echo '{\"v\":1,\"type\":\"done\",\"status\":\"ok\",\"summary\":{}}'\n"
    "  exit 0\n"
    "fi\n"
    "mkdir -p \"$5\"/transformer \"$5\"/vae \"$5\"/text_encoder \"$5\"/tokenizer \"$5\"/scheduler\n"
    "echo '{}' > \"$5\"/model_index.json\n"
    "echo \"$@\" > \"$5\"/arguments.txt\n");

// Writes the model, then fails to make its VAE as the engine would.
const QString kDemoVaeFails = QStringLiteral(
    "if [ \"$1\" = demo-vae ]; then\n"
    "  echo '{\"v\":1,\"type\":\"error\",\"code\":\"bad_input\",\"message\":\"no clip "
    "decodes.\",\"hint\":\"Replace the clips.\"}'\n"
    "  exit 1\n"
    "fi\n"
    "mkdir -p \"$5\"/transformer \"$5\"/vae \"$5\"/text_encoder \"$5\"/tokenizer \"$5\"/scheduler\n"
    "echo '{}' > \"$5\"/model_index.json\n");

} // namespace

void TestDemoProjectBuilder::initTestCase() {
    tuneframe::media::set_log_level();
}

void TestDemoProjectBuilder::init() {
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
}

QString TestDemoProjectBuilder::projectFolder(const QString& name) const {
    return QDir(m_root->path()).filePath(name);
}

QString TestDemoProjectBuilder::fakeEngine(const QString& name, const QString& body) {
    const QString path = QDir(m_root->path()).filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QString();
    file.write("#!/bin/sh\n" + body.toUtf8());
    file.close();
    file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

double TestDemoProjectBuilder::meanDifference(const QImage& a, const QImage& b) {
    if (a.size() != b.size() || a.isNull())
        return 255.0;
    double sum = 0;
    int count = 0;
    for (int y = 0; y < a.height(); y += 4) {
        for (int x = 0; x < a.width(); x += 4) {
            const QRgb p = a.pixel(x, y);
            const QRgb q = b.pixel(x, y);
            sum +=
                qAbs(qRed(p) - qRed(q)) + qAbs(qGreen(p) - qGreen(q)) + qAbs(qBlue(p) - qBlue(q));
            count += 3;
        }
    }
    return sum / count;
}

void TestDemoProjectBuilder::catalogHasEightVariedClips() {
    const QList<DemoClipCatalog::Clip> clips = DemoClipCatalog::clips();
    QCOMPARE(clips.size(), 8);
    QSet<QString> names;
    QSet<QString> sizes;
    QSet<int> rates;
    for (const DemoClipCatalog::Clip& clip : clips) {
        names.insert(clip.baseName);
        sizes.insert(QStringLiteral("%1x%2").arg(clip.width).arg(clip.height));
        rates.insert(clip.framesPerSecond);
        // About two seconds each.
        const double seconds = static_cast<double>(clip.frameCount) / clip.framesPerSecond;
        QVERIFY(seconds >= 1.9 && seconds <= 2.1);
        // H.264 in yuv420p needs even sizes.
        QCOMPARE(clip.width % 2, 0);
        QCOMPARE(clip.height % 2, 0);
    }
    QCOMPARE(names.size(), 8);
    QVERIFY(sizes.size() >= 3);
    QVERIFY(rates.size() >= 2);
}

void TestDemoProjectBuilder::writesClipsThatDecodeAsSpecified() {
    const QString folder = projectFolder(QStringLiteral("decode"));
    DemoProjectBuilder builder(folder, fakeEngine(QStringLiteral("engine"), kWritesModel));
    QSignalSpy succeeded(&builder, &DemoProjectBuilder::buildSucceeded);
    QSignalSpy progress(&builder, &DemoProjectBuilder::progressChanged);
    builder.start();
    QVERIFY(builder.isRunning());
    QVERIFY(succeeded.wait(60000));
    QCOMPARE(builder.state(), DemoProjectBuilder::State::Succeeded);
    QCOMPARE(builder.clipsFolder(), QDir(folder).filePath(QStringLiteral("demo-clips")));

    const QList<DemoClipCatalog::Clip> clips = DemoClipCatalog::clips();
    const QStringList files = builder.clipFiles();
    QCOMPARE(files.size(), clips.size());
    for (int i = 0; i < clips.size(); ++i) {
        const DemoClipCatalog::Clip& clip = clips.at(i);
        QCOMPARE(files.at(i),
                 QDir(builder.clipsFolder()).filePath(clip.baseName + QStringLiteral(".mp4")));
        tuneframe::media::VideoReader reader(QFile::encodeName(files.at(i)).toStdString());
        QCOMPARE(reader.frame_count(), static_cast<int64_t>(clip.frameCount));
        QCOMPARE(reader.info().display_width, clip.width);
        QCOMPARE(reader.info().display_height, clip.height);
        QCOMPARE(reader.info().fps, static_cast<double>(clip.framesPerSecond));
        // The middle frame looks like what was drawn (lossy coding, so a loose bound).
        const int middle = clip.frameCount / 2;
        reader.seek(middle);
        const QImage decoded = FrameImage::toImage(*reader.read());
        const QImage drawn = DemoClipCatalog::renderFrame(clip, middle);
        const double error = meanDifference(decoded, drawn);
        QVERIFY2(error < 12, qPrintable(QStringLiteral("%1: %2").arg(clip.baseName).arg(error)));
    }

    // Progress runs from 0 to clips + 1 (the model) + the VAE's share + 1 (the Wan model), never
    // backwards, and the VAE's progress is shown.
    QVERIFY(!progress.isEmpty());
    const int total = clips.size() + 1 + DemoProjectBuilder::kVaeProgressUnits + 1;
    int previous = -1;
    bool sawVaeProgress = false;
    for (const QList<QVariant>& arguments : progress) {
        QVERIFY(arguments.at(0).toInt() >= previous);
        QCOMPARE(arguments.at(1).toInt(), total);
        QVERIFY(!arguments.at(2).toString().isEmpty());
        sawVaeProgress =
            sawVaeProgress || arguments.at(2).toString().contains(QStringLiteral("1 of 2"));
        previous = arguments.at(0).toInt();
    }
    QVERIFY(sawVaeProgress);
    QCOMPARE(previous, total);
}

void TestDemoProjectBuilder::captionsCarryTheTriggerWord() {
    DemoProjectBuilder builder(projectFolder(QStringLiteral("captions")),
                               fakeEngine(QStringLiteral("engine"), kWritesModel));
    QSignalSpy succeeded(&builder, &DemoProjectBuilder::buildSucceeded);
    builder.start();
    QVERIFY(succeeded.wait(60000));
    QSet<QString> captions;
    for (const QString& video : builder.clipFiles()) {
        QString captionPath = video;
        captionPath.replace(QStringLiteral(".mp4"), QStringLiteral(".txt"));
        QFile file(captionPath);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(captionPath));
        const QString caption = QString::fromUtf8(file.readAll()).trimmed();
        QVERIFY(caption.startsWith(DemoClipCatalog::kTriggerWord + QStringLiteral(", ")));
        QVERIFY(caption.size() > 30);
        captions.insert(caption);
    }
    QCOMPARE(captions.size(), 8);
    QCOMPARE(DemoClipCatalog::kTriggerWord, QStringLiteral("tfdemo"));
}

void TestDemoProjectBuilder::contentIsTheSameEveryTime() {
    // Pixels are what must repeat: x264's frame threads may order its bits differently when
    // the machine is busy, so two encodings are compared decoded, within coding noise.
    for (const DemoClipCatalog::Clip& clip : DemoClipCatalog::clips()) {
        for (int frame : {0, clip.frameCount / 3, clip.frameCount - 1})
            QCOMPARE(DemoClipCatalog::renderFrame(clip, frame),
                     DemoClipCatalog::renderFrame(clip, frame));
    }
    const QString engine = fakeEngine(QStringLiteral("engine"), kWritesModel);
    DemoProjectBuilder first(projectFolder(QStringLiteral("one")), engine);
    DemoProjectBuilder second(projectFolder(QStringLiteral("two")), engine);
    QSignalSpy firstDone(&first, &DemoProjectBuilder::buildSucceeded);
    QSignalSpy secondDone(&second, &DemoProjectBuilder::buildSucceeded);
    first.start();
    second.start();
    QTRY_COMPARE_WITH_TIMEOUT(firstDone.size(), 1, 60000);
    QTRY_COMPARE_WITH_TIMEOUT(secondDone.size(), 1, 60000);
    const QStringList a = first.clipFiles();
    const QStringList b = second.clipFiles();
    QCOMPARE(a.size(), b.size());
    for (int i = 0; i < a.size(); ++i) {
        QCOMPARE(QFileInfo(a.at(i)).fileName(), QFileInfo(b.at(i)).fileName());
        tuneframe::media::VideoReader readerA(QFile::encodeName(a.at(i)).toStdString());
        tuneframe::media::VideoReader readerB(QFile::encodeName(b.at(i)).toStdString());
        QCOMPARE(readerA.frame_count(), readerB.frame_count());
        for (int64_t frame = 0; frame < readerA.frame_count(); frame += 8) {
            readerA.seek(frame);
            readerB.seek(frame);
            const QImage imageA = FrameImage::toImage(*readerA.read());
            const QImage imageB = FrameImage::toImage(*readerB.read());
            QVERIFY2(meanDifference(imageA, imageB) < 2.0,
                     qPrintable(QStringLiteral("%1 frame %2").arg(a.at(i)).arg(frame)));
        }
    }
}

void TestDemoProjectBuilder::framesMove() {
    for (const DemoClipCatalog::Clip& clip : DemoClipCatalog::clips()) {
        const QImage first = DemoClipCatalog::renderFrame(clip, 0);
        const QImage middle = DemoClipCatalog::renderFrame(clip, clip.frameCount / 2);
        QCOMPARE(first.size(), QSize(clip.width, clip.height));
        QVERIFY2(first != middle, qPrintable(clip.baseName));
    }
}

void TestDemoProjectBuilder::missingEngineFailsBeforeWritingAnything() {
    const QString folder = projectFolder(QStringLiteral("no-engine"));
    const QString engine = QDir(m_root->path()).filePath(QStringLiteral("no/such/engine"));
    DemoProjectBuilder builder(folder, engine);
    QSignalSpy failed(&builder, &DemoProjectBuilder::buildFailed);
    builder.start();
    QCOMPARE(failed.size(), 1);
    QCOMPARE(builder.state(), DemoProjectBuilder::State::Failed);
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains(engine), qPrintable(message));
    QVERIFY(message.contains(QStringLiteral("tuneframe-engine")));
    QCOMPARE(builder.errorMessage(), message);
    QVERIFY(!QDir(builder.clipsFolder()).exists());
}

void TestDemoProjectBuilder::failingEngineQuotesItsLastLines() {
    QString body;
    for (int line = 1; line <= 20; ++line)
        body += QStringLiteral("echo 'progress line %1' >&2\n").arg(line);
    body += QStringLiteral("mkdir -p \"$5\"/transformer\n"
                           "echo \"error: the disk is full.\" >&2\n"
                           "echo \"hint: Free some space.\" >&2\n"
                           "exit 1\n");
    DemoProjectBuilder builder(projectFolder(QStringLiteral("fails")),
                               fakeEngine(QStringLiteral("engine"), body));
    QSignalSpy failed(&builder, &DemoProjectBuilder::buildFailed);
    builder.start();
    QVERIFY(failed.wait(60000));
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains(QStringLiteral("exit code 1")), qPrintable(message));
    QVERIFY(message.contains(QStringLiteral("error: the disk is full.")));
    QVERIFY(message.contains(QStringLiteral("hint: Free some space.")));
    QVERIFY(message.contains(QStringLiteral("progress line 20")));
    QVERIFY(!message.contains(QStringLiteral("progress line 1\n")));
    // The clips stay; no half model is left anywhere.
    QCOMPARE(builder.clipFiles().size(), 8);
    QVERIFY(!QDir(builder.modelFolder()).exists());
    const QDir models(QDir(builder.projectFolder()).filePath(QStringLiteral("models")));
    QCOMPARE(models.entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             QStringList());
}

void TestDemoProjectBuilder::engineLeavingNoModelFails() {
    DemoProjectBuilder builder(projectFolder(QStringLiteral("empty")),
                               fakeEngine(QStringLiteral("engine"), QStringLiteral("exit 0\n")));
    QSignalSpy failed(&builder, &DemoProjectBuilder::buildFailed);
    builder.start();
    QVERIFY(failed.wait(60000));
    QVERIFY(failed.first().first().toString().contains(QStringLiteral("complete model")));
    QVERIFY(!QDir(builder.modelFolder()).exists());
}

void TestDemoProjectBuilder::modelIsMovedIntoPlaceWhenComplete() {
    const QString folder = projectFolder(QStringLiteral("model"));
    DemoProjectBuilder builder(folder, fakeEngine(QStringLiteral("engine"), kWritesModel));
    QSignalSpy succeeded(&builder, &DemoProjectBuilder::buildSucceeded);
    builder.start();
    QVERIFY(succeeded.wait(60000));
    QCOMPARE(builder.modelFolder(),
             QDir(folder).filePath(QStringLiteral("models/cogvideox-tiny-demo")));
    QVERIFY(DemoProjectBuilder::isCompleteModel(builder.modelFolder()));
    QFile arguments(QDir(builder.modelFolder()).filePath(QStringLiteral("arguments.txt")));
    QVERIFY(arguments.open(QIODevice::ReadOnly));
    const QString used = QString::fromUtf8(arguments.readAll()).trimmed();
    QVERIFY2(used.startsWith(QStringLiteral("init-model --arch cogvideox-tiny-demo --out ")),
             qPrintable(used));
    // The demo's VAE was made in the staging folder, scaled on the clips at the CPU demo's size.
    QFile vaeArguments(
        QDir(builder.modelFolder()).filePath(QStringLiteral("vae/demo-vae-arguments.txt")));
    QVERIFY(vaeArguments.open(QIODevice::ReadOnly));
    const QString made = QString::fromUtf8(vaeArguments.readAll()).trimmed();
    QVERIFY2(made.startsWith(
                 QStringLiteral("demo-vae --model ") +
                 QDir(folder).filePath(QStringLiteral("models/.cogvideox-tiny-demo.partial"))),
             qPrintable(made));
    QVERIFY2(made.contains(QStringLiteral("--clips ") + builder.clipsFolder()), qPrintable(made));
    QVERIFY2(made.contains(QStringLiteral("--frames 9 --height 64 --width 96")), qPrintable(made));
    // Written next to their places, then renamed: only the models are left in models/.
    QCOMPARE(QDir(QDir(folder).filePath(QStringLiteral("models")))
                 .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             (QStringList{QStringLiteral("cogvideox-tiny-demo"), QStringLiteral("wan2.1-tiny")}));
    // The Wan demo's model: init-model's tiny Wan 2.1, no demo VAE (demo-vae is CogVideoX's).
    QCOMPARE(builder.wanModelFolder(), QDir(folder).filePath(QStringLiteral("models/wan2.1-tiny")));
    QVERIFY(DemoProjectBuilder::isCompletePipeline(builder.wanModelFolder()));
    QFile wanArguments(QDir(builder.wanModelFolder()).filePath(QStringLiteral("arguments.txt")));
    QVERIFY(wanArguments.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(wanArguments.readAll()).trimmed(),
             QStringLiteral("init-model --arch wan2.1-tiny --out ") +
                 QDir(folder).filePath(QStringLiteral("models/.wan2.1-tiny.partial")));
    QVERIFY(!QFile::exists(
        QDir(builder.wanModelFolder()).filePath(QStringLiteral("vae/demo-vae-arguments.txt"))));
    QCOMPARE(builder.progressDone(), builder.progressTotal());
}

// A demo project from before the Wan demo: its CogVideoX model stays as it is, and the Wan model
// is written beside it.
void TestDemoProjectBuilder::aDemoProjectWithoutTheWanModelGetsIt() {
    const QString folder = projectFolder(QStringLiteral("before-wan"));
    {
        DemoProjectBuilder builder(folder, fakeEngine(QStringLiteral("engine"), kWritesModel));
        QSignalSpy succeeded(&builder, &DemoProjectBuilder::buildSucceeded);
        builder.start();
        QVERIFY(succeeded.wait(60000));
        QVERIFY(QDir(builder.wanModelFolder()).removeRecursively());
    }
    // This engine fails anything but the Wan model's init-model: neither the CogVideoX model nor
    // its VAE is asked for again.
    DemoProjectBuilder builder(
        folder, fakeEngine(QStringLiteral("wan-only"),
                           QStringLiteral("[ \"$3\" = wan2.1-tiny ] || exit 3\n") + kWritesModel));
    QSignalSpy succeeded(&builder, &DemoProjectBuilder::buildSucceeded);
    QSignalSpy failed(&builder, &DemoProjectBuilder::buildFailed);
    builder.start();
    QVERIFY(QTest::qWaitFor([&] { return !succeeded.isEmpty() || !failed.isEmpty(); }, 60000));
    QVERIFY2(failed.isEmpty(),
             failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QVERIFY(DemoProjectBuilder::isCompleteModel(builder.modelFolder()));
    QVERIFY(DemoProjectBuilder::isCompletePipeline(builder.wanModelFolder()));
}

void TestDemoProjectBuilder::completeModelFromEarlierBuildIsKept() {
    const QString folder = projectFolder(QStringLiteral("again"));
    {
        DemoProjectBuilder builder(folder, fakeEngine(QStringLiteral("engine"), kWritesModel));
        QSignalSpy succeeded(&builder, &DemoProjectBuilder::buildSucceeded);
        builder.start();
        QVERIFY(succeeded.wait(60000));
    }
    // An engine that would fail is not even asked.
    DemoProjectBuilder builder(
        folder, fakeEngine(QStringLiteral("failing"), QStringLiteral("echo boom >&2\nexit 3\n")));
    QSignalSpy succeeded(&builder, &DemoProjectBuilder::buildSucceeded);
    builder.start();
    QVERIFY(succeeded.wait(60000));
    QCOMPARE(builder.clipFiles().size(), 8);
}

void TestDemoProjectBuilder::aPipelineWithoutTheDemoVaeGetsItInPlace() {
    const QString folder = projectFolder(QStringLiteral("by-hand"));
    const QString model = QDir(folder).filePath(QStringLiteral("models/cogvideox-tiny-demo"));
    for (const QString& component :
         {QStringLiteral("transformer"), QStringLiteral("vae"), QStringLiteral("text_encoder"),
          QStringLiteral("tokenizer"), QStringLiteral("scheduler")})
        QVERIFY(QDir().mkpath(QDir(model).filePath(component)));
    QFile index(QDir(model).filePath(QStringLiteral("model_index.json")));
    QVERIFY(index.open(QIODevice::WriteOnly));
    index.write("{}");
    index.close();
    QVERIFY(!DemoProjectBuilder::isCompleteModel(model));

    DemoProjectBuilder builder(folder, fakeEngine(QStringLiteral("engine"), kWritesModel));
    QSignalSpy succeeded(&builder, &DemoProjectBuilder::buildSucceeded);
    builder.start();
    QVERIFY(succeeded.wait(60000));
    QVERIFY(DemoProjectBuilder::isCompleteModel(model));
    // Not written again: no init-model ran, the VAE was replaced where it is.
    QVERIFY(!QFile::exists(QDir(model).filePath(QStringLiteral("arguments.txt"))));
    QFile vaeArguments(QDir(model).filePath(QStringLiteral("vae/demo-vae-arguments.txt")));
    QVERIFY(vaeArguments.open(QIODevice::ReadOnly));
    QVERIFY(QString::fromUtf8(vaeArguments.readAll())
                .startsWith(QStringLiteral("demo-vae --model ") + model));
}

// Demo projects made before the demo had its own wide model keep the narrow one, with their runs
// and exports that name it; the new model is written beside it.
void TestDemoProjectBuilder::anOlderDemoModelStaysBesideTheNewOne() {
    const QString folder = projectFolder(QStringLiteral("older"));
    const QString older = QDir(folder).filePath(QStringLiteral("models/cogvideox-tiny"));
    QVERIFY(QDir().mkpath(QDir(older).filePath(QStringLiteral("transformer"))));
    QFile weights(QDir(older).filePath(QStringLiteral("transformer/config.json")));
    QVERIFY(weights.open(QIODevice::WriteOnly));
    weights.write("{\"num_attention_heads\": 2}");
    weights.close();

    DemoProjectBuilder builder(folder, fakeEngine(QStringLiteral("engine"), kWritesModel));
    QSignalSpy succeeded(&builder, &DemoProjectBuilder::buildSucceeded);
    builder.start();
    QVERIFY(succeeded.wait(60000));
    QVERIFY(DemoProjectBuilder::isCompleteModel(builder.modelFolder()));
    QVERIFY(weights.open(QIODevice::ReadOnly));
    QCOMPARE(weights.readAll(), QByteArray("{\"num_attention_heads\": 2}"));
    QCOMPARE(QDir(QDir(folder).filePath(QStringLiteral("models")))
                 .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             (QStringList{QStringLiteral("cogvideox-tiny"), QStringLiteral("cogvideox-tiny-demo"),
                          QStringLiteral("wan2.1-tiny")}));
}

void TestDemoProjectBuilder::failedDemoVaeSaysWhyAndLeavesNoModel() {
    DemoProjectBuilder builder(projectFolder(QStringLiteral("no-vae")),
                               fakeEngine(QStringLiteral("engine"), kDemoVaeFails));
    QSignalSpy failed(&builder, &DemoProjectBuilder::buildFailed);
    builder.start();
    QVERIFY(failed.wait(60000));
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains(QStringLiteral("VAE")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("no clip decodes.")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("Replace the clips.")), qPrintable(message));
    const QDir models(QDir(builder.projectFolder()).filePath(QStringLiteral("models")));
    QCOMPARE(models.entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             QStringList());
}

void TestDemoProjectBuilder::foreignFolderInTheModelsPlaceIsRefused() {
    const QString folder = projectFolder(QStringLiteral("foreign"));
    const QString model = QDir(folder).filePath(QStringLiteral("models/cogvideox-tiny-demo"));
    QVERIFY(QDir().mkpath(model));
    QFile mine(QDir(model).filePath(QStringLiteral("notes.txt")));
    QVERIFY(mine.open(QIODevice::WriteOnly));
    mine.close();
    DemoProjectBuilder builder(folder, fakeEngine(QStringLiteral("engine"), kWritesModel));
    QSignalSpy failed(&builder, &DemoProjectBuilder::buildFailed);
    builder.start();
    QVERIFY(failed.wait(60000));
    QVERIFY(failed.first().first().toString().contains(model));
    QVERIFY(QFile::exists(mine.fileName()));
}

void TestDemoProjectBuilder::cancelStopsTheEngineAndCleansUp() {
    // Starts writing the model, then hangs until killed.
    const QString body = QStringLiteral("mkdir -p \"$5\"/transformer\nexec sleep 60\n");
    DemoProjectBuilder builder(projectFolder(QStringLiteral("cancel")),
                               fakeEngine(QStringLiteral("engine"), body));
    QSignalSpy failed(&builder, &DemoProjectBuilder::buildFailed);
    QSignalSpy succeeded(&builder, &DemoProjectBuilder::buildSucceeded);
    builder.start();
    QTRY_COMPARE_WITH_TIMEOUT(builder.state(), DemoProjectBuilder::State::CreatingModel, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(
        QDir(QDir(builder.projectFolder())
                 .filePath(QStringLiteral("models/.cogvideox-tiny-demo.partial")))
            .exists(),
        10000);
    QElapsedTimer clock;
    clock.start();
    builder.cancel();
    QVERIFY(clock.elapsed() < 5000);
    QCOMPARE(builder.state(), DemoProjectBuilder::State::Cancelled);
    QVERIFY(!builder.isRunning());
    QTest::qWait(200);
    QCOMPARE(failed.size(), 0);
    QCOMPARE(succeeded.size(), 0);
    const QDir models(QDir(builder.projectFolder()).filePath(QStringLiteral("models")));
    QCOMPARE(models.entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             QStringList());
}

QTEST_GUILESS_MAIN(TestDemoProjectBuilder)
#include "TestDemoProjectBuilder.moc"
