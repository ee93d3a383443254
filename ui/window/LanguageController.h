#pragma once

#include "app/project/Settings.h"

#include <QLocale>
#include <QObject>
#include <QTranslator>

// Installs the translators for the language setting: the studio's own, embedded under :/i18n,
// and Qt's for its standard dialogs. Installing them makes Qt send QEvent::LanguageChange to
// every widget, whose retranslateUi() then applies the language at once.
class LanguageController : public QObject {
    Q_OBJECT

public:
    explicit LanguageController(Settings* settings, QObject* parent = nullptr);
    ~LanguageController() override;

    // The language the studio speaks now; English when no translation matched the setting.
    Settings::Language effectiveLanguage() const;
    // The locale a setting asks for (System: the user's locale).
    static QLocale localeFor(Settings::Language language);
    static QString translationsPrefix();

signals:
    void languageApplied(Settings::Language effectiveLanguage);

private slots:
    void onLanguageChanged(Settings::Language language);

private:
    void apply(Settings::Language language);
    void removeTranslators();

    QTranslator m_studioTranslator;
    QTranslator m_qtTranslator;
    bool m_studioInstalled = false;
    bool m_qtInstalled = false;
    Settings::Language m_effectiveLanguage = Settings::Language::Invalid;
};
