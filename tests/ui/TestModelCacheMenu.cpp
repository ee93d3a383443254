// The new-run form's "Hugging Face" menu: CogVideoX snapshots from the cache, one click away.
#include "ui/train/NewRunForm.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

class TestModelCacheMenu : public QObject {
    Q_OBJECT

private slots:
    void choosingACachedModelFillsTheModelFolder();
    void anEmptyCacheSaysWhereItLooked();

private:
    static QMenu* openedMenu(NewRunForm& form);
};

QMenu* TestModelCacheMenu::openedMenu(NewRunForm& form) {
    auto* button = form.findChild<QToolButton*>(QStringLiteral("modelCacheButton"));
    if (!button || !button->isVisible() || !button->isEnabled() || !button->menu())
        return nullptr;
    // What the menu does as it opens (exec() would block the test).
    QMetaObject::invokeMethod(button->menu(), "aboutToShow");
    return button->menu();
}

void TestModelCacheMenu::choosingACachedModelFillsTheModelFolder() {
    QTemporaryDir hub;
    const QString snapshot =
        hub.path() + QStringLiteral("/models--THUDM--CogVideoX-2b/snapshots/0123456789abcdef");
    QVERIFY(QDir().mkpath(snapshot));
    QFile index(snapshot + QStringLiteral("/model_index.json"));
    QVERIFY(index.open(QIODevice::WriteOnly));
    index.write(R"({"_class_name": "CogVideoXPipeline"})");
    index.close();
    qputenv("HF_HUB_CACHE", QFile::encodeName(hub.path()));

    NewRunForm form;
    form.show();
    QMenu* menu = openedMenu(form);
    QVERIFY(menu);
    const QList<QAction*> actions = menu->actions();
    // The model, a separator, then Download….
    QCOMPARE(actions.size(), 3);
    QCOMPARE(actions[0]->text(), QStringLiteral("THUDM/CogVideoX-2b (01234567)"));
    QCOMPARE(actions[2]->objectName(), QStringLiteral("hubDownloadAction"));
    actions[0]->trigger();
    QCOMPARE(form.modelFolder(), snapshot);
    qunsetenv("HF_HUB_CACHE");
}

void TestModelCacheMenu::anEmptyCacheSaysWhereItLooked() {
    QTemporaryDir hub;
    qputenv("HF_HUB_CACHE", QFile::encodeName(hub.path()));
    NewRunForm form;
    form.show();
    QMenu* menu = openedMenu(form);
    QVERIFY(menu);
    QCOMPARE(menu->actions().size(), 3);
    QVERIFY(!menu->actions()[0]->isEnabled());
    QVERIFY(menu->actions()[2]->isEnabled());
    QVERIFY(menu->actions()[0]->text().contains(QDir::toNativeSeparators(hub.path())));
    qunsetenv("HF_HUB_CACHE");
}

QTEST_MAIN(TestModelCacheMenu)
#include "TestModelCacheMenu.moc"
