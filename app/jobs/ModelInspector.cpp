#include "app/jobs/ModelInspector.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>

namespace {

// A folder's summary is a few kilobytes; far more is not one.
constexpr qint64 kMostOutputBytes = 4 * 1024 * 1024;

// The engine's `error: …` and `hint: …` lines (inspect writes no events), or its last lines.
QString engineMessage(const QByteArray& standardError) {
    QStringList kept;
    QStringList all;
    for (const QString& line : QString::fromUtf8(standardError).split(QLatin1Char('\n'))) {
        const QString trimmed = line.trimmed();
        if (trimmed.isEmpty())
            continue;
        all.append(trimmed);
        if (trimmed.startsWith(QLatin1String("error: ")))
            kept.append(trimmed.mid(7));
        else if (trimmed.startsWith(QLatin1String("hint: ")))
            kept.append(trimmed.mid(6));
    }
    if (kept.isEmpty())
        kept = all.mid(std::max<qsizetype>(0, all.size() - 3));
    return kept.join(QLatin1Char(' '));
}

} // namespace

ModelInspector::ModelInspector(const QString& enginePath, QObject* parent)
    : QObject(parent)
    , m_enginePath(enginePath) {}

ModelInspector::~ModelInspector() {
    cancel();
}

void ModelInspector::setEnginePath(const QString& enginePath) {
    m_enginePath = enginePath;
}

QString ModelInspector::signatureOf(const QString& folder) {
    QStringList times;
    for (const char* file : {"model_index.json", "transformer/config.json",
                             "transformer_2/config.json", "vae/config.json"}) {
        const QFileInfo info(QDir(folder).filePath(QLatin1String(file)));
        times.append(info.exists() ? QString::number(info.lastModified().toMSecsSinceEpoch())
                                   : QStringLiteral("-"));
    }
    return times.join(QLatin1Char(','));
}

void ModelInspector::inspect(const QString& folder) {
    cancel();
    const auto known = m_answers.constFind(folder);
    if (known != m_answers.constEnd() && known->signature == signatureOf(folder)) {
        m_queued = known->facts;
        // Queued like an engine's answer, so callers see one order of events either way.
        QMetaObject::invokeMethod(this, &ModelInspector::emitQueued, Qt::QueuedConnection);
        return;
    }
    m_folder = folder;
    m_process = new QProcess(this);
    m_process->setProgram(m_enginePath);
    m_process->setArguments(
        {QStringLiteral("inspect"), QStringLiteral("--json"), QStringLiteral("--summary"), folder});
    connect(m_process, &QProcess::finished, this, &ModelInspector::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        const QString message =
            tr("The engine could not be started (%1): %2. Build tuneframe-engine, or set "
               "TUNEFRAME_ENGINE to its path.")
                .arg(QDir::toNativeSeparators(m_enginePath), m_process->errorString());
        const QString folder = m_folder;
        cancel();
        emit failed(folder, message);
    });
    connect(m_process, &QProcess::readyReadStandardOutput, this, [this] {
        if (m_process->bytesAvailable() > kMostOutputBytes)
            m_process->kill(); // onFinished reports it
    });
    m_process->start();
}

void ModelInspector::emitQueued() {
    if (!m_queued)
        return; // cancelled, replaced or already answered by waitForAnswer
    const ModelFacts facts = *m_queued;
    m_queued.reset();
    emit inspected(facts);
}

bool ModelInspector::waitForAnswer(int msecs) {
    if (m_queued) {
        emitQueued();
        return true;
    }
    if (!m_process)
        return false;
    // QProcess emits finished from inside the wait: onFinished answers before it returns.
    if (m_process->waitForFinished(msecs))
        return true;
    return m_process == nullptr;
}

void ModelInspector::cancel() {
    m_queued.reset();
    if (!m_process)
        return;
    m_process->disconnect(this);
    if (m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(2000); // SIGKILL: the engine is gone at once
    }
    m_process->deleteLater();
    m_process = nullptr;
}

void ModelInspector::onFinished(int exitCode, QProcess::ExitStatus status) {
    const QByteArray output = m_process->readAllStandardOutput();
    const QByteArray standardError = m_process->readAllStandardError();
    const QString folder = m_folder;
    m_process->deleteLater();
    m_process = nullptr;
    if (status != QProcess::NormalExit || exitCode != 0) {
        QString message = engineMessage(standardError);
        if (message.isEmpty())
            message =
                tr("The engine stopped with exit code %1 while reading the folder.").arg(exitCode);
        emit failed(folder, message);
        return;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(output, &parseError);
    QString error;
    const std::optional<ModelFacts> facts =
        document.isObject() ? ModelFacts::fromInspection(folder, document.object(), &error)
                            : std::nullopt;
    if (!document.isObject())
        error = tr("The engine's description of the folder could not be read (%1).")
                    .arg(parseError.errorString());
    if (!facts) {
        emit failed(folder, error);
        return;
    }
    m_answers.insert(folder, {signatureOf(folder), *facts});
    emit inspected(*facts);
}
