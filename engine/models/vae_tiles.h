#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

// Spatial tiling of a VAE's encode and decode, as diffusers' tiled_encode / tiled_decode do it:
// overlapping tiles coded one by one, each blended linearly into the tiles above and to its left,
// then joined. Shared by the families' VAEs.
namespace tuneframe::models {

using TileGrid = std::vector<std::vector<at::Tensor>>; // rows of tiles [B, C, F, h, w]

// `tile` takes in the tile above over `extent` rows, in place, as diffusers' blend_v does.
void blend_vertical(const at::Tensor& above, at::Tensor& tile, std::int64_t extent);
// The same for the tile to the left over `extent` columns (blend_h).
void blend_horizontal(const at::Tensor& left, at::Tensor& tile, std::int64_t extent);

// Runs `code` on the tiles of `input` [B, C, F, H, W] that start every `stride` rows and
// columns.
template <typename Code>
TileGrid code_tiles(const at::Tensor& input, std::int64_t tile_height, std::int64_t tile_width,
                    std::int64_t stride_height, std::int64_t stride_width, const Code& code) {
    TileGrid rows;
    for (std::int64_t i = 0; i < input.size(3); i += stride_height) {
        std::vector<at::Tensor>& row = rows.emplace_back();
        for (std::int64_t j = 0; j < input.size(4); j += stride_width) {
            row.push_back(code(input.slice(3, i, i + tile_height).slice(4, j, j + tile_width)));
        }
    }
    return rows;
}

// Blends each tile with the (already blended) tiles above and to its left, keeps its first
// `keep_height` x `keep_width`, and joins the grid.
at::Tensor join_tiles(TileGrid& rows, std::int64_t blend_height, std::int64_t blend_width,
                      std::int64_t keep_height, std::int64_t keep_width);

} // namespace tuneframe::models
