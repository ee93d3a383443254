// Internal: the temporary file behind an atomic write. Created next to the destination as
// "<path>.tmp-XXXXXX" (same folder, so the final rename cannot cross file systems); commit()
// makes it durable and renames it over the destination; otherwise the destructor removes it.
#pragma once

#include <string>

namespace tuneframe::media {

class TempFile {
public:
    explicit TempFile(std::string final_path);
    ~TempFile();
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;

    const std::string& path() const { return temp_path_; }
    // fsync the data, rename over the destination, fsync the folder. Throws MediaError(Io).
    void commit();

private:
    std::string final_path_;
    std::string temp_path_;
    int descriptor_ = -1;
    bool committed_ = false;
};

} // namespace tuneframe::media
