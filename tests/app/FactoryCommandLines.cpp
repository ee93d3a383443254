#include "tests/app/FactoryCommandLines.h"

// From cogvideox-factory's README ("Launch experiments sweeping different hyperparameters"):
// the command is the value of cmd="…", with escaped quotes around the validation prompts and
// shell variables for the swept values.
const char* factoryReadmeCommand() {
    return R"(cmd="accelerate launch --config_file $ACCELERATE_CONFIG_FILE --gpu_ids $GPU_IDS training/cogvideox_text_to_video_lora.py \
            --pretrained_model_name_or_path THUDM/CogVideoX-5b \
            --data_root $DATA_ROOT \
            --caption_column $CAPTION_COLUMN \
            --video_column $VIDEO_COLUMN \
            --id_token BW_STYLE \
            --height_buckets 480 \
            --width_buckets 720 \
            --frame_buckets 49 \
            --dataloader_num_workers 8 \
            --pin_memory \
            --validation_prompt \"BW_STYLE A black and white animated scene unfolds with an anthropomorphic goat surrounded by musical notes and symbols:::BW_STYLE A panda, dressed in a small, red jacket and a tiny hat, sits on a wooden stool in a serene bamboo forest\" \
            --validation_prompt_separator ::: \
            --num_validation_videos 1 \
            --validation_epochs 10 \
            --seed 42 \
            --rank 128 \
            --lora_alpha 128 \
            --mixed_precision bf16 \
            --output_dir $output_dir \
            --max_num_frames 49 \
            --train_batch_size 1 \
            --max_train_steps $steps \
            --checkpointing_steps 1000 \
            --gradient_accumulation_steps 1 \
            --gradient_checkpointing \
            --learning_rate $learning_rate \
            --lr_scheduler $lr_schedule \
            --lr_warmup_steps 400 \
            --lr_num_cycles 1 \
            --enable_slicing \
            --enable_tiling \
            --optimizer $optimizer \
            --beta1 0.9 \
            --beta2 0.95 \
            --weight_decay 0.001 \
            --max_grad_norm 1.0 \
            --allow_tf32 \
            --report_to wandb \
            --nccl_timeout 1800")";
}

// The shape of train_image_to_video_sft.sh's line once its variables are filled in.
const char* factoryScriptCommand() {
    return "accelerate launch --config_file accelerate_configs/deepspeed.yaml --gpu_ids 0,1 "
           "training/cogvideox_image_to_video_sft.py \\\n"
           "  --pretrained_model_name_or_path /models/CogVideoX-5b-I2V \\\n"
           "  --height_buckets 480 768 --width_buckets 720 --frame_buckets 49 81 \\\n"
           "  --mixed_precision=no --train_batch_size 2 --max_train_steps 2000 \\\n"
           "  --learning_rate 1e-5 --lr_scheduler cosine_with_restarts --optimizer adamw "
           "--use_8bit_bnb \\\n"
           "  --validation_prompt 'a cat:::a dog' --validation_images 'cat.png:::dog.png' \\\n"
           "  --validation_steps 250 --caption_dropout_p 0.05 \\\n"
           "  --noised_image_dropout 0.05 --some_new_flag 3\n";
}
