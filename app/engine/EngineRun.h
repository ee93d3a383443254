#pragma once

#include "app/engine/EngineEvent.h"
#include "app/engine/LaunchPlan.h"
#include "common/protocol.h"

#include <QObject>
#include <QString>
#include <QVector>

class QTimer;

// One engine command (`prepare` or `train`) working on one run folder. The engine is started
// detached, in its own session, so a run outlives the studio; its events are read from
// <run>/events.jsonl (which the engine appends to as it writes stdout) from a byte offset, so
// a live run and one reattached after a restart are followed by the same code. Commands go to
// <run>/control.sock; SIGTERM is the fallback (the engine treats it as `stop`).
class EngineRun : public QObject {
    Q_OBJECT

public:
    enum class Outcome { None, Succeeded, Stopped, Failed, Vanished };
    Q_ENUM(Outcome)

    static const QString kEventsFileName;
    static const QString kControlSocketName;
    static const QString kStderrFileName;

    EngineRun(const QString& enginePath, const QString& runFolder, QObject* parent = nullptr);
    ~EngineRun() override;

    // Runs `<engine> <command> --job <run>/job.json` (under `launch` when the plan has several
    // processes) and follows it from eventsOffset (the end of what earlier commands wrote).
    // Returns false with error set when it cannot start.
    bool start(const QString& command, const LaunchPlan& plan, qint64 eventsOffset, QString* error);
    // Follows a command started by an earlier studio session.
    void attach(const QString& command, qint64 pid, qint64 eventsOffset);
    QString command() const;
    qint64 pid() const;
    qint64 eventsOffset() const;
    bool isFollowing() const;

    // Sends a command over the control socket; false when no engine listens there.
    void sendCommand(tuneframe::protocol::CommandType command);
    // SIGTERM: the engine checkpoints (train) or leaves its cache consistent (prepare) and exits.
    void terminate();

    // The last lines the engine wrote to stderr (<run>/engine-stderr.log).
    QStringList lastStderrLines(int count) const;
    // Whether pid is a running tuneframe-engine (not a process that reused the number).
    static bool isEngineAlive(qint64 pid);
    // Reads what the engine wrote so far now, rather than at the next tick of the poll timer.
    void pollNow() { poll(); }

signals:
    // New complete events, in order, and the offset just past them.
    void eventsRead(const QVector<EngineEvent>& events, qint64 eventsOffset);
    // A line skipped as not an event (with why), or one cut short by a full disk or a kill:
    // skipped too, and the whole event an older engine wrote straight after it kept.
    void malformedLineRead(const QString& error);
    // The command ended: by its `done` event, or the process went away without one.
    void ended(EngineRun::Outcome outcome);

private:
    void poll();
    void readNewEvents();
    void finish(Outcome outcome);

    QString m_enginePath;
    QString m_runFolder;
    QString m_command;
    qint64 m_pid = 0;
    qint64 m_offset = 0; // bytes of events.jsonl consumed, up to the end of a complete line
    QTimer* m_pollTimer;
    int m_deadPolls = 0;
    bool m_following = false;
};
