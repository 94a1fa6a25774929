#!/bin/bash
# Llama 3.1 405B pretraining with Megatron-Core on 128 GB200 NVL72 racks: 2,048 compute trays
# of 4 GPUs, 16 trays used per rack, one model replica (TP 4 x CP 2 x PP 8) per rack.
# Started by `sbatch -N 2048 llama31-405b-fairwater.sh`; each node runs one torchrun.

NNODES=${SLURM_NNODES:-2048}
GPUS_PER_NODE=4
MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
MASTER_PORT=${MASTER_PORT:-29500}
PRECISION=${PRECISION:-nvfp4}

TP=4; CP=2
PP=8
VP=8

DISTRIBUTED_ARGS="--nnodes ${NNODES} --nproc-per-node ${GPUS_PER_NODE} \
    --rdzv-backend c10d --rdzv-endpoint ${MASTER_ADDR}:${MASTER_PORT}"

MODEL_ARGS=(
    --use-mcore-models
    --num-layers 126
    --hidden-size 16384
    --ffn-hidden-size 53248
    --num-attention-heads 128
    --group-query-attention
    --num-query-groups 8
    --kv-channels 128
    --seq-length 8192
    --max-position-embeddings 8192
    --position-embedding-type rope
    --rotary-base 500000
    --use-rope-scaling
    --swiglu
    --normalization RMSNorm
    --disable-bias-linear
    --untie-embeddings-and-output-weights
    --tokenizer-type NullTokenizer
    --padded-vocab-size 32000
)

PARALLEL_ARGS=(
    --tensor-model-parallel-size ${TP}
    --context-parallel-size ${CP}
    --pipeline-model-parallel-size ${PP}
    --num-virtual-stages-per-pipeline-rank ${VP}
    --account-for-embedding-in-pipeline-split
    --account-for-loss-in-pipeline-split
    --sequence-parallel
    --use-distributed-optimizer
    --use-tp-pp-dp-mapping
    --overlap-grad-reduce
    --overlap-param-gather
)

if [[ "$PRECISION" == "nvfp4" ]]; then
    PRECISION_ARGS=(--bf16 --fp4-format e2m1 --fp4-recipe nvfp4)
elif [[ "$PRECISION" == "fp8" ]]; then
    PRECISION_ARGS=(--bf16 --fp8-format hybrid --fp8-recipe tensorwise)
else
    PRECISION_ARGS=(--bf16)
fi

TRAINING_ARGS=(
    --micro-batch-size 1
    --global-batch-size 1152
    --train-iters 330
    --lr 8e-5
    --min-lr 8e-7
    --lr-warmup-iters 8000
    --weight-decay 0.1
    --clip-grad 1.0
    --mock-data
    --log-interval 1
)

srun --ntasks-per-node=1 --container-image=nvcr.io/nvidia/nemo:25.09 \
    bash -c "torchrun ${DISTRIBUTED_ARGS} /opt/megatron-lm/pretrain_gpt.py \
        ${MODEL_ARGS[*]} ${PARALLEL_ARGS[*]} ${PRECISION_ARGS[*]} ${TRAINING_ARGS[*]}"
