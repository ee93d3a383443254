// Caption bytes to text (CaptionDecoder) and CSV parsing (CsvTable), on awkward inputs.
#include "app/captions/CaptionDecoder.h"
#include "app/import/CsvTable.h"

#include <QStringDecoder>
#include <QTest>

#include <string_view>

using Encoding = CaptionDecoder::Encoding;

class TestCaptionText : public QObject {
    Q_OBJECT

private slots:
    void decode_data();
    void decode();
    void brokenUtf16IsRepairedAndFlagged_data();
    void brokenUtf16IsRepairedAndFlagged();
    void repairText_data();
    void repairText();
    void undecodableBytesAreKeptAndFlagged_data();
    void undecodableBytesAreKeptAndFlagged();
    void keysRoundTrip();
    void linesAndTidying();
    void csvQuotingAndSeparators();
};

void TestCaptionText::decode_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("encoding");
    QTest::addColumn<bool>("guessed");

    // Bytes written by Python's codecs, not by the library under test.
    const QString chinese = QStringLiteral("一只橘猫在阳光下的草地上慢慢奔跑，镜头缓缓跟随");
    const QString english = QStringLiteral("a cat runs across the lawn");
    QTest::newRow("ascii") << QByteArray("a cat") << QStringLiteral("a cat") << int(Encoding::Utf8)
                           << false;
    QTest::newRow("utf-8") << chinese.toUtf8() << chinese << int(Encoding::Utf8) << false;
    QTest::newRow("utf-8 bom") << QByteArray("\xEF\xBB\xBF") + chinese.toUtf8() << chinese
                               << int(Encoding::Utf8WithBom) << false;
    QTest::newRow("utf-16le bom") << QByteArray("\xFF\xFE"
                                                "a\0\xAB\x5B",
                                                6)
                                  << QStringLiteral("a\u5BAB") << int(Encoding::Utf16LittleEndian)
                                  << false;
    QTest::newRow("utf-16be bom") << QByteArray("\xFE\xFF\0a\x5B\xAB", 6)
                                  << QStringLiteral("a\u5BAB") << int(Encoding::Utf16BigEndian)
                                  << false;
    QByteArray little;
    QByteArray big;
    for (const QChar c : english) {
        little.append(char(c.unicode())).append('\0');
        big.append('\0').append(char(c.unicode()));
    }
    QTest::newRow("utf-16le without bom")
        << little << english << int(Encoding::Utf16LittleEndian) << true;
    QTest::newRow("utf-16be without bom")
        << big << english << int(Encoding::Utf16BigEndian) << true;
    QTest::newRow("gb18030")
        << QByteArray("\xd2\xbb\xd6\xbb\xe9\xd9\xc3\xa8\xd4\xda\xd1\xf4\xb9\xe2\xcf\xc2\xb5\xc4\xb2"
                      "\xdd\xb5\xd8\xc9\xcf\xc2\xfd\xc2\xfd\xb1\xbc\xc5\xdc\xa3\xac\xbe\xb5\xcd\xb7"
                      "\xbb\xba\xbb\xba\xb8\xfa\xcb\xe6")
        << chinese << int(Encoding::Gb18030) << true;
    QTest::newRow("big5") << QByteArray("\xa4@\xb0\xa6\xbe\xef\xbf\xdf\xa6"
                                        "b\xb6\xa7\xa5\xfa\xa4U\xaa\xba\xaf\xf3\xa6"
                                        "a\xa4W\xba"
                                        "C\xba"
                                        "C\xa9"
                                        "b\xb6]\xa1"
                                        "A\xc3\xe8\xc0Y\xbdw\xbdw\xb8\xf2\xc0H")
                          << QStringLiteral("一隻橘貓在陽光下的草地上慢慢奔跑，鏡頭緩緩跟隨")
                          << int(Encoding::Big5) << true;
    QTest::newRow("shift-jis") << QByteArray("\x97[\x95\xe9\x82\xea\x82\xcc\x8a"
                                             "C\x95\xd3\x82\xf0\x88\xea\x95"
                                             "C\x82\xcc\x94L\x82\xaa\x82\xe4\x82\xc1\x82\xad\x82"
                                             "\xe8\x82\xc6\x95\xe0\x82\xa2\x82\xc4\x82\xa2\x82\xe9")
                               << QStringLiteral("夕暮れの海辺を一匹の猫がゆっくりと歩いている")
                               << int(Encoding::ShiftJis) << true;
    QTest::newRow("euc-kr") << QByteArray("\xc7\xd8\xc1\xfa\xb3\xe8 \xc7\xd8\xba\xaf\xc0\xbb \xb0"
                                          "\xed\xbe\xe7\xc0\xcc \xc7\xd1 \xb8\xb6\xb8\xae\xb0\xa1 "
                                          "\xc3\xb5\xc3\xb5\xc8\xf7 \xb0\xc8\xb0\xed \xc0\xd6\xb4"
                                          "\xd9")
                            << QStringLiteral("해질녘 해변을 고양이 한 마리가 천천히 걷고 있다")
                            << int(Encoding::EucKr) << true;
    QTest::newRow("windows-1251") << QByteArray("\xca\xee\xf8\xea\xe0 \xec\xe5\xe4\xeb\xe5\xed\xed"
                                                "\xee \xe8\xe4\xb8\xf2 \xef\xee \xef\xeb\xff\xe6"
                                                "\xf3 \xed\xe0 \xe7\xe0\xea\xe0\xf2\xe5")
                                  << QStringLiteral("Кошка медленно идёт по пляжу на закате")
                                  << int(Encoding::Windows1251) << true;
    QTest::newRow("windows-1252") << QByteArray("A caf\xe9 scene \x97 \x93na\xefve\x94 fa\xe7"
                                                "ade, cr\xe8me br\xfbl\xe9"
                                                "e")
                                  << QStringLiteral("A café scene — “naïve” façade, crème brûlée")
                                  << int(Encoding::Windows1252) << true;
    // A stray NUL in UTF-8 is flagged and never glues two words together: it becomes a space
    // between them, or nothing next to white space; the text stays UTF-8, never UTF-16.
    QTest::newRow("utf-8 with a stray nul")
        << QByteArray("a cat\0 runs across the lawn", 27) << english << int(Encoding::Utf8) << true;
    QTest::newRow("utf-8 of even length with stray nuls")
        << QByteArray("a cat\0\0 runs across the lawn", 28) << english << int(Encoding::Utf8)
        << true;
    QTest::newRow("utf-8 with stray nuls at even offsets")
        << QByteArray("a\0cat\0runs\0", 11) << QStringLiteral("a cat runs") << int(Encoding::Utf8)
        << true;
    QTest::newRow("nul between two words")
        << QByteArray("A panda\0plays guitar", 20) << QStringLiteral("A panda plays guitar")
        << int(Encoding::Utf8) << true;
    QTest::newRow("nuls at both ends")
        << QByteArray("\0\0a cat\0", 9) << QStringLiteral("a cat") << int(Encoding::Utf8) << true;
    QTest::newRow("chinese utf-8 with a stray nul")
        << (chinese.left(4).toUtf8() + QByteArray(1, '\0') + chinese.mid(4).toUtf8())
        << chinese.left(4) + QLatin1Char(' ') + chinese.mid(4) << int(Encoding::Utf8) << true;
    QTest::newRow("mixed line endings")
        << QByteArray("one\r\ntwo\nthree\rfour") << QStringLiteral("one\r\ntwo\nthree\rfour")
        << int(Encoding::Utf8) << false;
    QTest::newRow("empty") << QByteArray() << QString() << int(Encoding::Utf8) << false;
}

void TestCaptionText::decode() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, text);
    QFETCH(int, encoding);
    QFETCH(bool, guessed);
    const CaptionDecoder::Result result = CaptionDecoder::decode(bytes);
    QCOMPARE(result.text, text);
    QCOMPARE(int(result.encoding), encoding);
    QCOMPARE(result.guessed, guessed);
    QVERIFY2(!result.text.contains(QChar::ReplacementCharacter), qPrintable(result.text));
}

namespace {

QByteArray utf16(std::u16string_view units, bool littleEndian, bool mark = true) {
    QByteArray bytes = mark ? (littleEndian ? QByteArray("\xFF\xFE", 2) : QByteArray("\xFE\xFF", 2))
                            : QByteArray();
    for (const char16_t unit : units) {
        const char low = static_cast<char>(unit & 0xff);
        const char high = static_cast<char>(unit >> 8);
        bytes.append(littleEndian ? low : high).append(littleEndian ? high : low);
    }
    return bytes;
}

} // namespace

// An unpaired surrogate is no character: it becomes U+FFFD, the caption is flagged, and the
// text is valid UTF-16, so it is stored as valid UTF-8 (not CESU's ED A0 80).
void TestCaptionText::brokenUtf16IsRepairedAndFlagged_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("encoding");
    QTest::addColumn<bool>("guessed");
    const QString english = QStringLiteral("a cat runs across the lawn in the morning light");
    QTest::newRow("le, a lone high surrogate")
        << utf16(u"a cat \xD800 sleeps", true) << QStringLiteral("a cat \uFFFD sleeps")
        << int(Encoding::Utf16LittleEndian) << true;
    QTest::newRow("be, a lone low surrogate")
        << utf16(u"a\xDC00"
                 u"b",
                 false)
        << QStringLiteral("a\uFFFDb") << int(Encoding::Utf16BigEndian) << true;
    QTest::newRow("le, a pair the wrong way round")
        << utf16(u"x\xDE00\xD83Dy", true) << QStringLiteral("x\uFFFD\uFFFDy")
        << int(Encoding::Utf16LittleEndian) << true;
    QTest::newRow("le, ends in a high surrogate")
        << utf16(u"ab\xD83D", true) << QStringLiteral("ab\uFFFD")
        << int(Encoding::Utf16LittleEndian) << true;
    QTest::newRow("le without a mark, a lone surrogate")
        << utf16(english.toStdU16String() + u"\xD800", true, false)
        << english + QChar::ReplacementCharacter << int(Encoding::Utf16LittleEndian) << true;
    QTest::newRow("le, a whole pair stays")
        << utf16(u"smile \xD83D\xDE00", true) << QStringLiteral("smile \U0001F600")
        << int(Encoding::Utf16LittleEndian) << false;
}

void TestCaptionText::brokenUtf16IsRepairedAndFlagged() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, text);
    QFETCH(int, encoding);
    QFETCH(bool, guessed);
    const CaptionDecoder::Result result = CaptionDecoder::decode(bytes);
    QCOMPARE(result.text, text);
    QCOMPARE(int(result.encoding), encoding);
    QCOMPARE(result.guessed, guessed);
    QVERIFY(QStringView(result.text).isValidUtf16());
    QStringDecoder strict(QStringDecoder::Utf8);
    QCOMPARE(strict.decode(result.text.toUtf8()), text);
    QVERIFY(!strict.hasError());
    if (guessed)
        QVERIFY(CaptionDecoder::checkNote(result.encoding, result.text)
                    .contains(QChar::ReplacementCharacter));
}

void TestCaptionText::repairText_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("repaired");
    QTest::addColumn<bool>("changed");
    QTest::newRow("clean") << QStringLiteral("a cat \U0001F600")
                           << QStringLiteral("a cat \U0001F600") << false;
    QTest::newRow("empty") << QString() << QString() << false;
    QTest::newRow("nul between words")
        << QStringLiteral("panda") + QChar::Null + QStringLiteral("plays")
        << QStringLiteral("panda plays") << true;
    QTest::newRow("a run of nuls")
        << QStringLiteral("a") + QString(3, QChar::Null) + QStringLiteral("b")
        << QStringLiteral("a b") << true;
    QTest::newRow("nul beside a line break")
        << QStringLiteral("one\n") + QChar::Null + QStringLiteral("two")
        << QStringLiteral("one\ntwo") << true;
    QTest::newRow("only nuls") << QString(4, QChar::Null) << QString() << true;
    QTest::newRow("nul beside a lone surrogate")
        << QString(QChar(0xD800)) + QChar::Null + QStringLiteral("x") << QStringLiteral("\uFFFD x")
        << true;
}

void TestCaptionText::repairText() {
    QFETCH(QString, text);
    QFETCH(QString, repaired);
    QFETCH(bool, changed);
    QCOMPARE(CaptionDecoder::repairText(&text), changed);
    QCOMPARE(text, repaired);
}

void TestCaptionText::undecodableBytesAreKeptAndFlagged_data() {
    QTest::addColumn<QByteArray>("bytes");
    // Windows-1252 leaves 0x81, 0x8D, 0x8F, 0x90 and 0x9D undefined; 0xFF 0xFE 0x00 0x01 and
    // a lone backslash check the escaping.
    QTest::newRow("undefined in every candidate") << QByteArray("caption \x81\x8d\x8f\x90\x9d end");
    QTest::newRow("backslash and control bytes")
        << QByteArray("a\\x41 \x81\x01\x02\x90\x7f\x9d\x8d");
    QTest::newRow("utf-16 bom with a dangling byte") << QByteArray("\xFF\xFE"
                                                                   "a\0b",
                                                                   5);
    QTest::newRow("utf-8 bom then invalid utf-8") << QByteArray("\xEF\xBB\xBF\xC3\x28\x81", 6);
}

void TestCaptionText::undecodableBytesAreKeptAndFlagged() {
    QFETCH(QByteArray, bytes);
    const CaptionDecoder::Result result = CaptionDecoder::decode(bytes);
    QCOMPARE(result.encoding, Encoding::Undecoded);
    QVERIFY(result.guessed);
    QVERIFY2(!result.text.contains(QChar::ReplacementCharacter), qPrintable(result.text));
    QCOMPARE(CaptionDecoder::bytesFromEscaped(result.text), bytes);
    for (const QChar c : result.text)
        QVERIFY2(c.unicode() >= 0x20 && c.unicode() < 0x7F, qPrintable(result.text));
    QVERIFY(CaptionDecoder::reencodedNote(Encoding::Undecoded).contains(QStringLiteral("\\xNN")));
}

void TestCaptionText::keysRoundTrip() {
    for (const Encoding encoding :
         {Encoding::Utf8, Encoding::Utf8WithBom, Encoding::Utf16LittleEndian,
          Encoding::Utf16BigEndian, Encoding::Gb18030, Encoding::Big5, Encoding::ShiftJis,
          Encoding::EucKr, Encoding::Windows1251, Encoding::Windows1252, Encoding::Undecoded}) {
        const QString key = CaptionDecoder::encodingKey(encoding);
        QVERIFY(!key.isEmpty());
        QCOMPARE(CaptionDecoder::encodingFromKey(key), encoding);
        QVERIFY(!CaptionDecoder::encodingName(encoding).isEmpty());
    }
    QCOMPARE(CaptionDecoder::encodingFromKey(QStringLiteral("klingon")), Encoding::Invalid);
    QVERIFY(CaptionDecoder::encodingKey(Encoding::Invalid).isEmpty());
    QVERIFY(CaptionDecoder::reencodedNote(Encoding::Gb18030).contains(QStringLiteral("GB18030")));
}

void TestCaptionText::linesAndTidying() {
    QCOMPARE(
        CaptionDecoder::lines(QStringLiteral("a\r\nb\n\nc\n\n\n")),
        QStringList({QStringLiteral("a"), QStringLiteral("b"), QString(), QStringLiteral("c")}));
    QCOMPARE(CaptionDecoder::lines(QStringLiteral("one\r\ntwo\nthree\rfour\r\n\r")),
             QStringList({QStringLiteral("one"), QStringLiteral("two"), QStringLiteral("three"),
                          QStringLiteral("four")}));
    QCOMPARE(CaptionDecoder::lines(QString()), QStringList());
    QCOMPARE(CaptionDecoder::tidied(QStringLiteral("  one\r\ntwo\rthree \n")),
             QStringLiteral("one\ntwo\nthree"));
}

void TestCaptionText::csvQuotingAndSeparators() {
    const CsvTable table = CsvTable::parse(QStringLiteral("Path,\"Caption\"\r\n"
                                                          "a.mp4,\"one, two\"\r\n"
                                                          "\r\n"
                                                          "b.mp4,\"say \"\"hi\"\"\nnext line\"\n"
                                                          "c.mp4\n"
                                                          "d.mp4,last"));
    QCOMPARE(table.separator(), QLatin1Char(','));
    QCOMPARE(table.header(), QStringList({QStringLiteral("Path"), QStringLiteral("Caption")}));
    QCOMPARE(table.rows().size(), 4);
    QCOMPARE(table.rows().at(0).at(1), QStringLiteral("one, two"));
    QCOMPARE(table.rows().at(1).at(1), QStringLiteral("say \"hi\"\nnext line"));
    QCOMPARE(table.rows().at(2), QStringList{QStringLiteral("c.mp4")});
    QCOMPARE(table.rows().at(3).at(1), QStringLiteral("last"));
    QCOMPARE(table.rowLines(), QVector<int>({2, 4, 6, 7}));
    QCOMPARE(table.column({QStringLiteral("file"), QStringLiteral("path")}), 0);
    QCOMPARE(table.column({QStringLiteral("prompt")}), -1);

    QCOMPARE(CsvTable::parse(QStringLiteral("a;b\n1;2,5\n")).separator(), QLatin1Char(';'));
    QCOMPARE(CsvTable::parse(QStringLiteral("a\tb\tc\n")).separator(), QLatin1Char('\t'));
    QCOMPARE(CsvTable::parse(QStringLiteral("\"x;y;z\",b\n")).separator(), QLatin1Char(','));
    QVERIFY(CsvTable::parse(QString()).header().isEmpty());
}

QTEST_GUILESS_MAIN(TestCaptionText)
#include "TestCaptionText.moc"
