#pragma once

#include "app/project/Settings.h"

#include <QObject>
#include <QPalette>
#include <QString>

// Applies the theme setting to the application. Qt 6.4 has no colour-scheme hint, so "System"
// keeps the style and palette the platform gave us, and Light and Dark switch to Fusion with a
// palette of our own. The effective theme of "System" is read from that palette.
class ThemeController : public QObject {
    Q_OBJECT

public:
    explicit ThemeController(Settings* settings, QObject* parent = nullptr);
    // Puts back the platform's style and palette.
    ~ThemeController() override;

    // Light or Dark: what the user sees now.
    Settings::Theme effectiveTheme() const;
    // The platform's own choice, from its palette.
    Settings::Theme systemTheme() const;

    static bool isDark(const QPalette& palette);
    static QPalette lightPalette();
    static QPalette darkPalette();

signals:
    void themeApplied(Settings::Theme effectiveTheme);

private slots:
    void onThemeChanged(Settings::Theme theme);

private:
    void apply(Settings::Theme theme);
    void setStyleName(const QString& styleName);

    QString m_systemStyleName;
    QPalette m_systemPalette;
    Settings::Theme m_effectiveTheme = Settings::Theme::Invalid;
};
