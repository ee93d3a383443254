// Issue #20 point 7: a thousand and more bad inputs (BadInputCorpus) through everything that
// reads user files: the studio's importer, `inspect`, `prepare` (clips, manifest lines, job
// files), `sweep`, the preset loader and the studio's event reader. The bar: no crash, no hang,
// and every rejection names its file. Label `slow`: run it with `ctest --preset slow`.
#include "BadInputCorpus.h"
#include "DatasetFixture.h"

#include "app/dataset/ClipStore.h"
#include "app/engine/EngineEvent.h"
#include "app/import/DatasetImporter.h"
#include "app/jobs/JobPresets.h"
#include "app/project/Project.h"
#include "media/log_level.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace {

struct EngineOutcome {
    int exitCode = -1;
    bool crashed = false;
    bool timedOut = false;
    QByteArray out;
    QString err;
};

EngineOutcome runEngine(const QString& engine, const QStringList& arguments, int timeoutMs) {
    QProcess process;
    process.start(engine, arguments);
    EngineOutcome outcome;
    if (!process.waitForStarted(10000)) {
        outcome.crashed = true;
        return outcome;
    }
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs)) {
        outcome.timedOut = true;
        process.kill();
        process.waitForFinished(5000);
    }
    outcome.crashed = process.exitStatus() == QProcess::CrashExit && !outcome.timedOut;
    outcome.exitCode = process.exitCode();
    outcome.out = process.readAllStandardOutput();
    outcome.err = QString::fromUtf8(process.readAllStandardError());
    return outcome;
}

QString describe(const BadInputCorpus::Input& input, const EngineOutcome& outcome) {
    return input.kind + QLatin1Char(' ') + input.path + QStringLiteral(": exit ") +
           QString::number(outcome.exitCode) +
           (outcome.crashed ? QStringLiteral(" (crashed)") : QString()) +
           (outcome.timedOut ? QStringLiteral(" (timed out)") : QString()) + QLatin1Char('\n') +
           outcome.err.left(600);
}

// Cancels an import that outlives its deadline, so a hang fails the test instead of stalling it.
class Watchdog {
public:
    Watchdog(std::atomic<bool>& cancel, std::chrono::seconds deadline)
        : m_thread([this, &cancel, deadline] {
            std::unique_lock<std::mutex> lock(m_mutex);
            if (!m_done.wait_for(lock, deadline, [this] { return m_finished; })) {
                m_fired = true;
                cancel = true;
            }
        }) {}
    ~Watchdog() {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_finished = true;
        }
        m_done.notify_all();
        m_thread.join();
    }
    bool fired() {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_fired;
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_done;
    bool m_finished = false;
    bool m_fired = false;
    std::thread m_thread;
};

struct Imported {
    ImportReport report;
    QVector<ClipRecord> clips;
    bool hung = false;
};

Imported importInto(const Project& project, const QString& path) {
    DatasetImporter importer(project);
    std::atomic<bool> cancel{false};
    Imported imported;
    {
        Watchdog watchdog(cancel, std::chrono::seconds(120));
        imported.report = importer.run({path}, ImportOptions{}, cancel);
        imported.hung = watchdog.fired();
    }
    imported.clips = ClipStore(project).allClips();
    return imported;
}

bool mentions(const QStringList& texts, const QString& part) {
    for (const QString& text : texts) {
        if (text.contains(part))
            return true;
    }
    return false;
}

// The refusal of a job names the job file, or the file in it that is at fault (the manifest or
// model the job points at).
bool namesTheJobOrAFileItNames(const QString& message, const QString& jobFile) {
    if (message.contains(QStringLiteral("job.json")) || message.contains(QFileInfo(jobFile).path()))
        return true;
    const QByteArray text = DatasetFixture::readBytes(jobFile);
    const QJsonObject job = QJsonDocument::fromJson(text).object();
    const QStringList named = {job.value("model").toString(),
                               job.value("dataset").toObject().value("manifest").toString()};
    for (const QString& path : named) {
        if (path.size() > 1 && message.contains(path))
            return true;
    }
    return false;
}

const ClipRecord* clipAt(const QVector<ClipRecord>& clips, const QString& path) {
    const QString canonical = QFileInfo(path).absoluteFilePath();
    for (const ClipRecord& clip : clips) {
        if (clip.path == canonical || clip.path == path)
            return &clip;
    }
    return nullptr;
}

} // namespace

class TestBadInputCorpus : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void importerKeepsEveryBadVideoWithItsReason();
    void importerDecodesOrFlagsEveryCaption();
    void importerKeepsLayoutsInsideTheirFolder();
    void inspectNamesEveryBrokenModel();
    void prepareSkipsEveryBadClipAndManifestLineByName();
    void prepareRefusesEveryBrokenJobNamingIt();
    void sweepPresetsAndEventsRefuseMalformedJson();

private:
    QTemporaryDir m_dir;
    QString m_engine;
    std::unique_ptr<BadInputCorpus> m_corpus;
};

void TestBadInputCorpus::initTestCase() {
    tuneframe::media::set_log_level();
    QVERIFY(m_dir.isValid());
    m_engine = qEnvironmentVariable("TUNEFRAME_ENGINE");
    QVERIFY2(QFileInfo(m_engine).isExecutable(), "TUNEFRAME_ENGINE must name tuneframe-engine");
    const QString tiny = qEnvironmentVariable("TUNEFRAME_TINY_PIPELINE");
    QVERIFY2(QFileInfo(tiny).isDir(), "TUNEFRAME_TINY_PIPELINE must name the tiny pipeline");
    try {
        m_corpus = std::make_unique<BadInputCorpus>(m_dir.filePath(QStringLiteral("corpus")), tiny);
    } catch (const std::exception& error) {
        QFAIL(error.what());
    }
    qInfo().noquote() << QStringLiteral(
                             "bad inputs: %1 (videos %2, captions %3, layouts %4, models %5, jobs "
                             "%6, manifest lines %7, sweep grids %8, presets %9, event lines %10)")
                             .arg(m_corpus->size())
                             .arg(m_corpus->videos().size())
                             .arg(m_corpus->captions().size())
                             .arg(m_corpus->layouts().size())
                             .arg(m_corpus->models().size())
                             .arg(m_corpus->jobs().size())
                             .arg(m_corpus->manifestLines().size())
                             .arg(m_corpus->sweepGrids().size())
                             .arg(m_corpus->presets().size())
                             .arg(m_corpus->eventLines().size());
    QVERIFY(m_corpus->size() >= 1000);
}

void TestBadInputCorpus::importerKeepsEveryBadVideoWithItsReason() {
    auto project = DatasetFixture::createProject(m_dir.filePath(QStringLiteral("project-videos")));
    QVERIFY(project);
    const QString folder = m_corpus->root() + QStringLiteral("/videos");
    const Imported imported = importInto(*project, folder);
    QVERIFY2(!imported.hung, "the import of the bad videos did not end within 120 s");
    QVERIFY2(imported.report.errors.isEmpty(), qPrintable(imported.report.errors.join('\n')));
    int flagged = 0;
    for (const BadInputCorpus::Input& video : m_corpus->videos()) {
        const ClipRecord* clip = clipAt(imported.clips, video.path);
        Imported single;
        const QString name = QFileInfo(video.path).fileName();
        if (!clip) {
            // A folder scan passes over extensions it does not know (.y4m) and says so in one
            // summarised note; imported by itself, as that note suggests, the file is tried.
            single = importInto(*project, video.path);
            QVERIFY2(!single.hung, qPrintable(video.path + QStringLiteral(" hung")));
            clip = clipAt(single.clips, video.path);
        }
        if (!clip) {
            QVERIFY2(mentions(single.report.notes + single.report.errors, name),
                     qPrintable(video.kind + QStringLiteral(" left out without a note: ") + name +
                                QStringLiteral("\n") + single.report.summary() +
                                QStringLiteral("\n") + single.report.notes.join('\n').left(2000)));
            continue;
        }
        if (!clip->isUsable()) {
            ++flagged;
            QVERIFY2(ClipRecord::problemText(clip->problem, clip->path).contains(name),
                     qPrintable(ClipRecord::problemText(clip->problem, clip->path)));
        }
    }
    qInfo() << "bad videos flagged:" << flagged << "of" << m_corpus->videos().size();
    QVERIFY(flagged > m_corpus->videos().size() / 2);
}

void TestBadInputCorpus::importerDecodesOrFlagsEveryCaption() {
    auto project =
        DatasetFixture::createProject(m_dir.filePath(QStringLiteral("project-captions")));
    QVERIFY(project);
    const Imported imported = importInto(*project, m_corpus->root() + QStringLiteral("/captions"));
    QVERIFY2(!imported.hung, "the import of the captions did not end within 120 s");
    QVERIFY2(imported.report.errors.isEmpty(), qPrintable(imported.report.errors.join('\n')));
    const QChar replacement(0xFFFD);
    for (const BadInputCorpus::Input& caption : m_corpus->captions()) {
        const QFileInfo info(caption.path);
        const QString clipPath =
            info.path() + QLatin1Char('/') + info.completeBaseName() + QStringLiteral(".mp4");
        const ClipRecord* clip = clipAt(imported.clips, clipPath);
        QVERIFY2(clip, qPrintable(QStringLiteral("clip missing for ") + caption.path));
        const bool special = caption.kind == QLatin1String("caption/fifo") ||
                             caption.kind == QLatin1String("caption/folder") ||
                             caption.kind == QLatin1String("caption/dev-zero");
        if (special) {
            QVERIFY2(clip->caption.isEmpty(),
                     qPrintable(caption.kind + ": " + clip->caption.left(80)));
            QVERIFY2(mentions(imported.report.notes, info.fileName()),
                     qPrintable(caption.kind + QStringLiteral(" refused without a note: ") +
                                caption.path));
            continue;
        }
        // Decoded, or kept and flagged for a look; never silently replaced.
        QVERIFY2(!clip->caption.contains(replacement) || clip->captionNeedsCheck,
                 qPrintable(caption.kind + QStringLiteral(": ") + clip->caption.left(80)));
        if (caption.kind.startsWith(QLatin1String("caption/undecodable")))
            QVERIFY2(clip->captionNeedsCheck, qPrintable(caption.path));
    }
}

void TestBadInputCorpus::importerKeepsLayoutsInsideTheirFolder() {
    auto project = DatasetFixture::createProject(m_dir.filePath(QStringLiteral("project-layouts")));
    QVERIFY(project);
    for (const BadInputCorpus::Input& layout : m_corpus->layouts()) {
        const QString folder =
            QFileInfo(layout.path).isDir() ? layout.path : QFileInfo(layout.path).path();
        const Imported imported = importInto(*project, layout.path);
        QVERIFY2(!imported.hung, qPrintable(layout.kind + QStringLiteral(" hung: ") + layout.path));
        for (const ClipRecord& clip : imported.clips) {
            // Every layout shares the project: clips of earlier layouts are there too.
            if (!clip.path.startsWith(m_corpus->root() + QStringLiteral("/layouts/")))
                QFAIL(qPrintable(layout.path + QStringLiteral(" imported ") + clip.path));
        }
        if (layout.kind == QLatin1String("layout/escaping-path") ||
            layout.kind == QLatin1String("layout/escaping-symlink") ||
            layout.kind == QLatin1String("layout/special-file")) {
            const QStringList said = imported.report.notes + imported.report.errors;
            QVERIFY2(!said.isEmpty(), qPrintable(layout.path + QStringLiteral(": nothing said")));
            QVERIFY2(mentions(said, QFileInfo(folder).fileName()) || mentions(said, folder),
                     qPrintable(layout.path + QStringLiteral(": ") + said.join('\n').left(600)));
        }
    }
}

void TestBadInputCorpus::inspectNamesEveryBrokenModel() {
    int refused = 0;
    for (const BadInputCorpus::Input& model : m_corpus->models()) {
        const EngineOutcome outcome =
            runEngine(m_engine, {QStringLiteral("inspect"), model.path}, 30000);
        QVERIFY2(!outcome.crashed && !outcome.timedOut, qPrintable(describe(model, outcome)));
        QVERIFY2(outcome.exitCode == 0 || outcome.exitCode == 1,
                 qPrintable(describe(model, outcome)));
        if (outcome.exitCode == 1) {
            ++refused;
            QVERIFY2(outcome.err.contains(QFileInfo(model.path).fileName()),
                     qPrintable(describe(model, outcome)));
            QVERIFY2(outcome.err.contains(QStringLiteral("hint:")),
                     qPrintable(describe(model, outcome)));
        }
    }
    qInfo() << "inspect refused" << refused << "of" << m_corpus->models().size();
    QVERIFY(refused > m_corpus->models().size() * 3 / 4);
}

void TestBadInputCorpus::prepareSkipsEveryBadClipAndManifestLineByName() {
    const QString run = m_dir.filePath(QStringLiteral("runs/manifest"));
    QDir().mkpath(run);
    const QJsonObject job{
        {"v", 1},
        {"model", qEnvironmentVariable("TUNEFRAME_TINY_PIPELINE")},
        {"dataset", QJsonObject{{"manifest", m_corpus->manifestWithBadLines()},
                                {"cache_dir", m_dir.filePath(QStringLiteral("cache"))},
                                {"resolution_buckets", QJsonArray{QJsonValue(QJsonArray{32, 48})}},
                                {"frame_buckets", QJsonArray{9}}}},
        {"precision", "fp32"},
        {"device", "cpu"}};
    QVERIFY(
        DatasetFixture::writeBytes(run + QStringLiteral("/job.json"), QJsonDocument(job).toJson()));
    const BadInputCorpus::Input input{QStringLiteral("manifest"), m_corpus->manifestWithBadLines()};
    const EngineOutcome outcome = runEngine(
        m_engine,
        {QStringLiteral("prepare"), QStringLiteral("--job"), run + QStringLiteral("/job.json")},
        600000);
    QVERIFY2(!outcome.crashed && !outcome.timedOut && outcome.exitCode == 0,
             qPrintable(describe(input, outcome)));
    QFile index(run + QStringLiteral("/prepared.jsonl"));
    QVERIFY(index.open(QIODevice::ReadOnly));
    QSet<qint64> lines;
    int skipped = 0;
    while (!index.atEnd()) {
        const QJsonObject entry = QJsonDocument::fromJson(index.readLine()).object();
        const QString kind = entry.value("kind").toString();
        if (kind == QLatin1String("skipped")) {
            ++skipped;
            QVERIFY2(!entry.value("reason").toString().isEmpty(),
                     qPrintable(QJsonDocument(entry).toJson()));
            QVERIFY2(!entry.value("message").toString().isEmpty(),
                     qPrintable(QJsonDocument(entry).toJson()));
        }
        if (kind == QLatin1String("skipped") || kind == QLatin1String("sample"))
            lines.insert(entry.value("line").toInteger());
    }
    // Every line of the manifest is either a sample or a skip with its reason.
    const qint64 total = 1 + m_corpus->manifestLines().size();
    for (qint64 line = 1; line <= total; ++line)
        QVERIFY2(lines.contains(line),
                 qPrintable(QStringLiteral("manifest line %1 unaccounted").arg(line)));
    qInfo() << "prepare skipped" << skipped << "of" << total << "lines";
    QVERIFY(skipped >= m_corpus->manifestLines().size() / 2);
}

void TestBadInputCorpus::prepareRefusesEveryBrokenJobNamingIt() {
    int refused = 0;
    for (const BadInputCorpus::Input& job : m_corpus->jobs()) {
        const EngineOutcome outcome = runEngine(
            m_engine, {QStringLiteral("prepare"), QStringLiteral("--job"), job.path}, 120000);
        QVERIFY2(!outcome.crashed && !outcome.timedOut, qPrintable(describe(job, outcome)));
        if (outcome.exitCode == 0)
            continue; // a mutation that still makes a usable job
        ++refused;
        QVERIFY2(outcome.exitCode == 1, qPrintable(describe(job, outcome)));
        QVERIFY2(namesTheJobOrAFileItNames(outcome.err, job.path),
                 qPrintable(describe(job, outcome)));
        const QList<QByteArray> events = outcome.out.trimmed().split('\n');
        QVERIFY2(events.size() >= 2, qPrintable(describe(job, outcome)));
        const QJsonObject done = QJsonDocument::fromJson(events.last()).object();
        QCOMPARE(done.value("type").toString(), QStringLiteral("done"));
        QCOMPARE(done.value("status").toString(), QStringLiteral("failed"));
    }
    qInfo() << "prepare refused" << refused << "of" << m_corpus->jobs().size() << "jobs";
    QVERIFY(refused > m_corpus->jobs().size() * 3 / 4);
}

void TestBadInputCorpus::sweepPresetsAndEventsRefuseMalformedJson() {
    const QString base = m_dir.filePath(QStringLiteral("sweep-base.json"));
    const QJsonObject job{
        {"v", 1},
        {"model", qEnvironmentVariable("TUNEFRAME_TINY_PIPELINE")},
        {"dataset",
         QJsonObject{{"manifest", m_corpus->root() + QStringLiteral("/good/data.jsonl")}}}};
    QVERIFY(DatasetFixture::writeBytes(base, QJsonDocument(job).toJson()));
    for (const BadInputCorpus::Input& grid : m_corpus->sweepGrids()) {
        const EngineOutcome outcome =
            runEngine(m_engine,
                      {QStringLiteral("sweep"), QStringLiteral("--job"), base,
                       QStringLiteral("--grid"), grid.path, QStringLiteral("--out"),
                       m_dir.filePath(QStringLiteral("sweeps/") + QFileInfo(grid.path).baseName()),
                       QStringLiteral("--plan-only")},
                      60000);
        QVERIFY2(!outcome.crashed && !outcome.timedOut, qPrintable(describe(grid, outcome)));
        if (outcome.exitCode != 0)
            QVERIFY2(outcome.err.contains(QFileInfo(grid.path).fileName()),
                     qPrintable(describe(grid, outcome)));
    }

    QStringList problems;
    const QVector<JobPreset> loaded = JobPresets::load({m_corpus->presetFolder()}, &problems);
    for (const BadInputCorpus::Input& preset : m_corpus->presets()) {
        const QString name = QFileInfo(preset.path).fileName();
        bool wasLoaded = false;
        for (const JobPreset& candidate : loaded)
            wasLoaded |= candidate.file.endsWith(name);
        QVERIFY2(
            wasLoaded || mentions(problems, name),
            qPrintable(name + QStringLiteral(" neither loaded nor named: ") + problems.join('\n')));
    }

    int refused = 0;
    for (const QByteArray& line : m_corpus->eventLines()) {
        QString error;
        if (!EngineEvent::parse(line, &error)) {
            ++refused;
            QVERIFY2(!error.isEmpty(), line.left(200).constData());
        }
    }
    qInfo() << "event lines refused" << refused << "of" << m_corpus->eventLines().size();
    QVERIFY(refused > 0);
}

QTEST_GUILESS_MAIN(TestBadInputCorpus)
#include "TestBadInputCorpus.moc"
