#include "app/engine/LaunchPlan.h"

#include "common/training_job.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QNetworkInterface>
#include <QSaveFile>

#include <nlohmann/json.hpp>

const QString LaunchPlan::kFileName = QString::fromLatin1(tuneframe::common::LaunchSpec::kFileName);

LaunchPlan LaunchPlan::gpus(const QVector<int>& indices) {
    LaunchPlan plan;
    plan.m_spec.gpus.assign(indices.begin(), indices.end());
    return plan;
}

LaunchPlan LaunchPlan::cpuRanks(int count) {
    LaunchPlan plan;
    plan.m_spec.cpu_ranks = count > 1 ? count : 0;
    return plan;
}

LaunchPlan LaunchPlan::onMachines(int count, const QString& address, int port) const {
    LaunchPlan plan;
    plan.m_spec = m_spec.on_machines(count, address.trimmed().toStdString(), port);
    return plan;
}

QString LaunchPlan::thisMachineAddress() {
    for (const QHostAddress& address : QNetworkInterface::allAddresses()) {
        if (address.protocol() == QAbstractSocket::IPv4Protocol && !address.isLoopback())
            return address.toString();
    }
    return {};
}

QVector<int> LaunchPlan::gpuIndices() const {
    return QVector<int>(m_spec.gpus.begin(), m_spec.gpus.end());
}

QStringList LaunchPlan::processArguments(int node) const {
    QStringList arguments;
    for (const std::string& argument : m_spec.process_arguments(node))
        arguments.append(QString::fromStdString(argument));
    return arguments;
}

QStringList LaunchPlan::engineArguments(const QString& command, const QString& jobFile) const {
    const QStringList direct{command, QStringLiteral("--job"), jobFile};
    const bool train = command == QLatin1String("train");
    if ((!train && command != QLatin1String("run")) || worldSize() < 2)
        return direct;
    // `run` prepares alone and then starts `launch` itself.
    if (!train)
        return direct + processArguments(0);
    return QStringList{QStringLiteral("launch")} + processArguments(0) +
           QStringList{QStringLiteral("--")} + direct;
}

QStringList LaunchPlan::machineArguments(int machine, const QString& jobFile) const {
    return QStringList{QStringLiteral("run"), QStringLiteral("--job"), jobFile} +
           processArguments(machine);
}

QJsonObject LaunchPlan::toJson() const {
    return QJsonDocument::fromJson(QByteArray::fromStdString(m_spec.to_json().dump())).object();
}

LaunchPlan LaunchPlan::load(const QString& runFolder, QString* error) {
    QFile file(QDir(runFolder).filePath(kFileName));
    if (!file.exists())
        return {};
    const QByteArray bytes = file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    const nlohmann::json json =
        nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr,
                              /*allow_exceptions=*/false);
    LaunchPlan plan;
    try {
        plan.m_spec = tuneframe::common::LaunchSpec::from_json(json);
    } catch (const tuneframe::common::JobError&) {
        if (error)
            *error = tr("%1 is not a launch plan. It should read {\"gpus\": [0, 1]} or "
                        "{\"cpu_ranks\": 2}, with \"machines\", \"master_addr\" and "
                        "\"master_port\" for several machines; delete it to train with one "
                        "process.")
                         .arg(QDir::toNativeSeparators(file.fileName()));
        return {};
    }
    return plan;
}

bool LaunchPlan::save(const QString& runFolder, QString* error) const {
    QSaveFile file(QDir(runFolder).filePath(kFileName));
    const QByteArray bytes = QJsonDocument(toJson()).toJson();
    if (file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size() && file.commit())
        return true;
    if (error)
        *error = tr("%1 could not be written: %2")
                     .arg(QDir::toNativeSeparators(file.fileName()), file.errorString());
    return false;
}
