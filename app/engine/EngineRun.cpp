#include "app/engine/EngineRun.h"

#include "app/engine/EngineEnvironment.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocalSocket>
#include <QProcess>
#include <QTimer>

#include <csignal>
#include <sys/types.h>

const QString EngineRun::kEventsFileName = QStringLiteral("events.jsonl");
const QString EngineRun::kControlSocketName = QStringLiteral("control.sock");
const QString EngineRun::kStderrFileName = QStringLiteral("engine-stderr.log");

namespace {

constexpr int kPollIntervalMs = 150;
// Polls after the process is gone before it counts as vanished: its last lines may still be
// on their way to the file.
constexpr int kDeadPollsBeforeVanished = 3;
constexpr qint64 kMaximumReadBytes = 16 * 1024 * 1024;

} // namespace

EngineRun::EngineRun(const QString& enginePath, const QString& runFolder, QObject* parent)
    : QObject(parent)
    , m_enginePath(enginePath)
    , m_runFolder(runFolder)
    , m_pollTimer(new QTimer(this)) {
    m_pollTimer->setInterval(kPollIntervalMs);
    connect(m_pollTimer, &QTimer::timeout, this, &EngineRun::poll);
}

EngineRun::~EngineRun() = default;

bool EngineRun::start(const QString& command, const LaunchPlan& plan, qint64 eventsOffset,
                      QString* error) {
    const QString jobFile = QDir(m_runFolder).filePath(QStringLiteral("job.json"));
    QProcess process;
    process.setProgram(m_enginePath);
    process.setArguments(plan.engineArguments(command, jobFile));
    process.setWorkingDirectory(m_runFolder);
    process.setProcessEnvironment(EngineEnvironment::forTraining());
    process.setStandardInputFile(QProcess::nullDevice());
    process.setStandardOutputFile(QProcess::nullDevice());
    process.setStandardErrorFile(QDir(m_runFolder).filePath(kStderrFileName), QIODevice::Append);
    qint64 pid = 0;
    if (!process.startDetached(&pid)) {
        if (error)
            *error = tr("The engine could not be started (%1): %2. Build tuneframe-engine, or "
                        "set TUNEFRAME_ENGINE to its path.")
                         .arg(QDir::toNativeSeparators(m_enginePath), process.errorString());
        return false;
    }
    attach(command, pid, eventsOffset);
    return true;
}

void EngineRun::attach(const QString& command, qint64 pid, qint64 eventsOffset) {
    m_command = command;
    m_pid = pid;
    m_offset = eventsOffset;
    m_deadPolls = 0;
    m_following = true;
    m_pollTimer->start();
    QTimer::singleShot(0, this, &EngineRun::poll);
}

QString EngineRun::command() const {
    return m_command;
}

qint64 EngineRun::pid() const {
    return m_pid;
}

qint64 EngineRun::eventsOffset() const {
    return m_offset;
}

bool EngineRun::isFollowing() const {
    return m_following;
}

void EngineRun::sendCommand(tuneframe::protocol::CommandType command) {
    const QByteArray line =
        QByteArray::fromStdString(tuneframe::protocol::make_command(command).dump()) + '\n';
    auto* socket = new QLocalSocket(this);
    connect(socket, &QLocalSocket::connected, socket, [socket, line] {
        socket->write(line);
        socket->disconnectFromServer();
    });
    connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
    connect(socket, &QLocalSocket::errorOccurred, socket,
            [this, socket, command](QLocalSocket::LocalSocketError) {
                // No socket yet (prepare has none): a stop still reaches the engine.
                if (command == tuneframe::protocol::CommandType::Stop)
                    terminate();
                socket->deleteLater();
            });
    socket->connectToServer(QDir(m_runFolder).filePath(kControlSocketName));
}

void EngineRun::terminate() {
    if (m_pid > 0 && isEngineAlive(m_pid))
        ::kill(static_cast<pid_t>(m_pid), SIGTERM);
}

QStringList EngineRun::lastStderrLines(int count) const {
    QFile file(QDir(m_runFolder).filePath(kStderrFileName));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    constexpr qint64 kTailBytes = 64 * 1024;
    if (file.size() > kTailBytes)
        file.seek(file.size() - kTailBytes);
    QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
    lines.removeAll(QString());
    return lines.mid(qMax<qsizetype>(0, lines.size() - count));
}

bool EngineRun::isEngineAlive(qint64 pid) {
    if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) != 0)
        return false;
    QFile status(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return true; // no /proc: trust kill()
    // The fields after the command name, which may itself hold spaces and parentheses.
    const QByteArray stat = status.readAll();
    const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.value(0) == "Z")
        return false; // a zombie has finished; only its parent has not collected it yet
    constexpr qulonglong kKernelThreadFlag = 0x00200000; // PF_KTHREAD
    if (fields.value(6).toULongLong() & kKernelThreadFlag)
        return false;
    QFile commandLine(QStringLiteral("/proc/%1/cmdline").arg(pid));
    if (!commandLine.open(QIODevice::ReadOnly))
        return true;
    const QByteArray line = commandLine.readAll();
    // Empty while the process is between images: inside execve (`run` becoming `train`), or
    // exiting with its memory already released. Either way it is the engine still.
    return line.isEmpty() || line.contains("tuneframe-engine");
}

void EngineRun::poll() {
    if (!m_following)
        return;
    const bool alive = isEngineAlive(m_pid);
    readNewEvents();
    if (!m_following || alive) {
        m_deadPolls = 0;
        return;
    }
    if (++m_deadPolls >= kDeadPollsBeforeVanished) {
        // Left unread: an engine resuming the run starts on a new line after it.
        if (QFileInfo(QDir(m_runFolder).filePath(kEventsFileName)).size() > m_offset)
            emit malformedLineRead(tr("the engine's last line was cut short and is skipped"));
        finish(Outcome::Vanished);
    }
}

void EngineRun::readNewEvents() {
    QFile file(QDir(m_runFolder).filePath(kEventsFileName));
    if (!file.open(QIODevice::ReadOnly) || file.size() <= m_offset)
        return;
    // Re-read from the end of the last complete line: a partial line (the engine is writing
    // it, or was killed while writing it) is read again until its newline arrives.
    file.seek(m_offset);
    const QByteArray bytes = file.read(qMin(file.size() - m_offset, kMaximumReadBytes));
    QVector<EngineEvent> events;
    Outcome outcome = Outcome::None;
    qint64 position = 0;
    while (outcome == Outcome::None) {
        const qint64 newline = bytes.indexOf('\n', position);
        if (newline < 0)
            break;
        const QByteArray line = bytes.mid(position, newline - position).trimmed();
        position = newline + 1;
        if (line.isEmpty())
            continue;
        QString error;
        std::optional<EngineEvent> event = EngineEvent::parse(line, &error);
        if (!event) {
            event = EngineEvent::parseAfterCutLine(line);
            if (!event) {
                emit malformedLineRead(error);
                continue;
            }
            emit malformedLineRead(tr("a line cut short, joined to the next event, which is kept"));
        }
        if (event->type == tuneframe::protocol::EventType::Done) {
            const QString status = event->string(QStringLiteral("status"));
            // Whatever follows a done line belongs to the next command.
            // `train` ends with "finished" where the other commands say "ok".
            if (status == QLatin1String("ok") || status == QLatin1String("finished"))
                outcome = Outcome::Succeeded;
            else if (status == QLatin1String("stopped"))
                outcome = Outcome::Stopped;
            else
                outcome = Outcome::Failed;
        }
        events.append(std::move(*event));
    }
    if (position == 0 && bytes.size() == kMaximumReadBytes) {
        // One line longer than anything the engine writes: skip it rather than stall.
        emit malformedLineRead(tr("an event line longer than %1 bytes").arg(kMaximumReadBytes));
        position = bytes.size();
    }
    m_offset += position;
    if (!events.isEmpty())
        emit eventsRead(events, m_offset);
    if (outcome != Outcome::None)
        finish(outcome);
}

void EngineRun::finish(Outcome outcome) {
    m_following = false;
    m_pollTimer->stop();
    emit ended(outcome);
}
