#pragma once

#include <QStringList>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QToolButton;

// Why a run failed, as the engine put it: the message, its hint (what to change), and the last
// lines the engine logged. Hidden while the selected run has not failed.
class RunFailurePanel : public QWidget {
    Q_OBJECT

public:
    explicit RunFailurePanel(QWidget* parent = nullptr);

    void showFailure(const QString& message, const QString& hint, const QStringList& lastLines);
    void clearFailure();
    QString message() const;
    QString hint() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();

    QLabel* m_titleLabel;
    QLabel* m_messageLabel;
    QLabel* m_hintLabel;
    QToolButton* m_detailsButton;
    QPlainTextEdit* m_lastLines;
    QString m_message;
    QString m_hint;
};
