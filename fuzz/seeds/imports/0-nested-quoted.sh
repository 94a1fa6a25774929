VP="${VP:-${VP:-${VP:-${VP:-${VP:-1}}}}}"
PP="${PP:-${PP:-${PP:-${PP:-${PP:-${PP:-${PP:-${PP:-${PP:-${PP:-${PP:-${PP:-${PP:-${PP:-${PP:-${PP:-${PP:-${PP:-${PP:-${PP:-2}}}}}}}}}}}}}}}}}}}}"
torchrun --nproc-per-node 8 pretrain_gpt.py --num-layers 4 --hidden-size 1024 --num-attention-heads 16 --seq-length 2048 --micro-batch-size 1 --global-batch-size 8 --padded-vocab-size 32000 --pipeline-model-parallel-size $PP --num-layers-per-virtual-pipeline-stage $VP
