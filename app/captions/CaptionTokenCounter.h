#pragma once

#include <QObject>
#include <QString>

#include <memory>
#include <optional>

namespace tuneframe::common {
class T5Tokenizer;
}

// Counts a caption's tokens the way the text encoder will see them, with the tokenizer of a
// model inside the project (<project>/models/<name>/tokenizer, as the demo project has), against
// that model's text length: transformer/config.json's max_text_seq_length, else CogVideoX's
// 226. Loading reads a SentencePiece model, so it runs on a thread of its own; counting is
// quick and runs where it is called.
class CaptionTokenCounter : public QObject {
    Q_OBJECT

public:
    static constexpr int kDefaultTokenLimit = 226;
    static const QString kModelsFolderName;

    struct ModelTokenizer {
        QString modelName;
        QString tokenizerFolder;
        int tokenLimit = kDefaultTokenLimit;
    };

    explicit CaptionTokenCounter(QObject* parent = nullptr);
    // Waits for a load in progress.
    ~CaptionTokenCounter() override;

    // The first model under <projectFolder>/models (by name) whose tokenizer folder holds
    // spiece.model; nullopt when there is none.
    static std::optional<ModelTokenizer> findModelTokenizer(const QString& projectFolder);
    static int tokenLimitOf(const QString& modelFolder);

    // Looks for a model in the project and loads its tokenizer in the background; loaded or
    // unavailable follows. A later call replaces an earlier one.
    void load(const QString& projectFolder);
    void clear();

    bool isReady() const;
    QString modelName() const;
    int tokenLimit() const;
    // Tokens text takes, </s> included; -1 while no tokenizer is loaded.
    int countTokens(const QString& text) const;

signals:
    void loaded(const QString& modelName, int tokenLimit);
    // No model in the project (reason empty), or its tokenizer could not be read (reason says
    // which file and why).
    void unavailable(const QString& reason);

private:
    struct LoadResult;
    void onLoadFinished(const std::shared_ptr<LoadResult>& result, quint64 generation);

    std::shared_ptr<const tuneframe::common::T5Tokenizer> m_tokenizer;
    ModelTokenizer m_model;
    quint64 m_generation = 0;
};
