#include "engine/models/wan/tensor_parallel.h"

namespace tuneframe::models::wan {

TensorParallelLayout tensor_parallel_layout(const torch::nn::Module& transformer) {
    BlockSplit split;
    split.blocks_prefix = "blocks.";
    split.column = {".attn1.to_q.",       ".attn1.to_k.",       ".attn1.to_v.",
                    ".attn2.to_q.",       ".attn2.to_k.",       ".attn2.to_v.",
                    ".attn2.add_k_proj.", ".attn2.add_v_proj.", ".ffn.net.0.proj."};
    split.row = {".attn1.to_out.0.", ".attn2.to_out.0.", ".ffn.net.2."};
    split.head_norms = {".attn1.norm_q.", ".attn1.norm_k.", ".attn2.norm_q.", ".attn2.norm_k.",
                        ".attn2.norm_added_k."};
    split.head_norms_split = true;
    return block_split_layout(transformer, split);
}

} // namespace tuneframe::models::wan
