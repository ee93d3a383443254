#pragma once

// What the user allowed for one import, from the import dialog. Off by default: every import
// starts safe, and allowing something applies to that import only.
struct ImportOptions {
    // Paths named inside a dataset file (videos.txt, a CSV or JSON Lines file, a manifest) may
    // lead out of the file's folder: absolute paths, "..", symbolic links that leave it.
    bool allowPathsOutsideDataset = false;
};
