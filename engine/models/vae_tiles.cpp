#include "engine/models/vae_tiles.h"

#include <algorithm>

namespace tuneframe::models {

void blend_vertical(const at::Tensor& above, at::Tensor& tile, std::int64_t extent) {
    extent = std::min({above.size(3), tile.size(3), extent});
    for (std::int64_t y = 0; y < extent; ++y) {
        const double weight = static_cast<double>(y) / static_cast<double>(extent);
        tile.select(3, y).copy_(above.select(3, above.size(3) - extent + y) * (1 - weight) +
                                tile.select(3, y) * weight);
    }
}

void blend_horizontal(const at::Tensor& left, at::Tensor& tile, std::int64_t extent) {
    extent = std::min({left.size(4), tile.size(4), extent});
    for (std::int64_t x = 0; x < extent; ++x) {
        const double weight = static_cast<double>(x) / static_cast<double>(extent);
        tile.select(4, x).copy_(left.select(4, left.size(4) - extent + x) * (1 - weight) +
                                tile.select(4, x) * weight);
    }
}

at::Tensor join_tiles(TileGrid& rows, std::int64_t blend_height, std::int64_t blend_width,
                      std::int64_t keep_height, std::int64_t keep_width) {
    std::vector<at::Tensor> joined_rows;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        std::vector<at::Tensor> joined_row;
        for (std::size_t j = 0; j < rows[i].size(); ++j) {
            at::Tensor& tile = rows[i][j];
            if (i > 0) {
                blend_vertical(rows[i - 1][j], tile, blend_height);
            }
            if (j > 0) {
                blend_horizontal(rows[i][j - 1], tile, blend_width);
            }
            joined_row.push_back(tile.slice(3, 0, keep_height).slice(4, 0, keep_width));
        }
        joined_rows.push_back(at::cat(joined_row, 4));
    }
    return at::cat(joined_rows, 3);
}

} // namespace tuneframe::models
