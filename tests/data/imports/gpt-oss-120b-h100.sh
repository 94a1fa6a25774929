#!/bin/bash
# gpt-oss-120b pretraining with Megatron-Core on 8 DGX H100 nodes (64 GPUs): four pipeline
# stages, experts over the 8 GPUs of a node, in BF16, the layout of Megatron-Bridge's 26.04
# H100 recipe. The model flags are those of Megatron-LM's gpt-oss example: a clamped
# quick-GEGLU, YaRN (factor 32), biases on every linear layer (no --disable-bias-linear); the
# loss in Transformer Engine's cross-entropy, as Megatron-Bridge's performance scripts run it.
# Started by `sbatch -N 8 gpt-oss-120b-h100.sh`; each node runs one torchrun.

NNODES=${SLURM_NNODES:-8}
GPUS_PER_NODE=8
MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)

MODEL_ARGS=(
    --use-mcore-models
    --num-layers 36
    --hidden-size 2880
    --ffn-hidden-size 2880
    --num-attention-heads 64
    --group-query-attention
    --num-query-groups 8
    --kv-channels 64
    --seq-length 4096
    --max-position-embeddings 131072
    --position-embedding-type yarn
    --rotary-base 150000
    --rotary-scaling-factor 32
    --normalization RMSNorm
    --untie-embeddings-and-output-weights
    --tokenizer-type NullTokenizer
    --padded-vocab-size 201088
    # gpt-oss
    --quick-geglu
    --glu-linear-offset 1.0
    --activation-func-clamp-value 7.0
    --softmax-type learnable
    --window-size 128,0
    --window-attn-skip-freq 2
)

MOE_ARGS=(
    --num-experts 128
    --moe-router-topk 4
    --moe-ffn-hidden-size 2880
    --moe-router-load-balancing-type none
    --moe-token-dispatcher-type alltoall
    --moe-grouped-gemm
    --expert-model-parallel-size 8
    --expert-tensor-parallel-size 1
)

PARALLEL_ARGS=(
    --tensor-model-parallel-size 1
    --pipeline-model-parallel-size 4
    --use-distributed-optimizer
    --overlap-grad-reduce
    --overlap-param-gather
    --recompute-granularity selective
    --recompute-modules layernorm moe_act
)

TRAINING_ARGS=(
    --micro-batch-size 1
    --global-batch-size 1280
    --train-iters 1000
    --bf16
    --cross-entropy-loss-fusion
    --cross-entropy-fusion-impl te
    --lr 3e-4
)

torchrun --nnodes ${NNODES} --nproc-per-node ${GPUS_PER_NODE} \
    --rdzv-backend c10d --rdzv-endpoint ${MASTER_ADDR}:29500 \
    pretrain_gpt.py "${MODEL_ARGS[@]}" "${MOE_ARGS[@]}" "${PARALLEL_ARGS[@]}" \
    "${TRAINING_ARGS[@]}"
