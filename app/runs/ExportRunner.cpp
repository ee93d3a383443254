#include "app/runs/ExportRunner.h"

#include <QPointer>
#include <QThread>

ExportRunner::ExportRunner(QObject* parent)
    : QObject(parent) {}

ExportRunner::~ExportRunner() {
    if (m_thread) {
        m_cancelRequested->store(true);
        m_thread->wait();
    }
}

bool ExportRunner::start(const QVector<ClipRecord>& clips, Format format,
                         const QString& destination, const DatasetExporter::Options& options) {
    if (isRunning() || format == Format::None)
        return false;
    auto cancelRequested = std::make_shared<std::atomic<bool>>(false);
    auto report = std::make_shared<DatasetExporter::Report>();
    QPointer<ExportRunner> self(this);
    m_cancelRequested = cancelRequested;
    m_thread = QThread::create([=] {
        if (format == Format::Manifest) {
            *report = DatasetExporter::exportManifest(clips, destination, options);
            return;
        }
        *report = DatasetExporter::exportFactoryLayout(
            clips, destination, options, cancelRequested.get(), [self](int done, int total) {
                // Queued: runs on the runner's thread, and not at all once it is gone.
                QMetaObject::invokeMethod(
                    self.data(),
                    [self, done, total] {
                        if (self)
                            emit self->progressed(done, total);
                    },
                    Qt::QueuedConnection);
            });
    });
    m_thread->setObjectName(QStringLiteral("export"));
    connect(m_thread, &QThread::finished, this, [this, report] { onThreadFinished(report); });
    m_thread->start();
    return true;
}

void ExportRunner::cancel() {
    if (m_cancelRequested)
        m_cancelRequested->store(true);
}

bool ExportRunner::isRunning() const {
    return m_thread != nullptr;
}

void ExportRunner::onThreadFinished(const std::shared_ptr<DatasetExporter::Report>& report) {
    m_thread->deleteLater();
    m_thread = nullptr;
    emit finished(*report);
}
