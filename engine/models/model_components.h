#pragma once

#include "engine/models/diagonal_gaussian_distribution.h"

#include <ATen/core/Tensor.h>

#include <cstdint>

#include <string>

// The family-independent faces of a pipeline's encoders, as prepare, training and validation
// use them. A family's ModelFolder makes them from its own text encoder, VAE and image encoder.
namespace tuneframe::models {

// Prompts to the embeddings the family's transformer reads. The weights load on the first
// encode() and are dropped by release(), so the text encoder (billions of parameters in the
// real models) occupies the device only while it works.
class TextEncoder {
public:
    virtual ~TextEncoder() = default;
    // One prompt -> [1, length, text_dim] in the placement's dtype on its device, padded (or
    // cut) to `length` tokens as the family's pipelines do.
    virtual at::Tensor encode(const std::string& prompt, int length) = 0;
    virtual void release() = 0;
};

// The video autoencoder: pixels to the posterior and latents back to pixels.
class VideoAutoencoder {
public:
    virtual ~VideoAutoencoder() = default;
    // video [B, 3, F, H, W] in [-1, 1] -> the posterior over latents [B, C, F', h, w], unscaled.
    virtual DiagonalGaussianDistribution encode(const at::Tensor& video) = 0;
    // Unscaled latents [B, C, F', h, w] -> video [B, 3, F, H, W] in [-1, 1].
    virtual at::Tensor decode(const at::Tensor& latents) = 0;
};

// How a VAE is run: tiling (tiles of the sizes given, 0 for the family's own, overlapping by
// the fractions given) and slicing (one sample of a batch at a time).
struct VaeOptions {
    bool tiling = false;
    std::int64_t tile_height = 0; // pixels
    std::int64_t tile_width = 0;
    double tile_overlap_height = 0; // fraction of a tile
    double tile_overlap_width = 0;
    bool slicing = false;
};

// An image encoder whose features condition the transformer (Wan 2.1 I2V's CLIP): an RGB
// picture -> the tokens the transformer attends to.
class ImageEncoder {
public:
    virtual ~ImageEncoder() = default;
    // image [3, H, W] in [0, 1], float -> [1, tokens, image_dim] in the placement's dtype.
    virtual at::Tensor encode(const at::Tensor& image) = 0;
};

} // namespace tuneframe::models
