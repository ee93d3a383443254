#include "app/runs/ProjectQueue.h"

#include "app/engine/EngineEnvironment.h"
#include "common/file_lock.h"
#include "common/training_job.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSaveFile>
#include <QTimer>

#include <nlohmann/json.hpp>

namespace {

constexpr int kPollIntervalMs = 1000;

} // namespace

ProjectQueue::ProjectQueue(const QString& projectFolder, QObject* parent)
    : QObject(parent)
    , m_file(QDir(projectFolder).filePath(QStringLiteral("queue.json")))
    , m_timer(new QTimer(this)) {
    m_timer->setInterval(kPollIntervalMs);
    connect(m_timer, &QTimer::timeout, this, &ProjectQueue::pollDue);
    m_timer->start();
}

bool ProjectQueue::exists() const {
    return QFileInfo::exists(m_file);
}

bool ProjectQueue::edit(const std::function<bool(tuneframe::common::RunQueue&)>& change,
                        QString* error) const {
    using tuneframe::common::FileLock;
    const FileLock lock(tuneframe::common::run_queue_lock_path(m_file.toStdString()),
                        FileLock::Wait::Block);
    auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    if (!lock.held())
        return fail(QString::fromStdString(lock.error()));
    tuneframe::common::RunQueue queue;
    QFile file(m_file);
    if (file.exists()) {
        if (!file.open(QIODevice::ReadOnly))
            return fail(tr("Cannot read %1: %2").arg(m_file, file.errorString()));
        try {
            queue = tuneframe::common::RunQueue::from_json(
                nlohmann::json::parse(file.readAll().toStdString()), m_file.toStdString());
        } catch (const tuneframe::common::JobError& damaged) {
            return fail(QStringLiteral("%1 %2").arg(QString::fromStdString(damaged.what()),
                                                    QString::fromStdString(damaged.hint())));
        } catch (const nlohmann::json::exception& damaged) {
            return fail(tr("%1 is not valid JSON (%2). Delete it; the studio writes it again "
                           "from the project's queue.")
                            .arg(m_file, QString::fromUtf8(damaged.what())));
        }
        file.close();
    }
    if (!change(queue))
        return true;
    QSaveFile out(m_file);
    const std::string text = queue.to_json().dump(2) + "\n";
    if (!out.open(QIODevice::WriteOnly) ||
        out.write(text.data(), static_cast<qint64>(text.size())) !=
            static_cast<qint64>(text.size()) ||
        !out.commit())
        return fail(tr("Cannot write %1: %2").arg(m_file, out.errorString()));
    return true;
}

bool ProjectQueue::startRunner(const QString& enginePath, QString* error) const {
    const QString folder = QFileInfo(m_file).absolutePath();
    QProcess process;
    process.setProgram(enginePath);
    process.setArguments({QStringLiteral("queue"), QStringLiteral("--file"), m_file});
    process.setWorkingDirectory(folder);
    // The runner's runs inherit it.
    process.setProcessEnvironment(EngineEnvironment::forTraining());
    process.setStandardInputFile(QProcess::nullDevice());
    const QString log = QDir(folder).filePath(QStringLiteral("queue-runner.log"));
    process.setStandardOutputFile(log, QIODevice::Append);
    process.setStandardErrorFile(log, QIODevice::Append);
    if (!process.startDetached()) {
        if (error)
            *error = tr("The queue's runner could not be started (%1): %2. Build "
                        "tuneframe-engine, or set TUNEFRAME_ENGINE to its path.")
                         .arg(QDir::toNativeSeparators(enginePath), process.errorString());
        return false;
    }
    return true;
}

bool ProjectQueue::runnerAlive() const {
    using tuneframe::common::FileLock;
    const FileLock probe(tuneframe::common::run_queue_runner_lock_path(m_file.toStdString()),
                         FileLock::Wait::DontBlock);
    return !probe.held() && probe.error().empty();
}
