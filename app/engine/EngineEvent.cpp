#include "app/engine/EngineEvent.h"

#include <QJsonDocument>

#include <cmath>
#include <string>

std::optional<EngineEvent> EngineEvent::parse(const QByteArray& line, QString* error) {
    std::string parseError;
    const std::optional<tuneframe::protocol::ParsedMessage> parsed =
        tuneframe::protocol::parse_line(
            std::string_view(line.constData(), static_cast<std::size_t>(line.size())), "type",
            &parseError);
    if (!parsed) {
        if (error) {
            *error = QString::fromStdString(parseError);
        }
        return std::nullopt;
    }
    // parse_line accepted the text as a JSON object, so Qt's reader accepts it too; Qt keeps
    // integers above 2^53 as doubles, which no event field needs.
    EngineEvent event;
    event.type = tuneframe::protocol::event_type_from_string(parsed->kind);
    event.body = QJsonDocument::fromJson(line).object();
    return event;
}

std::optional<EngineEvent> EngineEvent::parseAfterCutLine(const QByteArray& line) {
    // Only the event's own opening brace leaves a rest that parses: one inside it leaves
    // unbalanced closing braces, one inside the cut line leaves its text in front. Tried from
    // the end, and a bounded number of times, so a long line of garbage costs little.
    constexpr int kMaximumTries = 256;
    qsizetype start = line.lastIndexOf('{');
    for (int tries = 0; start > 0 && tries < kMaximumTries; ++tries) {
        if (std::optional<EngineEvent> event = parse(line.mid(start)))
            return event;
        start = line.lastIndexOf('{', start - 1);
    }
    return std::nullopt;
}

QString EngineEvent::typeName() const {
    return body.value(QStringLiteral("type")).toString();
}

QString EngineEvent::string(const QString& field, const QString& fallback) const {
    const QJsonValue value = body.value(field);
    return value.isString() ? value.toString() : fallback;
}

double EngineEvent::number(const QString& field, double fallback) const {
    const QJsonValue value = body.value(field);
    return value.isDouble() ? value.toDouble() : fallback;
}

qint64 EngineEvent::integer(const QString& field, qint64 fallback) const {
    const QJsonValue value = body.value(field);
    if (!value.isDouble()) {
        return fallback;
    }
    const double number = value.toDouble();
    return std::isfinite(number) ? static_cast<qint64>(number) : fallback;
}
