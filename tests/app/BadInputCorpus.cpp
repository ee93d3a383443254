#include "BadInputCorpus.h"

#include "DatasetFixture.h"

#include "media/video_writer.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <iconv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <random>
#include <stdexcept>

extern "C" {
#include <libavformat/avformat.h>
}

namespace {

namespace media = tuneframe::media;

void ensure(bool ok, const QString& what) {
    if (!ok)
        throw std::runtime_error("bad input corpus: " + what.toStdString());
}

void writeBytes(const QString& path, const QByteArray& bytes) {
    ensure(DatasetFixture::writeBytes(path, bytes), QStringLiteral("cannot write ") + path);
}

QByteArray randomBytes(int size, std::mt19937& random) {
    QByteArray bytes(size, Qt::Uninitialized);
    for (char& byte : bytes)
        byte = static_cast<char>(random() & 0xff);
    return bytes;
}

void makeFifo(const QString& path) {
    QDir().mkpath(QFileInfo(path).path());
    ensure(::mkfifo(QFile::encodeName(path).constData(), 0600) == 0,
           QStringLiteral("mkfifo ") + path);
}

void makeLink(const QString& target, const QString& link) {
    QDir().mkpath(QFileInfo(link).path());
    ensure(QFile::link(target, link), QStringLiteral("symlink ") + link);
}

QString pad(int number, int width = 3) {
    return QStringLiteral("%1").arg(number, width, 10, QLatin1Char('0'));
}

// A clip in any encoder and container the writer takes, frames of a moving pattern.
void writeClip(const QString& path, int width, int height, int frames, int seed,
               const media::WriterOptions& options) {
    QDir().mkpath(QFileInfo(path).path());
    media::VideoWriter writer(QFile::encodeName(path).toStdString(), width, height, options);
    std::vector<uint8_t> rgb(static_cast<size_t>(width) * height * 3);
    for (int frame = 0; frame < frames; ++frame) {
        for (size_t i = 0; i < rgb.size(); ++i)
            rgb[i] = static_cast<uint8_t>((i * 7 + static_cast<size_t>(frame + seed) * 29) % 251);
        writer.write(rgb.data());
    }
    writer.finish();
}

// The same packets with timestamps jittered between 10 and 120 ms: a variable frame rate file,
// which no encoder setting of ours makes. The source must have no B-frames.
void remuxWithVariableFrameRate(const QString& source, const QString& target, int seed) {
    const QByteArray in = QFile::encodeName(source);
    const QByteArray out = QFile::encodeName(target);
    AVFormatContext* input = nullptr;
    ensure(avformat_open_input(&input, in.constData(), nullptr, nullptr) == 0, source);
    const std::unique_ptr<AVFormatContext*, void (*)(AVFormatContext**)> closeInput(
        &input, avformat_close_input);
    ensure(avformat_find_stream_info(input, nullptr) >= 0, source);
    AVFormatContext* output = nullptr;
    ensure(avformat_alloc_output_context2(&output, nullptr, nullptr, out.constData()) >= 0, target);
    const std::unique_ptr<AVFormatContext, void (*)(AVFormatContext*)> freeOutput(
        output, [](AVFormatContext* context) {
            if (context->pb)
                avio_closep(&context->pb);
            avformat_free_context(context);
        });
    AVStream* stream = avformat_new_stream(output, nullptr);
    ensure(stream && avcodec_parameters_copy(stream->codecpar, input->streams[0]->codecpar) >= 0,
           target);
    stream->codecpar->codec_tag = 0;
    stream->time_base = AVRational{1, 1000};
    ensure(avio_open(&output->pb, out.constData(), AVIO_FLAG_WRITE) >= 0, target);
    ensure(avformat_write_header(output, nullptr) >= 0, target);
    std::mt19937 random(static_cast<unsigned>(seed));
    std::unique_ptr<AVPacket, void (*)(AVPacket*)> packet(av_packet_alloc(),
                                                          [](AVPacket* p) { av_packet_free(&p); });
    int64_t clock = 0;
    while (av_read_frame(input, packet.get()) >= 0) {
        if (packet->stream_index != 0) {
            av_packet_unref(packet.get());
            continue;
        }
        const int64_t duration = std::uniform_int_distribution<int>(10, 120)(random);
        packet->pts = packet->dts = av_rescale_q(clock, AVRational{1, 1000}, stream->time_base);
        packet->duration = av_rescale_q(duration, AVRational{1, 1000}, stream->time_base);
        packet->pos = -1;
        clock += duration;
        ensure(av_interleaved_write_frame(output, packet.get()) >= 0, target);
    }
    ensure(av_write_trailer(output) >= 0, target);
}

// text (UTF-8) in another character set, through glibc's iconv.
QByteArray encoded(const QString& text, const char* charset) {
    iconv_t converter = iconv_open(charset, "UTF-8");
    ensure(converter != reinterpret_cast<iconv_t>(-1), QStringLiteral("iconv ") + charset);
    const std::unique_ptr<void, int (*)(iconv_t)> close(converter, iconv_close);
    QByteArray input = text.toUtf8();
    QByteArray output(input.size() * 4 + 16, Qt::Uninitialized);
    char* in = input.data();
    size_t inLeft = static_cast<size_t>(input.size());
    char* out = output.data();
    size_t outLeft = static_cast<size_t>(output.size());
    ensure(iconv(converter, &in, &inLeft, &out, &outLeft) != static_cast<size_t>(-1),
           QStringLiteral("iconv to ") + charset + QStringLiteral(": ") + text);
    output.truncate(output.size() - static_cast<int>(outLeft));
    return output;
}

// A safetensors file's first 8 bytes: the header's length, little-endian.
QByteArray lengthOnly(quint64 length) {
    QByteArray bytes(8, '\0');
    for (int i = 0; i < 8; ++i)
        bytes[i] = static_cast<char>((length >> (8 * i)) & 0xff);
    return bytes;
}

QByteArray safetensors(const QByteArray& header, const QByteArray& data = {}) {
    return lengthOnly(static_cast<quint64>(header.size())) + header + data;
}

// Every way a safetensors file can be broken, by name.
QVector<QPair<QString, QByteArray>> brokenSafetensors() {
    const QByteArray floats(64, '\x01');
    const auto one = [&](const QByteArray& tensor) {
        return safetensors("{\"w\":" + tensor + "}", floats);
    };
    QVector<QPair<QString, QByteArray>> files = {
        {"empty", {}},
        {"four-bytes", QByteArray("\x10\0\0\0", 4)},
        {"length-zero", lengthOnly(0)},
        {"length-past-end", lengthOnly(4096) + "{}"},
        {"length-2-63", lengthOnly(quint64(1) << 63) + "{}"},
        {"length-max", lengthOnly(~quint64(0)) + "{}"},
        {"not-json", safetensors("this is not json")},
        {"array", safetensors("[1,2,3]")},
        {"string", safetensors("\"w\"")},
        {"nul-in-header", safetensors(QByteArray("{\"w\0\":1}", 9))},
        {"invalid-utf8", safetensors("{\"w\xff\xfe\":{}}")},
        {"truncated-header", safetensors("{\"w\":{\"dtype\":\"F32\",\"sha")},
        {"tensor-not-object", one("42")},
        {"no-dtype", one("{\"shape\":[4],\"data_offsets\":[0,16]}")},
        {"unknown-dtype", one("{\"dtype\":\"F99\",\"shape\":[4],\"data_offsets\":[0,16]}")},
        {"dtype-number", one("{\"dtype\":5,\"shape\":[4],\"data_offsets\":[0,16]}")},
        {"shape-string", one("{\"dtype\":\"F32\",\"shape\":\"4\",\"data_offsets\":[0,16]}")},
        {"shape-negative", one("{\"dtype\":\"F32\",\"shape\":[-4],\"data_offsets\":[0,16]}")},
        {"shape-fraction", one("{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,16]}")},
        {"shape-overflow-u8",
         one("{\"dtype\":\"U8\",\"shape\":[4294967296,2147483648,0],\"data_offsets\":[0,0]}")},
        {"shape-overflow-f32", one("{\"dtype\":\"F32\",\"shape\":[1099511627776,1099511627776],"
                                   "\"data_offsets\":[0,16]}")},
        {"shape-huge-number", one("{\"dtype\":\"F32\",\"shape\":[1e300],\"data_offsets\":[0,16]}")},
        {"offsets-short", one("{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0]}")},
        {"offsets-reversed", one("{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[16,0]}")},
        {"offsets-past-end", one("{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,4096]}")},
        {"offsets-2-62",
         one("{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,4611686018427387904]}")},
        {"offsets-negative", one("{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[-16,0]}")},
        {"offsets-size-mismatch", one("{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,12]}")},
        {"offsets-overlap",
         safetensors("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},"
                     "\"b\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[8,24]}}",
                     floats)},
        {"duplicate-key",
         safetensors("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},"
                     "\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[16,32]}}",
                     floats)},
        {"metadata-array", safetensors("{\"__metadata__\":[1,2]}")},
        {"metadata-number-values", safetensors("{\"__metadata__\":{\"rank\":4}}")},
        {"deep-nesting", safetensors(QByteArray(20000, '[') + QByteArray(20000, ']'))},
        {"garbage-after-length", lengthOnly(64) + QByteArray(64, '\xee')},
    };
    std::mt19937 random(99);
    for (int i = 0; i < 6; ++i)
        files.append({QStringLiteral("random-%1").arg(i), randomBytes(32 + i * 97, random)});
    return files;
}

} // namespace

BadInputCorpus::BadInputCorpus(const QString& root, const QString& tinyPipeline)
    : m_root(root)
    , m_tinyPipeline(tinyPipeline) {
    QDir().mkpath(root);
    m_goodClip = root + QStringLiteral("/good/good.mp4");
    ensure(DatasetFixture::writeVideo(m_goodClip, 12, 1).isEmpty(), m_goodClip);
    writeBytes(root + QStringLiteral("/good/good.txt"), "a good clip of a moving pattern");
    writeVideos();
    writeCaptions();
    writeLayouts();
    writeModels();
    writeJobs();
    writeManifest();
    writeSweepGridsPresetsAndEvents();
}

int BadInputCorpus::size() const {
    return static_cast<int>(m_videos.size() + m_captions.size() + m_layouts.size() +
                            m_models.size() + m_jobs.size() + m_manifestLines.size() +
                            m_sweepGrids.size() + m_presets.size() + m_eventLines.size());
}

void BadInputCorpus::writeVideos() {
    const QString folder = m_root + QStringLiteral("/videos");
    const QString bases = m_root + QStringLiteral("/bases");
    const QStringList extensions = {"mp4", "mov", "mkv", "webm", "avi", "mpg"};
    std::mt19937 random(7);
    auto add = [&](const QString& kind, const QString& name, const QByteArray& bytes) {
        const QString path = folder + QLatin1Char('/') + name;
        writeBytes(path, bytes);
        m_videos.append({kind, path});
    };
    for (int i = 0; i < 120; ++i) {
        const int size = 1 + static_cast<int>(random() % (i % 10 == 0 ? 400000 : 65536));
        add("video/garbage",
            QStringLiteral("garbage-%1.%2").arg(pad(i), extensions[i % extensions.size()]),
            randomBytes(size, random));
    }
    const QVector<QByteArray> magic = {QByteArray("\0\0\0\x18"
                                                  "ftypisom\0\0\x02\0isomiso2",
                                                  24),
                                       QByteArray("\x1A\x45\xDF\xA3"),
                                       QByteArray("RIFF\x10\0\0\0AVI LIST", 16),
                                       QByteArray("\0\0\x01\xBA", 4),
                                       QByteArray("OggS\0\x02", 6),
                                       QByteArray("YUV4MPEG2 W64 H48 F25:1\nFRAME\n")};
    for (int i = 0; i < 60; ++i) {
        add("video/magic", QStringLiteral("magic-%1.%2").arg(pad(i), extensions[i % 6]),
            magic[i % magic.size()] + randomBytes(64 + i * 211, random));
    }
    for (const QString& extension : extensions)
        add("video/empty", QStringLiteral("empty.") + extension, {});

    // Valid clips of each kind, then cut short and bit-flipped.
    struct Base {
        QString name;
        QString codec;
    };
    const QVector<Base> baseClips = {
        {"h264.mp4", ""}, {"vp9.webm", ""}, {"mpeg2.mpg", "mpeg2video"}, {"mpeg4.mkv", "mpeg4"}};
    for (const Base& base : baseClips) {
        media::WriterOptions options;
        options.codec = base.codec.toStdString();
        options.gop_size = 4;
        writeClip(bases + QLatin1Char('/') + base.name, 64, 48, 16, 3, options);
        const QByteArray bytes = DatasetFixture::readBytes(bases + QLatin1Char('/') + base.name);
        const QString stem = QFileInfo(base.name).completeBaseName();
        const QString suffix = QFileInfo(base.name).suffix();
        for (int k = 1; k <= 15; ++k) {
            add("video/truncated",
                QStringLiteral("truncated-%1-%2.%3").arg(stem, pad(k, 2), suffix),
                bytes.left(bytes.size() * k / 16));
        }
        for (int k = 0; k < 10; ++k) {
            QByteArray flipped = bytes;
            for (int f = 0; f < 32; ++f) {
                const int at =
                    bytes.size() / 10 + static_cast<int>(random() % (bytes.size() * 9 / 10));
                flipped[at] = static_cast<char>(flipped[at] ^ (1 << (random() % 8)));
            }
            add("video/flipped", QStringLiteral("flipped-%1-%2.%3").arg(stem, pad(k, 2), suffix),
                flipped);
        }
    }

    auto addClip = [&](const QString& kind, const QString& name, int width, int height, int frames,
                       const media::WriterOptions& options) {
        const QString path = folder + QLatin1Char('/') + name;
        writeClip(path, width, height, frames, static_cast<int>(m_videos.size()), options);
        m_videos.append({kind, path});
    };
    const QVector<QPair<QString, QString>> oddCodecs = {
        {"mpg", "mpeg2video"},  {"mkv", "mpeg4"},   {"mkv", "ffv1"},  {"gif", "gif"},
        {"webm", "libvpx-vp9"}, {"mov", "libx264"}, {"avi", "mpeg4"}, {"mov", "png"}};
    for (int i = 0; i < oddCodecs.size(); ++i) {
        for (int turn = 0; turn < 2; ++turn) {
            media::WriterOptions options;
            options.codec = oddCodecs[i].second.toStdString();
            addClip("video/odd-codec",
                    QStringLiteral("codec-%1-%2.%3")
                        .arg(oddCodecs[i].second)
                        .arg(turn)
                        .arg(oddCodecs[i].first),
                    turn ? 48 : 64, turn ? 64 : 48, 12, options);
        }
    }
    for (const int degrees : {90, 180, 270}) {
        for (const char* extension : {"mp4", "mov"}) {
            media::WriterOptions options;
            options.rotation_degrees = degrees;
            addClip("video/rotated", QStringLiteral("rotated-%1.%2").arg(degrees).arg(extension),
                    64, 48, 12, options);
        }
    }
    const QVector<QPair<int, int>> tinySizes = {{2, 2}, {4, 2}, {2, 4}, {8, 8}, {16, 16}};
    for (const auto& [width, height] : tinySizes)
        addClip("video/tiny", QStringLiteral("tiny-%1x%2.mp4").arg(width).arg(height), width,
                height, 12, {});
    for (const int side : {1, 3}) {
        media::WriterOptions options;
        options.codec = "ffv1";
        options.pixel_format = "yuv444p";
        addClip("video/tiny", QStringLiteral("tiny-%1x%1.mkv").arg(side), side, side, 12, options);
    }
    addClip("video/tiny", QStringLiteral("one-frame.mp4"), 64, 48, 1, {});
    {
        media::WriterOptions options;
        options.codec = "ffv1";
        addClip("video/tiny", QStringLiteral("one-frame.mkv"), 64, 48, 1, options);
    }

    // Headers that claim impossible sizes (the y4m demuxer believes its header).
    const QVector<QByteArray> hugeHeaders = {"W65535 H65535 F25:1",
                                             "W100000 H2 F25:1",
                                             "W2 H100000 F25:1",
                                             "W0 H0 F25:1",
                                             "W-64 H48 F25:1",
                                             "Wabc H48 F25:1",
                                             "W2147483647 H2147483647 F25:1",
                                             "W65536 H65536 F25:1",
                                             "W64 H48 F0:0",
                                             "W64 H48 F1000000:1",
                                             "W64 H48 F25:1 Cmystery",
                                             "W64 H48"};
    for (int i = 0; i < hugeHeaders.size(); ++i) {
        add("video/huge-dimension", QStringLiteral("header-%1.y4m").arg(pad(i, 2)),
            "YUV4MPEG2 " + hugeHeaders[i] + "\nFRAME\n" + randomBytes(64 * 48 * 3 / 2, random));
    }

    media::WriterOptions noBFrames;
    noBFrames.max_b_frames = 0;
    noBFrames.gop_size = 4;
    writeClip(bases + QStringLiteral("/cfr.mkv"), 64, 48, 24, 5, noBFrames);
    for (int i = 0; i < 8; ++i) {
        const QString path =
            folder + QStringLiteral("/vfr-%1.%2")
                         .arg(i)
                         .arg(i % 2 ? QStringLiteral("mp4") : QStringLiteral("mkv"));
        remuxWithVariableFrameRate(bases + QStringLiteral("/cfr.mkv"), path, i);
        m_videos.append({"video/variable-frame-rate", path});
    }

    for (const Input& video : m_videos) {
        const QFileInfo info(video.path);
        writeBytes(info.path() + QLatin1Char('/') + info.completeBaseName() +
                       QStringLiteral(".txt"),
                   "caption of " + info.fileName().toUtf8());
    }
}

void BadInputCorpus::writeCaptions() {
    const QString folder = m_root + QStringLiteral("/captions");
    struct Sample {
        const char* charset;
        bool bom;
        QString text;
    };
    const QString chinese = QStringLiteral("一只红色的球在木地板上慢慢滚动，阳光从窗户照进来");
    const QString traditional = QStringLiteral("一隻紅色的球在木地板上慢慢滾動，陽光從窗戶照進來");
    const QString japanese = QStringLiteral("赤いボールが木の床の上をゆっくり転がっている");
    const QString korean = QStringLiteral("빨간 공이 나무 바닥 위를 천천히 굴러가고 있다");
    const QString russian = QStringLiteral("Красный мяч медленно катится по деревянному полу");
    const QString french =
        QStringLiteral("Une balle rouge roule très lentement sur le parquet ciré");
    const QString english = QStringLiteral("a red ball 🎈 rolls slowly across the wooden floor");
    const QVector<Sample> samples = {
        {"UTF-8", false, english},   {"UTF-8", true, chinese},     {"UTF-16LE", true, english},
        {"UTF-16BE", true, russian}, {"UTF-16LE", false, chinese}, {"UTF-16BE", false, english},
        {"GB18030", false, chinese}, {"BIG5", false, traditional}, {"SHIFT_JIS", false, japanese},
        {"EUC-KR", false, korean},   {"CP1251", false, russian},   {"CP1252", false, french}};
    int clip = 0;
    auto addClip = [&](const QString& kind, const QByteArray& caption,
                       const std::function<void(const QString&)>& makeCaption = {}) {
        const QString stem = folder + QStringLiteral("/clip-") + pad(clip);
        ensure(DatasetFixture::writeVideo(stem + QStringLiteral(".mp4"), 6, 100 + clip, 16, 16)
                   .isEmpty(),
               stem);
        if (makeCaption)
            makeCaption(stem + QStringLiteral(".txt"));
        else
            writeBytes(stem + QStringLiteral(".txt"), caption);
        m_captions.append({kind, stem + QStringLiteral(".txt")});
        ++clip;
    };
    for (const Sample& sample : samples) {
        for (int variant = 0; variant < 10; ++variant) {
            QString text = sample.text + QStringLiteral(" %1").arg(variant);
            if (variant % 3 == 1)
                text += QStringLiteral("\r\n") + sample.text + QStringLiteral("\nend\r");
            QByteArray bytes = encoded(text, sample.charset);
            if (sample.bom) {
                const QByteArray charset(sample.charset);
                bytes.prepend(charset == "UTF-8"      ? QByteArray("\xEF\xBB\xBF")
                              : charset == "UTF-16LE" ? QByteArray("\xFF\xFE")
                                                      : QByteArray("\xFE\xFF"));
            }
            addClip(QStringLiteral("caption/") + QString::fromLatin1(sample.charset).toLower() +
                        (sample.bom ? QStringLiteral("-bom") : QString()),
                    bytes);
        }
    }
    std::mt19937 random(11);
    for (int i = 0; i < 5; ++i) {
        QByteArray bytes = encoded(english, "UTF-8");
        bytes.insert(3 + i * 4, '\0');
        addClip("caption/stray-nul", bytes);
    }
    for (int i = 0; i < 10; ++i)
        addClip("caption/undecodable", "\x80\x81\xfd" + randomBytes(40 + i, random) + "\x80\x81");
    for (int i = 0; i < 3; ++i)
        addClip("caption/empty", {});
    addClip("caption/only-bom", "\xEF\xBB\xBF");
    addClip("caption/only-bom", "\xFF\xFE");
    addClip("caption/only-bom", "\xFE\xFF");
    addClip("caption/huge", QByteArray(1 << 20, 'a'));
    addClip("caption/fifo", {}, [](const QString& path) { makeFifo(path); });
    addClip("caption/fifo", {}, [](const QString& path) { makeFifo(path); });
    addClip("caption/folder", {}, [](const QString& path) { QDir().mkpath(path); });
    addClip("caption/dev-zero", {},
            [](const QString& path) { makeLink(QStringLiteral("/dev/zero"), path); });
    // A symbolic link is followed like any caption file (datasets are often linked together).
    addClip("caption/symlink", {},
            [](const QString& path) { makeLink(QStringLiteral("/etc/hostname"), path); });
}

void BadInputCorpus::writeLayouts() {
    const QString folder = m_root + QStringLiteral("/layouts");
    int next = 0;
    auto layout = [&](const QString& kind, const QByteArray& videos, const QByteArray& prompts,
                      const std::function<void(const QString&)>& extra = {}) {
        const QString dir = folder + QLatin1Char('/') + pad(next++);
        QDir().mkpath(dir + QStringLiteral("/videos"));
        QFile::copy(m_goodClip, dir + QStringLiteral("/videos/good.mp4"));
        if (!videos.isNull())
            writeBytes(dir + QStringLiteral("/videos.txt"), videos);
        if (!prompts.isNull())
            writeBytes(dir + QStringLiteral("/prompt.txt"), prompts);
        if (extra)
            extra(dir);
        m_layouts.append({kind, dir});
    };
    const QList<QByteArray> escapes = {"../../../../etc/passwd",
                                       "/etc/passwd",
                                       "../outside.mp4",
                                       "videos/../../outside.mp4",
                                       "./../outside.mp4",
                                       "/etc/../etc/hostname",
                                       "//etc/hostname",
                                       "videos/../../../../root",
                                       "~/clip.mp4",
                                       "../../../../../../../../../../../../../../etc/shadow"};
    writeBytes(folder + QStringLiteral("/outside.mp4"), DatasetFixture::readBytes(m_goodClip));
    for (const QByteArray& escape : escapes)
        layout("layout/escaping-path", "videos/good.mp4\n" + escape + "\n", "a\nb\n");
    for (int i = 0; i < 5; ++i) {
        layout("layout/escaping-symlink", "videos/good.mp4\nvideos/link.mp4\n", "a\nb\n",
               [&](const QString& dir) {
                   makeLink(i % 2 ? QStringLiteral("/etc/hostname")
                                  : folder + QStringLiteral("/outside.mp4"),
                            dir + QStringLiteral("/videos/link.mp4"));
               });
    }
    const QList<QByteArray> specials = {"/dev/zero", "/dev/null",      "/dev/urandom", "videos",
                                        ".",         "/proc/self/mem", "/dev/stdin"};
    for (const QByteArray& special : specials)
        layout("layout/special-file", "videos/good.mp4\n" + special + "\n", "a\nb\n");
    layout("layout/special-file", "videos/good.mp4\nvideos/fifo.mp4\n", "a\nb\n",
           [](const QString& dir) { makeFifo(dir + QStringLiteral("/videos/fifo.mp4")); });
    layout("layout/special-file", QByteArray(), "a\n",
           [](const QString& dir) { makeFifo(dir + QStringLiteral("/videos.txt")); });
    layout("layout/special-file", "videos/good.mp4\n", QByteArray(), [](const QString& dir) {
        makeLink(QStringLiteral("/dev/zero"), dir + QStringLiteral("/prompt.txt"));
    });
    layout("layout/special-file", QByteArray(), "a\n",
           [](const QString& dir) { QDir().mkpath(dir + QStringLiteral("/videos.txt")); });
    for (int extra = 1; extra <= 4; ++extra) {
        layout("layout/count-mismatch",
               "videos/good.mp4\n" + QByteArray("videos/x.mp4\n").repeated(extra), "one\n");
        layout("layout/count-mismatch", "videos/good.mp4\n", QByteArray("p\n").repeated(extra + 1));
    }
    layout("layout/empty", "", "");
    layout("layout/empty", "", "a\n");
    layout("layout/empty", "videos/good.mp4\n", "");
    layout("layout/empty", QByteArray(10000, '\n'), QByteArray(10000, '\n'));
    layout("layout/empty", "   \t \n", " \n");
    layout("layout/encoding", encoded(QStringLiteral("videos/good.mp4\n"), "UTF-16LE"), "a\n");
    layout("layout/encoding", "videos/good.mp4\n", encoded(QStringLiteral("一只球\n"), "GB18030"));
    layout("layout/encoding", "\xEF\xBB\xBFvideos/good.mp4\r\n",
           "\xEF\xBB\xBF"
           "a\r\n");
    layout("layout/encoding", QByteArray("videos/go\0od.mp4\n", 17), "a\n");
    layout("layout/encoding", "videos/\xff\xfe.mp4\n", "a\xff\n");
    for (int i = 0; i < 5; ++i)
        layout("layout/missing-file", "videos/missing-" + QByteArray::number(i) + ".mp4\n", "a\n");
    layout("layout/huge-line", "videos/" + QByteArray(100000, 'x') + ".mp4\n", "a\n");
    layout("layout/huge-line", "videos/good.mp4\n", QByteArray(1 << 20, 'p') + "\n");
    layout("layout/both-prompt-files", "videos/good.mp4\n", "a\n",
           [](const QString& dir) { writeBytes(dir + QStringLiteral("/prompts.txt"), "b\nc\n"); });

    // Metadata tables, handed to the importer as files.
    auto table = [&](const QString& kind, const QString& name, const QByteArray& bytes) {
        const QString dir = folder + QLatin1Char('/') + pad(next++);
        QDir().mkpath(dir + QStringLiteral("/videos"));
        QFile::copy(m_goodClip, dir + QStringLiteral("/videos/good.mp4"));
        writeBytes(dir + QLatin1Char('/') + name, bytes);
        m_layouts.append({kind, dir + QLatin1Char('/') + name});
    };
    const QList<QByteArray> csvs = {"",
                                    "video,caption\n",
                                    "video,caption\n\"videos/good.mp4,unterminated\n",
                                    "caption\nno video column\n",
                                    "video;caption\nvideos/good.mp4;semicolons\n",
                                    "video,caption\nvideos/good.mp4,a,b,c,d\n",
                                    "video,caption\n../../etc/passwd,escape\n",
                                    "video,caption\n/dev/zero,device\n",
                                    "video,caption\nvideos,a folder\n",
                                    "\xEF\xBB\xBFvideo,caption\r\nvideos/good.mp4,bom and crlf\r\n",
                                    "video,caption\nvideos/good.mp4,\"quote \"\" inside\"\n",
                                    "video,caption\n" + QByteArray(200000, ',') + "\n",
                                    "video,caption\n\0\0\0\n",
                                    "video,caption,video\nvideos/good.mp4,twice,videos/good.mp4\n",
                                    "video,caption\nvideos/good.mp4,\"multi\nline\ncaption\"\n"};
    for (int i = 0; i < csvs.size(); ++i)
        table("layout/csv", QStringLiteral("metadata-%1.csv").arg(i), csvs[i]);
    std::mt19937 random(5);
    for (int i = 0; i < 3; ++i)
        table("layout/csv", QStringLiteral("garbage-%1.csv").arg(i), randomBytes(500, random));
    const QList<QByteArray> jsonls = {
        "",
        "{\"video\": \"videos/good.mp4\", \"caption\": \"ok\"}\n{broken\n",
        "[1,2,3]\n",
        "{\"video\": 5, \"caption\": []}\n",
        "{\"video\": \"../../etc/passwd\", \"caption\": \"escape\"}\n",
        "{\"video\": \"/dev/zero\", \"caption\": \"device\"}\n",
        "{\"caption\": \"no video\"}\n",
        "{\"video\": \"videos/good.mp4\", \"caption\": \"\\ud800 lone surrogate\"}\n",
        "{\"video\": \"videos/good.mp4\"" + QByteArray(100000, ' ') + "}\n",
        QByteArray(5000, '[') + "\n",
        "null\ntrue\n\"string\"\n"};
    for (int i = 0; i < jsonls.size(); ++i)
        table("layout/jsonl", QStringLiteral("metadata-%1.jsonl").arg(i), jsonls[i]);
}

void BadInputCorpus::writeModels() {
    const QString folder = m_root + QStringLiteral("/models");
    const QString tinyTransformer = m_tinyPipeline + QStringLiteral("/transformer");
    const QByteArray transformerConfig =
        DatasetFixture::readBytes(tinyTransformer + QStringLiteral("/config.json"));
    const QByteArray modelIndex = "{\"_class_name\": \"CogVideoXPipeline\", \"transformer\": "
                                  "[\"diffusers\", \"CogVideoXTransformer3DModel\"]}";
    // A pipeline folder of one transformer whose weights file is `weights`.
    auto pipeline = [&](const QString& kind, const QString& name, const QByteArray& index,
                        const QByteArray& config, const QByteArray& weights) {
        const QString dir = folder + QLatin1Char('/') + name;
        writeBytes(dir + QStringLiteral("/model_index.json"), index);
        if (!config.isNull())
            writeBytes(dir + QStringLiteral("/transformer/config.json"), config);
        if (!weights.isNull())
            writeBytes(dir + QStringLiteral("/transformer/diffusion_pytorch_model.safetensors"),
                       weights);
        m_models.append({kind, dir});
        return dir;
    };
    for (const auto& [name, bytes] : brokenSafetensors()) {
        const QString file =
            folder + QStringLiteral("/files/") + name + QStringLiteral(".safetensors");
        writeBytes(file, bytes);
        m_models.append({QStringLiteral("model/safetensors-") + name, file});
        pipeline(QStringLiteral("model/folder-") + name, QStringLiteral("weights-") + name,
                 modelIndex, transformerConfig, bytes);
    }
    // The tiny transformer's real weights, linked rather than copied.
    QString realWeights;
    for (const QFileInfo& entry :
         QDir(tinyTransformer).entryInfoList({"*.safetensors"}, QDir::Files))
        realWeights = entry.absoluteFilePath();
    ensure(!realWeights.isEmpty(), QStringLiteral("no weights in ") + tinyTransformer);
    auto withRealWeights = [&](const QString& kind, const QString& name, const QByteArray& index,
                               const QByteArray& config) {
        const QString dir = pipeline(kind, name, index, config, QByteArray());
        ensure(::link(QFile::encodeName(realWeights).constData(),
                      QFile::encodeName(dir + QStringLiteral("/transformer/") +
                                        QFileInfo(realWeights).fileName())
                          .constData()) == 0,
               QStringLiteral("link ") + dir);
    };
    const QList<QByteArray> indexes = {"",
                                       "not json",
                                       "[]",
                                       "{\"transformer\": 5}",
                                       "{\"transformer\": [null, null]}",
                                       "{\"vae\": [\"diffusers\", \"AutoencoderKLCogVideoX\"]}",
                                       "{\"../../etc\": [\"diffusers\", \"X\"]}",
                                       "{\"transformer\": [\"diffusers\"]}",
                                       QByteArray(30000, '{'),
                                       "{\"transformer\": [\"diffusers\", 7]}"};
    for (int i = 0; i < indexes.size(); ++i)
        withRealWeights("model/model-index", QStringLiteral("index-%1").arg(i), indexes[i],
                        transformerConfig);
    QJsonObject config = QJsonDocument::fromJson(transformerConfig).object();
    const QList<QPair<QString, QJsonValue>> configEdits = {{"in_channels", QStringLiteral("x")},
                                                           {"num_layers", -1},
                                                           {"num_attention_heads", 1e12},
                                                           {"attention_head_dim", 0},
                                                           {"patch_size", 0},
                                                           {"patch_size", QJsonArray{1, 2}},
                                                           {"sample_frames", -49},
                                                           {"text_embed_dim", QJsonValue()},
                                                           {"max_text_seq_length", 1e300},
                                                           {"use_rotary_positional_embeddings", 3},
                                                           {"_class_name", 42}};
    for (int i = 0; i < configEdits.size(); ++i) {
        QJsonObject edited = config;
        edited.insert(configEdits[i].first, configEdits[i].second);
        withRealWeights("model/config", QStringLiteral("config-%1").arg(i), modelIndex,
                        QJsonDocument(edited).toJson());
    }
    for (const QByteArray& text : {QByteArray("not json"), QByteArray("[]"), QByteArray("")})
        withRealWeights("model/config", QStringLiteral("config-text-%1").arg(text.size()),
                        modelIndex, text);
    // Sharded transformers whose index lies.
    const QByteArray shard = safetensors(
        "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", QByteArray(16, '\0'));
    const QList<QByteArray> shardIndexes = {
        "not json",
        "{}",
        "{\"weight_map\": []}",
        "{\"weight_map\": {\"w\": \"missing.safetensors\"}}",
        "{\"weight_map\": {\"w\": \"../../etc/passwd\"}}",
        "{\"weight_map\": {\"w\": \"/dev/zero\"}}",
        "{\"weight_map\": {\"v\": \"model-00001-of-00001.safetensors\"}}",
        "{\"weight_map\": {\"w\": 5}}",
        "{\"weight_map\": {\"w\": \"model-00001-of-00001.safetensors\", \"x\": "
        "\"model-00001-of-00001.safetensors\"}}",
        "{\"weight_map\": {\"w\": \"model-00001-of-00001.safetensors\"}, \"metadata\": 7}"};
    for (int i = 0; i < shardIndexes.size(); ++i) {
        const QString dir = pipeline("model/shard-index", QStringLiteral("shards-%1").arg(i),
                                     modelIndex, transformerConfig, QByteArray());
        writeBytes(dir + QStringLiteral("/transformer/model-00001-of-00001.safetensors"), shard);
        writeBytes(
            dir + QStringLiteral("/transformer/diffusion_pytorch_model.safetensors.index.json"),
            shardIndexes[i]);
    }
}

void BadInputCorpus::writeJobs() {
    const QString folder = m_root + QStringLiteral("/jobs");
    const QString manifest = m_root + QStringLiteral("/good/data.jsonl");
    writeBytes(manifest, "{\"v\": 1, \"path\": \"good.mp4\", \"caption\": \"a good clip\"}\n");
    const QJsonObject base{
        {"v", 1},
        {"model", m_tinyPipeline},
        {"dataset", QJsonObject{{"manifest", manifest},
                                {"resolution_buckets", QJsonArray{QJsonValue(QJsonArray{32, 48})}},
                                {"frame_buckets", QJsonArray{9}}}},
        {"precision", "fp32"},
        {"device", "cpu"},
        {"max_steps", 2}};
    int next = 0;
    auto job = [&](const QString& kind, const QByteArray& text) {
        const QString path = folder + QLatin1Char('/') + pad(next++) + QStringLiteral("/job.json");
        writeBytes(path, text);
        m_jobs.append({kind, path});
    };
    const QByteArray valid = QJsonDocument(base).toJson(QJsonDocument::Compact);
    for (int k = 1; k <= 8; ++k)
        job("job/truncated", valid.left(valid.size() * k / 9));
    for (const QByteArray& text :
         {QByteArray(), QByteArray("null"), QByteArray("[]"), QByteArray("42"),
          QByteArray("\"job\""), encoded(QString::fromUtf8(valid), "UTF-16LE"),
          QByteArray(valid).insert(10, '\0'), QByteArray(20000, '[') + QByteArray(20000, ']')})
        job("job/not-an-object", text);
    const QStringList fields = {"v",
                                "model",
                                "mode",
                                "task",
                                "dataset",
                                "lora",
                                "optimizer",
                                "lr_schedule",
                                "max_steps",
                                "epochs",
                                "batch_size",
                                "gradient_accumulation",
                                "max_grad_norm",
                                "precision",
                                "gradient_checkpointing",
                                "seed",
                                "trigger_word",
                                "checkpoints",
                                "validation",
                                "parallel",
                                "device"};
    const QList<QJsonValue> wrongValues = {QStringLiteral("?"), -1, QJsonArray(), QJsonValue()};
    for (const QString& field : fields) {
        for (const QJsonValue& value : wrongValues) {
            QJsonObject edited = base;
            edited.insert(field, value);
            job(QStringLiteral("job/wrong-type"), QJsonDocument(edited).toJson());
        }
    }
    auto nested = [&](const QString& object, const QString& field, const QJsonValue& value) {
        QJsonObject edited = base;
        QJsonObject inner = edited.value(object).toObject();
        inner.insert(field, value);
        edited.insert(object, inner);
        job(QStringLiteral("job/bad-value"), QJsonDocument(edited).toJson());
    };
    for (const QJsonValue& rank : {QJsonValue(0), QJsonValue(-4), QJsonValue(1e9), QJsonValue(3.5)})
        nested("lora", "rank", rank);
    for (const QJsonValue& frames : {QJsonValue(QJsonArray()), QJsonValue(QJsonArray{0}),
                                     QJsonValue(QJsonArray{8}), QJsonValue(QJsonArray{1e9})})
        nested("dataset", "frame_buckets", frames);
    for (const QJsonArray& bucket : {QJsonArray(), QJsonArray{QJsonValue(QJsonArray{0, 0})},
                                     QJsonArray{QJsonValue(QJsonArray{17, 16})},
                                     QJsonArray{QJsonValue(QJsonArray{1000000, 1000000})},
                                     QJsonArray{QJsonValue(QJsonArray{32})}})
        nested("dataset", "resolution_buckets", bucket);
    for (const QString& manifestPath :
         {QStringLiteral("/nowhere/data.jsonl"), m_root, QStringLiteral("/dev/zero")})
        nested("dataset", "manifest", manifestPath);
    for (const QJsonValue& lr : {QJsonValue(-1), QJsonValue(QStringLiteral("fast"))})
        nested("optimizer", "lr", lr);
    for (const QString& model :
         {QStringLiteral("/nowhere"), m_goodClip, QStringLiteral("/dev/zero")}) {
        QJsonObject edited = base;
        edited.insert("model", model);
        job("job/bad-model", QJsonDocument(edited).toJson());
    }
    QJsonObject newer = base;
    newer.insert("v", 99);
    job("job/newer", QJsonDocument(newer).toJson());
    QJsonObject unknown = base;
    unknown.insert("frobnicate", true);
    job("job/unknown-field", QJsonDocument(unknown).toJson());
}

void BadInputCorpus::writeManifest() {
    // At the corpus's root, so the clips it names are inside its folder.
    m_manifest = m_root + QStringLiteral("/bad-manifest.jsonl");
    QByteArray text = "{\"v\": 1, \"path\": \"good/good.mp4\", \"caption\": \"good\"}\n";
    int line = 1;
    auto add = [&](const QString& kind, const QByteArray& json) {
        text += json + "\n";
        ++line;
        m_manifestLines.append({kind, QStringLiteral("%1:%2").arg(m_manifest).arg(line)});
    };
    for (const Input& video : m_videos) {
        add("manifest/bad-video", "{\"v\": 1, \"path\": \"videos/" +
                                      QFile::encodeName(QFileInfo(video.path).fileName()) +
                                      "\", \"caption\": \"bad video\"}");
    }
    const QByteArray good = "{\"v\": 1, \"path\": \"good/good.mp4\", \"caption\": \"x\"}";
    for (int k = 1; k < 10; ++k)
        add("manifest/truncated", good.left(good.size() * k / 10));
    const QList<QByteArray> lines = {
        "[]",
        "null",
        "42",
        "\"path\"",
        "{}",
        "{\"v\": 1}",
        "{\"v\": 99, \"path\": \"good/good.mp4\"}",
        "{\"v\": 1, \"path\": 5}",
        "{\"v\": 1, \"path\": []}",
        "{\"v\": 1, \"path\": null}",
        "{\"v\": 1, \"path\": \"\"}",
        "{\"v\": 1, \"path\": \"good/good.mp4\", \"caption\": 5}",
        "{\"v\": 1, \"path\": \"good/good.mp4\", \"trim_in\": -1}",
        "{\"v\": 1, \"path\": \"good/good.mp4\", \"trim_in\": \"x\"}",
        "{\"v\": 1, \"path\": \"good/good.mp4\", \"trim_in\": 1e20}",
        "{\"v\": 1, \"path\": \"good/good.mp4\", \"trim_in\": 8, \"trim_out\": 2}",
        "{\"v\": 1, \"path\": \"good/good.mp4\", \"trim_out\": 100000}",
        "{\"v\": 1, \"path\": \"good/good.mp4\", \"condition_frame\": -3}",
        "{\"v\": 1, \"path\": \"good/good.mp4\", \"hash\": \"md5:abc\"}",
        "{\"v\": 1, \"path\": \"../../../../etc/passwd\"}",
        "{\"v\": 1, \"path\": \"/etc/passwd\"}",
        "{\"v\": 1, \"path\": \"/dev/zero\"}",
        "{\"v\": 1, \"path\": \"good\"}",
        "{\"v\": 1, \"path\": \"fifo.mp4\"}",
        "{\"v\": 1, \"path\": \"good/go\\u0000od.mp4\"}",
        "{\"v\": 1, \"path\": \"" + QByteArray(10000, 'p') + ".mp4\"}",
        "{\"v\": 1, \"path\": \"\xff\xfe.mp4\"}",
        QByteArray(5000, '{'),
        "{\"v\": 1, \"path\": \"good/good.mp4\", \"caption\": \"\\ud800\"}"};
    for (const QByteArray& json : lines)
        add("manifest/bad-line", json);
    makeFifo(m_root + QStringLiteral("/fifo.mp4"));
    writeBytes(m_manifest, text);
}

void BadInputCorpus::writeSweepGridsPresetsAndEvents() {
    const QString sweeps = m_root + QStringLiteral("/sweeps");
    const QList<QByteArray> grids = {
        "",
        "not json",
        "[]",
        "{}",
        "{\"optimizer.lr\": []}",
        "{\"optimizer.lr\": 5}",
        "{\"frobnicate\": [1, 2]}",
        "{\"optimizer.lr\": [\"fast\", \"slow\"]}",
        "{\"lora.rank\": [-1, 0]}",
        "{\"lora.rank\": [4, 8], \"lora.rank \": [1]}",
        "{\"optimizer\": [{\"lr\": 1}]}",
        "{\"optimizer.lr\": [1e-4, null]}",
        "{\"a.b.c.d.e\": [1]}",
        "{\"\": [1]}",
        QByteArray(20000, '['),
        "{\"optimizer.lr\": [1e-4, 2e-4], \"lora.rank\": [4, 8], \"seed\": [1, 2, 3, 4, 5, 6, 7, "
        "8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]}",
        "{\"max_steps\": [0]}",
        "{\"precision\": [\"fp8\"]}",
        "{\"device\": [\"tpu\"]}",
        "{\"optimizer.lr\": [1e-4], \"optimizer.lr\": [2e-4]}"};
    for (int i = 0; i < grids.size(); ++i) {
        const QString path = sweeps + QStringLiteral("/grid-%1.json").arg(pad(i, 2));
        writeBytes(path, grids[i]);
        m_sweepGrids.append({"sweep/malformed", path});
    }

    m_presetFolder = m_root + QStringLiteral("/presets");
    const QList<QByteArray> presets = {"",
                                       "not json",
                                       "[]",
                                       "{\"name\": 5}",
                                       "{\"job\": []}",
                                       "{\"job\": {\"lora\": 7}}",
                                       "{\"job\": {\"optimizer\": {\"name\": \"sgd-of-doom\"}}}",
                                       "{\"job\": {\"max_steps\": -1}}",
                                       "{\"name\": \"x\", \"job\": {\"precision\": \"fp4\"}}",
                                       QByteArray(20000, '{'),
                                       "{\"name\": \"\xff\xfe\", \"job\": {}}",
                                       "{\"job\": {\"dataset\": {\"frame_buckets\": [8]}}}",
                                       "{\"job\": {\"frobnicate\": 1}}",
                                       "{\"job\": {\"v\": 99}}",
                                       "{\"job\": {\"parallel\": {\"plan\": \"zero9\"}}}"};
    for (int i = 0; i < presets.size(); ++i) {
        const QString path = m_presetFolder + QStringLiteral("/bad-%1.json").arg(pad(i, 2));
        writeBytes(path, presets[i]);
        m_presets.append({"preset/malformed", path});
    }

    const QList<QByteArray> events = {
        "{\"v\":1,\"type\":\"hello\",\"engine\":\"x\"}",
        "{\"v\":1,\"type\":\"phase\",\"phase\":\"train\"}",
        "{\"v\":1,\"type\":\"progress\",\"done\":1,\"total\":4,\"unit\":\"clip\"}",
        "{\"v\":1,\"type\":\"step\",\"step\":3,\"loss\":0.5,\"lr\":1e-4,\"grad_norm\":1,"
        "\"mem\":[{\"rank\":0,\"allocated\":1,\"peak\":2}]}",
        "{\"v\":1,\"type\":\"memory\",\"phase\":\"before_training\",\"mem\":[]}",
        "{\"v\":1,\"type\":\"validation\",\"step\":2,\"prompt_index\":0,\"video\":\"/v.mp4\"}",
        "{\"v\":1,\"type\":\"checkpoint\",\"step\":2,\"path\":\"/c\"}",
        "{\"v\":1,\"type\":\"log\",\"level\":\"info\",\"message\":\"m\"}",
        "{\"v\":1,\"type\":\"error\",\"code\":\"io\",\"message\":\"m\"}",
        "{\"v\":1,\"type\":\"done\",\"status\":\"ok\",\"summary\":{}}"};
    const QList<QByteArray> replacements = {"null", "\"x\"", "-1", "1e999", "[]", "{}", "true"};
    for (const QByteArray& event : events) {
        for (int k = 1; k <= 6; ++k)
            m_eventLines.append(event.left(event.size() * k / 7));
        // Each value of the event replaced by every wrong kind of value.
        const QJsonObject object = QJsonDocument::fromJson(event).object();
        for (const QString& key : object.keys()) {
            for (const QByteArray& replacement : replacements) {
                QByteArray line = "{";
                for (const QString& other : object.keys()) {
                    if (line.size() > 1)
                        line += ",";
                    line += "\"" + other.toUtf8() + "\":" +
                            (other == key ? replacement
                                          : QJsonDocument(QJsonArray{object.value(other)})
                                                .toJson(QJsonDocument::Compact)
                                                .mid(1)
                                                .chopped(1));
                }
                m_eventLines.append(line + "}");
            }
        }
    }
    for (const QByteArray& line :
         {QByteArray(), QByteArray("{}"), QByteArray("{\"v\":99,\"type\":\"step\"}"),
          QByteArray("{\"v\":1,\"type\":\"unheard-of\"}"), QByteArray(20000, '['),
          QByteArray("{\"v\":1,\"type\":\"log\",\"message\":\"\xff\xfe\"}"),
          QByteArray("{\"v\":1,\"type\":\"log\",\"message\":\"a\\u0000b\"}")})
        m_eventLines.append(line);
}
