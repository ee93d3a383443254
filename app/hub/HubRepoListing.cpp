#include "app/hub/HubRepoListing.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>

namespace {

bool isHex(const QString& text, int length) {
    static const QRegularExpression hex(QStringLiteral("^[0-9a-f]+$"));
    return text.size() == length && hex.match(text).hasMatch();
}

// A relative path without "." or ".." parts, empty parts or backslashes.
bool isSafeRelativePath(const QString& path) {
    if (path.isEmpty() || path.startsWith(QLatin1Char('/')) || path.contains(QLatin1Char('\\')) ||
        path.contains(QChar(0)))
        return false;
    const QStringList parts = path.split(QLatin1Char('/'));
    return std::none_of(parts.begin(), parts.end(), [](const QString& part) {
        return part.isEmpty() || part == QLatin1String(".") || part == QLatin1String("..");
    });
}

// Wan 2.2 A14B keeps its second expert in transformer_2/; Wan 2.1 I2V its CLIP in
// image_encoder/ and image_processor/.
const QStringList kPipelineFolders = {
    QStringLiteral("scheduler/"),     QStringLiteral("tokenizer/"),
    QStringLiteral("text_encoder/"),  QStringLiteral("transformer/"),
    QStringLiteral("transformer_2/"), QStringLiteral("vae/"),
    QStringLiteral("image_encoder/"), QStringLiteral("image_processor/")};
const QStringList kUnreadWeightSuffixes = {QStringLiteral(".bin"),     QStringLiteral(".pt"),
                                           QStringLiteral(".pth"),     QStringLiteral(".ckpt"),
                                           QStringLiteral(".msgpack"), QStringLiteral(".h5"),
                                           QStringLiteral(".onnx")};

bool isPipelineFile(const QString& path) {
    if (path == QLatin1String("model_index.json"))
        return true;
    const bool inFolder =
        std::any_of(kPipelineFolders.begin(), kPipelineFolders.end(),
                    [&](const QString& folder) { return path.startsWith(folder); });
    const bool unreadWeights =
        std::any_of(kUnreadWeightSuffixes.begin(), kUnreadWeightSuffixes.end(),
                    [&](const QString& suffix) { return path.endsWith(suffix); });
    return inFolder && !unreadWeights;
}

} // namespace

std::optional<HubRepoListing> HubRepoListing::parse(const QByteArray& json, const QString& repoId,
                                                    QString* errorMessage) {
    auto fail = [&](const QString& why) -> std::optional<HubRepoListing> {
        *errorMessage = tr("The Hub's file list for %1 is not usable (%2). Check the endpoint "
                           "(HF_ENDPOINT) and try again later.")
                            .arg(repoId, why);
        return std::nullopt;
    };
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (!document.isObject())
        return fail(parseError.errorString());
    const QJsonObject root = document.object();
    HubRepoListing listing;
    listing.commit = root.value(QLatin1String("sha")).toString();
    if (!isHex(listing.commit, 40))
        return fail(tr("no commit hash"));
    for (const QJsonValue& value : root.value(QLatin1String("siblings")).toArray()) {
        const QJsonObject sibling = value.toObject();
        File file;
        file.path = sibling.value(QLatin1String("rfilename")).toString();
        if (!isSafeRelativePath(file.path))
            return fail(tr("bad file name \"%1\"").arg(file.path));
        file.blobId = sibling.value(QLatin1String("blobId")).toString();
        const QJsonObject lfs = sibling.value(QLatin1String("lfs")).toObject();
        file.sha256 = lfs.value(QLatin1String("sha256")).toString();
        // For an LFS file "size" is the file's own size, as lfs.size is.
        file.sizeBytes = static_cast<qint64>(
            (file.isLfs() ? lfs.value(QLatin1String("size")) : sibling.value(QLatin1String("size")))
                .toDouble(-1));
        if (file.sizeBytes < 0)
            return fail(tr("no size for %1").arg(file.path));
        if (file.isLfs() ? !isHex(file.sha256, 64) : !isHex(file.blobId, 40))
            return fail(tr("no checksum for %1").arg(file.path));
        listing.files.append(file);
    }
    return listing;
}

HubRepoListing HubRepoListing::pipelineFiles() const {
    HubRepoListing kept;
    kept.commit = commit;
    for (const File& file : files) {
        if (isPipelineFile(file.path))
            kept.files.append(file);
    }
    return kept;
}

qint64 HubRepoListing::totalBytes() const {
    qint64 total = 0;
    for (const File& file : files)
        total += file.sizeBytes;
    return total;
}
