#include "app/engine/LaunchPlan.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
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

int LaunchPlan::processCount() const {
    if (!m_gpus.isEmpty())
        return static_cast<int>(m_gpus.size());
    return m_cpuRanks > 1 ? m_cpuRanks : 1;
}

QStringList LaunchPlan::engineArguments(const QString& command, const QString& jobFile) const {
    const QStringList direct{command, QStringLiteral("--job"), jobFile};
    const bool train = command == QLatin1String("train");
    if ((!train && command != QLatin1String("run")) || processCount() < 2)
        return direct;
    QStringList processes;
    if (!m_gpus.isEmpty()) {
        QStringList indices;
        for (int index : m_gpus)
            indices.append(QString::number(index));
        processes << QStringLiteral("--gpus") << indices.join(QLatin1Char(','));
    } else {
        processes << QStringLiteral("--cpu-ranks") << QString::number(m_cpuRanks);
    }
    // `run` prepares alone and then starts `launch` itself.
    if (!train)
        return direct + processes;
    return QStringList{QStringLiteral("launch")} + processes + QStringList{QStringLiteral("--")} +
           direct;
}

QJsonObject LaunchPlan::toJson() const {
    QJsonObject json;
    if (!m_gpus.isEmpty()) {
        QJsonArray indices;
        for (int index : m_gpus)
            indices.append(index);
        json.insert(QStringLiteral("gpus"), indices);
    } else if (m_cpuRanks > 1) {
        json.insert(QStringLiteral("cpu_ranks"), m_cpuRanks);
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
    if (!valid) {
        if (error)
            *error = tr("%1 is not a launch plan. It should read {\"gpus\": [0, 1]} or "
                        "{\"cpu_ranks\": 2}; delete it to train with one process.")
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
