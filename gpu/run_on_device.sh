#!/bin/bash
# Runs ON THE H200 from the repo root:  export OUT; bash gpu/run_on_device.sh ENGINE [ENGINE...]   (vllm | sglang)
# Lands the carried engine packs (.gpu/device_run.sh, the recipe in ../shared/gpu), then runs each engine's driver
# from .carry_run/ENGINE (written here by gpu/prepare.py) under the probes and packs its trace folder into
# $OUT/ENGINE.tar.xz (shards, result.json, engine.log); `python gpu/collect.py` turns it into results/ here.
# Engines start one after the other's build (GPU memory is profiled at start), warm up side by side, and measure
# one at a time (the driver config's `turn`, files under $TURN); a failed engine leaves failed-ENGINE there.
set -u
OUT=${OUT:-/tmp/out}; R=.carry_run; TURN=/tmp/turn; rm -rf $TURN; mkdir -p $TURN
T0=$(date +%s); BUDGET=${BUDGET:-550}  # every engine is stopped by T0 + BUDGET s: the packing after it must fit
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1
export SGLANG_DISABLE_REQUEST_LOGGING=1 TOKENIZERS_PARALLELISM=false VLLM_USE_FLASHINFER_SAMPLER=0
bash .gpu/device_run.sh > $OUT/land.log 2>&1; tail -3 $OUT/land.log
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
start() {  # start() ENGINE: its driver in the background; failed-ENGINE when it exits non-zero
  local fw=$1 SITE
  case $fw in vllm) SITE=/tmp/site_vllm:/tmp/site_common;; sglang) SITE=/tmp/site_sgl:/tmp/site_common;; *) echo "unknown $fw"; return;; esac
  local T=/tmp/trace_$fw; rm -rf $T; mkdir -p $T/shards
  echo "[$(date +%T)] BEGIN $fw"
  ( env PYTHONPATH=$R/$fw/_boot:$SITE ATLAS_PROBES=$R/$fw/spec.json ATLAS_TRACE_DIR=$T ATLAS_TURN_DIR=$TURN \
      ATLAS_MODEL=$PWD/$R/models/qwen3-0.6b timeout -k 10 $(( T0 + BUDGET - $(date +%s) )) \
      python3 $R/$fw/_boot/drivers/${fw}_driver.py $R/$fw/engine.config.json > $T/engine.log 2>&1
    rc=$?; [ $rc -ne 0 ] && touch $TURN/failed-$fw; echo "[$(date +%T)] END $fw rc=$rc" ) &
}
prev=""
for fw in "$@"; do
  if [ -n "$prev" ]; then  # wait until the previous engine is built (or failed) before starting this one
    for i in $(seq 1 ${BUILD_WAIT:-300}); do [ -e $TURN/inited-$prev ] || [ -e $TURN/failed-$prev ] && break; sleep 1; done
    echo "[$(date +%T)] $prev built; starting $fw"
  fi
  start $fw; prev=$fw
done
wait
for fw in "$@"; do
  T=/tmp/trace_$fw; echo "== $fw"; grep "^\[driver\]" $T/engine.log | tail -40
  grep -iE "error|Traceback" $T/engine.log | tail -5
  tar -C /tmp -cf - trace_$fw | xz -T0 -6 > $OUT/$fw.tar.xz; ls -la $OUT/$fw.tar.xz
done
