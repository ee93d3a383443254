#pragma once

#include "common/run_queue.h"

#include <QObject>
#include <QString>

#include <functional>

class QTimer;

// The project's queue file (common/run_queue.h) from the studio's side. The studio writes the
// queue there whenever it changes; `tuneframe-engine queue` runs it, also when no studio is
// open; and the studio reads back, once a second, which runs the runner started, so it can
// follow them as if it had started them itself.
class ProjectQueue : public QObject {
    Q_OBJECT

public:
    explicit ProjectQueue(const QString& projectFolder, QObject* parent = nullptr);

    QString filePath() const { return m_file; }
    bool exists() const;
    // Read-modify-write under the file's lock, shared with the runner; the file is replaced
    // atomically when `change` returns true. False, with error set, when it could not be
    // locked, read or written (a damaged file is reported, never silently replaced).
    bool edit(const std::function<bool(tuneframe::common::RunQueue&)>& change,
              QString* error = nullptr) const;
    // Starts `ENGINE queue --file FILE` detached, its output appended to queue-runner.log in the
    // project. A runner already at work makes the new one leave at once, so this is safe to
    // call whenever the queue should be moving.
    bool startRunner(const QString& enginePath, QString* error) const;
    // Whether a runner holds this queue now (it reads the file again after every run, so
    // changes reach it without starting another).
    bool runnerAlive() const;

signals:
    // Once a second: time to look for runs the runner started.
    void pollDue();

private:
    QString m_file;
    QTimer* m_timer;
};
