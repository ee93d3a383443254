// Caption bytes to text (CaptionDecoder) and CSV parsing (CsvTable), on awkward inputs.
#include "app/CaptionDecoder.h"
#include "app/CsvTable.h"

#include <QTest>

using Encoding = CaptionDecoder::Encoding;

class TestCaptionText : public QObject {
    Q_OBJECT

private slots:
    void decode_data();
    void decode();
    void keysRoundTrip();
    void linesAndTidying();
    void csvQuotingAndSeparators();
};

void TestCaptionText::decode_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("encoding");
    QTest::addColumn<bool>("guessed");

    const QString chinese = QStringLiteral("一只猫在草地上奔跑");
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
    QTest::newRow("utf-16le without bom") << QByteArray("c\0a\0t\0", 6) << QStringLiteral("cat")
                                          << int(Encoding::Utf16LittleEndian) << true;
    QTest::newRow("utf-16 odd byte") << QByteArray("\xFF\xFE"
                                                   "a\0b",
                                                   5)
                                     << QString() << int(Encoding::Utf16LittleEndian) << true;
    QTest::newRow("gb18030")
        << QByteArray("\xd2\xbb\xd6\xbb\xc3\xa8\xd4\xda\xb2\xdd\xb5\xd8\xc9\xcf\xb1\xbc\xc5\xdc")
        << chinese << int(Encoding::Gb18030) << true;
    QTest::newRow("gb18030 with ascii")
        << QByteArray("4K \xc3\xa8\xd4\xda video") << QStringLiteral("4K 猫在 video")
        << int(Encoding::Gb18030) << true;
    QTest::newRow("latin-1") << QByteArray("na\xefve caf\xe9") << QStringLiteral("naïve café")
                             << int(Encoding::Windows1252) << true;
    QTest::newRow("latin-1 last byte")
        << QByteArray("caf\xe9") << QStringLiteral("café") << int(Encoding::Windows1252) << true;
    QTest::newRow("windows-1252 quotes")
        << QByteArray("\x93hi\x94 \x80") << QStringLiteral("“hi” €") << int(Encoding::Windows1252)
        << true;
    QTest::newRow("empty") << QByteArray() << QString() << int(Encoding::Utf8) << false;
}

void TestCaptionText::decode() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, text);
    QFETCH(int, encoding);
    QFETCH(bool, guessed);
    const CaptionDecoder::Result result = CaptionDecoder::decode(bytes);
    if (!text.isNull() || bytes.isEmpty())
        QCOMPARE(result.text, text);
    QCOMPARE(int(result.encoding), encoding);
    QCOMPARE(result.guessed, guessed);
}

void TestCaptionText::keysRoundTrip() {
    for (const Encoding encoding :
         {Encoding::Utf8, Encoding::Utf8WithBom, Encoding::Utf16LittleEndian,
          Encoding::Utf16BigEndian, Encoding::Gb18030, Encoding::Windows1252}) {
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
