#include "app/demo/DemoProjectBuilder.h"

#include "app/demo/DemoClipCatalog.h"
#include "app/demo/DemoClipWriter.h"
#include "app/engine/EngineCommand.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include <algorithm>

const QString DemoProjectBuilder::kClipsFolderName = QStringLiteral("demo-clips");
const QString DemoProjectBuilder::kModelsFolderName = QStringLiteral("models");
const QString DemoProjectBuilder::kModelArchitecture = QStringLiteral("cogvideox-tiny-demo");
const QString DemoProjectBuilder::kTrainingPresetId = QStringLiteral("cogvideox-tiny.full.cpu");
const QString DemoProjectBuilder::kWanModelArchitecture = QStringLiteral("wan2.1-tiny");
const QString DemoProjectBuilder::kWanTrainingPresetId = QStringLiteral("wan2.1-tiny.lora.cpu");

namespace {

// A killed engine is gone at once; this only bounds the wait should the system be stuck.
constexpr int kEngineStopTimeoutMs = 5000;

QString native(const QString& path) {
    return QDir::toNativeSeparators(path);
}

} // namespace

DemoProjectBuilder::DemoProjectBuilder(const QString& projectFolder, const QString& enginePath,
                                       QObject* parent)
    : QObject(parent)
    , m_projectFolder(QDir(projectFolder).absolutePath())
    , m_enginePath(enginePath)
    , m_writer(new DemoClipWriter) {
    m_thread.setObjectName(QStringLiteral("DemoClipWriter"));
    m_writer->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_writer, &QObject::deleteLater);
    connect(this, &DemoProjectBuilder::writeClipsRequested, m_writer, &DemoClipWriter::writeClips);
    connect(m_writer, &DemoClipWriter::clipWritten, this, &DemoProjectBuilder::onClipWritten);
    connect(m_writer, &DemoClipWriter::clipsWritten, this, &DemoProjectBuilder::onClipsWritten);
    connect(m_writer, &DemoClipWriter::clipsFailed, this, &DemoProjectBuilder::onClipsFailed);
    m_thread.start();
}

DemoProjectBuilder::~DemoProjectBuilder() {
    cancel();
    m_thread.quit();
    m_thread.wait();
}

void DemoProjectBuilder::start() {
    if (isRunning())
        return;
    ++m_runId;
    m_clipFiles.clear();
    m_errorMessage.clear();
    m_progressDone = 0;
    m_progressTotal = static_cast<int>(DemoClipCatalog::clips().size()) + 1 + kVaeProgressUnits + 1;

    // Checked first, so a studio without its engine says so before writing anything.
    const QString engine = m_enginePath.contains(QLatin1Char('/'))
                               ? m_enginePath
                               : QStandardPaths::findExecutable(m_enginePath);
    const QFileInfo engineInfo(engine);
    if (m_enginePath.isEmpty() || !engineInfo.isFile() || !engineInfo.isExecutable()) {
        fail(tr("The engine “%1” was not found, and the demo project needs it to create its "
                "model. Check that tuneframe-engine is installed with the studio.")
                 .arg(native(m_enginePath)));
        return;
    }
    m_state = State::WritingClips;
    setProgress(0, tr("Writing the demo clips…"));
    emit writeClipsRequested(clipsFolder(), m_runId);
}

void DemoProjectBuilder::cancel() {
    if (!isRunning())
        return;
    m_state = State::Cancelled;
    m_writer->requestCancel();
    stopEngine();
    if (m_demoVae)
        m_demoVae->cancel();
    QDir(stagingFolder()).removeRecursively();
    QDir(stagingFolder(kWanModelArchitecture)).removeRecursively();
}

DemoProjectBuilder::State DemoProjectBuilder::state() const {
    return m_state;
}

bool DemoProjectBuilder::isRunning() const {
    return m_state == State::WritingClips || m_state == State::CreatingModel ||
           m_state == State::MakingVae;
}

QString DemoProjectBuilder::projectFolder() const {
    return m_projectFolder;
}

QString DemoProjectBuilder::enginePath() const {
    return m_enginePath;
}

QString DemoProjectBuilder::clipsFolder() const {
    return QDir(m_projectFolder).filePath(kClipsFolderName);
}

QString DemoProjectBuilder::modelFolder() const {
    return QDir(m_projectFolder)
        .filePath(kModelsFolderName + QLatin1Char('/') + kModelArchitecture);
}

QString DemoProjectBuilder::wanModelFolder() const {
    return QDir(m_projectFolder)
        .filePath(kModelsFolderName + QLatin1Char('/') + kWanModelArchitecture);
}

QString DemoProjectBuilder::stagingFolder() const {
    return stagingFolder(kModelArchitecture);
}

QString DemoProjectBuilder::stagingFolder(const QString& architecture) const {
    return QDir(m_projectFolder)
        .filePath(kModelsFolderName + QStringLiteral("/.") + architecture +
                  QStringLiteral(".partial"));
}

QStringList DemoProjectBuilder::clipFiles() const {
    return m_clipFiles;
}

QString DemoProjectBuilder::errorMessage() const {
    return m_errorMessage;
}

int DemoProjectBuilder::progressDone() const {
    return m_progressDone;
}

int DemoProjectBuilder::progressTotal() const {
    return m_progressTotal;
}

bool DemoProjectBuilder::isCompleteModel(const QString& folder) {
    return hasAllComponents(folder) && QFileInfo(demoVaeRecord(folder)).isFile();
}

bool DemoProjectBuilder::isCompletePipeline(const QString& folder) {
    return hasAllComponents(folder);
}

QString DemoProjectBuilder::demoVaeRecord(const QString& modelFolder) {
    return QDir(modelFolder).filePath(QStringLiteral("vae/demo_vae.json"));
}

bool DemoProjectBuilder::hasAllComponents(const QString& folder) {
    const QDir root(folder);
    if (!QFileInfo(root.filePath(QStringLiteral("model_index.json"))).isFile())
        return false;
    const QStringList components = {QStringLiteral("transformer"), QStringLiteral("vae"),
                                    QStringLiteral("text_encoder"), QStringLiteral("tokenizer"),
                                    QStringLiteral("scheduler")};
    return std::all_of(components.begin(), components.end(), [&](const QString& component) {
        return QFileInfo(root.filePath(component)).isDir();
    });
}

void DemoProjectBuilder::onClipWritten(int written, int total, const QString& videoPath,
                                       quint64 runId) {
    if (runId != m_runId || m_state != State::WritingClips)
        return;
    m_clipFiles.append(videoPath);
    setProgress(written, tr("Wrote demo clip %1 of %2").arg(written).arg(total));
}

void DemoProjectBuilder::onClipsWritten(const QStringList& videoPaths, quint64 runId) {
    if (runId != m_runId || m_state != State::WritingClips)
        return;
    m_clipFiles = videoPaths;
    startModel();
}

void DemoProjectBuilder::onClipsFailed(const QString& message, quint64 runId) {
    if (runId != m_runId || m_state != State::WritingClips)
        return;
    fail(message);
}

void DemoProjectBuilder::startModel() {
    const int clipCount = m_progressTotal - 2 - kVaeProgressUnits;
    const QString target = modelFolder();
    if (isCompleteModel(target)) {
        setProgress(m_progressTotal - 1, tr("The tiny model is already in place"));
        startWanModel();
        return;
    }
    if (hasAllComponents(target)) {
        // A pipeline put here without the demo's VAE (init-model by hand): given the demo's where
        // it is, so its runs and exports stay (their latents are encoded again, the VAE being
        // another).
        setProgress(clipCount + 1, tr("Giving the demo model its VAE…"));
        startDemoVae(target);
        return;
    }
    const QDir targetDir(target);
    if (targetDir.exists() &&
        !targetDir.isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System)) {
        fail(tr("The folder “%1” exists but does not hold a complete model. Move or delete it, "
                "then create the demo project again.")
                 .arg(native(target)));
        return;
    }
    // Left over from a build that was killed with the studio: ours to remove.
    QDir(stagingFolder()).removeRecursively();
    if (!QDir().mkpath(QDir(m_projectFolder).filePath(kModelsFolderName))) {
        fail(tr("Could not create the folder “%1”. Check that the project folder is writable "
                "and the disk is not full.")
                 .arg(native(QDir(m_projectFolder).filePath(kModelsFolderName))));
        return;
    }

    setProgress(clipCount, tr("Creating the tiny model…"));
    startInitModel(kModelArchitecture);
}

void DemoProjectBuilder::startInitModel(const QString& architecture) {
    m_state = State::CreatingModel;
    m_engineArchitecture = architecture;
    m_engine = new QProcess(this);
    m_engine->setProcessChannelMode(QProcess::SeparateChannels);
    connect(m_engine, &QProcess::finished, this, &DemoProjectBuilder::onEngineFinished);
    connect(m_engine, &QProcess::errorOccurred, this, &DemoProjectBuilder::onEngineErrorOccurred);
    m_engine->start(m_enginePath,
                    {QStringLiteral("init-model"), QStringLiteral("--arch"), architecture,
                     QStringLiteral("--out"), stagingFolder(architecture)});
}

void DemoProjectBuilder::startWanModel() {
    const QString target = wanModelFolder();
    if (isCompletePipeline(target)) {
        setProgress(m_progressTotal, tr("The tiny Wan model is already in place"));
        succeed();
        return;
    }
    const QDir targetDir(target);
    if (targetDir.exists() &&
        !targetDir.isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System)) {
        fail(tr("The folder “%1” exists but does not hold a complete model. Move or delete it, "
                "then create the demo project again.")
                 .arg(native(target)));
        return;
    }
    QDir(stagingFolder(kWanModelArchitecture)).removeRecursively();
    setProgress(m_progressTotal - 1, tr("Creating the tiny Wan model…"));
    startInitModel(kWanModelArchitecture);
}

void DemoProjectBuilder::finishWanModel() {
    const QString staging = stagingFolder(kWanModelArchitecture);
    const QString target = wanModelFolder();
    QDir().rmdir(target);
    if (!QDir().rename(staging, target)) {
        fail(tr("Could not move the new model from “%1” to “%2”. Check that the project "
                "folder is writable.")
                 .arg(native(staging), native(target)));
        return;
    }
    setProgress(m_progressTotal, tr("Created the tiny Wan model"));
    succeed();
}

void DemoProjectBuilder::onEngineFinished(int exitCode, QProcess::ExitStatus exitStatus) {
    if (m_state != State::CreatingModel)
        return;
    const QString staging = stagingFolder(m_engineArchitecture);
    if (exitStatus == QProcess::NormalExit && exitCode == 0) {
        if (!hasAllComponents(staging)) {
            fail(tr("The engine finished, but “%1” does not hold a complete model. It said:\n%2")
                     .arg(native(staging), engineOutputTail()));
            return;
        }
        stopEngine();
        if (m_engineArchitecture == kWanModelArchitecture) {
            finishWanModel();
            return;
        }
        setProgress(m_progressTotal - 1 - kVaeProgressUnits, tr("Giving the demo model its VAE…"));
        startDemoVae(stagingFolder());
        return;
    }
    const QString output = engineOutputTail();
    if (exitStatus == QProcess::CrashExit) {
        fail(tr("The engine stopped unexpectedly while creating the tiny model. Its last "
                "output:\n%1")
                 .arg(output));
    } else {
        fail(tr("The engine could not create the tiny model (exit code %1). It said:\n%2")
                 .arg(exitCode)
                 .arg(output));
    }
}

void DemoProjectBuilder::onEngineErrorOccurred(QProcess::ProcessError error) {
    if (m_state != State::CreatingModel || error != QProcess::FailedToStart)
        return;
    fail(tr("The engine “%1” could not be started: %2. Check that tuneframe-engine is "
            "installed with the studio and that you may run it.")
             .arg(native(m_enginePath), m_engine->errorString()));
}

void DemoProjectBuilder::startDemoVae(const QString& folder) {
    m_state = State::MakingVae;
    m_demoVaeFolder = folder;
    if (!m_demoVae) {
        m_demoVae = new EngineCommand(m_enginePath, this);
        connect(m_demoVae, &EngineCommand::progressed, this,
                &DemoProjectBuilder::onDemoVaeProgressed);
        connect(m_demoVae, &EngineCommand::succeeded, this, &DemoProjectBuilder::onDemoVaeWritten);
        connect(m_demoVae, &EngineCommand::failed, this, &DemoProjectBuilder::onDemoVaeFailed);
    }
    m_demoVae->setEnginePath(m_enginePath);
    m_demoVae->start({QStringLiteral("demo-vae"), QStringLiteral("--model"), folder,
                      QStringLiteral("--clips"), clipsFolder(), QStringLiteral("--frames"),
                      QString::number(kVaeFrames), QStringLiteral("--height"),
                      QString::number(kVaeHeight), QStringLiteral("--width"),
                      QString::number(kVaeWidth)});
}

void DemoProjectBuilder::onDemoVaeProgressed(qint64 done, qint64 total) {
    if (m_state != State::MakingVae || total <= 0)
        return;
    const int start = m_progressTotal - 1 - kVaeProgressUnits;
    setProgress(
        start + static_cast<int>(done * kVaeProgressUnits / total),
        tr("Measuring the demo clips' colours for the VAE: clip %1 of %2").arg(done).arg(total));
}

void DemoProjectBuilder::onDemoVaeWritten() {
    if (m_state != State::MakingVae)
        return;
    if (!QFileInfo(demoVaeRecord(m_demoVaeFolder)).isFile()) {
        fail(tr("The engine finished the demo model's VAE, but “%1” was not written.")
                 .arg(native(demoVaeRecord(m_demoVaeFolder))));
        return;
    }
    if (m_demoVaeFolder == stagingFolder()) {
        finishModel();
        return;
    }
    setProgress(m_progressTotal - 1, tr("The demo model has its VAE"));
    startWanModel();
}

void DemoProjectBuilder::onDemoVaeFailed(const QString& message, const QString& hint) {
    if (m_state != State::MakingVae)
        return;
    fail(
        tr("The engine could not give the demo model its VAE: %1 %2").arg(message, hint).trimmed());
}

void DemoProjectBuilder::finishModel() {
    const QString staging = stagingFolder();
    const QString target = modelFolder();
    QDir().rmdir(target);
    if (!QDir().rename(staging, target)) {
        fail(tr("Could not move the new model from “%1” to “%2”. Check that the project "
                "folder is writable.")
                 .arg(native(staging), native(target)));
        return;
    }
    setProgress(m_progressTotal - 1, tr("Created the tiny model"));
    startWanModel();
}

void DemoProjectBuilder::fail(const QString& message) {
    stopEngine();
    if (m_demoVae)
        m_demoVae->cancel();
    QDir(stagingFolder()).removeRecursively();
    QDir(stagingFolder(kWanModelArchitecture)).removeRecursively();
    m_state = State::Failed;
    m_errorMessage = message;
    emit buildFailed(message);
}

void DemoProjectBuilder::succeed() {
    m_state = State::Succeeded;
    emit buildSucceeded();
}

void DemoProjectBuilder::setProgress(int done, const QString& step) {
    m_progressDone = done;
    emit progressChanged(done, m_progressTotal, step);
}

void DemoProjectBuilder::stopEngine() {
    if (!m_engine)
        return;
    m_engine->disconnect(this);
    if (m_engine->state() != QProcess::NotRunning) {
        m_engine->kill();
        m_engine->waitForFinished(kEngineStopTimeoutMs);
    }
    m_engine->deleteLater();
    m_engine = nullptr;
}

QString DemoProjectBuilder::engineOutputTail() {
    if (!m_engine)
        return QString();
    QString output = QString::fromLocal8Bit(m_engine->readAllStandardError()).trimmed();
    if (output.isEmpty())
        output = QString::fromLocal8Bit(m_engine->readAllStandardOutput()).trimmed();
    if (output.isEmpty())
        return tr("(nothing)");
    QStringList lines = output.split(QLatin1Char('\n'));
    if (lines.size() > kEngineLinesQuoted)
        lines = lines.mid(lines.size() - kEngineLinesQuoted);
    return lines.join(QLatin1Char('\n'));
}
