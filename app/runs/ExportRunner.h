#pragma once

#include "app/dataset/ClipRecord.h"
#include "app/dataset/DatasetExporter.h"

#include <QObject>
#include <QString>
#include <QVector>

#include <atomic>
#include <memory>

class QThread;

// Runs a DatasetExporter off the caller's thread: the manifest, or the cogvideox-factory layout,
// which may cut trimmed clips into new files and takes a while. Progress and the report arrive
// on the caller's thread. The destructor cancels a running export and waits for it.
class ExportRunner : public QObject {
    Q_OBJECT

public:
    enum class Format { None, Manifest, FactoryLayout };
    Q_ENUM(Format)

    explicit ExportRunner(QObject* parent = nullptr);
    ~ExportRunner() override;

    // destination: the manifest file, or the folder for the factory layout. Returns false,
    // doing nothing, while an export runs.
    bool start(const QVector<ClipRecord>& clips, Format format, const QString& destination,
               const DatasetExporter::Options& options);
    // The export stops after the clip it is on; what was written so far is listed as such.
    void cancel();
    bool isRunning() const;

signals:
    void progressed(int done, int total);
    void finished(const DatasetExporter::Report& report);

private:
    void onThreadFinished(const std::shared_ptr<DatasetExporter::Report>& report);

    QThread* m_thread = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancelRequested;
};
