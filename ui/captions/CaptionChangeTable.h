#pragma once

#include "app/captions/CaptionHistory.h"

#include <QHash>
#include <QTableWidget>

// The before and after of every caption a bulk edit would change, one row per clip, for the
// user to read over before applying.
class CaptionChangeTable : public QTableWidget {
    Q_OBJECT

public:
    explicit CaptionChangeTable(QWidget* parent = nullptr);

    // clipNames: the file name of each clip id, for the first column.
    void setChanges(const QVector<CaptionHistory::Change>& changes,
                    const QHash<qint64, QString>& clipNames);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
};
