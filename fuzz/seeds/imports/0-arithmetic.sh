N=4
A=$((1/0))
B=$((N%0))
C=$((9223372036854775807+1))
D=$((2**64))
E=$((1**9223372036854775807))
F=$((2**-1))
G=$((-(-(-(N)))))
if [ ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! $N -gt 2 ]; then
  X=1
fi
torchrun --nproc-per-node 8 pretrain_gpt.py --num-layers 4 --hidden-size 1024 --num-attention-heads 16 --seq-length 2048 --micro-batch-size 1 --global-batch-size 8 --padded-vocab-size 32000 --tensor-model-parallel-size $((N/2)) --seed $A$B$C$D$E$F$G
