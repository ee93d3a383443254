#include "app/import/ImportRunner.h"

#include "app/import/ImportWorker.h"

ImportRunner::ImportRunner(const Project& project, QObject* parent)
    : QObject(parent)
    , m_worker(new ImportWorker(project)) {
    qRegisterMetaType<ImportReport>();
    m_thread.setObjectName(QStringLiteral("import"));
    m_worker->moveToThread(&m_thread);
    connect(m_worker, &ImportWorker::progressed, this, &ImportRunner::progressed);
    connect(m_worker, &ImportWorker::finished, this, &ImportRunner::onWorkerFinished);
    m_thread.start();
}

ImportRunner::~ImportRunner() {
    m_worker->requestCancel();
    m_thread.quit();
    m_thread.wait();
    delete m_worker;
}

bool ImportRunner::start(const QStringList& paths, const ImportOptions& options) {
    return startOnWorker([paths, options](ImportWorker* worker) { worker->run(paths, options); });
}

bool ImportRunner::startFactoryDataset(const FactoryDataset& dataset) {
    return startOnWorker([dataset](ImportWorker* worker) { worker->runFactoryDataset(dataset); });
}

bool ImportRunner::startOnWorker(const std::function<void(ImportWorker*)>& work) {
    if (m_running)
        return false;
    m_running = true;
    m_worker->clearCancel();
    ImportWorker* worker = m_worker;
    QMetaObject::invokeMethod(m_worker, [worker, work] { work(worker); });
    return true;
}

void ImportRunner::cancel() {
    if (m_running)
        m_worker->requestCancel();
}

bool ImportRunner::isRunning() const {
    return m_running;
}

void ImportRunner::onWorkerFinished(const ImportReport& report) {
    m_running = false;
    emit finished(report);
}
