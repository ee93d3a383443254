#include "engine/models/cogvideox/tensor_parallel.h"

namespace tuneframe::models::cogvideox {

TensorParallelLayout tensor_parallel_layout(const torch::nn::Module& transformer) {
    BlockSplit split;
    split.blocks_prefix = "transformer_blocks.";
    split.column = {".attn1.to_q.", ".attn1.to_k.", ".attn1.to_v.", ".ff.net.0.proj."};
    split.row = {".attn1.to_out.0.", ".ff.net.2."};
    split.head_norms = {".attn1.norm_q.", ".attn1.norm_k."};
    return block_split_layout(transformer, split);
}

} // namespace tuneframe::models::cogvideox
