#pragma once

#include <QDialog>
#include <QJsonArray>
#include <QJsonObject>
#include <QVector>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QTimer;

// A sweep over the new-run form's settings: values for a few fields (learning rate, schedule,
// optimizer, rank, alpha, steps, batch size and the other numeric or named job fields), the
// grid's combinations previewed by name as they are typed, then queued as runs. A full
// fine-tune's job gets no adapter fields.
class SweepDialog : public QDialog {
    Q_OBJECT

public:
    // job: the form's job, which every combination starts from.
    explicit SweepDialog(const QJsonObject& job, QWidget* parent = nullptr);

    // Values for a field, as the user would type them ("1e-4, 3e-4").
    bool setValues(const QString& field, const QString& values);
    void setSweepName(const QString& name);
    // {"name", "axes"}: what the sweep will run; empty axes when nothing is chosen.
    QJsonObject grid() const;
    QStringList combinationLabels() const;
    QString problem() const;

signals:
    void sweepAccepted(const QJsonObject& grid);

protected:
    void changeEvent(QEvent* event) override;

private:
    struct Field {
        QString path;      // "optimizer.lr"
        bool integer;      // whole numbers only
        QStringList names; // the choices of a named field; empty for numbers
        QLineEdit* edit = nullptr;
        QLabel* label = nullptr;
    };
    void retranslateUi();
    void update();
    // Parsed values of one field, or the reason they cannot be read.
    QJsonArray valuesOf(const Field& field, QString* error) const;

    QJsonObject m_job;
    QVector<Field> m_fields;
    QLineEdit* m_nameEdit;
    QLabel* m_nameLabel;
    QLabel* m_intro;
    QLabel* m_preview;
    QDialogButtonBox* m_buttons;
    QTimer* m_updateTimer;
    QStringList m_labels;
    QString m_problem;
};
