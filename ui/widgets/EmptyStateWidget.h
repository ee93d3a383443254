#pragma once

#include <QIcon>
#include <QList>
#include <QWidget>

class QLabel;
class QHBoxLayout;
class QPushButton;

// What a page shows when it has nothing to show yet: an icon, a title, a sentence or two that
// say what to do next, and optionally buttons that do it. Owners set the text (so it follows
// their retranslateUi()) and name the buttons.
class EmptyStateWidget : public QWidget {
    Q_OBJECT

public:
    explicit EmptyStateWidget(QWidget* parent = nullptr);

    void setIcon(const QIcon& icon);
    void setTitle(const QString& title);
    QString title() const;
    void setBody(const QString& body);
    QString body() const;
    // Adds a button under the text; the first one added is the primary action.
    QPushButton* addButton(const QString& objectName);
    QList<QPushButton*> buttons() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void updateIconPixmap();

    static constexpr int kIconSize = 96;

    QIcon m_icon;
    QLabel* m_iconLabel;
    QLabel* m_titleLabel;
    QLabel* m_bodyLabel;
    QHBoxLayout* m_buttonRow;
    QList<QPushButton*> m_buttons;
};
