#pragma once

#include <QChar>
#include <QString>
#include <QStringList>
#include <QVector>

// RFC 4180 comma-separated values: quoted fields may hold separators, line breaks and doubled
// quotes. The separator is whichever of comma, semicolon and tab the header line uses most,
// since spreadsheet programs in many locales save with semicolons.
class CsvTable {
public:
    static CsvTable parse(const QString& text);

    QChar separator() const;
    // The header row's names, trimmed.
    QStringList header() const;
    // The rows after the header, each with the fields its line holds: fewer or more than
    // header().size() when the file is ragged, so read them with value().
    const QVector<QStringList>& rows() const;
    // The 1-based line each row starts on, for messages.
    const QVector<int>& rowLines() const;
    // The index of the first header name matching one of names (case-insensitive), or -1.
    int column(const QStringList& names) const;

private:
    static QChar detectSeparator(const QString& text);

    QChar m_separator = QLatin1Char(',');
    QStringList m_header;
    QVector<QStringList> m_rows;
    QVector<int> m_rowLines;
};
