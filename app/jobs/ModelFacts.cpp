#include "app/jobs/ModelFacts.h"

#include <QJsonArray>
#include <QLocale>

#include <algorithm>
#include <cmath>

namespace {

// The engine's family names (engine/models/*/…_family.cpp) and variant names, as inspect
// writes them. The facts below are the engine's too (its model folders' geometry, samplers and
// LoRA layouts); inspect does not report them, so they are kept here, in one place.
const QString kWan = QStringLiteral("wan");
const QString kTextImageToVideo = QStringLiteral("ti2v");

// The transformer component's inspection (the first expert's, of two).
QJsonObject transformerComponent(const QJsonObject& inspection) {
    for (const QJsonValue& value : inspection.value(QStringLiteral("components")).toArray()) {
        const QJsonObject component = value.toObject();
        if (component.value(QStringLiteral("name")).toString() == QLatin1String("transformer"))
            return component;
    }
    return {};
}

} // namespace

std::optional<ModelFacts>
ModelFacts::fromInspection(const QString& folder, const QJsonObject& inspection, QString* error) {
    const QJsonObject transformer = transformerComponent(inspection);
    const QJsonObject architecture = transformer.value(QStringLiteral("architecture")).toObject();
    if (architecture.isEmpty() ||
        architecture.value(QStringLiteral("family")).toString().isEmpty()) {
        *error = tr("The folder holds no transformer a model family of the engine reads. Choose a "
                    "diffusers pipeline folder (the one with model_index.json) of CogVideoX or "
                    "Wan.");
        return std::nullopt;
    }
    ModelFacts facts;
    facts.folder = folder;
    facts.family = architecture.value(QStringLiteral("family")).toString();
    facts.name = architecture.value(QStringLiteral("name")).toString();
    facts.description = architecture.value(QStringLiteral("description")).toString();
    facts.transformerClass = transformer.value(QStringLiteral("class_name")).toString();
    facts.variant = architecture.value(QStringLiteral("variant")).toString();
    for (const QJsonValue& task : architecture.value(QStringLiteral("tasks")).toArray())
        facts.tasks.append(task.toString());
    facts.parameters = transformer.value(QStringLiteral("parameters")).toInteger();
    facts.storedDtype = architecture.value(QStringLiteral("dtype")).toString();
    facts.experts = std::max(1, architecture.value(QStringLiteral("experts")).toInt(1));
    const QJsonValue boundary = architecture.value(QStringLiteral("boundary_ratio"));
    if (boundary.isDouble())
        facts.boundaryRatio = boundary.toDouble();
    facts.layers = architecture.value(QStringLiteral("layers")).toInt();
    facts.heads = architecture.value(QStringLiteral("heads")).toInt();
    facts.width = architecture.value(QStringLiteral("width")).toInt();
    facts.inChannels = architecture.value(QStringLiteral("in_channels")).toInt();
    facts.latentChannels = architecture.value(QStringLiteral("latent_channels")).toInt();
    const QJsonArray shape = architecture.value(QStringLiteral("memory"))
                                 .toObject()
                                 .value(QStringLiteral("shape"))
                                 .toArray();
    if (shape.size() == 3) {
        facts.sampleFrames = shape.at(0).toInt();
        facts.sampleHeight = shape.at(1).toInt();
        facts.sampleWidth = shape.at(2).toInt();
    }
    if (facts.tasks.isEmpty()) {
        *error = tr("The engine names no task the model trains.");
        return std::nullopt;
    }
    return facts;
}

bool ModelFacts::trainsByFlowMatching() const {
    return family == kWan;
}

int ModelFacts::sizeMultiple() const {
    return family == kWan && variant == kTextImageToVideo ? 32 : 16;
}

int ModelFacts::snappedFrames(int frames) const {
    const int step = frameStep();
    const int steps = static_cast<int>(std::lround(std::max(0, frames - 1) / double(step)));
    return steps * step + 1;
}

int ModelFacts::snappedSide(int pixels) const {
    const int multiple = sizeMultiple();
    return std::max(1, static_cast<int>(std::lround(pixels / double(multiple)))) * multiple;
}

QStringList ModelFacts::samplers() const {
    if (family == kWan)
        return {QStringLiteral("unipc"), QStringLiteral("euler")};
    return {QStringLiteral("dpm"), QStringLiteral("ddim")};
}

QStringList ModelFacts::adapterFormats() const {
    if (family == kWan)
        return {QStringLiteral("diffusers"), QStringLiteral("wan"), QStringLiteral("musubi")};
    return {QStringLiteral("diffusers"), QStringLiteral("comfyui")};
}

QString ModelFacts::tasksText() const {
    QStringList names;
    for (const QString& task : tasks)
        names.append(task == QLatin1String("i2v") ? tr("image-to-video") : tr("text-to-video"));
    return names.join(tr(" and "));
}

QString ModelFacts::expertsText() const {
    if (!hasTwoExperts())
        return {};
    if (!boundaryRatio)
        return tr("two experts");
    return tr("two experts: high noise from t = %1, low noise below")
        .arg(std::lround(*boundaryRatio * 1000));
}

QString ModelFacts::summaryText() const {
    const QLocale locale;
    const QString size = parameters >= 1'000'000'000
                             ? tr("%1 B parameters").arg(locale.toString(parameters / 1e9, 'f', 1))
                             : tr("%1 M parameters").arg(locale.toString(parameters / 1e6, 'f', 1));
    QStringList parts{description, hasTwoExperts() ? tr("%1 each").arg(size) : size, storedDtype,
                      tasksText()};
    if (hasTwoExperts())
        parts.append(expertsText());
    parts.removeAll(QString());
    return parts.join(QStringLiteral(" · "));
}

bool ModelFacts::operator==(const ModelFacts& other) const {
    return folder == other.folder && family == other.family && name == other.name &&
           description == other.description && transformerClass == other.transformerClass &&
           variant == other.variant && tasks == other.tasks && parameters == other.parameters &&
           storedDtype == other.storedDtype && experts == other.experts &&
           boundaryRatio == other.boundaryRatio && layers == other.layers && heads == other.heads &&
           width == other.width && inChannels == other.inChannels &&
           latentChannels == other.latentChannels && sampleFrames == other.sampleFrames &&
           sampleHeight == other.sampleHeight && sampleWidth == other.sampleWidth;
}
