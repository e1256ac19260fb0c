#!/bin/bash
# Runs ON THE H200 from the repo root:  export OUT; [R=.carry_run] K=4 BUDGET=540 bash gpu/run_on_device.sh
# Lands the carried engine packs (.gpu/device_run.sh, the recipe in ../shared/gpu), then starts the engine jobs of
# .carry_run/jobs.txt (written here by gpu/prepare.py), at most K alive at once, each its driver under the probes.
# Engines start side by side and measure one at a time in the jobs.txt order (the driver config's `turn`, files
# under $TURN); a failed engine leaves failed-JOB there and the next one goes on. Every trace folder (shards,
# result.json, engine.log, spec, config) is packed into $OUT/run.tar.xz; `python gpu/collect.py TARBALL...` reads it.
set -u
OUT=${OUT:-/tmp/out}; R=${R:-.carry_run}; TURN=/tmp/turn; rm -rf $TURN; mkdir -p $TURN
T0=$(date +%s); BUDGET=${BUDGET:-540}; K=${K:-4}  # every engine is stopped by T0 + BUDGET s: packing must fit after
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1
export SGLANG_DISABLE_REQUEST_LOGGING=1 TOKENIZERS_PARALLELISM=false VLLM_USE_FLASHINFER_SAMPLER=0
bash .gpu/device_run.sh > $OUT/land.log 2>&1; tail -3 $OUT/land.log
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
lscpu 2>/dev/null | grep -E "^(Model name|CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|CPU max MHz)"; cat /sys/fs/cgroup/cpu.max 2>/dev/null
echo "siblings of cpu0: $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null); allowed: $(grep Cpus_allowed_list /proc/self/status)"
start() {  # start() JOB FRAMEWORK: its driver in the background; failed-JOB when it exits non-zero
  local job=$1 fw=$2 SITE
  case $fw in vllm) SITE=/tmp/site_vllm:/tmp/site_common;; sglang) SITE=/tmp/site_sgl:/tmp/site_common;; esac
  local T=/tmp/trace/$job; rm -rf $T; mkdir -p $T/shards; cp $R/$job/spec.json $R/$job/engine.config.json $T/
  echo "[+$(( $(date +%s) - T0 ))s] BEGIN $job"
  ( env PYTHONPATH=$R/$job/_boot:$SITE ATLAS_PROBES=$R/$job/spec.json ATLAS_TRACE_DIR=$T ATLAS_TURN_DIR=$TURN \
      ATLAS_MODEL=$PWD/$R/models/qwen3-0.6b timeout -k 10 $(( T0 + BUDGET - $(date +%s) )) \
      python3 $R/$job/_boot/drivers/${fw}_driver.py $R/$job/engine.config.json > $T/engine.log 2>&1
    rc=$?; [ $rc -ne 0 ] && touch $TURN/failed-$job; echo "[+$(( $(date +%s) - T0 ))s] END $job rc=$rc" ) &
}
while read -r job fw; do
  while [ $(jobs -rp | wc -l) -ge $K ]; do sleep 1; done
  start $job $fw; sleep 2
done < $R/jobs.txt
wait
nvidia-smi --query-gpu=memory.used --format=csv,noheader
while read -r job fw; do
  echo "== $job"; grep "^\[driver\]" /tmp/trace/$job/engine.log | tail -12
  grep -E "Error|Traceback" /tmp/trace/$job/engine.log | grep -v "^\[driver\]" | tail -4
done < $R/jobs.txt
tar -C /tmp -cf - trace | xz -T0 -6 > $OUT/run.tar.xz; ls -la $OUT/run.tar.xz
