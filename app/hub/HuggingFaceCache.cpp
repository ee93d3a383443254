#include "app/hub/HuggingFaceCache.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <tuple>

namespace {

const QString kModelPrefix = QStringLiteral("models--");

// huggingface_hub writes "models--" + repo id with "/" turned into "--".
QString repoIdOf(const QString& folderName) {
    return folderName.mid(kModelPrefix.size()).replace(QStringLiteral("--"), QStringLiteral("/"));
}

QString pipelineClassOf(const QString& snapshot) {
    QFile file(snapshot + QStringLiteral("/model_index.json"));
    // A model index is a few hundred bytes; anything far larger is not one.
    if (!file.open(QIODevice::ReadOnly) || file.size() > 1024 * 1024)
        return {};
    const QJsonObject index = QJsonDocument::fromJson(file.readAll()).object();
    return index.value(QStringLiteral("_class_name")).toString();
}

// refs/<name> files each hold the commit the branch or tag points at.
QHash<QString, QString> refsByCommit(const QString& repository) {
    QHash<QString, QString> names;
    const QDir refs(repository + QStringLiteral("/refs"));
    for (const QFileInfo& ref : refs.entryInfoList(QDir::Files, QDir::Name)) {
        QFile file(ref.absoluteFilePath());
        if (file.size() > 256 || !file.open(QIODevice::ReadOnly))
            continue;
        const QString commit = QString::fromLatin1(file.readAll()).trimmed();
        // "main" wins over other names for the same commit.
        if (!names.contains(commit) || ref.fileName() == QLatin1String("main"))
            names.insert(commit, ref.fileName());
    }
    return names;
}

} // namespace

QString HuggingFaceCache::Model::label() const {
    return tr("%1 (%2)").arg(repoId, revision);
}

QString HuggingFaceCache::hubFolder(const QProcessEnvironment& environment) {
    if (const QString hub = environment.value(QStringLiteral("HF_HUB_CACHE")); !hub.isEmpty())
        return hub;
    if (const QString home = environment.value(QStringLiteral("HF_HOME")); !home.isEmpty())
        return home + QStringLiteral("/hub");
    if (const QString xdg = environment.value(QStringLiteral("XDG_CACHE_HOME")); !xdg.isEmpty())
        return xdg + QStringLiteral("/huggingface/hub");
    return QDir::homePath() + QStringLiteral("/.cache/huggingface/hub");
}

bool HuggingFaceCache::isTrainablePipeline(const QString& pipelineClass) {
    static const QStringList kPipelines = {
        QStringLiteral("CogVideoXPipeline"), QStringLiteral("CogVideoXImageToVideoPipeline"),
        QStringLiteral("WanPipeline"), QStringLiteral("WanImageToVideoPipeline")};
    return kPipelines.contains(pipelineClass);
}

QVector<HuggingFaceCache::Model> HuggingFaceCache::videoPipelines(const QString& hubFolder) {
    QVector<Model> models;
    const QDir hub(hubFolder);
    for (const QFileInfo& repository :
         hub.entryInfoList({kModelPrefix + QLatin1Char('*')}, QDir::Dirs | QDir::NoDotAndDotDot)) {
        const QHash<QString, QString> refs = refsByCommit(repository.absoluteFilePath());
        const QDir snapshots(repository.absoluteFilePath() + QStringLiteral("/snapshots"));
        for (const QFileInfo& snapshot :
             snapshots.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            const QString pipelineClass = pipelineClassOf(snapshot.absoluteFilePath());
            if (!isTrainablePipeline(pipelineClass))
                continue;
            Model model;
            model.repoId = repoIdOf(repository.fileName());
            model.commit = snapshot.fileName();
            model.revision = refs.value(model.commit, model.commit.left(8));
            model.folder = snapshot.absoluteFilePath();
            model.pipelineClass = pipelineClass;
            models.append(model);
        }
    }
    std::sort(models.begin(), models.end(), [](const Model& a, const Model& b) {
        return std::tie(a.repoId, a.revision) < std::tie(b.repoId, b.revision);
    });
    return models;
}
