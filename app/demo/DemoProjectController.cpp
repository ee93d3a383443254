#include "app/demo/DemoProjectController.h"

#include "app/dataset/ClipStore.h"
#include "app/dataset/DatasetPreferences.h"
#include "app/demo/DemoClipCatalog.h"
#include "app/demo/DemoProjectBuilder.h"
#include "app/import/ImportRunner.h"
#include "app/jobs/TrainingPreferences.h"
#include "app/project/Project.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include <algorithm>

namespace {

int catalogSize() {
    return static_cast<int>(DemoClipCatalog::clips().size());
}

} // namespace

QString DemoProjectController::defaultFolder() {
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
        .filePath(QStringLiteral("demo-project"));
}

DemoProjectController::DemoProjectController(const QString& folder, const QString& enginePath,
                                             QObject* parent)
    : QObject(parent)
    , m_folder(QDir(folder).absolutePath())
    , m_enginePath(enginePath) {}

DemoProjectController::~DemoProjectController() {
    cancel();
    // The runner's thread uses the project's connection: it goes before the project does.
    m_importRunner.reset();
}

std::shared_ptr<Project> DemoProjectController::start() {
    if (isRunning())
        return m_project;
    m_errorMessage.clear();
    m_reusedExisting = false;
    const bool existed = Project::isProjectFolder(m_folder);
    Project::Result result =
        existed ? Project::open(m_folder) : Project::create(m_folder, tr("Demo project"));
    if (!result.succeeded()) {
        m_state = State::Failed;
        m_errorMessage = result.errorMessage;
        return nullptr;
    }
    m_project = std::move(result.project);
    if (!existed) {
        QString error;
        // The demo captions start with the catalog's trigger word; "Insert trigger word" offers it.
        DatasetPreferences(*m_project).setTriggerWord(DemoClipCatalog::kTriggerWord, &error);
    }
    // The Train page opens on the preset that trains the demo model on a CPU; the GPU presets
    // would prepare 480x720 clips for minutes and then refuse the tiny model. Demo projects
    // made before the project kept its form get it too; a preset the user chose stays.
    TrainingPreferences training(*m_project);
    if (training.presetId().isEmpty()) {
        QString error;
        training.setPresetId(DemoProjectBuilder::kTrainingPresetId, &error);
    }

    // Demo projects from before the Wan demo get its model on their next start.
    const QString wanModel =
        QDir(m_folder).filePath(DemoProjectBuilder::kModelsFolderName + QLatin1Char('/') +
                                DemoProjectBuilder::kWanModelArchitecture);
    if (DemoProjectBuilder::isCompleteModel(modelFolder()) &&
        DemoProjectBuilder::isCompletePipeline(wanModel) && hasAllClipFiles()) {
        if (importedDemoClipCount() >= catalogSize()) {
            m_reusedExisting = true;
            m_state = State::Ready;
            // Queued, so callers that connect after start() still hear it.
            QMetaObject::invokeMethod(this, &DemoProjectController::ready, Qt::QueuedConnection);
            return m_project;
        }
        m_state = State::Importing;
        QMetaObject::invokeMethod(this, &DemoProjectController::startImport, Qt::QueuedConnection);
        return m_project;
    }

    m_state = State::Building;
    m_builder = new DemoProjectBuilder(m_folder, m_enginePath, this);
    connect(m_builder, &DemoProjectBuilder::progressChanged, this,
            &DemoProjectController::progressChanged);
    connect(m_builder, &DemoProjectBuilder::buildSucceeded, this,
            &DemoProjectController::onBuildSucceeded);
    connect(m_builder, &DemoProjectBuilder::buildFailed, this, &DemoProjectController::fail);
    // Queued for the same reason as ready above: the builder may fail at once.
    QMetaObject::invokeMethod(m_builder, &DemoProjectBuilder::start, Qt::QueuedConnection);
    return m_project;
}

void DemoProjectController::cancel() {
    if (!isRunning())
        return;
    m_state = State::Cancelled;
    if (m_builder) {
        m_builder->disconnect(this);
        m_builder->cancel();
    }
    if (m_importRunner) {
        m_importRunner->disconnect(this);
        m_importRunner->cancel();
    }
}

DemoProjectController::State DemoProjectController::state() const {
    return m_state;
}

bool DemoProjectController::isRunning() const {
    return m_state == State::Building || m_state == State::Importing;
}

QString DemoProjectController::folder() const {
    return m_folder;
}

QString DemoProjectController::clipsFolder() const {
    return QDir(m_folder).filePath(DemoProjectBuilder::kClipsFolderName);
}

QString DemoProjectController::modelFolder() const {
    return QDir(m_folder).filePath(DemoProjectBuilder::kModelsFolderName + QLatin1Char('/') +
                                   DemoProjectBuilder::kModelArchitecture);
}

QString DemoProjectController::errorMessage() const {
    return m_errorMessage;
}

std::shared_ptr<Project> DemoProjectController::project() const {
    return m_project;
}

bool DemoProjectController::reusedExisting() const {
    return m_reusedExisting;
}

bool DemoProjectController::hasAllClipFiles() const {
    const QDir clips(clipsFolder());
    const QList<DemoClipCatalog::Clip> catalog = DemoClipCatalog::clips();
    return std::all_of(catalog.begin(), catalog.end(), [&](const DemoClipCatalog::Clip& clip) {
        return QFileInfo(clips.filePath(clip.baseName + QStringLiteral(".mp4"))).size() > 0 &&
               QFileInfo(clips.filePath(clip.baseName + QStringLiteral(".txt"))).isFile();
    });
}

int DemoProjectController::importedDemoClipCount() const {
    // Either spelling of the folder, in case it lies behind a symbolic link.
    const QString absolute = QDir(clipsFolder()).absolutePath() + QLatin1Char('/');
    const QString canonical = QDir(clipsFolder()).canonicalPath() + QLatin1Char('/');
    const QVector<ClipRecord> clips = ClipStore(*m_project).allClips();
    return static_cast<int>(std::count_if(clips.begin(), clips.end(), [&](const ClipRecord& clip) {
        return (clip.path.startsWith(absolute) || clip.path.startsWith(canonical)) &&
               clip.isUsable() && clip.hasCaption();
    }));
}

void DemoProjectController::onBuildSucceeded() {
    if (m_state != State::Building)
        return;
    m_builder->deleteLater();
    m_builder = nullptr;
    m_state = State::Importing;
    startImport();
}

void DemoProjectController::startImport() {
    if (m_state != State::Importing)
        return;
    m_importRunner = std::make_unique<ImportRunner>(*m_project);
    connect(m_importRunner.get(), &ImportRunner::progressed, this,
            [this](int done, int total, const QString&) { onImportProgressed(done, total); });
    connect(m_importRunner.get(), &ImportRunner::finished, this,
            &DemoProjectController::onImportFinished);
    // File by file: a folder import leaves out what lies inside the project folder (its cache,
    // its exports), and the demo clips live there.
    QStringList files;
    const QDir clips(clipsFolder());
    for (const DemoClipCatalog::Clip& clip : DemoClipCatalog::clips())
        files.append(clips.filePath(clip.baseName + QStringLiteral(".mp4")));
    m_importRunner->start(files);
}

void DemoProjectController::onImportProgressed(int done, int total) {
    emit progressChanged(done, total, tr("Importing demo clip %1 of %2").arg(done).arg(total));
}

void DemoProjectController::onImportFinished(const ImportReport& report) {
    if (m_state != State::Importing)
        return;
    if (!report.changedClipIds.isEmpty())
        emit clipsImported(report.changedClipIds);
    if (!report.succeeded()) {
        QStringList lines{report.summary()};
        lines.append(report.errors);
        fail(lines.join(QLatin1Char('\n')));
        return;
    }
    m_state = State::Ready;
    emit ready();
}

void DemoProjectController::fail(const QString& message) {
    if (m_builder) {
        m_builder->deleteLater();
        m_builder = nullptr;
    }
    m_state = State::Failed;
    m_errorMessage = message;
    emit failed(message);
}
