#!/usr/bin/env bash
# The Hugging Face Trainer on N GPUs of one host (default 8) through `accelerate launch`, with DistributedDataParallel
# (bench/accelerate/ddp.yaml) and FSDP2 (bench/accelerate/fsdp.yaml): issue 24, item 3. Each run's console is kept as
# people keep it (2>&1 | tee), its true steady step beside it (a callback, bench/multigpu_trainer_accelerate.py), and a
# run file in the project's keys names the log. Outputs under OUTDIR in src/test/resources' layout
# (runs/hf-trainer-Nxh200/, logs/hf-trainer-Nxh200/), packed as OUTDIR.tar.gz.
# Usage: bench/multigpu_trainer_accelerate.sh OUTDIR [N] [ddp] [fsdp]    (about 2 minutes a run on 8 H200)
#        STEPS=6 for a short test (the steady step needs at least 7 steps: it is taken from step 6 on)
set -uo pipefail
out=${1:?usage: $0 OUTDIR [N] [ddp] [fsdp]}
n=${2:-8}
case "$n" in ''|*[!0-9]*) echo "error: N must be a number of GPUs, got '$n' (usage: $0 OUTDIR [N] [ddp] [fsdp])" >&2; exit 2;; esac
shift $(( $# >= 2 ? 2 : 1 ))
configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=(ddp fsdp)
here=$(cd "$(dirname "$0")" && pwd)
# NVLink multicast off in every process accelerate starts (it can put the lent host's GPUs out of service)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
mkdir -p "$out"
names=()
for c in "${configs[@]}"; do
  name="$c"
  echo "== $name: accelerate launch --config_file $here/accelerate/$c.yaml --num_processes $n" >&2
  accelerate launch --config_file "$here/accelerate/$c.yaml" --num_processes "$n" \
      "$here/multigpu_trainer_accelerate.py" "$name" "$out" "${STEPS:-30}" 2>&1 | tee "$out/$name.log"
  echo "== $name: exit ${PIPESTATUS[0]}" >&2
  names+=("$name")
done
python3 "$here/multigpu_trainer_accelerate.py" --finish "$out" "$n" "${names[@]}"
tar -czf "$out.tar.gz" -C "$out" .
echo "archive: $out.tar.gz" >&2
