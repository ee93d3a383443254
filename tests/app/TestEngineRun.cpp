// EngineRun reading a run's events.jsonl as an engine writes it: malformed lines are reported
// and skipped, a partial last line waits for its newline, a done line ends the command at the
// exact byte after it, a process that goes away without one counts as vanished, and a line cut
// short by a full disk costs only itself. The
// "engine" is `sleep` started under a name containing tuneframe-engine, which is what the
// liveness check looks for.
#include "app/engine/EngineRun.h"

#include "app/engine/EngineEnvironment.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLocalServer>
#include <QLocalSocket>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

class TestEngineRun : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void readsCompleteLinesAndReportsMalformedOnes();
    void partialLineWaitsForItsNewline();
    void doneEndsTheCommandAtItsLine();
    void processGoneWithoutDoneIsVanished();
    void anEventJoinedToACutLineIsKept();
    void aResumedRunsEventsAfterACutLineAreRead();
    void anEngineReplacingItsImageStaysAlive();
    void trainingEnginesLeaveACoreToTheStudio();
    void commandsReachTheControlSocket();
    void launchPlanChoosesTheCommandLine();
    void launchPlanSurvivesTheRunFolder();

private:
    void append(const QByteArray& bytes);
    qint64 startFakeEngine();
    QVector<EngineEvent> eventsOf(const QSignalSpy& spy) const;

    std::unique_ptr<QTemporaryDir> m_run;
    QProcess m_fakeEngine;
};

void TestEngineRun::init() {
    m_run = std::make_unique<QTemporaryDir>();
    QVERIFY(m_run->isValid());
}

void TestEngineRun::cleanup() {
    if (m_fakeEngine.state() != QProcess::NotRunning) {
        m_fakeEngine.kill();
        m_fakeEngine.waitForFinished();
    }
}

void TestEngineRun::append(const QByteArray& bytes) {
    QFile file(m_run->filePath(EngineRun::kEventsFileName));
    QVERIFY(file.open(QIODevice::Append));
    QCOMPARE(file.write(bytes), bytes.size());
}

qint64 TestEngineRun::startFakeEngine() {
    const QString name = m_run->filePath(QStringLiteral("tuneframe-engine-fake"));
    if (!QFile::exists(name) && !QFile::link(QStringLiteral("/bin/sleep"), name))
        return 0;
    m_fakeEngine.start(name, {QStringLiteral("60")});
    if (!m_fakeEngine.waitForStarted())
        return 0;
    const qint64 pid = m_fakeEngine.processId();
    return QTest::qWaitFor([pid] { return EngineRun::isEngineAlive(pid); }, 5000) ? pid : 0;
}

QVector<EngineEvent> TestEngineRun::eventsOf(const QSignalSpy& spy) const {
    QVector<EngineEvent> events;
    for (const QList<QVariant>& arguments : spy)
        events += arguments.at(0).value<QVector<EngineEvent>>();
    return events;
}

void TestEngineRun::readsCompleteLinesAndReportsMalformedOnes() {
    const qint64 pid = startFakeEngine();
    QVERIFY(pid > 0);
    QTRY_VERIFY(EngineRun::isEngineAlive(pid)); // exec may still be replacing the image
    EngineRun run(QStringLiteral("unused"), m_run->path());
    QSignalSpy read(&run, &EngineRun::eventsRead);
    QSignalSpy malformed(&run, &EngineRun::malformedLineRead);
    append("{\"v\":1,\"type\":\"phase\",\"phase\":\"train\"}\n"
           "this is not json\n"
           "\n"
           "{\"type\":\"log\"}\n"
           "{\"v\":99,\"type\":\"log\",\"message\":\"from the future\"}\r\n"
           "{\"v\":1,\"type\":\"step\",\"step\":1,\"loss\":0.5}\r\n"
           "{\"v\":1,\"type\":\"brand_new\",\"x\":1}\n");
    run.attach(QStringLiteral("train"), pid, 0);
    QTRY_VERIFY(!read.isEmpty());
    const QVector<EngineEvent> events = eventsOf(read);
    QCOMPARE(events.size(), 3);
    QCOMPARE(events.at(0).type, tuneframe::protocol::EventType::Phase);
    QCOMPARE(events.at(1).type, tuneframe::protocol::EventType::Step);
    QCOMPARE(events.at(1).integer(QStringLiteral("step")), 1);
    QCOMPARE(events.at(2).type, tuneframe::protocol::EventType::Invalid); // unknown, kept
    QCOMPARE(malformed.size(), 3);
    QVERIFY(malformed.at(2).at(0).toString().contains(QStringLiteral("99")));
    QVERIFY(run.isFollowing());
}

void TestEngineRun::partialLineWaitsForItsNewline() {
    const qint64 pid = startFakeEngine();
    QVERIFY(pid > 0);
    EngineRun run(QStringLiteral("unused"), m_run->path());
    QSignalSpy read(&run, &EngineRun::eventsRead);
    const QByteArray line = "{\"v\":1,\"type\":\"step\",\"step\":7,\"loss\":0.25}\n";
    append(line.left(10));
    run.attach(QStringLiteral("train"), pid, 0);
    QTest::qWait(500);
    QVERIFY(read.isEmpty());
    QCOMPARE(run.eventsOffset(), 0);
    // The rest arrives a byte at a time.
    for (qsizetype index = 10; index < line.size() - 1; ++index)
        append(line.mid(index, 1));
    QTest::qWait(400);
    QVERIFY(read.isEmpty());
    append("\n");
    QTRY_COMPARE(read.size(), 1);
    QCOMPARE(eventsOf(read).constFirst().integer(QStringLiteral("step")), 7);
    QCOMPARE(run.eventsOffset(), line.size());
}

void TestEngineRun::doneEndsTheCommandAtItsLine() {
    const qint64 pid = startFakeEngine();
    QVERIFY(pid > 0);
    const QByteArray before = "{\"v\":1,\"type\":\"progress\",\"done\":1,\"total\":1}\n";
    const QByteArray done = "{\"v\":1,\"type\":\"done\",\"status\":\"ok\",\"summary\":{}}\n";
    const QByteArray next = "{\"v\":1,\"type\":\"hello\"}\n";
    append(before + done + next);
    EngineRun run(QStringLiteral("unused"), m_run->path());
    QSignalSpy ended(&run, &EngineRun::ended);
    QSignalSpy read(&run, &EngineRun::eventsRead);
    run.attach(QStringLiteral("prepare"), pid, 0);
    QTRY_COMPARE(ended.size(), 1);
    QCOMPARE(ended.constFirst().at(0).value<EngineRun::Outcome>(), EngineRun::Outcome::Succeeded);
    QCOMPARE(eventsOf(read).size(), 2);
    // The next command reads on from here, so the hello belongs to it.
    QCOMPARE(run.eventsOffset(), before.size() + done.size());
    QVERIFY(!run.isFollowing());
}

void TestEngineRun::processGoneWithoutDoneIsVanished() {
    const qint64 pid = startFakeEngine();
    QVERIFY(pid > 0);
    append("{\"v\":1,\"type\":\"step\",\"step\":1}\n{\"v\":1,\"type\":\"st");
    EngineRun run(QStringLiteral("unused"), m_run->path());
    QSignalSpy ended(&run, &EngineRun::ended);
    QSignalSpy read(&run, &EngineRun::eventsRead);
    run.attach(QStringLiteral("train"), pid, 0);
    QTRY_COMPARE(read.size(), 1);
    QVERIFY(ended.isEmpty());
    m_fakeEngine.kill();
    m_fakeEngine.waitForFinished();
    QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, 10000);
    QCOMPARE(ended.constFirst().at(0).value<EngineRun::Outcome>(), EngineRun::Outcome::Vanished);
    QCOMPARE(eventsOf(read).size(), 1); // the half-written line was never an event
}

// An engine cut off mid-line by a full disk, then resumed by one that did not start a new line
// (as engines did before events.jsonl became append-safe), glued its first event to the cut
// line: that event is read, with a warning for the cut part.
void TestEngineRun::anEventJoinedToACutLineIsKept() {
    const qint64 pid = startFakeEngine();
    QVERIFY(pid > 0);
    append("{\"v\":1,\"type\":\"step\",\"step\":10}\n"
           "{\"epoch\":0,\"loss\":0.5,\"mem\":[{\"rank\":0}],\"samples_per_s\":2.90891461"
           "{\"phase\":\"train\",\"type\":\"phase\",\"v\":1}\n"
           "{\"v\":1,\"type\":\"step\",\"step\":11,\"mem\":[{\"rank\":0}]}\n");
    EngineRun run(QStringLiteral("unused"), m_run->path());
    QSignalSpy read(&run, &EngineRun::eventsRead);
    QSignalSpy malformed(&run, &EngineRun::malformedLineRead);
    run.attach(QStringLiteral("train"), pid, 0);
    QTRY_VERIFY(!read.isEmpty());
    const QVector<EngineEvent> events = eventsOf(read);
    QCOMPARE(events.size(), 3);
    QCOMPARE(events.at(1).type, tuneframe::protocol::EventType::Phase);
    QCOMPARE(events.at(1).string(QStringLiteral("phase")), QStringLiteral("train"));
    QCOMPARE(events.at(2).integer(QStringLiteral("step")), 11);
    QCOMPARE(malformed.size(), 1);
    // A line that is only a cut event, or garbage with braces, has nothing to keep.
    QVERIFY(!EngineEvent::parseAfterCutLine("{\"epoch\":0,\"mem\":[{\"rank\":0}"));
    QVERIFY(!EngineEvent::parseAfterCutLine("}{{{\"v\":1"));
    QVERIFY(!EngineEvent::parseAfterCutLine(QByteArray(100000, '{')));
}

// The engine died with its last line cut: the studio says so when it counts the run as gone,
// and an engine resuming the run (which starts on a new line) is followed from the same offset
// with only that line lost.
void TestEngineRun::aResumedRunsEventsAfterACutLineAreRead() {
    const QByteArray whole = "{\"v\":1,\"type\":\"step\",\"step\":1}\n";
    append(whole + "{\"v\":1,\"type\":\"step\",\"st");
    qint64 offset = 0;
    {
        const qint64 pid = startFakeEngine();
        QVERIFY(pid > 0);
        EngineRun run(QStringLiteral("unused"), m_run->path());
        QSignalSpy ended(&run, &EngineRun::ended);
        QSignalSpy malformed(&run, &EngineRun::malformedLineRead);
        run.attach(QStringLiteral("train"), pid, 0);
        QTRY_COMPARE(run.eventsOffset(), whole.size());
        m_fakeEngine.kill();
        m_fakeEngine.waitForFinished();
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, 10000);
        QCOMPARE(malformed.size(), 1);
        offset = run.eventsOffset();
    }
    append("\n{\"v\":1,\"type\":\"step\",\"step\":2}\n");
    const qint64 pid = startFakeEngine();
    QVERIFY(pid > 0);
    EngineRun run(QStringLiteral("unused"), m_run->path());
    QSignalSpy read(&run, &EngineRun::eventsRead);
    QSignalSpy malformed(&run, &EngineRun::malformedLineRead);
    run.attach(QStringLiteral("train"), pid, offset);
    QTRY_VERIFY(!read.isEmpty());
    const QVector<EngineEvent> events = eventsOf(read);
    QCOMPARE(events.size(), 1);
    QCOMPARE(events.constFirst().integer(QStringLiteral("step")), 2);
    QCOMPARE(malformed.size(), 1);
}

// `run` becomes `train` by exec; for a moment inside execve the kernel shows an empty
// /proc/PID/cmdline. A studio that looked then would have judged the run's engine dead. The
// launcher here is a shell whose command line names tuneframe-engine, exec'ing the fake engine;
// every look from before the exec until the new image shows its command line must say alive.
void TestEngineRun::anEngineReplacingItsImageStaysAlive() {
    const QString fake = m_run->filePath(QStringLiteral("tuneframe-engine-fake"));
    QVERIFY(QFile::link(QStringLiteral("/bin/sleep"), fake));
    constexpr int kExecs = 20;
    for (int attempt = 0; attempt < kExecs; ++attempt) {
        QProcess launcher;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("FAKE_ENGINE"), fake);
        launcher.setProcessEnvironment(environment);
        launcher.start(QStringLiteral("/bin/sh"),
                       {QStringLiteral("-c"), QStringLiteral("read line; exec \"$FAKE_ENGINE\" 60"),
                        QStringLiteral("tuneframe-engine-launcher")});
        QVERIFY(launcher.waitForStarted());
        const qint64 pid = launcher.processId();
        QVERIFY(QTest::qWaitFor([pid] { return EngineRun::isEngineAlive(pid); }, 5000));
        QFile commandLine(QStringLiteral("/proc/%1/cmdline").arg(pid));
        const auto replaced = [&commandLine] {
            if (!commandLine.open(QIODevice::ReadOnly))
                return false;
            const bool done = commandLine.readAll().contains("tuneframe-engine-fake");
            commandLine.close();
            return done;
        };
        launcher.write("go\n");
        launcher.waitForBytesWritten();
        QElapsedTimer waited;
        waited.start();
        int looks = 0;
        while (!replaced()) {
            QVERIFY2(
                EngineRun::isEngineAlive(pid),
                qPrintable(
                    QStringLiteral("judged dead during exec %1, look %2").arg(attempt).arg(looks)));
            ++looks;
            QVERIFY(waited.elapsed() < 5000);
        }
        QVERIFY(EngineRun::isEngineAlive(pid));
        launcher.kill();
        launcher.waitForFinished();
    }
}

void TestEngineRun::trainingEnginesLeaveACoreToTheStudio() {
    const QString variable = QString::fromLatin1(EngineEnvironment::kBlasThreadsVariable);
    QProcessEnvironment bare;
    bare.insert(QStringLiteral("HOME"), QStringLiteral("/home/x"));
    QCOMPARE(EngineEnvironment::forTraining(bare, 2).value(variable), QStringLiteral("1"));
    const QString openMp = QString::fromLatin1(EngineEnvironment::kOpenMpThreadsVariable);
    QCOMPARE(EngineEnvironment::forTraining(bare, 16).value(openMp), QStringLiteral("15"));
    QCOMPARE(EngineEnvironment::forTraining(bare, 16).value(variable), QStringLiteral("15"));
    QCOMPARE(EngineEnvironment::forTraining(bare, 1).value(variable), QStringLiteral("1"));
    QCOMPARE(EngineEnvironment::forTraining(bare, 16).value(QStringLiteral("HOME")),
             QStringLiteral("/home/x"));
    QProcessEnvironment chosen = bare;
    chosen.insert(variable, QStringLiteral("4"));
    QCOMPARE(EngineEnvironment::forTraining(chosen, 16).value(variable), QStringLiteral("4"));
    QCOMPARE(EngineEnvironment::forTraining(chosen, 16).value(openMp), QStringLiteral("15"));

    // A run the studio starts gets it: the fake engine writes what it was given.
    const QString engine = m_run->filePath(QStringLiteral("tuneframe-engine-env"));
    QFile script(engine);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write("#!/bin/sh\nprintf '%s' \"${OPENBLAS_NUM_THREADS-unset}\" > blas-threads.txt\n");
    script.close();
    QVERIFY(script.setPermissions(script.permissions() | QFileDevice::ExeOwner));
    EngineRun run(engine, m_run->path());
    QString error;
    QVERIFY2(run.start(QStringLiteral("run"), LaunchPlan::singleProcess(), 0, &error),
             qPrintable(error));
    QFile written(m_run->filePath(QStringLiteral("blas-threads.txt")));
    QTRY_VERIFY(written.exists() && written.size() > 0);
    QVERIFY(written.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(written.readAll()),
             EngineEnvironment::forTraining().value(variable));
}

void TestEngineRun::commandsReachTheControlSocket() {
    QLocalServer server;
    const QString socket = m_run->filePath(EngineRun::kControlSocketName);
    QVERIFY(server.listen(socket));
    EngineRun run(QStringLiteral("unused"), m_run->path());
    run.sendCommand(tuneframe::protocol::CommandType::Pause);
    QTRY_VERIFY(server.hasPendingConnections());
    QLocalSocket* client = server.nextPendingConnection();
    QTRY_VERIFY(client->canReadLine() || client->state() != QLocalSocket::ConnectedState);
    QCOMPARE(client->readLine().trimmed(), QByteArray(R"({"cmd":"pause","v":1})"));
}

void TestEngineRun::launchPlanChoosesTheCommandLine() {
    const QString job = QStringLiteral("/runs/a/job.json");
    const QStringList direct{QStringLiteral("train"), QStringLiteral("--job"), job};
    QCOMPARE(LaunchPlan::singleProcess().engineArguments(QStringLiteral("train"), job), direct);
    QCOMPARE(LaunchPlan::cpuRanks(1).engineArguments(QStringLiteral("train"), job), direct);
    QCOMPARE(LaunchPlan::gpus({3}).engineArguments(QStringLiteral("train"), job), direct);
    QCOMPARE(LaunchPlan::gpus({0, 2}).engineArguments(QStringLiteral("train"), job),
             QStringList({QStringLiteral("launch"), QStringLiteral("--gpus"), QStringLiteral("0,2"),
                          QStringLiteral("--")}) +
                 direct);
    QCOMPARE(LaunchPlan::cpuRanks(2).engineArguments(QStringLiteral("train"), job),
             QStringList({QStringLiteral("launch"), QStringLiteral("--cpu-ranks"),
                          QStringLiteral("2"), QStringLiteral("--")}) +
                 direct);
    // Preparing the cache is one process whatever trains afterwards.
    QCOMPARE(LaunchPlan::cpuRanks(2).engineArguments(QStringLiteral("prepare"), job),
             QStringList({QStringLiteral("prepare"), QStringLiteral("--job"), job}));
    // `run` prepares alone and starts `launch` itself, so it only passes the processes on.
    const QStringList run{QStringLiteral("run"), QStringLiteral("--job"), job};
    QCOMPARE(LaunchPlan::singleProcess().engineArguments(QStringLiteral("run"), job), run);
    QCOMPARE(LaunchPlan::gpus({0, 2}).engineArguments(QStringLiteral("run"), job),
             run + QStringList({QStringLiteral("--gpus"), QStringLiteral("0,2")}));
    QCOMPARE(LaunchPlan::cpuRanks(2).engineArguments(QStringLiteral("run"), job),
             run + QStringList({QStringLiteral("--cpu-ranks"), QStringLiteral("2")}));
    // On several machines this one is machine 0, even with one process each; the others run
    // `run` with their own node rank.
    const LaunchPlan machines =
        LaunchPlan::cpuRanks(1).onMachines(3, QStringLiteral("10.0.0.5"), 29555);
    QCOMPARE(machines.worldSize(), 3);
    const QStringList meeting{QStringLiteral("--master-addr"), QStringLiteral("10.0.0.5"),
                              QStringLiteral("--master-port"), QStringLiteral("29555")};
    QCOMPARE(machines.engineArguments(QStringLiteral("run"), job),
             run +
                 QStringList({QStringLiteral("--cpu-ranks"), QStringLiteral("1"),
                              QStringLiteral("--nnodes"), QStringLiteral("3"),
                              QStringLiteral("--node-rank"), QStringLiteral("0")}) +
                 meeting);
    QCOMPARE(LaunchPlan::gpus({0, 1})
                 .onMachines(2, QStringLiteral("10.0.0.5"), 29555)
                 .machineArguments(1, job),
             run +
                 QStringList({QStringLiteral("--gpus"), QStringLiteral("0,1"),
                              QStringLiteral("--nnodes"), QStringLiteral("2"),
                              QStringLiteral("--node-rank"), QStringLiteral("1")}) +
                 meeting);
}

void TestEngineRun::launchPlanSurvivesTheRunFolder() {
    QString error;
    QCOMPARE(LaunchPlan::load(m_run->path(), &error), LaunchPlan::singleProcess());
    QVERIFY(error.isEmpty());
    for (const LaunchPlan& plan :
         {LaunchPlan::gpus({1, 0}), LaunchPlan::cpuRanks(4),
          LaunchPlan::cpuRanks(1).onMachines(2, QStringLiteral("10.0.0.5"), 29555)}) {
        QVERIFY2(plan.save(m_run->path(), &error), qPrintable(error));
        QCOMPARE(LaunchPlan::load(m_run->path(), &error), plan);
        QVERIFY(error.isEmpty());
    }
    QFile broken(QDir(m_run->path()).filePath(LaunchPlan::kFileName));
    QVERIFY(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
    broken.write(R"({"gpus": ["zero"]})");
    broken.close();
    QCOMPARE(LaunchPlan::load(m_run->path(), &error), LaunchPlan::singleProcess());
    QVERIFY2(error.contains(QStringLiteral("launch.json")), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestEngineRun)
#include "TestEngineRun.moc"
