// The caption decoder: any bytes as a caption file (BOM, ICU's UTF-16 detector, UTF-8,
// uchardet and Qt's ICU codecs). It never fails, escapedBytes() is documented lossless, and
// the text is a caption the project can store: no NUL, no unpaired surrogate.
#include "app/captions/CaptionDecoder.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const QByteArray bytes(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    const CaptionDecoder::Result result = CaptionDecoder::decode(bytes);
    if (result.encoding == CaptionDecoder::Encoding::Invalid) {
        __builtin_trap();
    }
    if (result.text.contains(QChar::Null) || !QStringView(result.text).isValidUtf16()) {
        __builtin_trap();
    }
    CaptionDecoder::lines(result.text);
    CaptionDecoder::tidied(result.text);
    if (CaptionDecoder::bytesFromEscaped(CaptionDecoder::escapedBytes(bytes)) != bytes) {
        __builtin_trap();
    }
    return 0;
}
