#pragma once

// The embedded demo's VAE. A tiny VAE with random weights decodes every latent into coloured
// noise, so however well the demo's transformer learns its clips, its validation videos would
// show nothing. Trained by gradient descent, the tiny VAE needs far more than the minute of CPU
// time a first start can spend: from random weights, 300 Adam steps (5 minutes on two cores)
// still leave the demo clips barely recognisable (mean absolute error 0.14 in [-1, 1]), and
// from the start below, a minute of fitting made it worse, not better. So its weights are set,
// not learned: it codes a clip exactly as the mean colour of each 8x8 block of each latent
// frame's frames (the first frame alone, then groups of four, as the causal VAE groups them),
// the smooth low-detail latent space a transformer learns quickest, and its videos show the
// clips as coloured mosaics: the pale wall, brown floor and red ball, the blue square on white.

#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox.h"

#include <vector>

namespace tuneframe::models {

// Sets vae's weights to the block-average codec, exact up to float rounding: the latent's
// first three channels hold the block colours, the other channels zero, with a negligible
// variance; the decoder paints every block its colour. Every residual branch is zeroed at its
// last convolution and the decoder's detail path (its output spatial norm's scale) is off;
// every convolution taking part keeps the zero padding out of the blocks, so borders are exact
// too. Needs RGB, at least 3 latent channels, output-norm groups of 8 channels or more and a
// last encoder block that widens (the tiny configuration has all of them); otherwise it throws
// and leaves the weights as they were.
void make_block_average_autoencoder(AutoencoderKLCogVideoXImpl& vae);

// 1 / the standard deviation of the block colours of clips ([1, 3, F, H, W] in [-1, 1]): the
// scaling_factor that gives the transformer unit-variance latents, by the released VAEs' rule.
double block_average_latent_scale(const AutoencoderKLCogVideoXImpl& vae,
                                  const std::vector<at::Tensor>& clips);

// The mean absolute difference, in [-1, 1] pixel units, between each clip and its decoded
// posterior mean.
double autoencoder_reconstruction_error(const AutoencoderKLCogVideoXImpl& vae,
                                        const std::vector<at::Tensor>& clips);

} // namespace tuneframe::models
