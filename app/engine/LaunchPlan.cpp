#include "app/engine/LaunchPlan.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkInterface>
#include <QSaveFile>

const QString LaunchPlan::kFileName = QStringLiteral("launch.json");

LaunchPlan LaunchPlan::gpus(const QVector<int>& indices) {
    LaunchPlan plan;
    plan.m_gpus = indices;
    return plan;
}

LaunchPlan LaunchPlan::cpuRanks(int count) {
    LaunchPlan plan;
    plan.m_cpuRanks = count > 1 ? count : 0;
    return plan;
}

LaunchPlan LaunchPlan::onMachines(int count, const QString& address, int port) const {
    LaunchPlan plan = *this;
    plan.m_machines = qMax(count, 1);
    plan.m_masterAddress = plan.m_machines > 1 ? address.trimmed() : QString();
    plan.m_masterPort = plan.m_machines > 1 ? port : 0;
    // One CPU rank per machine still trains under `launch`, which joins the machines.
    if (plan.m_machines > 1 && plan.m_gpus.isEmpty() && plan.m_cpuRanks == 0)
        plan.m_cpuRanks = 1;
    return plan;
}

QString LaunchPlan::thisMachineAddress() {
    for (const QHostAddress& address : QNetworkInterface::allAddresses()) {
        if (address.protocol() == QAbstractSocket::IPv4Protocol && !address.isLoopback())
            return address.toString();
    }
    return {};
}

int LaunchPlan::processCount() const {
    if (!m_gpus.isEmpty())
        return static_cast<int>(m_gpus.size());
    return m_cpuRanks > 1 ? m_cpuRanks : 1;
}

QStringList LaunchPlan::processArguments(int node) const {
    QStringList processes;
    if (!m_gpus.isEmpty()) {
        QStringList indices;
        for (int index : m_gpus)
            indices.append(QString::number(index));
        processes << QStringLiteral("--gpus") << indices.join(QLatin1Char(','));
    } else {
        processes << QStringLiteral("--cpu-ranks") << QString::number(qMax(m_cpuRanks, 1));
    }
    if (m_machines > 1)
        processes << QStringLiteral("--nnodes") << QString::number(m_machines)
                  << QStringLiteral("--node-rank") << QString::number(node)
                  << QStringLiteral("--master-addr") << m_masterAddress
                  << QStringLiteral("--master-port") << QString::number(m_masterPort);
    return processes;
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
    QJsonObject json;
    if (!m_gpus.isEmpty()) {
        QJsonArray indices;
        for (int index : m_gpus)
            indices.append(index);
        json.insert(QStringLiteral("gpus"), indices);
    } else if (m_cpuRanks > 1 || (m_cpuRanks == 1 && m_machines > 1)) {
        json.insert(QStringLiteral("cpu_ranks"), m_cpuRanks);
    }
    if (m_machines > 1) {
        json.insert(QStringLiteral("machines"), m_machines);
        json.insert(QStringLiteral("master_addr"), m_masterAddress);
        json.insert(QStringLiteral("master_port"), m_masterPort);
    }
    return json;
}

LaunchPlan LaunchPlan::load(const QString& runFolder, QString* error) {
    QFile file(QDir(runFolder).filePath(kFileName));
    if (!file.exists())
        return {};
    QJsonParseError parseError;
    const QJsonDocument document = file.open(QIODevice::ReadOnly)
                                       ? QJsonDocument::fromJson(file.readAll(), &parseError)
                                       : QJsonDocument();
    const QJsonObject json = document.object();
    LaunchPlan plan;
    bool valid = document.isObject();
    for (const QJsonValue& value : json.value(QStringLiteral("gpus")).toArray()) {
        valid = valid && value.isDouble() && value.toInt(-1) >= 0;
        plan.m_gpus.append(value.toInt());
    }
    const int ranks = json.value(QStringLiteral("cpu_ranks")).toInt(0);
    valid = valid && ranks >= 0 && (plan.m_gpus.isEmpty() || ranks == 0);
    plan.m_cpuRanks = ranks > 1 ? ranks : 0;
    const int machines = json.value(QStringLiteral("machines")).toInt(1);
    const QString address = json.value(QStringLiteral("master_addr")).toString();
    const int port = json.value(QStringLiteral("master_port")).toInt(0);
    valid = valid && machines >= 1 && (machines == 1 || (!address.isEmpty() && port > 0));
    if (!valid) {
        if (error)
            *error = tr("%1 is not a launch plan. It should read {\"gpus\": [0, 1]} or "
                        "{\"cpu_ranks\": 2}, with \"machines\", \"master_addr\" and "
                        "\"master_port\" for several machines; delete it to train with one "
                        "process.")
                         .arg(QDir::toNativeSeparators(file.fileName()));
        return {};
    }
    return machines > 1 ? plan.onMachines(machines, address, port) : plan;
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
