#include "app/jobs/JobPresets.h"

#include "common/training_job.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSet>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace {

nlohmann::json toNlohmann(const QJsonObject& object) {
    return nlohmann::json::parse(
        QJsonDocument(object).toJson(QJsonDocument::Compact).toStdString());
}

QJsonObject toQt(const nlohmann::json& json) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(json.dump())).object();
}

// Whether the studio shows Simplified Chinese: the translation installed answers this string.
bool inChinese() {
    return JobPresets::tr("en", "the language of the studio's translation: zh_CN in Simplified "
                                "Chinese (presets carry name_zh_CN)") == QLatin1String("zh_CN");
}

} // namespace

QString JobPreset::displayName() const {
    return inChinese() && !nameZh.isEmpty() ? nameZh : name;
}

QString JobPreset::displayDescription() const {
    return inChinese() && !descriptionZh.isEmpty() ? descriptionZh : description;
}

QStringList JobPresets::searchFolders() {
    QStringList candidates;
    const QString override = qEnvironmentVariable("TUNEFRAME_PRESETS_DIR");
    if (!override.isEmpty())
        candidates.append(override);
    if (QCoreApplication::instance())
        candidates.append(QDir(QCoreApplication::applicationDirPath())
                              .absoluteFilePath(QStringLiteral("../share/tuneframe/presets")));
#ifdef TUNEFRAME_SOURCE_PRESETS
    candidates.append(QStringLiteral(TUNEFRAME_SOURCE_PRESETS));
#endif
    QStringList folders;
    for (const QString& folder : candidates) {
        if (QFileInfo(folder).isDir())
            folders.append(QDir(folder).absolutePath());
    }
    return folders;
}

QVector<JobPreset> JobPresets::load(const QStringList& folders, QStringList* problems,
                                    const QString& userFolder) {
    QVector<JobPreset> presets;
    QSet<QString> seen;
    QStringList searched = folders;
    if (!userFolder.isEmpty() && QFileInfo(userFolder).isDir())
        searched.prepend(QDir(userFolder).absolutePath());
    for (const QString& folder : searched) {
        const bool user = !userFolder.isEmpty() && folder == QDir(userFolder).absolutePath();
        const QFileInfoList files =
            QDir(folder).entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        for (const QFileInfo& info : files) {
            if (seen.contains(info.fileName()))
                continue;
            seen.insert(info.fileName());
            const QString path = QDir::toNativeSeparators(info.absoluteFilePath());
            QFile file(info.absoluteFilePath());
            if (!file.open(QIODevice::ReadOnly)) {
                if (problems)
                    problems->append(tr("%1 cannot be read: %2").arg(path, file.errorString()));
                continue;
            }
            QJsonParseError parseError;
            const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
            if (!document.isObject()) {
                if (problems)
                    problems->append(tr("%1 is not a JSON object (%2 at byte %3). Fix the file "
                                        "or remove it.")
                                         .arg(path, parseError.errorString())
                                         .arg(parseError.offset));
                continue;
            }
            QJsonObject job = document.object();
            const QJsonObject meta = job.take(QStringLiteral("preset")).toObject();
            const QString invalid = validate(job);
            if (!invalid.isEmpty()) {
                if (problems)
                    problems->append(tr("%1: %2").arg(path, invalid));
                continue;
            }
            JobPreset preset;
            preset.id = info.completeBaseName();
            preset.name = meta.value(QStringLiteral("name")).toString(preset.id);
            preset.description = meta.value(QStringLiteral("description")).toString();
            preset.nameZh = meta.value(QStringLiteral("name_zh_CN")).toString();
            preset.descriptionZh = meta.value(QStringLiteral("description_zh_CN")).toString();
            preset.modelFamily = meta.value(QStringLiteral("model")).toString();
            preset.family = meta.value(QStringLiteral("family")).toString(preset.family);
            preset.demoModel = meta.value(QStringLiteral("demo_model")).toString();
            preset.tierGb = meta.value(QStringLiteral("tier_gb")).toInt();
            preset.gpus = std::max(1, meta.value(QStringLiteral("gpus")).toInt(1));
            preset.mode =
                meta.value(QStringLiteral("mode"))
                    .toString(job.value(QStringLiteral("mode")).toString(QStringLiteral("lora")));
            preset.job = job;
            preset.file = info.absoluteFilePath();
            preset.user = user;
            presets.append(preset);
        }
    }
    std::stable_sort(presets.begin(), presets.end(), [](const JobPreset& a, const JobPreset& b) {
        if (a.modelFamily != b.modelFamily)
            return a.modelFamily < b.modelFamily;
        if (a.mode != b.mode)
            return a.mode > b.mode; // LoRA first
        return a.tierGb < b.tierGb;
    });
    return presets;
}

QVector<JobPreset> JobPresets::loadDefault(QStringList* problems, const QString& userFolder) {
    return load(searchFolders(), problems, userFolder);
}

QString JobPresets::userFolder(const QString& configDirectory) {
    return QDir(configDirectory).filePath(QStringLiteral("presets"));
}

std::optional<JobPreset> JobPresets::saveUser(const QString& folder, const QString& name,
                                              const JobPreset& base, const QJsonObject& job,
                                              QString* error) {
    const QString trimmed = name.simplified();
    QString slug = trimmed.toLower();
    slug.replace(QRegularExpression(QStringLiteral("[^\\w]+"),
                                    QRegularExpression::UseUnicodePropertiesOption),
                 QStringLiteral("-"));
    slug = slug.mid(0, 60);
    while (slug.startsWith(QLatin1Char('-')))
        slug.remove(0, 1);
    while (slug.endsWith(QLatin1Char('-')))
        slug.chop(1);
    if (slug.isEmpty()) {
        if (error)
            *error = tr("Give the preset a name.");
        return std::nullopt;
    }
    JobPreset preset = base;
    preset.id = QStringLiteral("user.") + slug;
    preset.name = trimmed;
    preset.nameZh.clear(); // the user's own name in any language
    preset.description = tr("Saved from “%1”.").arg(base.displayName());
    preset.descriptionZh.clear();
    preset.demoModel.clear();
    preset.job = job;
    preset.job.remove(QStringLiteral("model"));
    preset.mode = preset.job.value(QStringLiteral("mode")).toString(base.mode);
    preset.user = true;
    if (const QString invalid = validate(preset.job); !invalid.isEmpty()) {
        if (error)
            *error = invalid;
        return std::nullopt;
    }
    QJsonObject document = preset.job;
    document.insert(QStringLiteral("preset"),
                    QJsonObject{{QStringLiteral("name"), preset.name},
                                {QStringLiteral("description"), preset.description},
                                {QStringLiteral("model"), preset.modelFamily},
                                {QStringLiteral("family"), preset.family},
                                {QStringLiteral("tier_gb"), preset.tierGb},
                                {QStringLiteral("gpus"), preset.gpus},
                                {QStringLiteral("mode"), preset.mode}});
    preset.file = QDir(folder).filePath(preset.id + QStringLiteral(".json"));
    QSaveFile file(preset.file);
    const QByteArray bytes = QJsonDocument(document).toJson();
    if (!QDir().mkpath(folder) || !file.open(QIODevice::WriteOnly) ||
        file.write(bytes) != bytes.size() || !file.commit()) {
        if (error)
            *error = tr("The preset could not be saved to %1: %2. Check that the folder is "
                        "writable and the disk has space.")
                         .arg(QDir::toNativeSeparators(preset.file), file.errorString());
        return std::nullopt;
    }
    return preset;
}

bool JobPresets::removeUser(const JobPreset& preset, QString* error) {
    if (!preset.user) {
        if (error)
            *error = tr("“%1” comes with Tuneframe and cannot be deleted.").arg(preset.name);
        return false;
    }
    if (QFile::remove(preset.file) || !QFileInfo::exists(preset.file))
        return true;
    if (error)
        *error = tr("%1 could not be deleted. Check the folder's permissions.")
                     .arg(QDir::toNativeSeparators(preset.file));
    return false;
}

QString JobPresets::validate(const QJsonObject& job) {
    try {
        tuneframe::common::TrainingJob::from_json(toNlohmann(job), "job");
    } catch (const tuneframe::common::JobError& error) {
        const QString message = QString::fromStdString(error.what());
        return error.hint().empty()
                   ? message
                   : tr("%1 %2").arg(message, QString::fromStdString(error.hint()));
    } catch (const nlohmann::json::exception& error) {
        return QString::fromUtf8(error.what());
    }
    return QString();
}

QJsonObject JobPresets::merge(const QJsonObject& base, const QJsonObject& overrides) {
    return toQt(tuneframe::common::merge_job_json(toNlohmann(base), toNlohmann(overrides)));
}
