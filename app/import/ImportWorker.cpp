#include "app/import/ImportWorker.h"

#include <QElapsedTimer>

#include <memory>

ImportWorker::ImportWorker(const Project& project)
    : m_project(project) {}

void ImportWorker::requestCancel() {
    m_cancelRequested.store(true);
}

void ImportWorker::clearCancel() {
    m_cancelRequested.store(false);
}

void ImportWorker::run(const QStringList& paths, const ImportOptions& options) {
    DatasetImporter importer(m_project);
    emit finished(importer.run(paths, options, m_cancelRequested, throttledProgress()));
}

void ImportWorker::runFactoryDataset(const FactoryDataset& dataset) {
    ImportPlan plan;
    FactoryDatasetSource::add(dataset, plan);
    DatasetImporter importer(m_project);
    emit finished(importer.run(plan, m_cancelRequested, throttledProgress()));
}

DatasetImporter::ProgressCallback ImportWorker::throttledProgress() {
    auto sinceProgress = std::make_shared<QElapsedTimer>();
    sinceProgress->start();
    return [this, sinceProgress](int done, int total, const QString& path) {
        if (done == 0 || done == total || sinceProgress->elapsed() >= kProgressIntervalMs) {
            sinceProgress->restart();
            emit progressed(done, total, path);
        }
    };
}
