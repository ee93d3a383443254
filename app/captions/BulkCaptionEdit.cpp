#include "app/captions/BulkCaptionEdit.h"

#include <QRegularExpression>

QVector<CaptionHistory::Change> BulkCaptionEdit::previewReplace(const QVector<ClipRecord>& clips,
                                                                const FindReplace& replace,
                                                                QString* error) {
    QVector<CaptionHistory::Change> changes;
    if (replace.find.isEmpty()) {
        *error = tr("Type the text to find.");
        return changes;
    }
    QRegularExpression pattern;
    if (replace.regularExpression) {
        QRegularExpression::PatternOptions options = QRegularExpression::UseUnicodePropertiesOption;
        if (!replace.caseSensitive)
            options |= QRegularExpression::CaseInsensitiveOption;
        pattern = QRegularExpression(replace.find, options);
        if (!pattern.isValid()) {
            *error = tr("“%1” is not a valid regular expression: %2 (at character %3). Correct "
                        "the pattern and preview again.")
                         .arg(replace.find, pattern.errorString())
                         .arg(pattern.patternErrorOffset() + 1);
            return changes;
        }
    }
    const Qt::CaseSensitivity sensitivity =
        replace.caseSensitive ? Qt::CaseSensitive : Qt::CaseInsensitive;
    for (const ClipRecord& clip : clips) {
        QString after = clip.caption;
        if (replace.regularExpression)
            after.replace(pattern, replace.replacement);
        else
            after.replace(replace.find, replace.replacement, sensitivity);
        if (after != clip.caption)
            changes.append({clip.id, clip.caption, after});
    }
    return changes;
}

bool BulkCaptionEdit::containsWord(const QString& caption, const QString& word) {
    const QRegularExpression whole(
        QStringLiteral("(?<![\\w])%1(?![\\w])").arg(QRegularExpression::escape(word)),
        QRegularExpression::UseUnicodePropertiesOption);
    return whole.match(caption).hasMatch();
}

QVector<CaptionHistory::Change>
BulkCaptionEdit::previewTriggerWord(const QVector<ClipRecord>& clips, const QString& word,
                                    TriggerPosition position, QString* error) {
    QVector<CaptionHistory::Change> changes;
    const QString token = word.trimmed();
    if (token.isEmpty()) {
        *error = tr("Type the trigger word to add.");
        return changes;
    }
    Q_ASSERT(position != TriggerPosition::Invalid);
    for (const ClipRecord& clip : clips) {
        if (containsWord(clip.caption, token))
            continue;
        const QString caption = clip.caption.trimmed();
        QString after;
        if (caption.isEmpty())
            after = token;
        else if (position == TriggerPosition::Prefix)
            after = token + QLatin1Char(' ') + caption;
        else
            after = caption + QLatin1Char(' ') + token;
        changes.append({clip.id, clip.caption, after});
    }
    return changes;
}
