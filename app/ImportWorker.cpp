#include "app/ImportWorker.h"

#include "app/DatasetImporter.h"

#include <QElapsedTimer>

ImportWorker::ImportWorker(const Project& project)
    : m_project(project) {}

void ImportWorker::requestCancel() {
    m_cancelRequested.store(true);
}

void ImportWorker::clearCancel() {
    m_cancelRequested.store(false);
}

void ImportWorker::run(const QStringList& paths, const ImportOptions& options) {
    QElapsedTimer sinceProgress;
    sinceProgress.start();
    DatasetImporter importer(m_project);
    const ImportReport report = importer.run(
        paths, options, m_cancelRequested, [&](int done, int total, const QString& path) {
            if (done == 0 || done == total || sinceProgress.elapsed() >= kProgressIntervalMs) {
                sinceProgress.restart();
                emit progressed(done, total, path);
            }
        });
    emit finished(report);
}
