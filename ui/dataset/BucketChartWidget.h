#pragma once

#include <QPointer>
#include <QWidget>

class QAbstractItemModel;

// A small horizontal bar chart of a BucketPreviewModel: one bar per bucket with its clip
// count, then one per reason clips were dropped, drawn in a warning colour. Repaints whenever
// the model changes.
class BucketChartWidget : public QWidget {
    Q_OBJECT

public:
    explicit BucketChartWidget(QWidget* parent = nullptr);

    void setModel(QAbstractItemModel* model);
    // Bars drawn in the last paint, for tests and accessibility: (label, count, dropped).
    struct Bar {
        QString label;
        int count = 0;
        bool dropped = false;
    };
    QVector<Bar> bars() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void onModelChanged();
    int rowHeight() const;

    QPointer<QAbstractItemModel> m_model;
};
