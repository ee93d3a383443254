#include "app/captions/CaptionTokenCounter.h"

#include "common/t5_tokenizer.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>

const QString CaptionTokenCounter::kModelsFolderName = QStringLiteral("models");

struct CaptionTokenCounter::LoadResult {
    std::shared_ptr<const tuneframe::common::T5Tokenizer> tokenizer;
    QString error;
};

CaptionTokenCounter::CaptionTokenCounter(QObject* parent)
    : QObject(parent) {}

CaptionTokenCounter::~CaptionTokenCounter() {
    // An earlier load may still run beside the latest one; each is a child until it finishes.
    const QList<QThread*> threads = findChildren<QThread*>(Qt::FindDirectChildrenOnly);
    for (QThread* thread : threads)
        thread->wait();
}

std::optional<CaptionTokenCounter::ModelTokenizer>
CaptionTokenCounter::findModelTokenizer(const QString& projectFolder) {
    const QDir models(QDir(projectFolder).filePath(kModelsFolderName));
    // Hidden folders are a model still being written (DemoProjectBuilder stages there).
    const QStringList names = models.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QString& name : names) {
        const QDir model(models.filePath(name));
        const QString tokenizer = model.filePath(QStringLiteral("tokenizer"));
        if (!QFileInfo(QDir(tokenizer).filePath(QStringLiteral("spiece.model"))).isFile())
            continue;
        ModelTokenizer found;
        found.modelName = name;
        found.tokenizerFolder = tokenizer;
        found.tokenLimit = tokenLimitOf(model.path());
        return found;
    }
    return std::nullopt;
}

int CaptionTokenCounter::tokenLimitOf(const QString& modelFolder) {
    QFile config(QDir(modelFolder).filePath(QStringLiteral("transformer/config.json")));
    if (!config.open(QIODevice::ReadOnly))
        return kDefaultTokenLimit;
    const int limit = QJsonDocument::fromJson(config.readAll())
                          .object()
                          .value(QStringLiteral("max_text_seq_length"))
                          .toInt(kDefaultTokenLimit);
    return limit > 0 ? limit : kDefaultTokenLimit;
}

void CaptionTokenCounter::load(const QString& projectFolder) {
    clear();
    const quint64 generation = m_generation;
    const std::optional<ModelTokenizer> model = findModelTokenizer(projectFolder);
    if (!model) {
        emit unavailable(QString());
        return;
    }
    m_model = *model;
    auto result = std::make_shared<LoadResult>();
    const QString folder = model->tokenizerFolder;
    QThread* thread = QThread::create([folder, result] {
        try {
            result->tokenizer = std::make_shared<const tuneframe::common::T5Tokenizer>(
                tuneframe::common::T5Tokenizer::from_folder(
                    QFile::encodeName(folder).toStdString()));
        } catch (const tuneframe::common::TokenizerError& error) {
            result->error = QString::fromStdString(error.what());
        } catch (const std::exception& error) {
            result->error = QString::fromStdString(error.what());
        }
    });
    thread->setObjectName(QStringLiteral("tokenizer"));
    thread->setParent(this);
    connect(thread, &QThread::finished, this,
            [this, result, generation] { onLoadFinished(result, generation); });
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->start();
}

void CaptionTokenCounter::clear() {
    ++m_generation;
    m_tokenizer.reset();
    m_model = ModelTokenizer();
}

void CaptionTokenCounter::onLoadFinished(const std::shared_ptr<LoadResult>& result,
                                         quint64 generation) {
    if (generation != m_generation)
        return;
    if (!result->tokenizer) {
        m_model = ModelTokenizer();
        emit unavailable(result->error);
        return;
    }
    m_tokenizer = result->tokenizer;
    emit loaded(m_model.modelName, m_model.tokenLimit);
}

bool CaptionTokenCounter::isReady() const {
    return m_tokenizer != nullptr;
}

QString CaptionTokenCounter::modelName() const {
    return m_model.modelName;
}

int CaptionTokenCounter::tokenLimit() const {
    return m_model.tokenLimit;
}

int CaptionTokenCounter::countTokens(const QString& text) const {
    if (!m_tokenizer)
        return -1;
    return static_cast<int>(m_tokenizer->count_tokens(text.toStdString()));
}
