#pragma once

#include "common/protocol.h"

#include <QByteArray>
#include <QJsonObject>
#include <QMetaType>
#include <QString>

#include <optional>

// One engine event (docs/protocol.md) as the studio handles it. The line is checked by
// common/protocol's parse_line, the same reader the engine's tests use, so a newer protocol
// version or a line without a type is refused in one place; the body is then held as a
// QJsonObject ("v" and "type" included) for Qt code to read.
struct EngineEvent {
    tuneframe::protocol::EventType type = tuneframe::protocol::EventType::Invalid;
    QJsonObject body;

    // nullopt, with error set, for a line that is not an event (malformed JSON, no "v" or
    // "type", a newer version). An event type this build does not know parses with type
    // Invalid, so a reader can skip it without calling the line broken.
    static std::optional<EngineEvent> parse(const QByteArray& line, QString* error = nullptr);
    // The whole event at the end of a line parse() refused, when the line is one cut short
    // (its engine ran out of disk or was killed mid-write) with the next event written straight
    // after it, as engines before protocol 1's append-safe events.jsonl did on resuming.
    static std::optional<EngineEvent> parseAfterCutLine(const QByteArray& line);

    QString typeName() const;
    // Convenience readers; missing or mistyped fields give the fallback.
    QString string(const QString& field, const QString& fallback = QString()) const;
    double number(const QString& field, double fallback = 0.0) const;
    qint64 integer(const QString& field, qint64 fallback = 0) const;
};

Q_DECLARE_METATYPE(EngineEvent)
