#include "app/import/CsvTable.h"

QChar CsvTable::detectSeparator(const QString& text) {
    int commas = 0;
    int semicolons = 0;
    int tabs = 0;
    bool quoted = false;
    for (const QChar c : text) {
        if (c == QLatin1Char('"'))
            quoted = !quoted;
        else if (!quoted && c == QLatin1Char('\n'))
            break;
        else if (!quoted && c == QLatin1Char(','))
            ++commas;
        else if (!quoted && c == QLatin1Char(';'))
            ++semicolons;
        else if (!quoted && c == QLatin1Char('\t'))
            ++tabs;
    }
    if (tabs > commas && tabs > semicolons)
        return QLatin1Char('\t');
    if (semicolons > commas)
        return QLatin1Char(';');
    return QLatin1Char(',');
}

CsvTable CsvTable::parse(const QString& text) {
    CsvTable table;
    table.m_separator = detectSeparator(text);
    QVector<QStringList> records;
    QVector<int> recordLines;
    QStringList record;
    QString field;
    bool quoted = false;
    bool fieldStarted = false;
    int line = 1;
    int recordLine = 1;
    const auto endField = [&] {
        record.append(field);
        field.clear();
        fieldStarted = false;
    };
    const auto endRecord = [&] {
        endField();
        // A blank line is no record.
        if (!(record.size() == 1 && record.first().trimmed().isEmpty())) {
            records.append(record);
            recordLines.append(recordLine);
        }
        record.clear();
    };
    for (int at = 0; at < text.size(); ++at) {
        const QChar c = text.at(at);
        if (quoted) {
            if (c == QLatin1Char('"')) {
                if (at + 1 < text.size() && text.at(at + 1) == QLatin1Char('"')) {
                    field.append(c);
                    ++at;
                } else {
                    quoted = false;
                }
            } else {
                if (c == QLatin1Char('\n'))
                    ++line;
                field.append(c);
            }
            continue;
        }
        if (c == QLatin1Char('"') && !fieldStarted) {
            quoted = true;
            fieldStarted = true;
        } else if (c == table.m_separator) {
            endField();
        } else if (c == QLatin1Char('\n')) {
            endRecord();
            ++line;
            recordLine = line;
        } else if (c != QLatin1Char('\r')) {
            field.append(c);
            fieldStarted = true;
        }
    }
    if (fieldStarted || !field.isEmpty() || !record.isEmpty())
        endRecord();

    if (!records.isEmpty()) {
        for (const QString& name : records.takeFirst())
            table.m_header.append(name.trimmed());
        recordLines.removeFirst();
    }
    table.m_rows = records;
    table.m_rowLines = recordLines;
    return table;
}

QChar CsvTable::separator() const {
    return m_separator;
}

QStringList CsvTable::header() const {
    return m_header;
}

const QVector<QStringList>& CsvTable::rows() const {
    return m_rows;
}

const QVector<int>& CsvTable::rowLines() const {
    return m_rowLines;
}

int CsvTable::column(const QStringList& names) const {
    for (const QString& name : names) {
        for (int index = 0; index < m_header.size(); ++index) {
            if (m_header.at(index).compare(name, Qt::CaseInsensitive) == 0)
                return index;
        }
    }
    return -1;
}
