// The mouse wheel over a field scrolls the page, never the field's value, unless the field has
// the focus (WheelGuard). Real wheel events, handed to Qt the way a platform plugin hands them
// (QWindowSystemInterface), over spin boxes, combo boxes and sliders of the Train form, the
// Dataset inspector and a dialog opened after the window.
#include "app/dataset/ClipTableModel.h"
#include "app/project/Project.h"
#include "app/project/Settings.h"
#include "media/log_level.h"
#include "tests/app/DatasetFixture.h"
#include "ui/dataset/ClipInspectorPanel.h"
#include "ui/dataset/DatasetPage.h"
#include "ui/train/NewRunForm.h"
#include "ui/train/TrainPage.h"
#include "ui/window/MainWindow.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QDialog>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QWindow>
#include <memory>

// The platform's entry for a wheel turned over a window, what a platform plugin calls: queued,
// then delivered as a spontaneous event, so QApplication gives focus by policy and offers an
// ignored wheel to the parents in turn, exactly as for a person's mouse (QTest has no wheel,
// and an event sent by QCoreApplication::sendEvent is never spontaneous). QtGui exports it;
// only its private headers, which the build does not need, declare it.
class QWindowSystemInterface {
public:
    static bool handleWheelEvent(QWindow* window, const QPointF& local, const QPointF& global,
                                 QPoint pixelDelta, QPoint angleDelta,
                                 Qt::KeyboardModifiers modifiers, Qt::ScrollPhase phase,
                                 Qt::MouseEventSource source);
};

class TestWheelGuard : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void trainFormScrollsInsteadOfChangingFields_data();
    void trainFormScrollsInsteadOfChangingFields();
    void focusedFieldTakesTheWheel();
    void inspectorScrollsOverThePlayer();
    void dialogOpenedLaterIsGuarded();

private:
    // Three notches of the wheel (down when `down`) over the middle of target.
    static void wheelOver(QWidget* target, bool down);
    // The field's value as text, whatever kind of field it is.
    static QString valueOf(QWidget* field);
    static QScrollArea* scrollAreaOf(QWidget* widget);
    // Puts the field in view and wheels over it towards the side the area can still scroll to;
    // checks the value stayed and the area moved.
    void checkScrollsPast(QWidget* field);

    QTemporaryDir m_media;
    std::unique_ptr<QTemporaryDir> m_folder;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
};

void TestWheelGuard::initTestCase() {
    tuneframe::media::set_log_level();
    QVERIFY(m_media.isValid());
    const QString error =
        DatasetFixture::writeVideo(m_media.filePath(QStringLiteral("clip.mp4")), 12, 1);
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

void TestWheelGuard::init() {
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
    const QString config = m_folder->filePath(QStringLiteral("config"));
    qputenv("TUNEFRAME_CONFIG_DIR", config.toLocal8Bit());
    m_settings = std::make_unique<Settings>(config);
    const QString folder = m_folder->filePath(QStringLiteral("project"));
    std::unique_ptr<Project> project = DatasetFixture::createProject(folder);
    QVERIFY(project);
    QCOMPARE(DatasetFixture::store(*project, {DatasetFixture::acceptedVideo(
                                                 m_media.filePath(QStringLiteral("clip.mp4")), 0,
                                                 12, QStringLiteral("a pattern"))})
                 .size(),
             1);
    project.reset();
    m_window = std::make_unique<MainWindow>(m_settings.get());
    // A laptop's window, so the form has to scroll.
    m_window->resize(1280, 650);
    m_window->show();
    QApplication::setActiveWindow(m_window.get());
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    QVERIFY(m_window->openProject(folder));
}

void TestWheelGuard::cleanup() {
    m_window.reset();
    m_settings.reset();
    m_folder.reset();
}

void TestWheelGuard::wheelOver(QWidget* target, bool down) {
    QWidget* window = target->window();
    const QPoint inWindow = target->mapTo(window, target->rect().center());
    QWidget* under = window->childAt(inWindow);
    QVERIFY2(under == target || target->isAncestorOf(under),
             qPrintable(QStringLiteral("%1 is covered by %2")
                            .arg(target->objectName(), under ? under->objectName() : QString())));
    QVERIFY(window->windowHandle());
    QWindowSystemInterface::handleWheelEvent(window->windowHandle(), inWindow,
                                             window->mapToGlobal(inWindow), QPoint(),
                                             QPoint(0, down ? -360 : 360), Qt::NoModifier,
                                             Qt::NoScrollPhase, Qt::MouseEventNotSynthesized);
    QCoreApplication::processEvents();
}

QString TestWheelGuard::valueOf(QWidget* field) {
    if (auto* spin = qobject_cast<QAbstractSpinBox*>(field))
        return spin->text();
    if (auto* combo = qobject_cast<QComboBox*>(field))
        return QString::number(combo->currentIndex());
    if (auto* slider = qobject_cast<QAbstractSlider*>(field))
        return QString::number(slider->value());
    return {};
}

QScrollArea* TestWheelGuard::scrollAreaOf(QWidget* widget) {
    for (QWidget* at = widget->parentWidget(); at; at = at->parentWidget()) {
        if (auto* area = qobject_cast<QScrollArea*>(at))
            return area;
    }
    return nullptr;
}

void TestWheelGuard::checkScrollsPast(QWidget* field) {
    QVERIFY2(field, "no such field");
    QScrollArea* area = scrollAreaOf(field);
    QVERIFY2(area, qPrintable(field->objectName()));
    area->ensureWidgetVisible(field);
    QVERIFY2(field->isVisible() && !field->visibleRegion().isEmpty(),
             qPrintable(field->objectName()));
    QScrollBar* bar = area->verticalScrollBar();
    QVERIFY2(bar->maximum() > 0, qPrintable(area->objectName() + QStringLiteral(" cannot scroll")));
    const bool down = bar->value() < bar->maximum();
    const int before = bar->value();
    const QString value = valueOf(field);
    wheelOver(field, down);
    QApplication::processEvents();
    QCOMPARE(valueOf(field), value);
    QVERIFY2(!field->hasFocus(), qPrintable(field->objectName()));
    QVERIFY2(down ? bar->value() > before : bar->value() < before,
             qPrintable(QStringLiteral("%1 stayed at %2").arg(area->objectName()).arg(before)));
}

void TestWheelGuard::trainFormScrollsInsteadOfChangingFields_data() {
    QTest::addColumn<QString>("field");
    QTest::newRow("validate every") << QStringLiteral("validationEverySpin");
    QTest::newRow("precision") << QStringLiteral("precisionCombo");
    QTest::newRow("LoRA rank") << QStringLiteral("rankSpin");
    QTest::newRow("steps") << QStringLiteral("maxStepsSpin");
    QTest::newRow("seed (Advanced)") << QStringLiteral("seedSpin");
    QTest::newRow("caption dropout (Advanced)") << QStringLiteral("captionDropoutSpin");
}

void TestWheelGuard::trainFormScrollsInsteadOfChangingFields() {
    QFETCH(QString, field);
    m_window->showPage(MainWindow::Page::Train);
    NewRunForm* form = m_window->trainPage()->newRunForm();
    auto* advanced = m_window->trainPage()->findChild<QWidget*>(QStringLiteral("advancedToggle"));
    QVERIFY(advanced);
    // The Advanced fields were made before they were shown: guarded all the same.
    if (field == QLatin1String("seedSpin") || field == QLatin1String("captionDropoutSpin"))
        QTest::mouseClick(advanced, Qt::LeftButton);
    QWidget* widget = form->findChild<QWidget*>(field);
    QTRY_VERIFY(widget && widget->isVisible());
    checkScrollsPast(widget);
}

void TestWheelGuard::focusedFieldTakesTheWheel() {
    m_window->showPage(MainWindow::Page::Train);
    auto* spin = m_window->trainPage()->findChild<QSpinBox*>(QStringLiteral("maxStepsSpin"));
    QVERIFY(spin);
    scrollAreaOf(spin)->ensureWidgetVisible(spin);
    QTRY_VERIFY(spin->isVisible());
    QTest::mouseClick(spin, Qt::LeftButton, {}, QPoint(4, spin->height() / 2));
    QTRY_VERIFY(spin->hasFocus());
    const int before = spin->value();
    wheelOver(spin, false);
    QVERIFY2(spin->value() > before, "the focused field ignored the wheel");
}

void TestWheelGuard::inspectorScrollsOverThePlayer() {
    m_window->showPage(MainWindow::Page::Dataset);
    DatasetPage* page = m_window->datasetPage();
    QTRY_COMPARE(page->clipModel()->rowCount(), 1);
    page->selectClips({page->clipModel()->record(0).id});
    auto* scrub = page->findChild<QAbstractSlider*>(QStringLiteral("scrubBar"));
    QVERIFY(scrub);
    QTRY_VERIFY(scrub->isVisible() && scrub->maximum() > 0);
    // Set-up, not under test: an inspector taller than its panel, as in a small window.
    page->inspector()->setMinimumHeight(2000);
    QTRY_VERIFY(scrollAreaOf(scrub)->verticalScrollBar()->maximum() > 0);
    checkScrollsPast(scrub);
}

void TestWheelGuard::dialogOpenedLaterIsGuarded() {
    QDialog* dialog = m_window->openPreferences();
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    auto* language = dialog->findChild<QComboBox*>(QStringLiteral("languageCombo"));
    QVERIFY(language);
    // The dialog gives its first field the focus; the user is typing the engine's path.
    auto* engine = dialog->findChild<QWidget*>(QStringLiteral("enginePathEdit"));
    QVERIFY(engine);
    QTest::mouseClick(engine, Qt::LeftButton);
    QTRY_VERIFY(engine->hasFocus());
    const int before = language->currentIndex();
    // Towards an item there is: unguarded, the wheel would choose it.
    wheelOver(language, before + 1 < language->count());
    QCOMPARE(language->currentIndex(), before);
    dialog->close();
}

QTEST_MAIN(TestWheelGuard)
#include "TestWheelGuard.moc"
